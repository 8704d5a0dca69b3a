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
 *   (sampling, elicitation, roots): a request of its own in a legacy session, an input request of
 *   a round in 2026-07-28 ({@link ServerRequestTrace}; {@link traceInputRequests}).
 * - `hermes-mcp:notification`: a notification a server raised — progress and log messages of a
 *   request, list changes and resource updates for everyone ({@link NotificationEvent}).
 * - `hermes-mcp:notification:received`: a notification a server received from its client
 *   (`notifications/initialized`, `notifications/cancelled`, progress, roots list changes).
 */
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { DONE, TRACE_CHANNELS, isRecord, merge } from '@hermes-mcp/protocol';
import type { NotificationEvent, RequestId, RequestTrace, ServerRequestTrace, TransportInfo } from '@hermes-mcp/protocol';

export type { NotificationEvent, RequestTrace, ServerRequestTrace, SessionEvent } from '@hermes-mcp/protocol';

/** The request tracing channel. */
export const requestChannel = tracingChannel<RequestTrace, RequestTrace>(TRACE_CHANNELS.request);
/** A legacy session was initialized. */
export const sessionCreatedChannel = channel(TRACE_CHANNELS.sessionCreated);
/** A legacy session's connection is gone. */
export const sessionClosedChannel = channel(TRACE_CHANNELS.sessionClosed);
/** Requests a server sends its client. */
export const serverRequestChannel = tracingChannel<ServerRequestTrace, ServerRequestTrace>(TRACE_CHANNELS.serverRequest);
/** Notifications a server raised. */
export const notificationChannel = channel(TRACE_CHANNELS.notification);
/** Notifications a server received. */
export const notificationReceivedChannel = channel(TRACE_CHANNELS.notificationReceived);

/**
 * A request's trace, every field in one order whatever is known (an unknown one undefined): one
 * object shape for every request, built without the spread of a conditional literal (V8 builds
 * those on a slow path, ~1 µs). @internal
 */
export function requestTrace(
  method: string,
  id: RequestId,
  era: 'legacy' | 'modern',
  params: Readonly<Record<string, unknown>>,
  transport: TransportInfo,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
): RequestTrace {
  return { method, id, era, params, transport, sessionId, protocolVersion, result: undefined, error: undefined, within: undefined, logBindings: undefined };
}

/**
 * Runs `run` as one traced request (callers check `requestChannel.hasSubscribers` first, so an
 * untraced request builds nothing): inside the scope a subscriber set ({@link RequestTrace.within}),
 * given the log bindings it set. @internal
 */
export function traceRequest<T>(trace: RequestTrace, run: (logBindings?: Record<string, unknown>) => T | Promise<T>): Promise<T> {
  // tracePromise wants a promise (Node 20's first releases do not convert other values): a
  // synchronous answer or throw becomes a settled one. The subscribers' start ran before this is
  // called, so `within` and `logBindings` are set by then.
  return requestChannel.tracePromise(() => {
    try {
      const answer = trace.within ? trace.within(() => run(trace.logBindings)) : run(trace.logBindings);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }, trace);
}

/** A question of a 2026-07-28 round: an input request, by its key in `inputRequests`. */
type InputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

/**
 * Tells `hermes-mcp:server-request` of the questions a 2026-07-28 round ends with, when anyone
 * listens: one trace per question, made for `relatedRequestId`. Such a question is no request of
 * its own — it leaves in the round's `input_required` answer and the client answers it in its next
 * round — so its trace has no `id` and settles at once, without a result. The `_meta` entries a
 * subscriber adds (a `traceparent`) go into the question's `params._meta`, where the client that
 * answers it finds its parent. Returns the questions as they are to be sent. @internal
 */
export function traceInputRequests(questions: InputRequests, relatedRequestId: RequestId, transport: TransportInfo, protocolVersion: string): InputRequests {
  if (!serverRequestChannel.hasSubscribers) return questions;
  const sent: InputRequests = {};
  for (const key of Object.keys(questions)) {
    const { method, params } = questions[key];
    const trace: ServerRequestTrace = { method, params, relatedRequestId, transport, protocolVersion, meta: {} };
    // tracePromise wants a promise (Node 20's first releases); the question is sent once `start` ran.
    void serverRequestChannel.tracePromise(() => {
      const meta = trace.meta;
      sent[key] = Object.keys(meta).length === 0 ? questions[key] : { method, params: merge(params, { _meta: merge(isRecord(params._meta) ? params._meta : undefined, meta) }) };
      return DONE;
    }, trace);
  }
  return sent;
}

/** Publishes a notification a server raised, when anyone listens. @internal */
export function publishNotification(event: () => NotificationEvent): void {
  if (notificationChannel.hasSubscribers) notificationChannel.publish(event());
}

/** Publishes a notification a server received, when anyone listens. @internal */
export function publishNotificationReceived(event: () => NotificationEvent): void {
  if (notificationReceivedChannel.hasSubscribers) notificationReceivedChannel.publish(event());
}
