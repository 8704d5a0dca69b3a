/**
 * The proxy's server side: an `McpHandler` that answers every request by forwarding it to an
 * upstream server, so that core serves it over any transport (Streamable HTTP in both eras with
 * sessions and resumability, stdio) with core's own HTTP semantics and OAuth resource server.
 *
 * The upstream model: a legacy downstream session (2024-11-05 … 2025-11-25, `Mcp-Session-Id`) gets
 * an upstream connection of its own — for a command, its own process — opened on its first request
 * and closed with the session, so the upstream's per-session state (log level, subscriptions, roots)
 * and its questions stay with that client. Stateless 2026-07-28 requests (and a stdio downstream,
 * one client) share one connection, opened at start to learn what the upstream serves.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { McpApp, McpContext, McpHandler, NotificationContext, SessionChange, SessionInfo, SessionStore } from '@hermes-mcp/core';
import type { CallOptions, LogMessage, McpClient } from '@hermes-mcp/client';
import { ErrorCode, McpError, META_KEYS, TRACE_CHANNELS, encodeHeaderValue, headerParamsOf, isRecord } from '@hermes-mcp/protocol';
import type { ClientCapabilities, Implementation, JsonRpcNotification, ProgressUpdate, ProtocolVersion, ServerCapabilities, SessionEvent } from '@hermes-mcp/protocol';
import { gatewayError } from './errors';
import { followTask } from './tasks';
import { DownstreamRequest, UpstreamConnection, UpstreamOptions, UpstreamSpec } from './upstream';

/** Options of an {@link UpstreamProxy}: the upstream connections' options, and the revision of a session's. */
export interface UpstreamProxyOptions extends Omit<
  UpstreamOptions,
  'onListChanged' | 'onResourceUpdated' | 'protocolVersion' | 'oneClient' | 'capabilities' | 'listenForListChanges'
> {
  /**
   * The revision a 2025-era session's upstream connection speaks. `session` (default): the
   * session's own, so the upstream shapes its answers and errors for it, and asks its questions
   * as requests of the session. `newest`: 2026-07-28 when the upstream speaks it, its questions
   * then input rounds the gateway answers through the session — for upstreams that serve older
   * revisions without asking anything (the SDK v2's `createMcpHandler`); their answers are then
   * 2026-07-28's, passed on as they are.
   */
  sessionRevision?: 'session' | 'newest';
}

/** The `_meta` keys of the downstream's own envelope and correlation, which the upstream client makes anew. */
function forwardedMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  let kept: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'progressToken' || key.startsWith('io.modelcontextprotocol/')) continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}

/** The upstream's 2026-07-28 answer without what the downstream's engine writes anew for its own revision. */
function withoutEnvelope(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta && META_KEYS.serverInfo in meta) {
    const { [META_KEYS.serverInfo]: _info, ...kept } = meta;
    if (Object.keys(kept).length > 0) rest._meta = kept;
    else delete rest._meta;
  }
  return rest;
}

/** The key of a stdio downstream's legacy session (it has no id: one client per process). */
const STDIO_SESSION = '\u0000stdio';

/** Most input rounds one forwarded 2026-07-28 request may take upstream. */
const MAX_ROUNDS = 10;

/** What {@link UpstreamProxy.taskSupport} says of every tool: a task when the upstream starts one. */
const MANUAL_TASK = Object.freeze({ mode: 'optional' as const, start: 'manual' as const });

/** True when the upstream declared the tasks extension. */
function hasTasks(capabilities: ServerCapabilities): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  return !!extensions && TASKS in extensions;
}

/**
 * The capabilities the downstream sees: the upstream's, less the tasks extension, which core
 * declares when the gateway serves tasks, and less 2025-11-25's `tasks`: the gateway runs an
 * upstream's task-only tools itself, as plain calls ({@link UpstreamProxy} `callAsTask`).
 */
function servedCapabilities(capabilities: ServerCapabilities): ServerCapabilities {
  const { tasks: _legacyTasks, ...served } = capabilities as ServerCapabilities & { tasks?: unknown };
  const extensions = served.extensions as Record<string, unknown> | undefined;
  if (!extensions || !(TASKS in extensions)) return served;
  const { [TASKS]: _tasks, ...rest } = extensions;
  return { ...served, extensions: rest };
}

/** A tool as the upstream listed it. */
type ListedTool = { name: string; inputSchema?: object; execution?: { taskSupport?: string } };

/**
 * A tool as the downstream sees it: without 2025-11-25's `execution.taskSupport`, since the
 * gateway serves no 2025-11-25 tasks — it calls a task-only tool as a task upstream and answers
 * the downstream's plain call with the task's result.
 */
export function servedTool<T extends ListedTool>(tool: T): T {
  if (tool.execution?.taskSupport === undefined) return tool;
  const { taskSupport: _support, ...execution } = tool.execution;
  const { execution: _execution, ...rest } = tool;
  return (Object.keys(execution).length > 0 ? { ...rest, execution } : rest) as T;
}

/** How long an upstream's 2025-11-25 task the gateway starts is kept after it ends (its `ttl`). */
const LEGACY_TASK_TTL_MS = 60_000;
/** The `_meta` key that ties a 2025-11-25 message to its task (the upstream's: not the downstream's business). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TASKS = 'io.modelcontextprotocol/tasks';

/** True for core's signal that a 2026-07-28 round needs the client's input first (it is not an Error). */
function isInputRequired(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { inputRequired?: unknown }).inputRequired === true;
}

/** What {@link UpstreamProxy.attach} tells of the upstream: an `McpApp` is one. */
export type ProxyListener = Pick<McpApp, 'notifyListChanged' | 'notifyResourceUpdated'>;

/**
 * Serves one upstream server as a Hermes `McpHandler`. Make it with {@link UpstreamProxy.create}
 * (which connects to learn the upstream's capabilities), give it to `McpFactory.create`, then
 * {@link attach} the app so the upstream's list changes and resource updates reach the clients.
 *
 * @example
 * const proxy = await UpstreamProxy.create({ command: 'node', args: ['server.js'] });
 * const app = McpFactory.create(proxy);
 * proxy.attach(app);
 * http.createServer(toNodeListener(createWebHandler(app))).listen(3000, '127.0.0.1');
 */
export class UpstreamProxy implements McpHandler {
  /** The upstream's name and version. */
  serverInfo: Implementation = { name: 'hermes-mcp-gateway', version: '0.1.0' };
  /** The upstream's capabilities, as it declared them. */
  capabilities: ServerCapabilities = {};
  /** The upstream's instructions. */
  instructions?: string = undefined;
  /**
   * Set when the upstream serves the tasks extension (2026-07-28): every tool may answer with a
   * task, started by the upstream — the gateway then starts one of its own for the client
   * (`ctx.runAsTask`) that follows the upstream's to its end, its questions and cancellation
   * passed on. Core declares the extension for it.
   */
  taskSupport?: (toolName: string) => { mode: 'optional'; start: 'manual' } = undefined;
  private app?: ProxyListener = undefined;
  private readonly shared: UpstreamConnection;
  private readonly sessions = new Map<string, UpstreamConnection>();
  /** Tools' input schemas as the upstream listed them, for the `Mcp-Param-*` header checks of 2026-07-28. */
  private readonly toolSchemas = new Map<string, object>();
  /** The tools a 2025-11-25 upstream runs only as tasks (`execution.taskSupport: "required"`). */
  private readonly taskOnly = new Set<string>();
  private readonly unsubscribe: () => void;

  private constructor(
    readonly spec: UpstreamSpec,
    private readonly options: UpstreamProxyOptions,
  ) {
    this.shared = this.connection({ listenForListChanges: true, tasks: true });
    const onClosed = (event: unknown) => {
      const id = (event as SessionEvent).sessionId;
      const connection = id === undefined ? undefined : this.sessions.get(id);
      if (!connection) return;
      this.sessions.delete(id!);
      void connection.close();
    };
    subscribe(TRACE_CHANNELS.sessionClosed, onClosed);
    this.unsubscribe = () => void unsubscribe(TRACE_CHANNELS.sessionClosed, onClosed);
  }

  /** A proxy of `spec`, connected once to learn what it serves (its capabilities, tools, name). */
  static async create(spec: UpstreamSpec, options: UpstreamProxyOptions = {}): Promise<UpstreamProxy> {
    const proxy = new UpstreamProxy(spec, options);
    try {
      const described = await proxy.shared.describe();
      proxy.capabilities = servedCapabilities(described.capabilities);
      if (described.era === 'modern' && hasTasks(described.capabilities)) proxy.taskSupport = () => MANUAL_TASK;
      if (described.serverInfo) proxy.serverInfo = described.serverInfo;
      proxy.instructions = described.instructions;
      if (described.capabilities.tools) proxy.learnTools(await (await proxy.shared.client()).listAllTools());
    } catch (error) {
      await proxy.close();
      throw error;
    }
    return proxy;
  }

  /**
   * The app serving this proxy (or whatever else should hear them, as a remote mount does): the
   * upstream's list changes and resource updates are told to it.
   */
  attach(app: ProxyListener): void {
    this.app = app;
  }

  /** The connection requests without a 2025-era session share (also what lists and completions of a remote mount use). */
  get sharedConnection(): UpstreamConnection {
    return this.shared;
  }

  /**
   * Forwards one request to the upstream connection of its session (or the shared one): `request`
   * (default the context's own; a remote mount gives the upstream's names) until `signal` aborts
   * (default the context's).
   */
  async handleRequest(ctx: McpContext, request: McpContext['request'] = ctx.request, signal: AbortSignal = ctx.signal): Promise<Record<string, unknown>> {
    const { method } = request;
    const connection = this.connectionOf(ctx);
    // A 2026-07-28 downstream's input round ends the upstream call early (below), so its call gets a
    // signal of its own that the downstream's cancellation aborts too; a legacy downstream's call
    // runs on the downstream's signal itself (no second AbortSignal per call).
    const abort = ctx.session.era === 'modern' ? new AbortController() : undefined;
    const downstream = new Forwarded(ctx, abort);
    const meta = forwardedMeta(request._meta);
    // The downstream's cancellation ends that own signal (a listener, not AbortSignal.any: a
    // composite signal per call is weak references and finalizers the collector pays for).
    const cancelled = abort && (() => abort.abort(signal.reason));
    if (cancelled) {
      if (signal.aborted) cancelled();
      else signal.addEventListener('abort', cancelled, { once: true });
    }
    const options: CallOptions = {
      signal: abort?.signal ?? signal,
      // Progress only where the downstream asked for it (its token): without one there is no one to tell.
      ...(request._meta?.progressToken !== undefined && { onProgress: (update: ProgressUpdate) => downstream.progress(update) }),
      ...(meta && { meta }),
    };
    const { _meta: _ignored, ...params } = request.params;
    let result: Record<string, unknown>;
    try {
      result = await connection.run(downstream, (client) =>
        ctx.session.era === 'modern' && client.era === 'modern' ? this.forwardRounds(client, ctx, method, params, options) : this.forward(client, method, params, options),
      );
    } catch (error) {
      await downstream.settled();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- core's control-flow signal: the round ends asking the client
      if (downstream.inputRequired !== undefined) throw downstream.inputRequired;
      throw error;
    } finally {
      if (cancelled) signal.removeEventListener('abort', cancelled);
    }
    await downstream.settled();
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- core's control-flow signal: the round ends asking the client
    if (downstream.inputRequired !== undefined) throw downstream.inputRequired;
    if (method === 'tools/list' && Array.isArray(result.tools)) {
      this.learnTools(result.tools as ListedTool[]);
      return { ...result, tools: (result.tools as ListedTool[]).map(servedTool) };
    }
    return result;
  }

  /** The input schema the upstream listed for `toolName`. */
  inputSchemaOf(toolName: string): object | undefined {
    return this.toolSchemas.get(toolName);
  }

  /** Passes the downstream's `notifications/roots/list_changed` on to its upstream connection. */
  async handleNotification(notification: JsonRpcNotification, ctx: NotificationContext): Promise<void> {
    if (notification.method !== 'notifications/roots/list_changed') return;
    const connection = this.sessions.get(ctx.session.id ?? STDIO_SESSION);
    if (!connection) return;
    // The upstream asks for the roots now, outside any call: its client answers through this notification's context.
    connection.idle ??= {
      ask: async (method) => {
        if (method !== 'roots/list') throw gatewayError('GATEWAY_QUESTION_UNROUTABLE', connection.name, `${method} outside any request of this session`);
        return { roots: await ctx.listRoots() };
      },
      log: () => undefined,
    };
    const client = await connection.client().catch(() => undefined);
    await client?.notify(notification.method, notification.params).catch(() => undefined);
  }

  /**
   * A client subscribes to `uri`: the upstream connection that serves it is subscribed too, before
   * the client is answered — a 2026-07-28 listen stream's on the shared connection, the stdio
   * client's session on its own. A legacy HTTP session's is made by {@link watchSessions}, which
   * also passes its unsubscribing on.
   */
  async handleSubscribe(uri: string, session?: SessionInfo): Promise<void> {
    if (session?.id !== undefined) return;
    const connection = session ? this.sessionConnection(STDIO_SESSION, session.protocolVersion, session.clientCapabilities) : this.shared;
    await connection.subscribe(uri);
  }

  /** Closes every upstream connection. */
  async close(): Promise<void> {
    this.unsubscribe();
    const all = [this.shared, ...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  private async forward(client: McpClient, method: string, params: Record<string, unknown>, options: CallOptions, raw = false): Promise<Record<string, unknown>> {
    if (client.era !== 'modern') {
      if (method !== 'tools/call') return client.request(method, params, options);
      const { task: _task, ...call } = params;
      return this.taskOnly.has(String(call.name)) ? this.callAsTask(client, call, options) : client.request(method, call, options);
    }
    // A 2026-07-28 upstream over HTTP wants some arguments in headers too: callTool mirrors them.
    const result =
      method === 'tools/call' && typeof params.name === 'string'
        ? await client.request('tools/call', params, this.withParamHeaders(params, options))
        : await client.request(method, params, options);
    return raw ? result : withoutEnvelope(result);
  }

  /**
   * A 2026-07-28 request to a 2026-07-28 upstream. The upstream's input rounds are the
   * downstream's: each question goes to the client under the upstream's own key (several in one
   * round, as the upstream asked them), and the round ends there until the client answers. Core
   * seals the answers into its own `requestState`; on the client's retry the call is made again
   * from its first round and each question is answered from the client's, so the upstream's
   * `requestState` never leaves the gateway and the downstream's is core's, checked as its own.
   */
  private async forwardRounds(client: McpClient, ctx: McpContext, method: string, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    const { inputResponses: _responses, requestState: _state, ...fresh } = params;
    // The upstream asks what the downstream client can answer: its capabilities, not the gateway's.
    const own: CallOptions = {
      ...options,
      answerInputRequests: false,
      meta: { ...options.meta, [META_KEYS.clientCapabilities]: ctx.session.clientCapabilities },
    };
    let result = await this.forward(client, method, fresh, own, true);
    for (let round = 1; result.resultType === 'input_required'; round++) {
      if (round > MAX_ROUNDS) throw new McpError(ErrorCode.InternalError, `${method}: the upstream still asks for input after ${MAX_ROUNDS} rounds`);
      const questions = (typeof result.inputRequests === 'object' && result.inputRequests !== null ? result.inputRequests : {}) as Record<
        string,
        { method: string; params?: Record<string, unknown> }
      >;
      const inputResponses: Record<string, unknown> = {};
      let unanswered: unknown;
      for (const [key, question] of Object.entries(questions)) {
        try {
          inputResponses[key] = await ctx.forwardQuestion(question.method as 'elicitation/create', question.params ?? {}, { key });
        } catch (error) {
          if (!isInputRequired(error)) throw error;
          unanswered = error;
        }
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- core's control-flow signal: the round ends asking the client
      if (unanswered !== undefined) throw unanswered;
      result = await this.forward(client, method, { ...fresh, inputResponses, ...(result.requestState !== undefined && { requestState: result.requestState }) }, own, true);
    }
    if (result.resultType === 'task' && typeof result.taskId === 'string') return this.followTask(client, ctx, result.taskId, options);
    return withoutEnvelope(result);
  }

  /**
   * The upstream answered with a task: the client gets a task of the gateway's (core's, through
   * `ctx.runAsTask`) whose work follows the upstream's — `tasks/get` until it ends, its questions
   * asked of the client through the gateway's task (`tasks/update` answers them), a `tasks/cancel`
   * of the client's cancelling the upstream's.
   */
  private followTask(client: McpClient, ctx: McpContext, taskId: string, options: CallOptions): Promise<Record<string, unknown>> {
    const connection = this.shared;
    return ctx.runAsTask(async (task) => {
      const downstream: DownstreamRequest = {
        ask: (question, params) => task.forwardQuestion(question, params),
        log: (message) => void task.notify(message.level, message.data, message.logger).catch(() => undefined),
      };
      const follow: CallOptions = options.meta ? { meta: options.meta } : {};
      return withoutEnvelope(await connection.run(downstream, () => followTask(client, task, taskId, follow)));
    });
  }

  /**
   * The options of a `tools/call` to a 2026-07-28 upstream: the arguments its tool declares with
   * `x-mcp-header` go in `Mcp-Param-*` headers too, as the upstream listed the tool.
   */
  private withParamHeaders(params: Record<string, unknown>, options: CallOptions): CallOptions {
    const schema = this.toolSchemas.get(String(params.name));
    const declarations = schema ? headerParamsOf(schema) : [];
    if (declarations.length === 0) return options;
    const headers: Record<string, string> = { ...options.headers };
    for (const { path, header } of declarations) {
      let value: unknown = params.arguments;
      for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
      const encoded = encodeHeaderValue(value);
      if (encoded !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encoded;
    }
    return { ...options, headers };
  }

  /**
   * `store`, watched: a session's `resources/subscribe` and `resources/unsubscribe` (which core
   * answers from the session's own state, and keeps in its store) are made on the session's
   * upstream connection too, before the client gets its answer; a session deleted closes its
   * connection. Give it as the HTTP endpoint's `sessionStore` ({@link serveHttp} does).
   */
  watchSessions(store: SessionStore): SessionStore {
    const changed = async (id: string, change: SessionChange): Promise<void> => {
      const uri = 'subscribe' in change ? change.subscribe : 'unsubscribe' in change ? change.unsubscribe : undefined;
      if (uri === undefined) return;
      const record = await store.get(id);
      if (!record) return;
      const connection = this.sessionConnection(id, record.protocolVersion as ProtocolVersion, record.clientCapabilities);
      const client = await connection.client();
      if (client.era !== 'legacy' || !client.serverCapabilities.resources?.subscribe) return;
      await ('subscribe' in change ? client.subscribe(uri) : client.unsubscribe(uri));
    };
    return {
      create: (record, idleMs) => store.create(record, idleMs),
      update: async (id, change) => {
        await store.update(id, change);
        await changed(id, change);
      },
      get: (id) => store.get(id),
      touch: (id, idleMs) => store.touch(id, idleMs),
      delete: (id) => {
        const connection = this.sessions.get(id);
        this.sessions.delete(id);
        void connection?.close();
        return store.delete(id);
      },
    };
  }

  private connectionOf(ctx: McpContext): UpstreamConnection {
    if (ctx.session.era !== 'legacy') return this.shared;
    // A legacy connection without a session id is the process's one client (stdio).
    const id = typeof ctx.transport.sessionId === 'string' ? ctx.transport.sessionId : STDIO_SESSION;
    return this.sessionConnection(id, ctx.session.protocolVersion, ctx.session.clientCapabilities);
  }

  /**
   * The upstream connection of the legacy session `id`, opened for it: at its revision (so the
   * upstream shapes its results for it, as a multi-revision server does), with its client's
   * capabilities, its questions and log messages for its client only.
   */
  private sessionConnection(id: string, protocolVersion: ProtocolVersion, capabilities: ClientCapabilities): UpstreamConnection {
    let connection = this.sessions.get(id);
    if (!connection) {
      const revision = this.options.sessionRevision === 'newest' ? 'auto' : protocolVersion;
      this.sessions.set(id, (connection = this.connection({ protocolVersion: revision, oneClient: true, capabilities })));
    }
    return connection;
  }

  private connection(own: Pick<UpstreamOptions, 'protocolVersion' | 'oneClient' | 'capabilities' | 'listenForListChanges' | 'tasks'> = {}): UpstreamConnection {
    const { sessionRevision: _revision, ...options } = this.options;
    return new UpstreamConnection(this.spec, {
      ...options,
      ...own,
      onListChanged: (list) => this.app?.notifyListChanged(list),
      onResourceUpdated: (uri) => this.app?.notifyResourceUpdated(uri),
    });
  }

  /** Keeps what the gateway needs of the upstream's tools: their input schemas, and which run only as tasks. */
  learnTools(tools: readonly ListedTool[]): void {
    for (const tool of tools) {
      if (tool.inputSchema) this.toolSchemas.set(tool.name, tool.inputSchema);
      if (tool.execution?.taskSupport === 'required') this.taskOnly.add(tool.name);
      else this.taskOnly.delete(tool.name);
    }
  }

  /**
   * A 2025-11-25 upstream's task-only tool, called for a downstream's plain call: started as a task
   * (`params.task`), then `tasks/result`, which answers once the task ends — the questions the task
   * asks meanwhile come on that request and go to the downstream as any other's. The downstream
   * cancelling its call cancels the task (`tasks/cancel`).
   */
  private async callAsTask(client: McpClient, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    const created = await client.request('tools/call', { ...params, task: { ttl: LEGACY_TASK_TTL_MS } }, options);
    const taskId = isRecord(created.task) ? created.task.taskId : undefined;
    // Answered at once after all (a server may run a short call plainly).
    if (typeof taskId !== 'string') return created;
    const cancel = () => void client.request('tasks/cancel', { taskId }).catch(() => undefined);
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      const result = await client.request('tasks/result', { taskId }, options);
      const meta = result._meta as Record<string, unknown> | undefined;
      if (!meta || !(RELATED_TASK in meta)) return result;
      const { [RELATED_TASK]: _related, ...kept } = meta;
      const { _meta: _dropped, ...rest } = result;
      return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }
}

/**
 * The downstream side of one forwarded request (what {@link UpstreamConnection.run} routes the
 * upstream's questions and log messages to): methods, not closures, since a busy gateway holds one
 * per request in flight.
 */
class Forwarded implements DownstreamRequest {
  /** A 2026-07-28 downstream's input round that ended this request (rethrown once the call is over). */
  inputRequired: unknown = undefined;
  /** The notifications passed on for this request, each out before its answer (made on the first). */
  private sent?: Promise<void>[] = undefined;

  constructor(
    private readonly ctx: McpContext,
    /** What ends the upstream call when the downstream's round ends asking its client. */
    private readonly abort: AbortController | undefined,
  ) {}

  async ask(question: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.ctx.forwardQuestion(question, params);
    } catch (error) {
      // 2026-07-28 downstream: the round ends asking the client; the upstream call is dropped and
      // made again when the client retries with its answers (the upstream's question then answered).
      if (isInputRequired(error)) {
        this.inputRequired ??= error;
        this.abort?.abort();
      }
      throw error;
    }
  }

  log(message: LogMessage): void {
    (this.sent ??= []).push(this.ctx.notify(message.level, message.data, message.logger).catch(() => undefined));
  }

  progress(update: ProgressUpdate): void {
    (this.sent ??= []).push(this.ctx.progress(update.progress, update.total, update.message).catch(() => undefined));
  }

  /** Resolves once every notification passed on so far is out. */
  async settled(): Promise<void> {
    if (this.sent) await Promise.all(this.sent);
  }
}
