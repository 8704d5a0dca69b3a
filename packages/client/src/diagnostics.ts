/**
 * Where the client tells observers what it does: `node:diagnostics_channel`, so that telemetry
 * (`@hermes-mcp/opentelemetry`, a metrics exporter, a test) subscribes without the client knowing
 * it, and costs nothing when nobody does. The channel name and the message are a stable contract
 * (docs/observability.md).
 *
 * - `hermes-mcp:client:request` (a TracingChannel: start, end, asyncStart, asyncEnd, error): every
 *   request the client makes, as its caller sees it — from the call until its answer, retries and
 *   2026-07-28 input rounds included. Its context is a {@link ClientRequestTrace}.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type { TransportInfo } from '@hermes-mcp/protocol';

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
  /** The session's id (Streamable HTTP, legacy era), when the server gave one. */
  readonly sessionId?: string;
  /** The transport's description: `kind` (`stdio`, `http`, `sse`, `websocket`, …) and, for the network ones, `url`. */
  readonly transport: TransportInfo;
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

/** The client request tracing channel. */
export const clientRequestChannel = tracingChannel<ClientRequestTrace, ClientRequestTrace>('hermes-mcp:client:request');
