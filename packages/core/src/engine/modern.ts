/**
 * The modern era (MCP 2026-07-28): stateless requests that carry their own `_meta` envelope.
 *
 * One function per step, in the order the spec and the conformance suite expect: the envelope
 * (-32602, HTTP 400), the version (-32022, HTTP 400), the method (-32601, HTTP 404), then the
 * same handler as the legacy era, and the result shaped for 2026: `resultType`, cache hints,
 * `serverInfo` in `_meta`, unknown resources as -32602, questions to the client as
 * `InputRequiredResult` rounds (MRTR) with their answers sealed in `requestState`.
 */
import {
  ErrorCode,
  InboundRequestExtra,
  JsonRpcRequest,
  McpError,
  META_KEYS,
  RequestId,
  ServerCapabilities,
  TransportInfo,
  describeValue,
  isRecord,
  merge,
  copyInto,
} from '@hermes-mcp/protocol';
import { elicitationForms } from '../schema/elicitation-schema';
import { ContextParts, InputRound, McpContext, RequestChannel, ServerActions, SessionInfo, isInputRequired } from '../context/mcp-context';
import type { McpHandler } from './mcp-handler';
import type { CacheHints } from '../metadata/options';
import { LazyChildLogger, Logger } from '../logger';
import type { RequestStateCodec } from './request-state';
import { toCallToolResult } from '../results/normalize';
import type { ClusterMessage } from '../stores/cluster';
import { TASKS_EXTENSION, TaskInputs, TaskOptions, TaskStartedSignal, Tasks } from './tasks';
import { MethodSpec, ModernOwner } from './methods';
import { Admitted, SUPPORTED, needsTasks, status } from './modern-checks';
import type { Envelope, ModernCall, ModernSink } from './modern-call';
import { withTimeout } from './timeout';
import { traceInputRequests } from '../diagnostics';

/** One open `subscriptions/listen` stream. @internal */
export interface Listener {
  id: RequestId;
  filter: { toolsListChanged?: boolean; promptsListChanged?: boolean; resourcesListChanged?: boolean; resourceSubscriptions?: string[] };
  send(method: string, params: Record<string, unknown>): void;
  /** Ends the stream with its result (server shutdown). */
  end(): void;
}

/** Options of the modern handler. For the Hermes packages. */
export interface ModernOptions {
  logger: Logger;
  /** What the contexts of its requests reach for server-wide actions (the app). */
  server: ServerActions;
  states: RequestStateCodec;
  cache: Required<CacheHints>;
  /** Longest time a handler may run, in milliseconds (not listen streams); default: no limit. */
  handlerTimeout?: number;
  /** Task lifetimes and poll hints (tasks extension). */
  tasks?: TaskOptions;
  /** Tells the cluster's other instances (the engine's): `tasks/cancel` and `tasks/update` reach a task running elsewhere. */
  tell?: (message: ClusterMessage) => void;
}

/** One request's input round, and what its request state is bound to. */
interface OpenRound {
  round: InputRound;
  request: JsonRpcRequest;
  params: Record<string, unknown>;
  /** Which round of the request this is (1 without a request state). */
  number: number;
}

/** No answers yet: shared by every first round, which never writes to it. */
const EMPTY_ANSWERS: Record<string, unknown> = Object.freeze({});

/** What a request state is bound to: the method and the tool, prompt or resource it names. */
function bindOf(request: JsonRpcRequest, params: Record<string, unknown>): string {
  const target = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : '';
  return `${request.method}\u0000${target}`;
}

/** Serves modern-era requests with the server's handler. For the Hermes packages. */
export class ModernHandler implements ModernOwner {
  private readonly listeners = new Set<Listener>();
  private readonly inFlight = new Set<InboundRequestExtra>();
  private draining = false;
  private drainPromise?: Promise<void>;
  /** Settles {@link drainPromise} once the last request in flight finished. */
  private drained?: () => void;
  private readonly tasks: Tasks;

  constructor(
    private readonly handler: McpHandler,
    private readonly options: ModernOptions,
  ) {
    this.tasks = new Tasks(options.tasks, options.logger, options.tell);
  }

  /** A task's change broadcast by another instance of the cluster. @internal */
  taskMessage(message: ClusterMessage & { kind: 'task' }): void {
    this.tasks.clusterMessage(message);
  }

  private sharedMeta?: { info: unknown; meta: Readonly<Record<string, unknown>> };

  /** `_meta` with the server's info, one frozen object for as long as the info is the same. */
  private get serverMeta(): Readonly<Record<string, unknown>> {
    const info = this.handler.serverInfo;
    if (this.sharedMeta?.info !== info) this.sharedMeta = { info, meta: Object.freeze({ [META_KEYS.serverInfo]: info }) };
    return this.sharedMeta.meta;
  }

  /** The versions this server serves in the modern era (discover, -32022). */
  get supportedVersions(): readonly string[] {
    return SUPPORTED;
  }

  /** Open listen streams. */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /**
   * Answers one modern request whose envelope was read and version checked. `sink` receives the
   * request's notifications (progress, logs; listen streams); `logBindings` (from a tracer) go on
   * its logger.
   */
  async handle(
    request: JsonRpcRequest,
    { spec, envelope }: Admitted,
    extra: InboundRequestExtra,
    transport: TransportInfo,
    sink: ModernSink,
    logBindings?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (this.draining) throw status(McpError.shuttingDown('no new requests are taken'), 503);
    this.inFlight.add(extra);
    try {
      return await this.dispatch(spec, request, envelope, extra, transport, sink, logBindings);
    } finally {
      this.inFlight.delete(extra);
      if (this.draining && this.inFlight.size === 0) this.drained?.();
    }
  }

  private async dispatch(
    spec: MethodSpec,
    request: JsonRpcRequest,
    envelope: Envelope,
    extra: InboundRequestExtra,
    transport: TransportInfo,
    sink: ModernSink,
    logBindings: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>> {
    const params = request.params ?? EMPTY_ANSWERS;
    const tasksDeclared = isRecord(envelope.capabilities.extensions) && TASKS_EXTENSION in envelope.capabilities.extensions;
    if (spec.extension === 'tasks' && !tasksDeclared) throw needsTasks(`${request.method} belongs to the tasks extension`);
    if (spec.owner === 'modern') return this.complete(spec, await spec.serve(this, { request, params, envelope, extra, sink }));
    const session: SessionInfo = { era: 'modern', protocolVersion: envelope.version, clientInfo: envelope.clientInfo, clientCapabilities: envelope.capabilities };
    // A name that is not a string is refused by the handler (-32602); it names no task tool.
    const toolName = request.method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    const taskSupport = toolName !== undefined && this.handler.taskSupport ? this.handler.taskSupport(toolName) : undefined;
    if (taskSupport?.mode === 'required' && !tasksDeclared) throw needsTasks(`the tool "${toolName}" runs only as a task`);
    const channel: RequestChannel = {
      notify: (_id, method, p) => sink.notify(method, p),
      request: () => Promise.reject(McpError.internalError('server→client requests do not exist in MCP 2026-07-28')),
      logLevel: () => envelope.logLevel,
      forms: elicitationForms,
    };
    const parts: ContextParts = {
      request: { id: request.id, method: request.method, params, _meta: envelope.meta },
      session,
      transport,
      extra,
      channel,
      log: logBindings ? new LazyChildLogger(this.options.logger, logBindings) : this.options.logger,
      server: this.options.server,
    };
    if (taskSupport?.start === 'auto' && tasksDeclared) return this.startTask(spec, parts);
    const round = spec.rounds ? this.openRound(request, params) : undefined;
    // A `manual` task tool asks its questions through MRTR first, then `ctx.runAsTask` starts the task.
    const starter =
      taskSupport?.start === 'manual' && tasksDeclared
        ? <T>(work: (ctx: McpContext) => Promise<T>): never => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error -- a control-flow signal carrying the task's handle
            throw new TaskStartedSignal(this.startTask(spec, parts, work));
          }
        : undefined;
    const ctx = new McpContext(parts, round?.round, starter);
    let result: Record<string, unknown>;
    try {
      result = await withTimeout(
        ctx,
        this.options.handlerTimeout,
        () => this.handler.handleRequest(ctx),
        (error) => {
          throw error;
        },
      );
    } catch (error) {
      if (error instanceof TaskStartedSignal) return error.handle;
      if (round?.round.asked) return this.inputRequired(round, transport, envelope.version);
      if (isInputRequired(error)) throw McpError.internalError('input requests are only available in tools/call, prompts/get and resources/read');
      throw this.modernError(error, params);
    }
    // A handler that swallowed the signal still asked: its outcome does not count.
    if (round?.round.asked) return this.inputRequired(round, transport, envelope.version);
    return this.complete(spec, result);
  }

  /** Sends a list change or resource update to the listen streams that asked for it. */
  publish(method: string, params: Record<string, unknown> = {}): void {
    for (const listener of this.listeners) {
      const f = listener.filter;
      const wanted =
        (method === 'notifications/tools/list_changed' && f.toolsListChanged) ||
        (method === 'notifications/prompts/list_changed' && f.promptsListChanged) ||
        (method === 'notifications/resources/list_changed' && f.resourcesListChanged) ||
        (method === 'notifications/resources/updated' && typeof params.uri === 'string' && f.resourceSubscriptions?.includes(params.uri));
      if (wanted) listener.send(method, params);
    }
  }

  /** True once {@link drain} began: new requests are refused with -32010 (HTTP 503). */
  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Shutdown: refuses new requests (-32010, HTTP 503), ends every listen stream with its result
   * at once, and waits up to `gracePeriod` ms for the requests in flight. Those still running
   * then have their signal aborted and are answered with -32010 where the transport can answer
   * ahead of the handler (`extra.fail`, HTTP); elsewhere their transport does (the peer's drain).
   */
  drain(gracePeriod: number): Promise<void> {
    this.draining = true;
    for (const listener of [...this.listeners]) listener.end();
    this.listeners.clear();
    if (this.inFlight.size === 0) return Promise.resolve();
    return (this.drainPromise ??= new Promise<void>((resolve) => {
      const timer = setTimeout(
        () => {
          const error = McpError.shuttingDown('the request was still running when the grace period ended');
          status(error, 503);
          for (const extra of [...this.inFlight]) {
            extra.abort(error);
            extra.fail?.(error);
          }
          this.inFlight.clear();
          resolve();
        },
        Math.max(0, gracePeriod),
      );
      timer.unref();
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    }));
  }

  /** Shutdown without a grace period: {@link drain} with none. */
  close(): void {
    void this.drain(0);
  }

  /** Runs a task-capable tool as a task: the handle goes back at once, the work goes on. */
  private async startTask(spec: MethodSpec, parts: ContextParts, work?: (ctx: McpContext) => Promise<unknown>): Promise<Record<string, unknown>> {
    const handle = await this.tasks.start((task) => {
      // The task's own signal (tasks/cancel) and questions (tasks/update), not the request's.
      const ctx = new McpContext({ ...parts, extra: task.controller }, new TaskInputs(task));
      // Auto: the whole call is the task. Manual: the work handed to ctx.runAsTask is, shaped like the tool's result.
      const run = work ? async () => toCallToolResult(await work(ctx)) : async () => this.handler.handleRequest(ctx);
      return run().then((result) => this.complete(spec, result));
    });
    const answer: Record<string, unknown> = copyInto({}, handle);
    answer.resultType = 'task';
    answer._meta = this.serverMeta;
    return answer;
  }

  /** `tasks/get`. @internal Called through the method table. */
  async taskGet(call: ModernCall): Promise<Record<string, unknown>> {
    return { ...(await this.tasks.get(call.params.taskId)) };
  }

  /** `tasks/update`: answers to the questions of a task waiting for input. @internal */
  async taskUpdate(call: ModernCall): Promise<Record<string, unknown>> {
    if (!isRecord(call.params.inputResponses)) throw McpError.invalidParams('"inputResponses" must be an object of answers by key');
    await this.tasks.update(call.params.taskId, call.params.inputResponses);
    return {};
  }

  /** `tasks/cancel`. @internal */
  async taskCancel(call: ModernCall): Promise<Record<string, unknown>> {
    await this.tasks.cancel(call.params.taskId);
    return {};
  }

  /** `server/discover`. @internal Called through the method table. */
  discover(): Record<string, unknown> {
    const capabilities: ServerCapabilities = { ...this.handler.capabilities };
    delete capabilities.tasks;
    if (this.handler.taskSupport) capabilities.extensions = { ...(isRecord(capabilities.extensions) ? capabilities.extensions : {}), [TASKS_EXTENSION]: {} };
    const result: Record<string, unknown> = { supportedVersions: SUPPORTED, capabilities };
    if (this.handler.instructions !== undefined) result.instructions = this.handler.instructions;
    return result;
  }

  /** Stamps a complete result: `resultType`, cache hints where the method is cacheable, `serverInfo`. */
  private complete(spec: MethodSpec, result: Record<string, unknown>): Record<string, unknown> {
    // Copied key by key: V8 makes a spread copy that then gains properties several times slower to build and to serialise.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(result)) out[key] = result[key];
    out.resultType = typeof result.resultType === 'string' ? result.resultType : 'complete';
    if (spec.cacheable) {
      if (!Number.isSafeInteger(out.ttlMs) || (out.ttlMs as number) < 0) out.ttlMs = this.options.cache.ttlMs;
      if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = this.options.cache.cacheScope;
    }
    // The common case (no _meta of its own) shares one object: results are only ever serialised.
    out._meta = isRecord(result._meta) ? { [META_KEYS.serverInfo]: this.handler.serverInfo, ...result._meta } : this.serverMeta;
    return out;
  }

  /** The answers this round starts with: sealed earlier ones, then `inputResponses`. */
  private openRound(request: JsonRpcRequest, params: Record<string, unknown>): OpenRound {
    if (params.requestState === undefined && params.inputResponses === undefined) return { round: new InputRound(EMPTY_ANSWERS), request, params, number: 1 };
    let answers: Record<string, unknown> = {};
    let number = 1;
    if (params.requestState !== undefined) {
      const state = this.options.states.open(params.requestState, bindOf(request, params));
      answers = { ...state.answers };
      number = state.round + 1;
    }
    if (params.inputResponses !== undefined) {
      if (!isRecord(params.inputResponses)) throw McpError.invalidParams('"inputResponses" must be an object of answers by key');
      Object.assign(answers, params.inputResponses);
    }
    return { round: new InputRound(answers), request, params, number };
  }

  /**
   * Ends a round: the open questions (told to observers as the server's requests, on the request's
   * `transport`), and the answers so far sealed for the next round.
   */
  private inputRequired(open: OpenRound, transport: TransportInfo, version: string): Record<string, unknown> {
    const kept: Record<string, unknown> = {};
    for (const key of open.round.consumed) kept[key] = open.round.answers[key];
    return {
      resultType: 'input_required',
      inputRequests: traceInputRequests(open.round.pending, open.request.id, transport, version),
      requestState: this.options.states.seal(kept, bindOf(open.request, open.params), open.number),
      _meta: this.serverMeta,
    };
  }

  /** Errors as 2026 wants them: an unknown resource is -32602 with its URI. */
  private modernError(error: unknown, params: Record<string, unknown>): unknown {
    if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound) {
      return McpError.invalidParams(`Resource not found: ${describeValue(params.uri)}`, { uri: params.uri });
    }
    return error;
  }

  /** `subscriptions/listen`: acknowledges, then streams the asked-for changes until the client goes. @internal */
  async listen({ request, params, extra, sink }: ModernCall): Promise<Record<string, unknown>> {
    const asked = params.notifications;
    if (!isRecord(asked)) throw McpError.invalidParams('"notifications" must be an object saying which notifications to send');
    const caps = this.handler.capabilities;
    const honored: Listener['filter'] = {};
    if (asked.toolsListChanged === true && caps.tools?.listChanged) honored.toolsListChanged = true;
    if (asked.promptsListChanged === true && caps.prompts?.listChanged) honored.promptsListChanged = true;
    if (asked.resourcesListChanged === true && caps.resources?.listChanged) honored.resourcesListChanged = true;
    if (Array.isArray(asked.resourceSubscriptions) && caps.resources?.subscribe) {
      const uris = asked.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
      if (uris.length > 0) honored.resourceSubscriptions = uris;
      // Awaited only when a listener made it a promise: most servers' streams open without a turn.
      for (const uri of new Set(uris)) {
        const told = this.handler.handleSubscribe?.(uri);
        if (told) await told;
      }
    }
    const tag = { [META_KEYS.subscriptionId]: request.id };
    await sink.notify('notifications/subscriptions/acknowledged', { _meta: tag, notifications: honored });
    return new Promise((resolve) => {
      const listener: Listener = {
        id: request.id,
        filter: honored,
        send: (method, p) => void sink.notify(method, merge(p, { _meta: merge(isRecord(p._meta) ? p._meta : undefined, tag) })).catch(() => undefined),
        end: () => {
          this.listeners.delete(listener);
          resolve({ _meta: tag });
        },
      };
      this.listeners.add(listener);
      // The client may have gone while the acknowledgement was being written.
      if (extra.signal.aborted) listener.end();
      else extra.signal.addEventListener('abort', () => listener.end(), { once: true });
    });
  }
}
