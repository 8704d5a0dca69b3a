/**
 * The engine (the Base): one protocol engine for every transport. A transport hands it a
 * connection; the engine runs the lifecycle (initialize, version negotiation, ping, logging level),
 * builds a context per request, and passes the rest to the server's {@link McpHandler}.
 */
import {
  ClientCapabilities,
  ErrorCode,
  Implementation,
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
  Transport,
  negotiateLegacyVersion,
  InboundRequestExtra,
} from '@hermes-mcp/protocol';
import { McpContext, RequestChannel, SessionInfo, isLoggingLevel } from './context';
import type { McpHandler } from './handler';
import type { Logger } from './logger';
import { shapeCapabilities, shapeImplementation } from './shape';

/** Options of the engine. */
export interface EngineOptions {
  /** Server-side logger. */
  logger: Logger;
  /** Timeout of server→client requests in milliseconds (default 60 000). */
  requestTimeout?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Serves MCP over any number of connections from one handler. */
export class Engine {
  constructor(
    readonly handler: McpHandler,
    readonly options: EngineOptions,
  ) {}

  /** Starts serving a legacy-era (initialize-based) connection over `transport`. */
  async connect(transport: Transport): Promise<Connection> {
    const connection = new Connection(this, transport);
    await connection.peer.start();
    return connection;
  }
}

/**
 * One client connection in the legacy era: its negotiated revision, capabilities and logging
 * level. Requests other than `initialize` and `ping` wait for `initialize`.
 */
export class Connection implements PeerHandlers {
  /** The peer correlating this connection's messages. */
  readonly peer: Peer;
  /** Resolves when the connection is gone. */
  readonly closed: Promise<void>;
  private session?: SessionInfo;
  private features?: RevisionFeatures;
  private initialized = false;
  private level?: LoggingLevel;
  private readonly log: Logger;

  constructor(
    private readonly engine: Engine,
    readonly transport: Transport,
  ) {
    this.peer = new Peer(transport, this, { requestTimeout: engine.options.requestTimeout });
    this.log = engine.options.logger;
    let resolve!: () => void;
    this.closed = new Promise((r) => (resolve = r));
    const peerOnClose = transport.onclose;
    transport.onclose = () => {
      peerOnClose?.();
      resolve();
    };
  }

  /** The session as negotiated by `initialize`, if it happened. */
  get sessionInfo(): SessionInfo | undefined {
    return this.session;
  }

  /** True once the client sent `notifications/initialized`. */
  get isInitialized(): boolean {
    return this.initialized;
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.peer.close();
  }

  acceptBatch(): boolean {
    return this.features?.batches === true;
  }

  onRequest(request: JsonRpcRequest, extra: InboundRequestExtra): Promise<Record<string, unknown>> | Record<string, unknown> {
    const params = request.params ?? EMPTY;
    switch (request.method) {
      case 'initialize':
        return this.initialize(params);
      case 'ping':
        return {};
    }
    const session = this.session;
    if (!session) {
      throw new McpError(ErrorCode.InvalidRequest, `Server not initialized: send "initialize" before "${request.method}"`);
    }
    if (request.method === 'logging/setLevel') return this.setLevel(params);
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const ctx = new McpContext({ id: request.id, method: request.method, params, _meta: meta }, session, this.transport.info, extra.signal, this.channel(request.id), this.log);
    return this.engine.handler.handleRequest(ctx);
  }

  onNotification(notification: JsonRpcNotification): void | Promise<void> {
    if (notification.method === 'notifications/initialized') {
      this.initialized = true;
      return;
    }
    if (!this.session) return;
    return this.engine.handler.handleNotification?.(notification, { session: this.session });
  }

  onError(error: unknown, context: { method?: string; id?: RequestId | null }): void {
    this.log.error({ err: error, ...context }, 'error while handling a message');
  }

  private initialize(params: Record<string, unknown>): InitializeResult {
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
    this.session = Object.freeze({
      era: 'legacy',
      protocolVersion: version,
      clientInfo: info as unknown as Implementation,
      clientCapabilities: params.capabilities as ClientCapabilities,
    });
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

  private setLevel(params: Record<string, unknown>): Record<string, unknown> {
    if (!this.engine.handler.capabilities.logging) throw McpError.methodNotFound('logging/setLevel');
    if (!isLoggingLevel(params.level)) {
      throw McpError.invalidParams('"level" must be one of debug, info, notice, warning, error, critical, alert, emergency');
    }
    this.level = params.level;
    return {};
  }

  private channel(requestId: RequestId): RequestChannel {
    const peer = this.peer;
    return {
      notify: (method, params) => peer.notify(method, params, requestId),
      request: (method, params, options?: RequestOptions) => peer.request(method, params, { ...options, relatedRequestId: requestId }),
      logLevel: () => this.level,
    };
  }
}
