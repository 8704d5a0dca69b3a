/**
 * Where the client tells observers what it does: `node:diagnostics_channel`, so that telemetry
 * (`@hermes-mcp/opentelemetry`, a metrics exporter, a test) subscribes without the client knowing
 * it, and costs nothing when nobody does — each point checks `hasSubscribers` first. The channel
 * names and the messages are a stable contract (docs/observability.md).
 *
 * - `hermes-mcp:client:request` (a TracingChannel: start, end, asyncStart, asyncEnd, error): every
 *   request the client makes, as its caller sees it — from the call until its answer, retries and
 *   2026-07-28 input rounds included. Its context is a {@link ClientRequestTrace}.
 * - `hermes-mcp:client:server-request` (a TracingChannel): every request the server sends that the
 *   client answers (sampling, elicitation, roots, ping), a {@link RequestTrace}: a request of its
 *   own in a legacy session; in 2026-07-28 an input request of a round (era `modern`, its `id` the
 *   question's key in `inputRequests`, as it has no JSON-RPC id).
 * - `hermes-mcp:client:notification`: a notification the client sent or received
 *   ({@link NotificationEvent}, its `direction` says which).
 * - `hermes-mcp:client:session:closed`: a legacy session's connection is gone ({@link SessionEvent}).
 */
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { META_KEYS, TRACE_CHANNELS, isRecord } from '@hermes-mcp/protocol';
import type { ClientRequestTrace, JsonRpcRequest, NotificationEvent, RequestId, RequestTrace, SessionEvent, Transport } from '@hermes-mcp/protocol';

export type { ClientRequestTrace } from '@hermes-mcp/protocol';

/** The client request tracing channel. */
export const clientRequestChannel = tracingChannel<ClientRequestTrace, ClientRequestTrace>(TRACE_CHANNELS.clientRequest);
/** Requests of the server the client answers. */
export const clientServerRequestChannel = tracingChannel<RequestTrace, RequestTrace>(TRACE_CHANNELS.clientServerRequest);
/** Notifications the client sent or received. */
export const clientNotificationChannel = channel(TRACE_CHANNELS.clientNotification);
/** A legacy session of the client ended. */
export const clientSessionClosedChannel = channel(TRACE_CHANNELS.clientSessionClosed);

/** What the channels say of the client: its era, revision and transport (an `McpClient`). */
export interface TracedClient {
  readonly era?: 'legacy' | 'modern';
  readonly protocolVersion?: string;
  readonly transport: Transport;
}

/** The legacy session's id a transport holds (Streamable HTTP), if any: 2026-07-28 has no session. */
function sessionIdOf(client: TracedClient): { sessionId?: string } {
  if (client.era === 'modern') return {};
  const sessionId = (client.transport as { sessionId?: unknown }).sessionId;
  return typeof sessionId === 'string' ? { sessionId } : {};
}

/** The revision, when known: the client's, else the one a request asks for in its envelope (`server/discover`). */
function versionOf(client: TracedClient, params?: Record<string, unknown>): { protocolVersion?: string } {
  if (client.protocolVersion !== undefined) return { protocolVersion: client.protocolVersion };
  const asked = isRecord(params?._meta) ? params._meta[META_KEYS.protocolVersion] : undefined;
  return typeof asked === 'string' ? { protocolVersion: asked } : {};
}

/**
 * Runs one request as `hermes-mcp:client:request` traces it, when anyone listens (else just runs
 * it): `run` is given the `_meta` entries the subscribers added (a `traceparent`), if any, and what
 * to call with the id the request is sent with (the trace's `id`). @internal
 */
export function traceClientRequest<T>(
  client: TracedClient,
  method: string,
  params: Record<string, unknown>,
  run: (meta?: Record<string, string>, onid?: (id: RequestId) => void) => Promise<T>,
): Promise<T> {
  if (!clientRequestChannel.hasSubscribers) return run();
  const trace: ClientRequestTrace = {
    method,
    params,
    era: client.era ?? (method === 'initialize' ? 'legacy' : 'modern'),
    transport: client.transport.info,
    meta: {},
    ...versionOf(client, params),
    // Read when asked: `initialize` learns it from its answer (Streamable HTTP).
    get sessionId() {
      return sessionIdOf(client).sessionId;
    },
  };
  return clientRequestChannel.tracePromise(() => run(Object.keys(trace.meta).length === 0 ? undefined : trace.meta, (id) => (trace.id = id)), trace);
}

/** Calls both, `first` (the caller's `onId`) first. @internal */
export function chainOnId(first: ((id: RequestId) => void) | undefined, second: (id: RequestId) => void): (id: RequestId) => void {
  return first ? (id) => (first(id), second(id)) : second;
}

/** Answers one request of the server as `hermes-mcp:client:server-request` traces it, when anyone listens. @internal */
export function traceAnswer(
  client: TracedClient,
  request: JsonRpcRequest,
  answer: () => Promise<Record<string, unknown>> | Record<string, unknown>,
): Promise<Record<string, unknown>> | Record<string, unknown> {
  if (!clientServerRequestChannel.hasSubscribers) return answer();
  const trace: RequestTrace = {
    method: request.method,
    id: request.id,
    era: client.era ?? 'legacy',
    params: request.params ?? {},
    transport: client.transport.info,
    ...versionOf(client),
    ...sessionIdOf(client),
  };
  return clientServerRequestChannel.tracePromise(async () => (trace.within ? trace.within(answer) : answer()), trace);
}

/** Publishes a notification the client sent or received, when anyone listens. @internal */
export function publishClientNotification(client: TracedClient, direction: 'sent' | 'received', method: string, params: Record<string, unknown> | undefined): void {
  if (!clientNotificationChannel.hasSubscribers) return;
  const event: NotificationEvent = { method, params: params ?? {}, direction, transport: client.transport.info, ...versionOf(client), ...sessionIdOf(client) };
  clientNotificationChannel.publish(event);
}

/**
 * A legacy session's clock: started when the session is, published on
 * `hermes-mcp:client:session:closed` when its connection is gone. @internal
 */
export class ClientSessionClock {
  private started?: SessionEvent;

  /** A legacy session began (a new one replaces the old: its end is the old one's too). */
  start(client: TracedClient): void {
    if (client.era !== 'legacy' || client.protocolVersion === undefined) return;
    this.end();
    this.started = { protocolVersion: client.protocolVersion, transport: client.transport.info, startedAt: performance.now(), ...sessionIdOf(client) };
  }

  /** The connection is gone (or a new session begins). */
  end(): void {
    const started = this.started;
    this.started = undefined;
    if (started && clientSessionClosedChannel.hasSubscribers) clientSessionClosedChannel.publish(started);
  }
}
