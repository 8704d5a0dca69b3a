/**
 * The request context (the Frame): one object per request, created by the engine from what the
 * transport and the session know, and handed to handlers and middleware.
 */
import {
  ClientCapabilities,
  Era,
  Implementation,
  LoggingLevel,
  Meta,
  ProtocolVersion,
  REVISIONS,
  RequestId,
  RequestOptions,
  TransportInfo,
} from '@hermes-mcp/protocol';
import type { Logger } from './logger';

/** The request being handled. */
export interface RequestInfo {
  /** The JSON-RPC id. */
  readonly id: RequestId;
  /** The MCP method, e.g. `tools/call`. */
  readonly method: string;
  /** The params as received (never mutated by the framework). */
  readonly params: Record<string, unknown>;
  /** The request's `_meta`, if any. */
  readonly _meta?: Meta;
}

/** What the engine knows of the client on this connection or request. */
export interface SessionInfo {
  /** Session id (legacy HTTP); undefined on stdio. */
  readonly id?: string;
  /** `legacy` (initialize) or `modern` (stateless). */
  readonly era: Era;
  /** The negotiated (legacy) or requested (modern) protocol revision. */
  readonly protocolVersion: ProtocolVersion;
  /** The client's name and version, as it declared them. */
  readonly clientInfo?: Implementation;
  /** What the client can do. */
  readonly clientCapabilities: ClientCapabilities;
}

/** Verified caller identity, when an auth layer put one there. Never holds the raw token. */
export interface AuthInfo {
  readonly subject?: string;
  readonly scopes: readonly string[];
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** How the context talks back to the client for this request. @internal */
export interface RequestChannel {
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  request(method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
  /** The minimum level the client asked for with `logging/setLevel`, if any. */
  logLevel(): LoggingLevel | undefined;
}

const LEVEL_RANK: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/**
 * The context of one request. Handlers receive it as their second parameter (or the one marked
 * `@Ctx()`).
 *
 * @example
 * \@Tool() async slow(input: Job, ctx: McpContext) {
 *   for (let i = 0; i < 3; i++) {
 *     if (ctx.signal.aborted) return 'stopped';
 *     await ctx.progress(i + 1, 3, `step ${i + 1}`);
 *   }
 * }
 */
export class McpContext {
  private childLog?: Logger;
  private lastProgress = -Infinity;

  /** @internal */
  constructor(
    /** The request being handled. */
    readonly request: RequestInfo,
    /** The client, as this connection knows it. */
    readonly session: SessionInfo,
    /** Where the request came from (`kind`: `stdio`, `http`, …). */
    readonly transport: TransportInfo,
    /** Aborted on cancellation, disconnect, timeout or shutdown. */
    readonly signal: AbortSignal,
    private readonly channel: RequestChannel,
    private readonly baseLog: Logger,
    /** Verified caller identity, if any. */
    readonly auth?: AuthInfo,
  ) {}

  /** What middleware put here for later handlers. */
  readonly assigns: Record<string, unknown> = {};

  /** A pino child logger bound to this request (server-side log, never sent to the client). */
  get log(): Logger {
    return (this.childLog ??= this.baseLog.child({ requestId: this.request.id, method: this.request.method }));
  }

  /**
   * Reports progress, when the client asked for it (the request carried a `progressToken`);
   * otherwise does nothing. `progress` must increase; a value not above the last one is dropped.
   */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.request._meta?.progressToken;
    if ((typeof token !== 'string' && typeof token !== 'number') || this.signal.aborted) return;
    if (!(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` on progress arrived in 2025-03-26: older revisions never get a field they lack.
    if (message !== undefined && REVISIONS[this.session.protocolVersion].progressMessage) params.message = message;
    await this.channel.notify('notifications/progress', params);
  }

  /**
   * Sends a log message to the client (`notifications/message`) when `level` is at or above the
   * level it set with `logging/setLevel`. Nothing is sent if it never set one.
   */
  async notify(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const min = this.channel.logLevel();
    if (min === undefined || LEVEL_RANK[level] < LEVEL_RANK[min] || this.signal.aborted) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.channel.notify('notifications/message', params);
  }
}

/** Compares two logging levels. @internal */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(LEVEL_RANK, value);
}
