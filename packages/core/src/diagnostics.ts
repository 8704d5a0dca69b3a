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
 * - `hermes-mcp:notification:received`: a notification a server received from its client
 *   (`notifications/initialized`, `notifications/cancelled`, progress, roots list changes).
 */
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { TRACE_CHANNELS } from '@hermes-mcp/protocol';
import type { NotificationEvent, RequestTrace, ServerRequestTrace } from '@hermes-mcp/protocol';

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

/** Publishes a notification a server raised, when anyone listens. @internal */
export function publishNotification(event: () => NotificationEvent): void {
  if (notificationChannel.hasSubscribers) notificationChannel.publish(event());
}

/** Publishes a notification a server received, when anyone listens. @internal */
export function publishNotificationReceived(event: () => NotificationEvent): void {
  if (notificationReceivedChannel.hasSubscribers) notificationReceivedChannel.publish(event());
}
