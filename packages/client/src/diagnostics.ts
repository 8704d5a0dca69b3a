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
import { TRACE_CHANNELS } from '@hermes-mcp/protocol';
import type { ClientRequestTrace } from '@hermes-mcp/protocol';

export type { ClientRequestTrace } from '@hermes-mcp/protocol';

/** The client request tracing channel. */
export const clientRequestChannel = tracingChannel<ClientRequestTrace, ClientRequestTrace>(TRACE_CHANNELS.clientRequest);
