/**
 * The engine (the Base): one protocol engine for every transport. A transport hands it a
 * connection; the engine runs the lifecycle (initialize, version negotiation, ping, logging level,
 * subscriptions), builds a context per request, and passes the rest to the server's
 * {@link McpHandler}. It also reaches every connection at once (list changes, resource updates).
 */
import {
  ClientCapabilities,
  ErrorCode,
  ErrorContext,
  Implementation,
  InboundRequestExtra,
  InitializeResult,
  JsonRpcNotification,
  JsonRpcRequest,
  LegacyProtocolVersion,
  LoggingLevel,
  McpError,
  Peer,
  PeerHandlers,
  REVISIONS,
  RequestId,
  RequestOptions,
  RevisionFeatures,
  describeValue,
  isRecord,
  LOGGING_LEVELS,
  Root,
  Transport,
  TransportInfo,
  negotiateLegacyVersion,
} from '@hermes-mcp/protocol';
import { McpContext, RequestChannel, SessionInfo, isLoggingLevel } from './context';
import type { McpHandler, NotificationContext } from './handler';
import { LazyChildLogger, Logger } from './logger';
import { CacheHints, ModernHandler, ModernSink, admitModern } from './modern';
import { decideEra } from './era';
import type { HeadersRecord } from './http/headers';
import { RequestStateCodec } from './request-state';
import type { TaskOptions } from './tasks';
import { shapeCapabilities, shapeImplementation } from './shape';
import { withTimeout } from './timeout';
import { methodSpec } from './methods';

/** Options of the engine. */
export interface EngineOptions {
  /** Server-side logger. */
  logger: Logger;
  /** Timeout of server→client requests in milliseconds (default 60 000). */
  requestTimeout?: number;
  /** Longest time any request handler may run, in milliseconds (default: no limit). */
  handlerTimeout?: number;
  /** Secret that seals MRTR `requestState` (2026-07-28); share it across processes (default: random). */
  requestStateSecret?: string;
  /** Caching hints of cacheable modern results (default `{ ttlMs: 0, cacheScope: 'private' }`). */
  cache?: CacheHints;
  /** Task lifetimes and poll hints (tasks extension). */
  tasks?: TaskOptions;
  /**
   * When shutting down (or when a stdio client closes its input), how long requests in flight may
   * take to finish before they are answered with -32010, in milliseconds (default 5 000).
   */
  shutdownGracePeriod?: number;
}

/** Default of {@link EngineOptions.shutdownGracePeriod}. */
export const DEFAULT_SHUTDOWN_GRACE_PERIOD = 5_000;

/** Per-connection options of {@link Engine.connect}. */
export interface ConnectionOptions {
  /** The session id, visible as `ctx.session.id` (legacy HTTP). */
  sessionId?: string;
  /** The logger of this connection (e.g. a child logger bound to the session). */
  logger?: Logger;
  /**
   * Bindings of this connection's logs: the connection logs through `logger.child(loggerBindings)`,
   * made the first time it writes a log line (most sessions never do, and a pino child costs ~200 bytes).
   */
  loggerBindings?: Record<string, unknown>;
  /**
   * Called once, synchronously, when the connection is gone (its transport closed). Cheaper than
   * `closed.then(…)` for owners of many connections: one function for all, no promise each.
   */
  onclose?: (connection: Connection) => void;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Serves MCP over any number of connections from one handler. */
export class Engine {
  private readonly live = new Set<Connection>();
  /** Serves modern-era (2026-07-28) requests, on any transport. */
  private readonly modern: ModernHandler;

  constructor(
    readonly handler: McpHandler,
    readonly options: EngineOptions,
  ) {
    this.modern = new ModernHandler(handler, {
      logger: options.logger,
      states: new RequestStateCodec(options.requestStateSecret),
      cache: { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' },
      handlerTimeout: options.handlerTimeout,
      tasks: options.tasks,
    });
  }

  /**
   * Starts serving a legacy-era (initialize-based) connection over `transport`. `options.sessionId`
   * names it (HTTP sessions); `options.logger` replaces the engine's logger for it.
   */
  async connect(transport: Transport, options: ConnectionOptions = {}): Promise<Connection> {
    const connection = new Connection(this, transport, options);
    this.live.add(connection);
    await connection.peer.start();
    return connection;
  }

  /** The open connections. */
  get connections(): ReadonlySet<Connection> {
    return this.live;
  }

  /**
   * Answers one modern-era (2026-07-28) request, whatever carries it: checked in the spec's order
   * ({@link admitModern}: `headers` are the HTTP request's, for the header checks; none on a
   * stream), then handled. `sink` receives the request's notifications. Throws an `McpError`
   * (with its `httpStatus`) for a refused request.
   */
  serveModern(request: JsonRpcRequest, headers: HeadersRecord | undefined, extra: InboundRequestExtra, transport: TransportInfo, sink: ModernSink): Promise<Record<string, unknown>> {
    const admitted = admitModern(request, headers, this.inputSchemaOf);
    return this.modern.handle(request, admitted, extra, transport, sink);
  }

  /** A tool's input schema, for its `Mcp-Param-*` headers. */
  private readonly inputSchemaOf = (tool: string): object | undefined => this.handler.inputSchemaOf?.(tool);

  /** Open `subscriptions/listen` streams. */
  get listenStreams(): number {
    return this.modern.listenerCount;
  }

  /**
   * Shuts down what no connection owns — modern requests in flight (over HTTP) and listen
   * streams — gracefully: see {@link ModernHandler.drain}. {@link drain} does it and more.
   */
  drainStateless(gracePeriod: number = this.gracePeriod): Promise<void> {
    return this.modern.drain(gracePeriod);
  }

  /** Forgets a connection that is gone. @internal Called by the connection itself. */
  release(connection: Connection): void {
    this.live.delete(connection);
  }

  /**
   * Sends a notification to every initialized legacy connection for which `filter` holds, and to
   * the modern listen streams that asked for it.
   */
  broadcast(method: string, params?: Record<string, unknown>, filter?: (connection: Connection) => boolean): void {
    this.modern.publish(method, params);
    for (const connection of this.live) {
      if (!connection.sessionInfo || (filter && !filter(connection))) continue;
      connection.peer.notify(method, params).catch((error) => this.options.logger.warn({ err: error, method }, 'could not send a notification'));
    }
  }

  /** Tells the connections subscribed to `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.broadcast('notifications/resources/updated', { uri }, (c) => c.isSubscribed(uri));
  }

  /** The grace period of a shutdown, in milliseconds. */
  get gracePeriod(): number {
    return this.options.shutdownGracePeriod ?? DEFAULT_SHUTDOWN_GRACE_PERIOD;
  }

  /**
   * Shuts down gracefully: no new requests anywhere (-32010), modern listen streams end, requests
   * in flight get `gracePeriod` ms to finish and are then answered with -32010, then every
   * connection closes. Resolves once all are closed.
   */
  async drain(gracePeriod: number = this.gracePeriod): Promise<void> {
    await Promise.all([this.modern.drain(gracePeriod), ...[...this.live].map((c) => c.drain(gracePeriod))]);
  }
}

/**
 * One client connection in the legacy era: its negotiated revision, capabilities, logging level
 * and subscriptions. Requests other than `initialize` and `ping` wait for `initialize`.
 */
export class Connection implements PeerHandlers, RequestChannel {
  /** The peer correlating this connection's messages. */
  readonly peer: Peer;
  private session?: SessionInfo;
  private features?: RevisionFeatures;
  /** `opening` until the first request other than a modern `server/discover` decides the era. */
  private era: 'opening' | 'legacy' | 'modern' = 'opening';
  private initialized = false;
  private level?: LoggingLevel;
  /** How many malformed messages the client sent (the first is logged at warn, the rest at debug). */
  private peerMistakes = 0;
  /** Made on the first subscription: most connections never subscribe. */
  private subscriptions?: Set<string> = undefined;
  private readonly log: Logger;
  private readonly sessionId?: string;
  private readonly onclose?: (connection: Connection) => void;
  /** True once the transport closed. */
  private gone = false;
  /** The promise of {@link closed}, made when someone asks for it, and what settles it. */
  private closedPromise?: Promise<void> = undefined;
  private resolveClosed?: () => void = undefined;

  constructor(
    private readonly engine: Engine,
    readonly transport: Transport,
    options: ConnectionOptions = {},
  ) {
    this.peer = new Peer(transport, this, { requestTimeout: engine.options.requestTimeout, drainTimeout: engine.gracePeriod });
    const log = options.logger ?? engine.options.logger;
    this.log = options.loggerBindings ? new LazyChildLogger(log, options.loggerBindings) : log;
    this.sessionId = options.sessionId;
    this.onclose = options.onclose;
  }

  /** Resolves when the connection is gone. */
  get closed(): Promise<void> {
    return (this.closedPromise ??= this.gone ? Promise.resolve() : new Promise((resolve) => (this.resolveClosed = resolve)));
  }

  /** True once the connection is gone (its transport closed). */
  get isClosed(): boolean {
    return this.gone;
  }

  /** @internal PeerHandlers: the transport closed; forget the connection everywhere, once. */
  onTransportClose(): void {
    if (this.gone) return;
    this.gone = true;
    this.subscriptions = undefined;
    this.engine.release(this);
    this.resolveClosed?.();
    this.resolveClosed = undefined;
    this.onclose?.(this);
  }

  /** The session as negotiated by `initialize`, if it happened. */
  get sessionInfo(): SessionInfo | undefined {
    return this.session;
  }

  /** True once the client sent `notifications/initialized`. */
  get isInitialized(): boolean {
    return this.initialized;
  }

  /** True when the client subscribed to updates of `uri`. */
  isSubscribed(uri: string): boolean {
    return this.subscriptions !== undefined && this.subscriptions.has(uri);
  }

  /** Closes the connection at once: requests in flight are aborted, unanswered. */
  close(): Promise<void> {
    return this.peer.close();
  }

  /**
   * Closes the connection gracefully: new requests are refused with -32010, those in flight get
   * `gracePeriod` ms to finish before they are answered with -32010, then the transport closes.
   */
  drain(gracePeriod: number = this.engine.gracePeriod): Promise<void> {
    return this.peer.drain(gracePeriod);
  }

  acceptBatch(): boolean {
    return this.features?.batches === true;
  }

  onRequest(request: JsonRpcRequest, extra: InboundRequestExtra): Promise<Record<string, unknown>> | Record<string, unknown> {
    const params = request.params ?? EMPTY;
    if (this.era !== 'legacy') {
      const era = decideEra(request.method, params, { pinned: this.era === 'modern' ? 'modern' : undefined });
      if (era instanceof McpError) throw era;
      if (era === 'modern') return this.modernRequest(request, extra);
      this.era = 'legacy';
    }
    const spec = methodSpec(request.method);
    const session = this.session;
    const handler = this.engine.handler;
    // The connection's own methods; one whose capability the server lacks is the handler's to refuse.
    if (spec?.owner === 'connection' && (session || spec.beforeInitialize) && (!spec.capability || spec.capability(handler.capabilities))) {
      return spec.serve(this, params, request.method);
    }
    if (!session) throw new McpError(ErrorCode.InvalidRequest, `Server not initialized: send "initialize" before "${request.method}"`);
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const ctx = new McpContext({ id: request.id, method: request.method, params, _meta: meta }, session, extra.transportInfo ?? this.transport.info, extra, this, this.log);
    const limit = this.engine.options.handlerTimeout;
    if (!limit) return handler.handleRequest(ctx);
    return withTimeout(ctx, limit, () => handler.handleRequest(ctx), (error) => {
      throw error;
    });
  }

  /**
   * A modern-era request on this connection (stdio): a valid one other than `server/discover`
   * pins the connection to the modern era.
   */
  private modernRequest(request: JsonRpcRequest, extra: InboundRequestExtra): Promise<Record<string, unknown>> {
    const id = request.id;
    const pending = this.engine.serveModern(request, undefined, extra, extra.transportInfo ?? this.transport.info, {
      notify: (method, p) => this.peer.notify(method, p, id),
    });
    if (request.method !== 'server/discover' && this.era !== 'modern') {
      this.era = 'modern';
      this.peer.unreadableId = undefined;
    }
    return pending;
  }

  onNotification(notification: JsonRpcNotification): void | Promise<void> {
    if (notification.method === 'notifications/initialized') {
      this.initialized = true;
      return;
    }
    if (!this.session) return;
    return this.engine.handler.handleNotification?.(notification, this.notificationContext(this.session));
  }

  onError(error: unknown, context: ErrorContext): void {
    const { origin, ...where } = context;
    if (origin === 'local') {
      this.log.error({ err: error, ...where }, 'error while handling a message');
      return;
    }
    // The client's mistake, not ours: no stack, and once per connection above debug, so a client
    // sending garbage cannot flood the log.
    const reason = error instanceof Error ? error.message : String(error);
    if (this.peerMistakes++ === 0) this.log.warn({ reason, ...where }, 'the client sent a malformed message (more are logged at debug)');
    else this.log.debug({ reason, ...where }, 'the client sent a malformed message');
  }

  /** @internal RequestChannel: a notification related to a request. */
  notify(relatedRequestId: RequestId, method: string, params: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params, relatedRequestId);
  }

  /** @internal RequestChannel: a server→client request made while handling a request. */
  request(relatedRequestId: RequestId, method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.peer.request(method, params, { ...options, relatedRequestId });
  }

  /** @internal RequestChannel: the level set with logging/setLevel. */
  logLevel(): LoggingLevel | undefined {
    return this.level;
  }

  private notificationContext(session: SessionInfo): NotificationContext {
    return {
      session,
      listRoots: async () => {
        if (!session.clientCapabilities.roots) throw new McpError(ErrorCode.MissingRequiredClientCapability, 'Cannot use roots: the client did not declare the roots capability.', { requiredCapabilities: { roots: {} } });
        const result = await this.peer.request('roots/list', {});
        if (!Array.isArray(result.roots)) throw McpError.invalidParams('the client answered roots/list without a "roots" array');
        return result.roots as Root[];
      },
    };
  }

  /** `initialize`. @internal Called through the method table, as are `setLevel` and `subscribe`. */
  initialize(params: Record<string, unknown>): InitializeResult {
    if (this.session) throw McpError.invalidRequest('"initialize" was already received on this connection');
    if (typeof params.protocolVersion !== 'string') throw McpError.invalidParams('"protocolVersion" must be a string');
    if (!isRecord(params.capabilities)) throw McpError.invalidParams('"capabilities" must be an object');
    const info = params.clientInfo;
    if (!isRecord(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw McpError.invalidParams('"clientInfo" must be an object with a string "name" and "version"');
    }
    const version: LegacyProtocolVersion = negotiateLegacyVersion(params.protocolVersion);
    const features = REVISIONS[version];
    this.features = features;
    const clientInfo = info as unknown as Implementation;
    const clientCapabilities = params.capabilities as ClientCapabilities;
    // Plain literals, not a spread: each spread-built object got a hidden class of its own (~300 bytes a session).
    const id = this.sessionId;
    this.session = Object.freeze(
      id !== undefined
        ? { id, era: 'legacy' as const, protocolVersion: version, clientInfo, clientCapabilities }
        : { era: 'legacy' as const, protocolVersion: version, clientInfo, clientCapabilities },
    );
    const handler = this.engine.handler;
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: shapeCapabilities(handler.capabilities, features),
      serverInfo: shapeImplementation(handler.serverInfo, features),
    };
    if (handler.instructions !== undefined) result.instructions = handler.instructions;
    this.log.debug({ protocolVersion: version, client: info }, 'session initialized');
    return result;
  }

  /** `logging/setLevel`. @internal */
  setLevel(params: Record<string, unknown>): Record<string, unknown> {
    if (!isLoggingLevel(params.level)) {
      throw McpError.invalidParams(`"level" must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    this.level = params.level;
    return {};
  }

  /** `resources/subscribe` and `resources/unsubscribe`. @internal */
  subscribe(method: string, params: Record<string, unknown>): Record<string, unknown> {
    if (typeof params.uri !== 'string' || params.uri === '') throw McpError.invalidParams('"uri" must be a non-empty string');
    if (method === 'resources/subscribe') (this.subscriptions ??= new Set()).add(params.uri);
    else this.subscriptions?.delete(params.uri);
    return {};
  }
}
