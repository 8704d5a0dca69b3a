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

/**
 * Runs `run` as one traced request when anyone subscribes to `hermes-mcp:request`; else just runs
 * it (no context is even built). @internal
 */
export function traceRequest<T>(trace: () => RequestTrace, run: () => T | Promise<T>): T | Promise<T> {
  if (!requestChannel.hasSubscribers) return run();
  // tracePromise wants a promise: an async wrapper gives a synchronous answer one.
  return requestChannel.tracePromise(async () => run(), trace());
}
