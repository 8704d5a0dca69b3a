/**
 * The engine: one protocol engine for every transport. A transport hands it a stream
 * (`connect`): a legacy {@link Connection} (connection.ts) runs that stream's lifecycle (initialize,
 * version negotiation, ping, logging level, subscriptions); a modern request, on a stream or over
 * HTTP, is checked (modern-checks.ts) and answered by the {@link ModernHandler} (modern.ts). Both
 * build a context per request and pass the rest to the server's {@link McpHandler}. The engine
 * also reaches every connection at once (list changes, resource updates).
 */
import { publishNotification, requestChannel, requestTrace, traceRequest } from '../diagnostics';
import { InboundRequestExtra, JsonRpcRequest, META_KEYS, Transport, TransportInfo, isThenable } from '@hermes-mcp/protocol';
import type { ListKind, ServerActions } from '../context/mcp-context';
import { Connection, ConnectionOptions } from './connection';
import type { McpHandler } from './mcp-handler';
import { Logger } from '../logger';
import { ModernHandler } from './modern';
import type { ModernSink } from './modern-call';
import type { CacheHints } from '../metadata/options';
import { admitModern } from './modern-checks';
import type { HeadersRecord } from './modern-headers';
import { RequestStateCodec } from './request-state';
import type { TaskOptions } from './tasks';
import type { Cluster, ClusterMessage } from '../stores/cluster';

/** Options of the engine. */
/**
 * How an app serves, whatever the transport: the options of `McpFactory.create` that the engine
 * applies (`McpAppOptions` takes them all, and more).
 */
export interface ServingOptions {
  /** Timeout of server→client requests (elicit, sample, roots) in milliseconds (default 60 000). */
  requestTimeout?: number;
  /** Longest time any request handler may run, in milliseconds (default: no limit). */
  handlerTimeout?: number;
  /**
   * Secret that seals MRTR `requestState` (MCP 2026-07-28): set the same one on every process
   * behind one endpoint, at least 32 bytes (default: random per process).
   */
  requestStateSecret?: string;
  /** Caching hints of cacheable MCP 2026-07-28 results (default `{ ttlMs: 0, cacheScope: 'private' }`). */
  cache?: CacheHints;
  /** Task lifetimes and poll hints (MCP 2026-07-28 tasks extension). */
  tasks?: TaskOptions;
  /**
   * How long requests in flight may take to finish when the app shuts down (`close()`, a Fastify
   * app closing, SIGTERM or the end of stdin on stdio), in milliseconds; those still running are
   * then answered with -32010 (default 5 000).
   */
  shutdownGracePeriod?: number;
  /**
   * Runs this app as one of several instances behind one endpoint, without sticky sessions:
   * sessions, resumable streams and tasks are kept in the cluster's shared stores, and what one
   * instance must tell the others crosses its bus (list changes and resource updates reach their
   * sessions and listen streams too; tasks are cancelled and answered wherever they run). Make one
   * with `redisCluster()` of `@hermes-mcp/redis`, and set `cursorSecret` and `requestStateSecret`
   * to the same values on every instance. See docs/scaling.md.
   */
  cluster?: Cluster;
  /**
   * The largest answer the server sends to one request (or one 2025-03-26 batch), in bytes of
   * JSON (default 16 MiB), on every transport. A larger one is not sent: the request gets -32013
   * (ResultTooLarge) naming the limit. See docs/reliability.md.
   */
  maxResultBytes?: number;
  /**
   * Most messages one JSON-RPC batch (MCP 2025-03-26 only) may hold (default 100). A larger batch is
   * refused whole with -32600 (HTTP 400), none of it run.
   */
  maxBatchEntries?: number;
}

/** What an engine is made with: how it serves, the logger, and what its requests' contexts reach. */
export interface EngineOptions extends ServingOptions {
  /** Server-side logger. */
  logger: Logger;
  /**
   * What the contexts of this engine's requests reach for server-wide actions (`ctx.notifyResourceUpdated`,
   * `ctx.notifyListChanged`): the app (`McpApp`), whose own methods call the engine's. Default: the engine.
   */
  server?: ServerActions;
}

/** The notification of each list's changes. */
const LIST_CHANGED: Record<ListKind, string> = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

/** The list a list_changed notification is about, by its method. */
const LIST_OF: ReadonlyMap<string, ListKind> = new Map(Object.entries(LIST_CHANGED).map(([list, method]) => [method, list as ListKind]));

/** Default of {@link EngineOptions.maxResultBytes}: 16 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;
/** Default of {@link EngineOptions.maxBatchEntries}. */
export const DEFAULT_MAX_BATCH_ENTRIES = 100;

/** Default of {@link EngineOptions.shutdownGracePeriod}. */
export const DEFAULT_SHUTDOWN_GRACE_PERIOD = 5_000;

/** Serves MCP over any number of connections from one handler. */
export class Engine implements ServerActions {
  private readonly live = new Set<Connection>();
  /** Serves modern-era (2026-07-28) requests, on any transport. */
  private readonly modern: ModernHandler;
  /** The lists changed during this tick, told at its end. */
  private readonly pendingChanges = new Set<ListKind>();
  /** What request contexts reach for server-wide actions ({@link EngineOptions.server}). */
  readonly server: ServerActions;

  constructor(
    readonly handler: McpHandler,
    readonly options: EngineOptions,
  ) {
    this.server = options.server ?? this;
    this.modern = new ModernHandler(handler, {
      server: this.server,
      logger: options.logger,
      states: new RequestStateCodec(options.requestStateSecret),
      cache: { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' },
      handlerTimeout: options.handlerTimeout,
      tasks: options.cluster ? { ...options.tasks, store: options.tasks?.store ?? options.cluster.taskStore } : options.tasks,
      tell: options.cluster && ((message) => this.tell(message)),
    });
    options.cluster?.bus.onBroadcast((message) => this.clusterMessage(message));
  }

  /** What another instance broadcast: its notification for the sessions and streams here, or a task's change. */
  private clusterMessage(message: ClusterMessage): void {
    if (message.kind === 'notify') this.deliver(message.method, message.params, message.uri, message.key);
    else this.modern.taskMessage(message);
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
  serveModern(
    request: JsonRpcRequest,
    headers: HeadersRecord | undefined,
    extra: InboundRequestExtra,
    transport: TransportInfo,
    sink: ModernSink,
  ): Promise<Record<string, unknown>> {
    if (!requestChannel.hasSubscribers) return this.handleModern(request, headers, extra, transport, sink);
    const params = request.params ?? {};
    const version = (params._meta as Record<string, unknown> | undefined)?.[META_KEYS.protocolVersion];
    return traceRequest(requestTrace(request.method, request.id, 'modern', params, transport, undefined, typeof version === 'string' ? version : undefined), (logBindings) =>
      this.handleModern(request, headers, extra, transport, sink, logBindings),
    );
  }

  /** The checks of the modern era, in their order, then the modern handler. */
  private handleModern(
    request: JsonRpcRequest,
    headers: HeadersRecord | undefined,
    extra: InboundRequestExtra,
    transport: TransportInfo,
    sink: ModernSink,
    logBindings?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    return this.modern.handle(request, admitModern(request, headers, this.inputSchemaOf), extra, transport, sink, logBindings);
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
   * Sends a notification to every initialized legacy connection and to the modern listen streams
   * that asked for it, here and, with a cluster, on every other instance.
   */
  broadcast(method: string, params?: Record<string, unknown>): void {
    this.raise(method, params);
  }

  /** Tells the connections subscribed to `uri` that the resource changed (here and on the cluster's other instances). */
  notifyResourceUpdated(uri: string): void {
    this.raise('notifications/resources/updated', { uri }, uri);
  }

  /**
   * Tells clients (here and on the cluster's other instances) that `list` changed: the changes of
   * one tick make one notification per list, sent at its end. A session hears it when its
   * `initialize` declared that list with `listChanged: true`, a listen stream when it asked for it
   * and was acknowledged: no client hears of a list it was not told changes.
   */
  notifyListChanged(list: ListKind): void {
    if (this.pendingChanges.size === 0) {
      queueMicrotask(() => {
        const changes = [...this.pendingChanges];
        this.pendingChanges.clear();
        for (const changed of changes) this.broadcast(LIST_CHANGED[changed]);
      });
    }
    this.pendingChanges.add(list);
  }

  /** A notification raised here: published, delivered here, and told to the cluster (with its key). */
  private raise(method: string, params: Record<string, unknown> | undefined, uri?: string): void {
    const key = this.nextKey();
    this.deliver(method, params, uri, key);
    if (key !== undefined) this.tell({ kind: 'notify', method, ...(params && { params }), ...(uri !== undefined && { uri }), key });
  }

  /** Broadcasts raised here so far (names them in a cluster). */
  private raised = 0;

  /** The key of a new broadcast, unique in the cluster; undefined without one. */
  private nextKey(): string | undefined {
    const bus = this.options.cluster?.bus;
    return bus && `${bus.instanceId}.${(++this.raised).toString(36)}`;
  }

  /**
   * Sends a notification to this instance's connections (those subscribed to `uri`, when given)
   * and listen streams; `key` names a broadcast of a cluster.
   */
  private deliver(method: string, params: Record<string, unknown> | undefined, uri?: string, key?: string): void {
    // Told to observers once for the listen streams (each names its own revision), once per session.
    if (this.modern.listenerCount > 0) publishNotification(() => ({ method, params: params ?? {} }));
    this.modern.publish(method, params);
    const list = LIST_OF.get(method);
    for (const connection of this.live) {
      if (!connection.sessionInfo || (uri !== undefined && !connection.isSubscribed(uri)) || (list !== undefined && !connection.toldListChanges(list))) continue;
      connection.broadcast(method, params, key).catch((error) => this.options.logger.warn({ err: error, method }, 'could not send a notification'));
    }
  }

  /** Broadcasts to the cluster's other instances, if any (a failure is logged: the bus is best effort). */
  private tell(message: ClusterMessage): void {
    const bus = this.options.cluster?.bus;
    if (!bus) return;
    try {
      const sent = bus.broadcast(message);
      if (isThenable(sent)) sent.then(undefined, (error: unknown) => this.options.logger.warn({ err: error }, 'the cluster bus failed to broadcast'));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'the cluster bus failed to broadcast');
    }
  }

  /** The largest answer to one request or batch, in bytes (`maxResultBytes`). */
  get maxResultBytes(): number {
    return this.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  }

  /** The most messages one batch may hold (`maxBatchEntries`). */
  get maxBatchEntries(): number {
    return this.options.maxBatchEntries ?? DEFAULT_MAX_BATCH_ENTRIES;
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
