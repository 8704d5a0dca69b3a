/**
 * What Hermes servers and clients publish on `node:diagnostics_channel`, for telemetry to read: the
 * channel names and the messages, a stable contract (docs/observability.md). Here, in the package
 * everything depends on, so that a subscriber (`@hermes-mcp/opentelemetry`) needs neither core nor
 * the client. The channels themselves are made where they are published (core/src/diagnostics.ts,
 * client/src/diagnostics.ts): this file names no Node module and runs anywhere.
 */
import type { RequestId } from './jsonrpc';
import type { TransportInfo } from './transport';

/** The channel names: TracingChannels (`request`, `serverRequest`, `clientRequest`) and plain channels. */
export const TRACE_CHANNELS = {
  /** Every request a server answers, in either era, on every transport ({@link RequestTrace}). */
  request: 'hermes-mcp:request',
  /** Every request a server sends its client: sampling, elicitation, roots ({@link ServerRequestTrace}). */
  serverRequest: 'hermes-mcp:server-request',
  /** A legacy session initialized ({@link SessionEvent}). */
  sessionCreated: 'hermes-mcp:session:created',
  /** The connection that held a legacy session is gone ({@link SessionEvent}). */
  sessionClosed: 'hermes-mcp:session:closed',
  /** A notification a server raised ({@link NotificationEvent}). */
  notification: 'hermes-mcp:notification',
  /** Every request a client makes, as its caller sees it ({@link ClientRequestTrace}). */
  clientRequest: 'hermes-mcp:client:request',
  /** A notification a server received from its client ({@link NotificationEvent}). */
  notificationReceived: 'hermes-mcp:notification:received',
  /** A notification a client sent or received ({@link NotificationEvent}, `direction` says which). */
  clientNotification: 'hermes-mcp:client:notification',
  /** Every request a client answers for its server: sampling, elicitation, roots, ping ({@link RequestTrace}). */
  clientServerRequest: 'hermes-mcp:client:server-request',
  /** A client's connection is closed, its session over ({@link SessionEvent}). */
  clientSessionClosed: 'hermes-mcp:client:session:closed',
} as const;

/** What a `hermes-mcp:request` subscriber is given, and what it may read when the request settles. */
export interface RequestTrace {
  /** The JSON-RPC method (`tools/call`, …). */
  readonly method: string;
  /** The request's id. */
  readonly id: RequestId;
  /** `legacy` (a session of 2024-11-05 … 2025-11-25) or `modern` (2026-07-28, stateless). */
  readonly era: 'legacy' | 'modern';
  /** The request's params, as received (`_meta` included: `traceparent` lives there). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The transport's description (`kind`, and on HTTP the headers; `auth` when authenticated). */
  readonly transport: TransportInfo;
  /** The legacy session's id (HTTP, WebSocket), when there is one. */
  readonly sessionId?: string;
  /** The revision the request is answered in, when known before it runs. */
  readonly protocolVersion?: string;
  /** The result, once answered. */
  result?: unknown;
  /** What it failed with (an `McpError` for protocol errors), once failed. */
  error?: unknown;
  /**
   * Set by a `start` subscriber to run the request inside its own scope — OpenTelemetry enters the
   * span's context, so what the handler does is traced under it. Called once, with the request's
   * work; it returns what `run` returns. A second subscriber wraps the first one's.
   */
  within?: <T>(run: () => T) => T;
  /**
   * Set by a `start` subscriber: fields for the request's logger (`ctx.log`) — OpenTelemetry puts
   * `trace_id` and `span_id` here.
   */
  logBindings?: Record<string, unknown>;
}

/** What `hermes-mcp:server-request` traces: a request the server sends its client. */
export interface ServerRequestTrace {
  /** `sampling/createMessage`, `elicitation/create`, `roots/list`, `ping`. */
  readonly method: string;
  /** Its params as they will be sent (without what a subscriber adds to {@link meta}). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The id of the client's request it is made for. */
  readonly relatedRequestId: RequestId;
  /** Its own id, set when it is sent (`jsonrpc.request.id`). */
  id?: RequestId;
  /** The session's id (HTTP, WebSocket), when there is one. */
  readonly sessionId?: string;
  readonly protocolVersion?: string;
  readonly transport: TransportInfo;
  /**
   * Entries a `start` subscriber adds to the request's `params._meta` before it is sent —
   * OpenTelemetry puts `traceparent` (and `tracestate`, `baggage`) here.
   */
  readonly meta: Record<string, string>;
  /** The client's answer, once answered. */
  result?: unknown;
  /** What it failed with, once failed. */
  error?: unknown;
}

/**
 * What `hermes-mcp:notification` (a notification a server raised), `hermes-mcp:notification:received`
 * (one a server received) and `hermes-mcp:client:notification` (one a client sent or received)
 * publish.
 */
export interface NotificationEvent {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** `sent` by this side, or `received` from the peer; absent means `sent` (what a server raised). */
  readonly direction?: 'sent' | 'received';
  /** The revision of the session it goes on, when known. */
  readonly protocolVersion?: string;
  /** The request it belongs to (progress, log messages); undefined for broadcasts. */
  readonly relatedRequestId?: RequestId;
  /** The legacy session it goes to, when it goes to one (HTTP, WebSocket). */
  readonly sessionId?: string;
  /** The transport it goes on; undefined for broadcasts (they go to every session that asked). */
  readonly transport?: TransportInfo;
}

/** What `hermes-mcp:session:created` and `hermes-mcp:session:closed` publish. */
export interface SessionEvent {
  /** The session's id, when its transport names one (HTTP, WebSocket); undefined on stdio. */
  readonly sessionId?: string;
  readonly protocolVersion: string;
  readonly transport: TransportInfo;
  /** `performance.now()` when the session was initialized. */
  readonly startedAt: number;
}

/** What a `hermes-mcp:client:request` subscriber is given, and what it may read when the request settles. */
export interface ClientRequestTrace {
  /** The JSON-RPC method (`tools/call`, …). */
  readonly method: string;
  /** The params as the caller gave them. */
  readonly params: Readonly<Record<string, unknown>>;
  /** `legacy` (a session of 2024-11-05 … 2025-11-25) or `modern` (2026-07-28). */
  readonly era: 'legacy' | 'modern';
  /** The revision spoken. */
  readonly protocolVersion?: string;
  /** The session's id (Streamable HTTP, legacy era), when the server gave one — by `initialize`'s answer for that request. */
  readonly sessionId?: string;
  /** The transport's description: `kind` (`stdio`, `http`, `sse`, `websocket`, …) and, for the network ones, `url`. */
  readonly transport: TransportInfo;
  /** The id it was sent with (`jsonrpc.request.id`), set when it is sent; a retry's replaces it. */
  id?: RequestId;
  /**
   * Entries a `start` subscriber adds to every message's `params._meta` for this request —
   * OpenTelemetry puts `traceparent` (and `tracestate`, `baggage`) here, so the server's span joins
   * the client's trace.
   */
  readonly meta: Record<string, string>;
  /** The result, once answered. */
  result?: unknown;
  /** What it failed with (an `McpError` for protocol errors), once failed. */
  error?: unknown;
}
