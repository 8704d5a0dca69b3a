/**
 * One client connection in the legacy era (initialize-based), on any stream-like transport: its
 * negotiated revision, capabilities, logging level and subscriptions; the connection's own methods
 * of the method table (handshake, `logging/setLevel`, subscriptions); modern requests on the same
 * stream handed to the engine.
 */
import {
  ServerRequestTrace,
  SessionEvent,
  publishNotification,
  publishNotificationReceived,
  requestChannel,
  serverRequestChannel,
  sessionClosedChannel,
  requestTrace,
  sessionCreatedChannel,
  traceRequest,
} from '../diagnostics';
import {
  ClientCapabilities,
  ErrorCode,
  ErrorContext,
  Implementation,
  InboundRequestExtra,
  InitializeResult,
  JsonRpcMessage,
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
  ServerCapabilities,
  declaresCapability,
  isRecord,
  isThenable,
  LOGGING_LEVELS,
  META_KEYS,
  Root,
  Transport,
  TransportInfo,
  negotiateLegacyVersion,
  merge,
} from '@hermes-mcp/protocol';
import { elicitationForms } from '../schema/elicitation-schema';
import { ListKind, McpContext, RequestChannel, ServerActions, SessionInfo, isLoggingLevel } from '../context/mcp-context';
import type { McpHandler, NotificationContext } from './mcp-handler';
import { LazyChildLogger, Logger } from '../logger';
import { decideEra } from './era';
import { shapeCapabilities, shapeImplementation } from '../results/shape';
import { withTimeout } from './timeout';
import { methodSpec } from './methods';
import type { HeadersRecord } from './modern-headers';
import type { ModernSink } from './modern-call';
import type { SessionChange, SessionRecord, SessionStore } from '../stores/session-store';
import type { ClusterBus, SessionMessage } from '../stores/cluster';

/**
 * Answers one modern-era (2026-07-28) request, whatever carries it (`Engine.serveModern`):
 * `headers` are the HTTP request's (none on a stream), `sink` receives its notifications.
 */
export type ServeModern = (
  request: JsonRpcRequest,
  headers: HeadersRecord | undefined,
  extra: InboundRequestExtra,
  transport: TransportInfo,
  sink: ModernSink,
) => Promise<Record<string, unknown>>;

/**
 * What a connection needs of the engine that made it (`Engine` is one): the handler, the limits,
 * the modern era for a modern request on a stream, and to be let go when it closes. Named here so
 * the connection does not depend on the engine that depends on it.
 */
export interface ConnectionHost {
  readonly handler: McpHandler;
  readonly options: { readonly logger: Logger; readonly requestTimeout?: number; readonly handlerTimeout?: number };
  /** How long requests in flight may take to finish when the connection drains, in milliseconds. */
  readonly gracePeriod: number;
  /** The most messages one 2025-03-26 batch may hold. */
  readonly maxBatchEntries: number;
  /** What the contexts of its requests reach for server-wide actions (the app). */
  readonly server: ServerActions;
  /** Answers one modern-era request that arrived on this connection's stream. */
  serveModern: ServeModern;
  /** The connection is gone: forget it. */
  release(connection: Connection): void;
}

/** Per-connection options of `Engine.connect`. */
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
  /**
   * Where the session's record is kept (Streamable HTTP): saved after `initialize` (which answers
   * once it is kept), `logging/setLevel` and subscription changes.
   */
  sessionStore?: SessionStore;
  /** How long the record is kept after the session's last use, in milliseconds (with `sessionStore`). */
  sessionIdleMs?: number;
  /** A session taken up from its record (kept by another instance, or before): no `initialize` expected. */
  restore?: SessionRecord;
  /** Who opened the session (see `SessionRecord.principal`), kept in its record. */
  principal?: string;
  /**
   * The bus of a session other instances serve too (with `sessionId`): record changes are told to
   * them, a client's answer to another instance's request goes to it, and this connection's own
   * requests to the client get ids no other instance uses.
   */
  bus?: ClusterBus;
}

const EMPTY: Record<string, unknown> = Object.freeze({});

/**
 * One client connection in the legacy era: its negotiated revision, capabilities, logging level
 * and subscriptions. Requests other than `initialize` and `ping` wait for `initialize`.
 */
export class Connection implements PeerHandlers, RequestChannel {
  /** RequestChannel: how its requests' contexts write elicitation forms and check the answers. */
  readonly forms = elicitationForms;
  /** The peer correlating this connection's messages. */
  readonly peer: Peer;
  private session?: SessionInfo;
  /** What the session channels were told at `initialize` (only when someone listened). */
  private sessionEvent?: SessionEvent = undefined;
  /** Who opened the session, kept in its record. */
  private readonly principal?: string;
  private features?: RevisionFeatures;
  /** `opening` until the first request other than a modern `server/discover` decides the era. */
  private era: 'opening' | 'legacy' | 'modern' = 'opening';
  private initialized = false;
  private level?: LoggingLevel;
  /** How many malformed messages the client sent (the first is logged at warn, the rest at debug). */
  private peerMistakes = 0;
  /** The capabilities its `initialize` was answered with (or, taken up from a record, the server's then). */
  private told?: ServerCapabilities = undefined;
  /** Made on the first subscription: most connections never subscribe. */
  private subscriptions?: Set<string> = undefined;
  private readonly log: Logger;
  private readonly sessionId?: string;
  private readonly onclose?: (connection: Connection) => void;
  private readonly store?: SessionStore;
  private readonly idleMs: number;
  private readonly bus?: ClusterBus;
  /** True once the transport closed. */
  private gone = false;
  /** The promise of {@link closed}, made when someone asks for it, and what settles it. */
  private closedPromise?: Promise<void> = undefined;
  private resolveClosed?: () => void = undefined;

  constructor(
    private readonly engine: ConnectionHost,
    readonly transport: Transport,
    options: ConnectionOptions = {},
  ) {
    const bus = options.sessionId !== undefined ? options.bus : undefined;
    this.peer = new Peer(transport, this, {
      requestTimeout: engine.options.requestTimeout,
      drainTimeout: engine.gracePeriod,
      maxBatchEntries: engine.maxBatchEntries,
      ...(bus && { idPrefix: `${bus.instanceId}-` }),
    });
    this.bus = bus;
    const log = options.logger ?? engine.options.logger;
    this.log = options.loggerBindings ? new LazyChildLogger(log, options.loggerBindings) : log;
    this.sessionId = options.sessionId;
    this.onclose = options.onclose;
    this.store = options.sessionStore;
    this.principal = options.principal;
    this.idleMs = options.sessionIdleMs ?? 30 * 60_000;
    if (options.restore) this.restore(options.restore);
  }

  /** Takes up a session from its record: as after `initialize` and `notifications/initialized`. */
  private restore(record: SessionRecord): void {
    const version = negotiateLegacyVersion(record.protocolVersion);
    this.features = REVISIONS[version];
    this.session = this.sessionOf(version, record.clientInfo, record.clientCapabilities);
    this.era = 'legacy';
    this.initialized = true;
    this.told = this.engine.handler.capabilities;
    this.level = record.logLevel;
    if (record.subscriptions && record.subscriptions.length > 0) this.subscriptions = new Set(record.subscriptions);
  }

  /**
   * Keeps the session's record (`change` undefined: the new session's whole record); resolves with
   * `result` once kept (at once for an in-memory store).
   */
  private save<T>(result: T, change?: SessionChange): T | Promise<T> {
    const session = this.session;
    if (!this.store || session?.id === undefined) return result;
    const saved =
      change !== undefined
        ? this.store.update(session.id, change)
        : this.store.create(
            // A legacy session always has client info: initialize requires it.
            {
              id: session.id,
              protocolVersion: session.protocolVersion,
              clientInfo: session.clientInfo as Implementation,
              clientCapabilities: session.clientCapabilities,
              ...(this.principal !== undefined && { principal: this.principal }),
            },
            this.idleMs,
          );
    // A change is told to the cluster once kept: an instance taking the session up meanwhile reads it from the record.
    const kept = (): T => {
      if (change !== undefined && this.bus) this.settleBus(this.bus.publish(session.id!, { kind: 'change', change }));
      return result;
    };
    return isThenable(saved) ? Promise.resolve(saved).then(kept, (error: unknown) => this.storeFailed(error, change)) : kept();
  }

  /** A bus call not waited for: its failure is logged. */
  private settleBus(pending: unknown): void {
    if (pending !== undefined && isThenable(pending)) pending.then(undefined, (error: unknown) => this.log.warn({ err: error }, 'the cluster bus failed'));
  }

  /**
   * What another instance serving this session published ({@link ClusterBus.join}): a client's
   * message it could not place, or a change of the record. For the Hermes packages.
   */
  clusterMessage(message: SessionMessage): void {
    if (message.kind === 'inbound') {
      this.peer.receiveForwarded(message.message);
      return;
    }
    if (message.kind !== 'change') return;
    const change = message.change;
    if ('logLevel' in change) this.level = change.logLevel;
    else if ('subscribe' in change) (this.subscriptions ??= new Set()).add(change.subscribe);
    else this.subscriptions?.delete(change.unsubscribe);
  }

  /** @internal PeerHandlers: a client's answer or cancellation for another instance of the session. */
  onUnmatched(message: JsonRpcMessage): void {
    if (this.bus && this.sessionId !== undefined) this.settleBus(this.bus.publish(this.sessionId, { kind: 'inbound', message }));
  }

  private storeFailed(error: unknown, change: SessionChange | undefined): never {
    this.log.error({ err: error, change }, 'the session store failed');
    throw McpError.internalError(
      change === undefined
        ? 'Internal error: the session store failed, so the session could not be kept; try again later'
        : 'Internal error: the session store failed, so the change could not be kept; try again later',
    );
  }

  private sessionOf(version: LegacyProtocolVersion, clientInfo: Implementation, clientCapabilities: ClientCapabilities): SessionInfo {
    // Plain literals, not a spread: each spread-built object got a hidden class of its own (~300 bytes a session).
    const id = this.sessionId;
    return Object.freeze(
      id !== undefined
        ? { id, era: 'legacy' as const, protocolVersion: version, clientInfo, clientCapabilities }
        : { era: 'legacy' as const, protocolVersion: version, clientInfo, clientCapabilities },
    );
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
    if (this.sessionEvent && sessionClosedChannel.hasSubscribers) sessionClosedChannel.publish(this.sessionEvent);
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

  /** True when the session was told that `list` changes (`listChanged: true` in its `initialize` answer). */
  toldListChanges(list: ListKind): boolean {
    return this.told?.[list]?.listChanged === true;
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
      // Traced where every modern request is (the engine).
      if (era === 'modern') return this.modernRequest(request, extra);
      this.era = 'legacy';
    }
    if (!requestChannel.hasSubscribers) return this.serveLegacy(request, params, extra);
    return traceRequest(
      requestTrace(request.method, request.id, 'legacy', params, extra.transportInfo ?? this.transport.info, this.sessionId, this.session?.protocolVersion),
      (logBindings) => this.serveLegacy(request, params, extra, logBindings),
    );
  }

  /**
   * A legacy-era request: the connection's own methods, else the handler's (in a context).
   * `logBindings` (from a tracer) go on the request's logger.
   */
  private serveLegacy(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    extra: InboundRequestExtra,
    logBindings?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> | Record<string, unknown> {
    const spec = methodSpec(request.method);
    const session = this.session;
    const handler = this.engine.handler;
    // The connection's own methods; one whose capability the server lacks is the handler's to refuse.
    if (spec?.owner === 'connection' && (session || spec.beforeInitialize) && (!spec.capability || declaresCapability(handler.capabilities, spec.capability))) {
      return spec.serve(this, params, request.method);
    }
    if (!session) throw new McpError(ErrorCode.InvalidRequest, `Server not initialized: send "initialize" before "${request.method}"`);
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const ctx = new McpContext({
      request: { id: request.id, method: request.method, params, _meta: meta },
      session,
      transport: extra.transportInfo ?? this.transport.info,
      extra,
      channel: this,
      log: logBindings ? new LazyChildLogger(this.log, logBindings) : this.log,
      server: this.engine.server,
    });
    const limit = this.engine.options.handlerTimeout;
    if (!limit) return handler.handleRequest(ctx);
    return withTimeout(
      ctx,
      limit,
      () => handler.handleRequest(ctx),
      (error) => {
        throw error;
      },
    );
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

  /** @internal PeerHandlers: every notification received, cancellations included, told to observers. */
  onNotificationReceived(notification: JsonRpcNotification): void {
    publishNotificationReceived(() => {
      const params = notification.params ?? EMPTY;
      // A legacy session's revision, else the one a 2026-07-28 notification names in its envelope.
      const version = this.session?.protocolVersion ?? (isRecord(params._meta) ? params._meta[META_KEYS.protocolVersion] : undefined);
      return {
        method: notification.method,
        params,
        direction: 'received',
        transport: this.transport.info,
        // Only a legacy session is one (a WebSocket names its connection in either era).
        ...(this.session && this.sessionId !== undefined && { sessionId: this.sessionId }),
        ...(typeof version === 'string' && { protocolVersion: version }),
      };
    });
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

  /** For the engine: a broadcast to this session, told to observers as a notification sent on it. */
  broadcast(method: string, params: Record<string, unknown> | undefined, key: string | undefined): Promise<void> {
    publishNotification(() => ({
      method,
      params: params ?? EMPTY,
      transport: this.transport.info,
      ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
      ...(this.session && { protocolVersion: this.session.protocolVersion }),
    }));
    return this.peer.notify(method, params, undefined, key);
  }

  /** For the Hermes packages. RequestChannel: a notification related to a request. */
  notify(relatedRequestId: RequestId, method: string, params: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params, relatedRequestId);
  }

  /** For the Hermes packages. RequestChannel: a server→client request made while handling a request. */
  request(relatedRequestId: RequestId, method: string, params: Record<string, unknown>, options?: RequestOptions, transport?: TransportInfo): Promise<Record<string, unknown>> {
    if (!serverRequestChannel.hasSubscribers) return this.peer.request(method, params, merge(options, { relatedRequestId }));
    const trace: ServerRequestTrace = {
      method,
      params,
      relatedRequestId,
      // The request it is made for travels on that request's exchange (HTTP: its version).
      transport: transport ?? this.transport.info,
      meta: {},
      ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
      ...(this.session && { protocolVersion: this.session.protocolVersion }),
    };
    // The subscribers' start runs before the request is sent: what they put in `meta` goes with it.
    return serverRequestChannel.tracePromise(() => {
      const meta = Object.keys(trace.meta).length === 0 ? undefined : merge(isRecord(params._meta) ? params._meta : undefined, trace.meta);
      return this.peer.request(method, meta ? merge(params, { _meta: meta }) : params, merge(options, { relatedRequestId, onid: (id: RequestId) => (trace.id = id) }));
    }, trace);
  }

  /** For the Hermes packages. RequestChannel: the level set with logging/setLevel. */
  logLevel(): LoggingLevel | undefined {
    return this.level;
  }

  private notificationContext(session: SessionInfo): NotificationContext {
    return {
      session,
      listRoots: async () => {
        if (!session.clientCapabilities.roots)
          throw new McpError(ErrorCode.MissingRequiredClientCapability, 'Cannot use roots: the client did not declare the roots capability.', {
            requiredCapabilities: { roots: {} },
          });
        const result = await this.peer.request('roots/list', {});
        if (!Array.isArray(result.roots)) throw McpError.invalidParams('the client answered roots/list without a "roots" array');
        return result.roots as Root[];
      },
    };
  }

  /** `initialize`. @internal Called through the method table, as are `setLevel` and `subscribe`. */
  initialize(params: Record<string, unknown>): InitializeResult | Promise<InitializeResult> {
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
    this.session = this.sessionOf(version, info as unknown as Implementation, params.capabilities);
    const handler = this.engine.handler;
    const capabilities = (this.told = shapeCapabilities(handler.capabilities, features));
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities,
      serverInfo: shapeImplementation(handler.serverInfo, features),
    };
    if (handler.instructions !== undefined) result.instructions = handler.instructions;
    this.log.debug({ protocolVersion: version, client: info }, 'session initialized');
    if (sessionCreatedChannel.hasSubscribers || sessionClosedChannel.hasSubscribers) {
      this.sessionEvent = {
        ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
        protocolVersion: version,
        transport: this.transport.info,
        startedAt: performance.now(),
      };
      sessionCreatedChannel.publish(this.sessionEvent);
    }
    return this.save(result);
  }

  /** `logging/setLevel`. @internal */
  setLevel(params: Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (!isLoggingLevel(params.level)) {
      throw McpError.invalidParams(`"level" must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    this.level = params.level;
    return this.save({}, { logLevel: params.level });
  }

  /** `resources/subscribe` and `resources/unsubscribe`. @internal */
  subscribe(method: string, params: Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (typeof params.uri !== 'string' || params.uri === '') throw McpError.invalidParams('"uri" must be a non-empty string');
    if (method === 'resources/subscribe') {
      const uri = params.uri;
      const subscribed = () => {
        (this.subscriptions ??= new Set()).add(uri);
        return this.save({}, { subscribe: uri });
      };
      const told = this.engine.handler.handleSubscribe?.(uri, this.session);
      return told ? told.then(subscribed) : subscribed();
    }
    this.subscriptions?.delete(params.uri);
    return this.save({}, { unsubscribe: params.uri });
  }
}
