/**
 * `McpClient`: talks to any MCP server over any {@link Transport}, in either era. `connect()`
 * negotiates the era (`server/discover`, falling back to `initialize`); the typed methods check the
 * server's declared capability first; the server's questions (elicitation, sampling, roots) are
 * answered by the same handlers whether they come as requests (legacy sessions) or as the input
 * requests of a 2026-07-28 round, which the client answers and retries by itself.
 */
import { ClientResponseCache, InMemoryResponseCache } from './cache';
import { ClientSessionClock, chainOnId, publishClientNotification, traceAnswer, traceClientRequest } from './diagnostics';
import { DEFAULT_MAX_INBOUND_REQUESTS, limitOption } from './limits';
import {
  CallToolResult,
  ClientCapabilities,
  ConnectionClosedError,
  CreateMessageRequestParams,
  ErrorCode,
  GetPromptResult,
  Implementation,
  JsonRpcNotification,
  JsonRpcRequest,
  LATEST_LEGACY_VERSION,
  LoggingLevel,
  McpError,
  META_KEYS,
  MODERN_PROTOCOL_VERSIONS,
  Peer,
  PendingRequest,
  Prompt,
  ReadResourceResult,
  RequestId,
  RequestOptions,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Skill,
  Tool,
  Transport,
  isModernProtocolVersion,
  isRecord,
  merge,
} from '@hermes-mcp/protocol';
import { declaresCapability, mcpMethod } from '@hermes-mcp/protocol';
import type { McpMethod } from '@hermes-mcp/protocol';
import type { CallOptions, ClientLogger, ElicitationRequest, ListenFilter, ListPage, Listing, LogMessage, McpClientOptions } from './client-api';
import { listenStream } from './listen';
import { LIST_CHANGED, NOT_IN_ERA, answeredLegacy, checkLogLevel, checked, declaredCapabilities, explainClosed, isSessionExpired, otherVersion } from './client-rules';
import { listing } from './paging';
import { declaresSkills, getSkill, listAllSkills, listSkills, loadSkill, readSkillDirectory } from './skills';
import type { GotSkill, LoadedSkill, SkillListOptions, SkillsPage } from './skills';
import { waitForTask } from './task-wait';
import { ToolHeaders } from './tool-headers';

// The API's types are written in client-api.ts; they are McpClient's, so they are exported with it.
export { ToolCallError, unwrap } from './client-api';
export type { CallOptions, ClientLogger, ElicitationAnswer, ElicitationRequest, ListenFilter, Listing, ListPage, LogMessage, McpClientOptions } from './client-api';

const CLIENT_VERSION = '0.1.0';
/** The options of a call that has none (one object for all of them). */
const NO_OPTIONS: CallOptions & RequestOptions = Object.freeze({});

const MODERN_NEWEST = MODERN_PROTOCOL_VERSIONS[MODERN_PROTOCOL_VERSIONS.length - 1];
const consoleLogger: ClientLogger = { error: (message, error) => console.error(message, error) };

/** A client of one MCP server, over one transport. */
export class McpClient {
  /** `legacy` (an initialized session) or `modern` (2026-07-28, stateless); undefined before `connect`. */
  era?: 'legacy' | 'modern' = undefined;
  /** The revision spoken, once connected. */
  protocolVersion?: string = undefined;
  /** The server's name and version, once connected. */
  serverInfo?: Implementation = undefined;
  /** What the server declared it can do, once connected. */
  serverCapabilities: ServerCapabilities = {};
  /** The server's instructions, if it gave any. */
  instructions?: string = undefined;
  private readonly peer: Peer;
  private readonly capabilities: ClientCapabilities;
  private readonly clientInfo: Implementation;
  private readonly logger: ClientLogger;
  /**
   * The `x-mcp-header` declarations of the tools listed so far (2026-07-28), by tool name: a call
   * mirrors those arguments into `Mcp-Param-*` headers.
   */
  private readonly toolHeaders = new ToolHeaders();
  private readonly cache?: ClientResponseCache;
  /** The URIs subscribed to (legacy sessions), subscribed again in a new session. */
  private readonly subscriptions = new Set<string>();
  /** A new session being started (the server forgot the old one), shared by the requests that found out. */
  private reinitializing?: Promise<void> = undefined;
  /** Open `subscriptions/listen` requests, by id: where the notifications tagged with it go. */
  private readonly listens = new Map<RequestId, (notification: JsonRpcNotification) => void>();
  /** The legacy session's duration, for telemetry. */
  private readonly sessionClock = new ClientSessionClock();
  /** The log level asked for (the option, then {@link setLogLevel}). */
  private logLevel?: LoggingLevel = undefined;

  constructor(
    readonly transport: Transport,
    private readonly options: McpClientOptions = {},
  ) {
    this.capabilities = declaredCapabilities(options);
    this.clientInfo = options.clientInfo ?? { name: 'hermes-mcp-client', version: CLIENT_VERSION };
    if (options.logLevel !== undefined) checkLogLevel(options.logLevel, 'the logLevel option');
    this.logLevel = options.logLevel;
    this.logger = options.logger ?? consoleLogger;
    this.cache = options.responseCache === false ? undefined : new ClientResponseCache(options.responseCache ?? new InMemoryResponseCache());
    this.peer = new Peer(
      transport,
      {
        onRequest: (request) => traceAnswer(this, request, () => this.answer(request)),
        onNotification: (notification) => this.received(notification),
        onTransportClose: () => this.sessionClock.end(),
        onNotificationReceived: (notification) => publishClientNotification(this, 'received', notification.method, notification.params),
        onNotificationSent: (method, params) => publishClientNotification(this, 'sent', method, params),
        // Connected again after the connection was lost (a WebSocket with `reconnect`): a legacy
        // session lived in the connection, so start a new one; 2026-07-28 requests stand alone.
        onTransportReconnect: () => {
          if (this.era === 'legacy') this.reinitialize().catch((error: unknown) => this.logger.error('could not start a new session after reconnecting', error));
        },
      },
      { requestTimeout: options.requestTimeout ?? 60_000, maxInboundRequests: limitOption('maxInboundRequests', options.maxInboundRequests, DEFAULT_MAX_INBOUND_REQUESTS) },
    );
  }

  /** The official SDK's `Client.getServerCapabilities()`: {@link serverCapabilities}. */
  getServerCapabilities(): ServerCapabilities {
    return this.serverCapabilities;
  }

  /** The official SDK's `Client.getServerVersion()`: {@link serverInfo}. */
  getServerVersion(): Implementation | undefined {
    return this.serverInfo;
  }

  /** The official SDK v2's `Client.getNegotiatedProtocolVersion()`: {@link protocolVersion}. */
  getNegotiatedProtocolVersion(): string | undefined {
    return this.protocolVersion;
  }

  /** The official SDK's `Client.getInstructions()`: {@link instructions}. */
  getInstructions(): string | undefined {
    return this.instructions;
  }

  /**
   * Starts the transport and negotiates the era: with `protocolVersion: 'auto'` (default) it asks
   * `server/discover` and falls back to `initialize` when the server answers it as a server without
   * 2026-07-28 does (any error but those only a 2026-07-28 server sends). A connection that closes
   * or cannot be opened rejects with a `ConnectionClosedError`, whatever the era.
   */
  async connect(): Promise<void> {
    await this.peer.start();
    const wanted = this.options.protocolVersion ?? 'auto';
    if (wanted === 'auto' || isModernProtocolVersion(wanted)) {
      const version = wanted === 'auto' ? MODERN_NEWEST : wanted;
      try {
        let asked: string = version;
        const discover = () => {
          const params = { _meta: this.envelope(asked) };
          return this.traced('server/discover', params, (meta, onid) => this.peer.request('server/discover', meta ? { _meta: { ...params._meta, ...meta } } : params, { onid }));
        };
        const discovered = await discover().catch((error: unknown) => {
          const other = otherVersion(error, asked);
          if (other === undefined) throw error;
          asked = other;
          return discover();
        });
        this.adoptDiscovery(discovered, asked);
        return;
      } catch (error) {
        if (wanted !== 'auto' || !answeredLegacy(error)) throw this.explain(error);
      }
    }
    await this.initialize(wanted === 'auto' ? LATEST_LEGACY_VERSION : wanted);
  }

  /** Tells a transport that sends the revision in a header (HTTP) which one was negotiated. */
  private negotiated(version: string): void {
    (this.transport as { setProtocolVersion?: (version: string) => void }).setProtocolVersion?.(version);
  }

  private adoptDiscovery(discovered: Record<string, unknown>, version: string): void {
    const supported = Array.isArray(discovered.supportedVersions) ? (discovered.supportedVersions as string[]) : [version];
    this.era = 'modern';
    this.protocolVersion = supported.includes(version) ? version : (supported.filter(isModernProtocolVersion).pop() ?? version);
    this.serverCapabilities = (discovered.capabilities ?? {}) as ServerCapabilities;
    const meta = isRecord(discovered._meta) ? discovered._meta : {};
    this.serverInfo = (meta[META_KEYS.serverInfo] ?? discovered.serverInfo) as Implementation | undefined;
    if (typeof discovered.instructions === 'string') this.instructions = discovered.instructions;
    this.negotiated(this.protocolVersion);
  }

  private async initialize(version: string): Promise<void> {
    const params = { protocolVersion: version, capabilities: this.capabilities, clientInfo: this.clientInfo };
    const result = await this.traced('initialize', params, (meta, onid) => this.peer.request('initialize', meta ? { ...params, _meta: meta } : params, { onid })).catch(
      (error: unknown) => {
        throw this.explain(error);
      },
    );
    checked('initialize', mcpMethod('initialize'), result);
    this.era = 'legacy';
    this.protocolVersion = String(result.protocolVersion);
    this.negotiated(this.protocolVersion);
    this.serverInfo = result.serverInfo as Implementation;
    this.serverCapabilities = (result.capabilities ?? {}) as ServerCapabilities;
    if (typeof result.instructions === 'string') this.instructions = result.instructions;
    this.sessionClock.start(this);
    await this.notify('notifications/initialized');
    if (this.logLevel && this.serverCapabilities.logging) await this.send('logging/setLevel', { level: this.logLevel }, NO_OPTIONS);
  }

  /**
   * Starts a new session where the server forgot the old one: `initialize` again at the revision
   * spoken, then the log level and the subscriptions this client had.
   */
  private reinitialize(): Promise<void> {
    return (this.reinitializing ??= (async () => {
      try {
        await this.initialize(this.protocolVersion ?? LATEST_LEGACY_VERSION);
        // Not through request(): it waits for this very reinitialization.
        for (const uri of this.subscriptions) await this.send('resources/subscribe', { uri }, NO_OPTIONS);
      } finally {
        this.reinitializing = undefined;
      }
    })());
  }

  /** Lists one page of tools: `tools` (also as `items`) and `nextCursor`. */
  async listTools(cursor?: string, options?: CallOptions): Promise<ListPage<Tool, 'tools'>> {
    return this.page('tools/list', 'tools', cursor, options);
  }

  /** Every tool, following cursors: `await` it for an array, or `for await` it (a {@link Listing}). */
  listAllTools(options?: CallOptions): Listing<Tool> {
    return this.all('tools/list', 'tools', options);
  }

  /**
   * Calls a tool. A tool error comes back as a result with `isError: true` (see {@link unwrap}); a
   * protocol error rejects with an `McpError`. In 2026-07-28 the arguments the tool declares with
   * `x-mcp-header` go in `Mcp-Param-*` headers too; a server that finds them missing (a tool not
   * listed yet) gets the call again once the tools were listed.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<CallToolResult> {
    // A legacy session has no tasks and no header mirroring: the request as it is (no promise more).
    if (this.era === 'legacy') return this.request('tools/call', { name, arguments: args }, options) as Promise<unknown> as Promise<CallToolResult>;
    if (this.toolHeaders.knows(name)) return this.callToolOnce(name, args, options);
    return this.callToolListingFirst(name, args, options);
  }

  /** A 2026-07-28 call of a tool not listed yet: if the server misses its headers, list the tools and call again. */
  private async callToolListingFirst(name: string, args: Record<string, unknown>, options: CallOptions | undefined): Promise<CallToolResult> {
    try {
      return await this.callToolOnce(name, args, options);
    } catch (error) {
      if (!(error instanceof McpError) || error.code !== ErrorCode.HeaderMismatch) throw error;
      await this.listAllTools();
      if (!this.toolHeaders.knows(name)) throw error;
      return this.callToolOnce(name, args, options);
    }
  }

  private async callToolOnce(name: string, args: Record<string, unknown>, options: CallOptions | undefined): Promise<CallToolResult> {
    const headers = this.toolHeaders.of(name, args);
    const result = await this.request('tools/call', { name, arguments: args }, headers ? merge(options, { headers }) : options);
    // A tool that ran as a task answered with its handle: follow it to its result.
    return (result.resultType === 'task' ? await this.waitForTask(String(result.taskId), options) : result) as unknown as CallToolResult;
  }

  /**
   * Starts a task-capable tool as a task (2026-07-28, with `tasks: true`) and returns its handle at
   * once: `taskId`, `status`, `pollIntervalMs`… Follow it with {@link waitForTask}, read it with
   * {@link getTask}, stop it with {@link cancelTask}. A tool the server runs synchronously answers
   * with its result instead (`resultType: 'complete'`).
   */
  async startTask(name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<Record<string, unknown>> {
    if (!this.options.tasks) throw new McpError(ErrorCode.InvalidRequest, 'startTask needs the tasks extension: create the client with { tasks: true }');
    return this.request('tools/call', { name, arguments: args }, { ...options, headers: this.toolHeaders.of(name, args) });
  }

  /** A task as the server keeps it (`tasks/get`). */
  getTask(taskId: string, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.request('tasks/get', { taskId }, options);
  }

  /** Cancels a task (`tasks/cancel`). */
  async cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    await this.request('tasks/cancel', { taskId }, options);
  }

  /**
   * Follows a task to its end, polling `tasks/get` at its `pollIntervalMs` and answering its
   * questions (`input_required`) with the client's handlers through `tasks/update`. Resolves with
   * the tool's result; rejects with the task's error when it failed, or -32001 when it was
   * cancelled. Aborting `signal` cancels the task.
   */
  waitForTask(taskId: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return waitForTask(
      {
        getTask: (id, callOptions) => this.getTask(id, callOptions),
        cancelTask: (id) => this.cancelTask(id),
        ask: (method, params) => this.ask(method, params),
        update: (params) => this.request('tasks/update', params),
      },
      taskId,
      options,
    );
  }

  /** Lists one page of resources: `resources` (also as `items`) and `nextCursor`. */
  async listResources(cursor?: string, options?: CallOptions): Promise<ListPage<Resource, 'resources'>> {
    return this.page('resources/list', 'resources', cursor, options);
  }

  /** Every resource, following cursors: `await` it for an array, or `for await` it (a {@link Listing}). */
  listAllResources(options?: CallOptions): Listing<Resource> {
    return this.all('resources/list', 'resources', options);
  }

  /** Lists one page of resource templates: `resourceTemplates` (also as `items`) and `nextCursor`. */
  async listResourceTemplates(cursor?: string, options?: CallOptions): Promise<ListPage<ResourceTemplate, 'resourceTemplates'>> {
    return this.page('resources/templates/list', 'resourceTemplates', cursor, options);
  }

  /** Every resource template, following cursors: `await` it for an array, or `for await` it (a {@link Listing}). */
  listAllResourceTemplates(options?: CallOptions): Listing<ResourceTemplate> {
    return this.all('resources/templates/list', 'resourceTemplates', options);
  }

  /** Reads a resource. */
  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return (await this.request('resources/read', { uri }, options)) as unknown as ReadResourceResult;
  }

  /**
   * Subscribes to updates of a resource (legacy sessions; `onResourceUpdated` hears them). MCP
   * 2026-07-28 has no `resources/subscribe`: there it is refused, unsent, with what to use instead
   * (`listen({ resourceSubscriptions: [uri] })`).
   */
  async subscribe(uri: string): Promise<void> {
    await this.request('resources/subscribe', { uri });
    this.subscriptions.add(uri);
  }

  /** Ends a subscription (legacy sessions; refused in 2026-07-28, as {@link subscribe} is). */
  async unsubscribe(uri: string): Promise<void> {
    await this.request('resources/unsubscribe', { uri });
    this.subscriptions.delete(uri);
  }

  /** The official SDK's `Client.subscribeResource({ uri })`: {@link subscribe}. */
  subscribeResource(params: { uri: string }): Promise<void> {
    return this.subscribe(params.uri);
  }

  /** The official SDK's `Client.unsubscribeResource({ uri })`: {@link unsubscribe}. */
  unsubscribeResource(params: { uri: string }): Promise<void> {
    return this.unsubscribe(params.uri);
  }

  /** True when the server declared the Skills extension (SEP-2640): {@link listSkills} and the rest may be called. */
  get supportsSkills(): boolean {
    return declaresSkills(this.serverCapabilities);
  }

  /** One page of skills (`skills/list`: `skills`, also `items`, and `nextCursor`), each entry checked (`skipInvalid`); reads no skill file. */
  listSkills(cursor?: string, options?: SkillListOptions): Promise<SkillsPage> {
    return listSkills(this, cursor, options);
  }

  /** Every skill, following cursors: `await` it for an array, or `for await` it (a {@link Listing}). */
  listAllSkills(options?: SkillListOptions): Listing<Skill> {
    return listAllSkills(this, options);
  }

  /** One skill by its SKILL.md URI, listed or not (`skills/get`); its entry checked. Reads no skill file. */
  getSkill(uri: string, options?: CallOptions): Promise<GotSkill> {
    return getSkill(this, uri, options);
  }

  /** Reads a skill's SKILL.md, verified against `skill` (else a `SkillVerificationError`): a {@link LoadedSkill}, which reads its listed files. */
  loadSkill(skill: Skill, options?: CallOptions): Promise<LoadedSkill> {
    return loadSkill(this, skill, options);
  }

  /** The direct children of a skill directory (`resources/directory/read`, every page; the server must declare `directoryRead`). */
  readSkillDirectory(uri: string, options?: CallOptions): Listing<Resource> {
    return readSkillDirectory(this, uri, options);
  }

  /** Lists one page of prompts: `prompts` (also as `items`) and `nextCursor`. */
  async listPrompts(cursor?: string, options?: CallOptions): Promise<ListPage<Prompt, 'prompts'>> {
    return this.page('prompts/list', 'prompts', cursor, options);
  }

  /** Every prompt, following cursors: `await` it for an array, or `for await` it (a {@link Listing}). */
  listAllPrompts(options?: CallOptions): Listing<Prompt> {
    return this.all('prompts/list', 'prompts', options);
  }

  /** Gets a prompt (its arguments are strings, as MCP says). */
  async getPrompt(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<GetPromptResult> {
    return (await this.request('prompts/get', { name, arguments: args }, options)) as unknown as GetPromptResult;
  }

  /** Completes an argument of a prompt or a variable of a resource template. */
  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: CallOptions,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
    const result = await this.request('completion/complete', { ref, argument, ...(context && { context: { arguments: context } }) }, options);
    return result.completion as { values: string[]; total?: number; hasMore?: boolean };
  }

  /**
   * Asks for log messages at `level` and above from now on, in either era: a legacy session sends
   * `logging/setLevel` (and again in a new session); in 2026-07-28, which has no such request, the
   * level goes in the `_meta` of every request that follows. Before `connect()` it sets the level
   * the connection starts with (as the `logLevel` option does).
   */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    checkLogLevel(level, 'setLogLevel');
    if (this.era === 'legacy') await this.request('logging/setLevel', { level });
    this.logLevel = level;
  }

  /** The official SDK's name for {@link setLogLevel} (`Client.setLoggingLevel`). */
  setLoggingLevel(level: LoggingLevel): Promise<void> {
    return this.setLogLevel(level);
  }

  /**
   * `subscriptions/listen` (MCP 2026-07-28): the notifications the server sends for it, as they
   * come — first `notifications/subscriptions/acknowledged` with what it honours, then list
   * changes and resource updates, which reach `onListChanged`, `onResourceUpdated` and
   * `onNotification` too (the callbacks a legacy session calls). Breaking out of the loop (or
   * `signal`) ends the subscription. Refused in a legacy session, unsent. When the token the
   * stream was opened with expires, the server ends it with -32014: it listens again at once (the
   * transport's `auth` gets a fresh token), and a second acknowledgement comes; what the server
   * sent in between is not heard.
   *
   * @example
   * for await (const n of client.listen({ toolsListChanged: true })) if (n.method.endsWith('list_changed')) refresh();
   */
  async *listen(filter: ListenFilter, options: { signal?: AbortSignal } = {}): AsyncGenerator<JsonRpcNotification> {
    this.refuseOutOfEra('subscriptions/listen');
    yield* listenStream((params, callOptions) => this.request('subscriptions/listen', params, callOptions), this.listens, filter, options);
  }

  /**
   * Checks the server is there: `ping` in a legacy session; in 2026-07-28, which has no `ping` (a
   * server answers it with -32601), `server/discover`, which every such server answers — never
   * from the response cache, since the point is to hear the server.
   */
  async ping(options?: CallOptions): Promise<void> {
    if (this.era === 'modern') await this.request('server/discover', {}, { ...options, cache: false });
    else await this.request('ping', {}, options);
  }

  /**
   * Any request, answered with its raw result. The server's capability for the method is checked
   * first; in 2026-07-28 the envelope goes in `_meta` and input rounds are answered and retried.
   */
  request(method: string, params: Record<string, unknown> = {}, options: CallOptions = NO_OPTIONS): Promise<Record<string, unknown>> {
    return this.traced(method, params, (meta, onId) =>
      this.perform(method, params, onId ? merge(options, meta && { meta: merge(options.meta, meta) }, { onId: chainOnId(options.onId, onId) }) : options),
    );
  }

  /** One request as `hermes-mcp:client:request` traces it ({@link traceClientRequest}). */
  private traced<T>(method: string, params: Record<string, unknown>, run: (meta?: Record<string, string>, onid?: (id: RequestId) => void) => Promise<T>): Promise<T> {
    return traceClientRequest(this, method, params, run);
  }

  /**
   * Throws the -32601 of a method the era spoken does not have, saying what to use there instead
   * (the server would answer a bare -32601). Not connected yet, nothing is refused here: the
   * request itself says so.
   */
  private refuseOutOfEra(method: string): void {
    const instead = this.era === undefined ? undefined : NOT_IN_ERA[this.era][method];
    if (instead === undefined) return;
    const revision = this.era === 'modern' ? `MCP ${this.protocolVersion}` : `a legacy session (MCP ${this.protocolVersion})`;
    throw new McpError(ErrorCode.MethodNotFound, `${method} is not in ${revision}: ${instead}`, { method, protocolVersion: this.protocolVersion });
  }

  /** A request of {@link request}, once traced. */
  private async perform(method: string, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    if (this.era === undefined) throw new ConnectionClosedError('Not connected: call connect() first');
    this.refuseOutOfEra(method);
    const row = mcpMethod(method);
    if (row?.capability && this.options.checkCapabilities !== false && !declaresCapability(this.serverCapabilities, row.capability)) {
      throw new McpError(ErrorCode.MethodNotFound, `The server did not declare the capability ${method} needs`, { method });
    }
    if (this.era === 'legacy') {
      // A new session being started (the server forgot the old one, or the connection was lost): after it.
      if (this.reinitializing !== undefined) await this.reinitializing.catch(() => undefined);
      try {
        return checked(method, row, await this.send(method, params, options));
      } catch (error) {
        // A server that forgot the session (HTTP 404): the spec has the client start a new one. Once.
        if (!isSessionExpired(error) || method === 'initialize') throw this.explain(error);
      }
      await this.reinitialize();
      try {
        return checked(method, row, await this.send(method, params, options));
      } catch (error) {
        throw this.explain(error);
      }
    }
    try {
      return await this.requestModern(method, row, params, options);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** A 2026-07-28 request: from the cache, or sent (once more at another revision if asked), its input rounds answered. */
  private async requestModern(method: string, row: McpMethod | undefined, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    // `cache: false` asks the server, and its answer replaces the one kept.
    const cacheKey = this.cache && row?.cacheable === true ? this.cache.key(this.serverInfo, this.protocolVersion, method, params) : undefined;
    const cached = cacheKey !== undefined && options.cache !== false ? await this.cache!.get(cacheKey) : undefined;
    if (cached) return cached;
    // 2026-07-28: a server that turns the revision down names those it speaks: once, speak one of them.
    let result = await this.send(method, params, options).catch((error: unknown) => {
      const other = otherVersion(error, this.protocolVersion!);
      if (other === undefined) throw error;
      this.protocolVersion = other;
      this.negotiated(other);
      return this.send(method, params, options);
    });
    // The server asks its questions by ending the round; answer them and go again (or leave them to the caller).
    if (options.answerInputRequests === false && result.resultType === 'input_required') return result;
    const maxRounds = this.options.maxRounds ?? 10;
    for (let round = 1; result.resultType === 'input_required'; round++) {
      if (round > maxRounds) throw new McpError(ErrorCode.InternalError, `${method}: the server still asks for input after ${maxRounds} rounds (maxRounds)`);
      const questions = (isRecord(result.inputRequests) ? result.inputRequests : {}) as Record<string, { method: string; params?: Record<string, unknown> }>;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, question] of Object.entries(questions)) inputResponses[key] = await this.answerInput(key, question.method, question.params ?? {});
      const retry: Record<string, unknown> = { ...params, inputResponses };
      if (result.requestState !== undefined) retry.requestState = result.requestState;
      result = await this.send(method, retry, options);
    }
    checked(method, row, result);
    if (cacheKey !== undefined) await this.cache!.keep(cacheKey, result);
    return result;
  }

  /** One request on the peer, the envelope added (callers pass its errors through {@link explain}). */
  private send(method: string, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    return this.peer.request(
      method,
      this.withMeta(params, options.meta),
      options === NO_OPTIONS
        ? NO_OPTIONS
        : {
            onprogress: options.onProgress && this.guarded('onProgress', options.onProgress),
            signal: options.signal,
            timeout: options.timeout,
            headers: options.headers,
            onid: options.onId,
          },
    );
  }

  /** Sends a notification (e.g. `notifications/roots/list_changed`). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, this.era === 'modern' ? this.withMeta(params ?? {}) : params);
  }

  /** The requests awaiting an answer: id, method and milliseconds since sent. */
  pendingRequests(): PendingRequest[] {
    return this.peer.pendingRequests();
  }

  /** Cancels one pending request (`notifications/cancelled`); its caller gets an `McpError`. False when it is not pending. */
  cancel(requestId: RequestId, reason = 'Request cancelled by the client'): boolean {
    return this.peer.cancel(requestId, new McpError(ErrorCode.RequestTimeout, reason));
  }

  /** Cancels every pending request; returns how many. */
  cancelAll(reason = 'Request cancelled by the client'): number {
    let cancelled = 0;
    for (const { id } of this.peer.pendingRequests()) if (this.cancel(id, reason)) cancelled++;
    return cancelled;
  }

  /** Closes the transport; pending requests fail. */
  close(): Promise<void> {
    return this.peer.close();
  }

  /** One page of a list, its items under `key` and `items`. */
  private async page<T, K extends string>(method: string, key: K, cursor: string | undefined, options?: CallOptions): Promise<ListPage<T, K>> {
    const result = await this.request(method, cursor === undefined ? {} : { cursor }, options);
    const listed = Array.isArray(result[key]) ? (result[key] as T[]) : [];
    const items = method === 'tools/list' ? (this.era === 'modern' ? (this.toolHeaders.keep(listed as Tool[], this.logger) as T[]) : listed) : listed;
    const page = { [key]: items, items } as ListPage<T, K>;
    if (typeof result.nextCursor === 'string') page.nextCursor = result.nextCursor;
    return page;
  }

  /** Every item of a list, awaitable to an array and iterable (each iteration walks the list anew). */
  private all<T>(method: string, key: string, options?: CallOptions): Listing<T> {
    return listing<T>(method, (cursor) => this.page<T, string>(method, key, cursor, options));
  }

  /** The 2026-07-28 envelope: revision, client info and capabilities, log level. */
  private envelope(version: string): Record<string, unknown> {
    const envelope: Record<string, unknown> = {
      [META_KEYS.protocolVersion]: version,
      [META_KEYS.clientCapabilities]: this.capabilities,
      [META_KEYS.clientInfo]: this.clientInfo,
    };
    if (this.logLevel) envelope[META_KEYS.logLevel] = this.logLevel;
    return envelope;
  }

  /** The params with the modern envelope (and any extra `_meta`) where they belong. */
  private withMeta(params: Record<string, unknown>, extra?: Record<string, unknown>): Record<string, unknown> {
    const own = isRecord(params._meta) ? params._meta : undefined;
    if (this.era === 'legacy') return extra ? merge(params, { _meta: merge(own, extra) }) : params;
    return merge(params, { _meta: merge(this.envelope(this.protocolVersion!), own, extra) });
  }

  /** A server→client request (legacy sessions). */
  private answer(request: JsonRpcRequest): Promise<Record<string, unknown>> | Record<string, unknown> {
    if (request.method === 'ping') return {};
    return this.ask(request.method, request.params ?? {});
  }

  /**
   * An input request of a 2026-07-28 round, answered by the handlers and told to observers as a
   * request of the server (`hermes-mcp:client:server-request`), its `id` the question's key.
   */
  private answerInput(key: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> | Record<string, unknown> {
    return traceAnswer(this, { jsonrpc: '2.0', id: key, method, params }, () => this.ask(method, params));
  }

  /** A question from the server — a request, or an input request of a 2026-07-28 round — answered by the handlers. */
  private async ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { onElicitation, onSampling, onRoots } = this.options;
    if (method === 'elicitation/create' && onElicitation) return { ...(await onElicitation(params as ElicitationRequest)) };
    if (method === 'sampling/createMessage' && onSampling) return { ...(await onSampling(params as unknown as CreateMessageRequestParams)) };
    if (method === 'roots/list' && onRoots) return { roots: await onRoots() };
    const handler = method === 'roots/list' ? 'onRoots' : method === 'sampling/createMessage' ? 'onSampling' : method === 'elicitation/create' ? 'onElicitation' : undefined;
    throw McpError.methodNotFound(handler ? `${method} (this client has no ${handler} handler)` : method);
  }

  private received(notification: JsonRpcNotification): void {
    const { onLog, onListChanged, onResourceUpdated, onNotification } = this.options;
    const params = notification.params ?? {};
    // A list changed: its cached pages are not read again (whichever way the news came).
    const changed = LIST_CHANGED[notification.method];
    if (changed) this.cache?.listChanged(changed);
    // A notification of a 2026-07-28 listen stream goes to its iterator, and on to the callbacks
    // as a legacy session's does: one code path for both eras.
    const subscription = isRecord(params._meta) ? (params._meta[META_KEYS.subscriptionId] as RequestId | undefined) : undefined;
    if (subscription !== undefined) this.listens.get(subscription)?.(notification);
    if (onNotification) this.guarded('onNotification', onNotification)(notification);
    if (changed && onListChanged) this.guarded('onListChanged', onListChanged)(changed);
    if (notification.method === 'notifications/message' && onLog) this.guarded('onLog', onLog)(params as unknown as LogMessage);
    if (notification.method === 'notifications/resources/updated' && onResourceUpdated && typeof params.uri === 'string')
      this.guarded('onResourceUpdated', onResourceUpdated)(params.uri);
  }

  /** `callback`, with what it throws reported rather than breaking the client. */
  private guarded<A>(name: string, callback: (arg: A) => unknown): (arg: A) => void {
    return (arg) => {
      try {
        const result = callback(arg);
        if (result instanceof Promise) result.catch((error: unknown) => this.logger.error(`the ${name} callback failed`, error));
      } catch (error) {
        this.logger.error(`the ${name} callback threw`, error);
      }
    };
  }

  /** `error`, saying how a stdio server exited when that closed the connection. */
  private explain(error: unknown): unknown {
    return explainClosed(error, this.transport);
  }
}
