/**
 * Where Hermes tells observers what it does: `node:diagnostics_channel`, so that telemetry (an
 * OpenTelemetry layer, a metrics exporter, a test) subscribes without Hermes knowing it, and costs
 * nothing when nobody does — each point checks `hasSubscribers` first. The channel names and the
 * messages are a stable contract (docs/observability.md).
 *
 * - `hermes-mcp:request` (a TracingChannel: start, end, asyncStart, asyncEnd, error): every request
 *   a server answers, in either era, on every transport. Its context is a {@link RequestTrace};
 *   `result` or `error` is set on it when the request settles.
 * - `hermes-mcp:session:created`, `hermes-mcp:session:closed`: a legacy session initialized, and
 *   the connection that held it gone ({@link SessionEvent}).
 * - `hermes-mcp:server-request` (a TracingChannel): every request a server sends its client
 *   (sampling, elicitation, roots; legacy sessions) ({@link ServerRequestTrace}).
 * - `hermes-mcp:notification`: a notification a server raised — progress and log messages of a
 *   request, list changes and resource updates for everyone ({@link NotificationEvent}).
 */
import { channel, tracingChannel } from 'node:diagnostics_channel';
import type { RequestId, TransportInfo } from '@hermes-mcp/protocol';

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

/** What `hermes-mcp:notification` publishes: a notification a server raised. */
export interface NotificationEvent {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
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

/** The request tracing channel. */
export const requestChannel = tracingChannel<RequestTrace, RequestTrace>('hermes-mcp:request');
/** A legacy session was initialized. */
export const sessionCreatedChannel = channel('hermes-mcp:session:created');
/** A legacy session's connection is gone. */
export const sessionClosedChannel = channel('hermes-mcp:session:closed');
/** Requests a server sends its client. */
export const serverRequestChannel = tracingChannel<ServerRequestTrace, ServerRequestTrace>('hermes-mcp:server-request');
/** Notifications a server raised. */
export const notificationChannel = channel('hermes-mcp:notification');

/**
 * Runs `run` as one traced request (callers check `requestChannel.hasSubscribers` first, so an
 * untraced request builds nothing): inside the scope a subscriber set ({@link RequestTrace.within}),
 * given the log bindings it set. @internal
 */
export function traceRequest<T>(trace: RequestTrace, run: (logBindings?: Record<string, unknown>) => T | Promise<T>): Promise<T> {
  // tracePromise wants a promise: an async wrapper gives a synchronous answer one. The subscribers'
  // start ran before it is called, so `within` and `logBindings` are set by then.
  return requestChannel.tracePromise(async () => (trace.within ? trace.within(() => run(trace.logBindings)) : run(trace.logBindings)), trace);
}

/** Publishes a notification a server raised, when anyone listens. @internal */
export function publishNotification(event: () => NotificationEvent): void {
  if (notificationChannel.hasSubscribers) notificationChannel.publish(event());
}
