/**
 * OpenTelemetry for Hermes, on the channels the server (`@hermes-mcp/core`) and the client
 * (`@hermes-mcp/client`) publish (docs/observability.md): a span and a duration per request, by the
 * MCP semantic conventions, with the trace carried across in `params._meta`. It needs nothing of
 * Hermes but the channel names, and nothing of OpenTelemetry but its API: the SDK, exporters,
 * propagators and context manager are the application's.
 */
import { tracingChannel, channel, type TracingChannelSubscribers } from 'node:diagnostics_channel';
import {
  Attributes,
  Context,
  Link,
  MeterProvider,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  TracerProvider,
  context,
  metrics,
  propagation,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { TRACE_CHANNELS, merge } from '@hermes-mcp/protocol';
import type { ClientRequestTrace, NotificationEvent, RequestId, RequestTrace, ServerRequestTrace, SessionEvent, TransportInfo } from '@hermes-mcp/protocol';
import { ATTR, Described, Describer, HistogramName, Instruments, clientAddress, isInputRequest, outcomeOf, sessionAttributes } from './conventions';

/** Options of {@link instrumentOpenTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go; default the global tracer provider (`trace.setGlobalTracerProvider`, the Node SDK's). */
  tracerProvider?: TracerProvider;
  /** Where the durations go; default the global meter provider. */
  meterProvider?: MeterProvider;
  /** Trace what servers in this process receive and send (requests, notifications, sessions); default true. */
  server?: boolean;
  /** Trace what `@hermes-mcp/client` clients in this process send and receive; default true. */
  client?: boolean;
  /**
   * A span for each notification sent or received (progress, log messages, list changes, resource
   * updates, `notifications/initialized`, …), as the conventions have it; default true. False
   * leaves them out — a tool that reports progress often makes many.
   */
  notifications?: boolean;
}

/** Instrumentation that is installed: {@link uninstall} stops it. */
export interface OpenTelemetryInstrumentation {
  /** Unsubscribes from every channel: no more spans or measurements. */
  uninstall(): void;
}

/** The instrumentation scope spans and metrics are reported under. */
const SCOPE = '@hermes-mcp/opentelemetry';
/** The scope's version (the package's). */
const VERSION = '0.1.0';

/** What the instrumentation keeps on a channel's context while the operation runs. */
const STATE = Symbol('hermes-mcp.otel');

/** One operation in flight. */
interface InFlight {
  span: Span;
  /** `performance.now()` when it started. */
  started: number;
  /** Its metric attributes (shared: copied, never changed). */
  metric: Readonly<Attributes>;
  /** Where its duration goes; none for a 2026-07-28 input request ({@link isInputRequest}). */
  histogram: HistogramName | undefined;
  /** True for a SERVER span (the response is its own), false for a CLIENT span. */
  answered: boolean;
  ended?: true;
}

type Traced = { [STATE]?: InFlight; result?: unknown; error?: unknown; id?: RequestId; sessionId?: string };

/** Reads `_meta` and HTTP headers for the propagators (a header may come as an array). */
const carrierGetter = {
  get(carrier: Record<string, unknown>, key: string): string | string[] | undefined {
    const value = carrier[key];
    return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
  },
  keys(carrier: Record<string, unknown>): string[] {
    return Object.keys(carrier);
  },
};

/**
 * Traces and measures Hermes servers and clients in this process by the OpenTelemetry semantic
 * conventions for MCP (open-telemetry/semantic-conventions v1.41.1, `docs/gen-ai/mcp.md`):
 *
 * - a `SERVER` span per request or notification received — by a server from its client, by a
 *   client from its server — named `{mcp.method.name} {target}` (`tools/call get_weather`), its
 *   parent the trace in the message's `params._meta` (`traceparent`, `tracestate`, `baggage`), else
 *   in the HTTP request's headers, else the active context; a request's handler runs inside it, so
 *   its own spans are children and `ctx.log` lines carry `trace_id` and `span_id`;
 * - a `CLIENT` span per request or notification sent — by a client, or by a server to its client,
 *   a 2026-07-28 round's questions included (docs/observability.md) — with the request's trace
 *   injected into its `params._meta`, so one trace spans both processes;
 * - the histograms `mcp.server.operation.duration`, `mcp.client.operation.duration` (requests),
 *   `mcp.server.session.duration` and `mcp.client.session.duration` (legacy sessions).
 *
 * A request that is not sampled costs its duration (attributes cached per method and target) and
 * the context propagation: no attributes are built for its span and no log bindings made.
 *
 * Call it once, after the OpenTelemetry SDK is set up; the trace context crosses processes with the
 * propagators the SDK registered (W3C Trace Context by default in the Node SDK).
 *
 * @example
 * const sdk = new NodeSDK({ traceExporter: new ConsoleSpanExporter() });
 * sdk.start();
 * instrumentOpenTelemetry();
 */
export function instrumentOpenTelemetry(options: OpenTelemetryOptions = {}): OpenTelemetryInstrumentation {
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION);
  const instruments = new Instruments(() => (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION));
  const describer = new Describer();
  const undo: Array<() => void> = [];

  const finish = (traced: Traced): void => {
    const state = traced[STATE];
    if (!state || state.ended) return;
    state.ended = true;
    let metric: Attributes = state.metric;
    // initialize: the revision is known once answered.
    const version = (traced.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === 'string' && metric[ATTR.protocolVersion] === undefined) metric = merge(metric, { [ATTR.protocolVersion]: version });
    const outcome = outcomeOf(traced.result, traced.error, state.answered);
    if (outcome) {
      metric = { ...metric };
      if (outcome.type !== undefined) metric[ATTR.errorType] = outcome.type;
      if (outcome.code !== undefined) metric[ATTR.statusCode] = outcome.code;
    }
    const span = state.span;
    if (span.isRecording()) {
      // A client's request id is known once sent; the session's, for `initialize`, once answered.
      if (!state.answered && traced.id !== undefined) span.setAttribute(ATTR.requestId, String(traced.id));
      if (!state.answered && traced.sessionId !== undefined) span.setAttribute(ATTR.sessionId, traced.sessionId);
      if (metric !== state.metric) span.setAttributes(metric);
      if (outcome?.type !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.message !== undefined && { message: outcome.message }) });
        if (traced.error instanceof Error && outcome.code === undefined) span.recordException(traced.error);
      }
    }
    span.end();
    if (state.histogram !== undefined) instruments.get(state.histogram).record((performance.now() - state.started) / 1000, metric);
  };

  /** Subscribes `start` and the endings of a tracing channel (a synchronous throw ends at `end`). */
  const traceChannel = <T extends Traced>(name: string, start: (traced: T) => void): void => {
    const subscribers: TracingChannelSubscribers<T> = {
      start,
      end: (traced) => {
        if (traced.error !== undefined) finish(traced);
      },
      asyncStart: () => undefined,
      asyncEnd: finish,
      error: () => undefined,
    };
    const channelOf = tracingChannel<T, T>(name);
    channelOf.subscribe(subscribers);
    undo.push(() => channelOf.unsubscribe(subscribers));
  };

  const subscribe = (name: string, listener: (message: unknown) => void): void => {
    channel(name).subscribe(listener);
    undo.push(() => channel(name).unsubscribe(listener));
  };

  /**
   * A `SERVER` span for a request received (by a server, `peer` false; by a client, `peer` true),
   * the request's work run inside it.
   */
  const startServerSpan = (request: RequestTrace & Traced, peer: boolean): void => {
    const described = describer.describe(request.method, request.params, request.transport, request.protocolVersion, peer);
    const { parent, links } = receivedParent(request.params._meta, request.transport.headers);
    const span = tracer.startSpan(described.name, { kind: SpanKind.SERVER, attributes: described.metric, links }, parent);
    request[STATE] = { span, started: performance.now(), metric: described.metric, histogram: 'serverOperation', answered: true };
    const inSpan = trace.setSpan(parent, span);
    const outer = request.within;
    request.within = outer ? (run) => context.with(inSpan, () => outer(run)) : (run) => context.with(inSpan, run);
    // Not sampled: the context above is all it needs.
    if (!span.isRecording()) return;
    const attributes = spanOnly(described, request.sessionId, peer ? undefined : request.transport);
    // A 2026-07-28 input request a client answers has no JSON-RPC id (its `id` is its key).
    if (!peer || request.era !== 'modern') attributes[ATTR.requestId] = String(request.id);
    span.setAttributes(attributes);
    const { traceId, spanId, traceFlags } = span.spanContext();
    const bindings = { trace_id: traceId, span_id: spanId, trace_flags: traceFlags === 1 ? '01' : traceFlags.toString(16).padStart(2, '0') };
    request.logBindings = request.logBindings === undefined ? bindings : merge(request.logBindings, bindings);
  };

  /** A `CLIENT` span for a request sent, under the active context, its trace injected into `meta` (the request's `_meta`). */
  const startClientSpan = (request: (ClientRequestTrace | ServerRequestTrace) & Traced, peer: boolean): void => {
    const described = describer.describe(request.method, request.params, request.transport, request.protocolVersion, peer);
    const parent = context.active();
    const span = tracer.startSpan(described.name, { kind: SpanKind.CLIENT, attributes: described.metric }, parent);
    const histogram = peer || !isInputRequest(request.protocolVersion) ? 'clientOperation' : undefined;
    request[STATE] = { span, started: performance.now(), metric: described.metric, histogram, answered: false };
    propagation.inject(trace.setSpan(parent, span), request.meta);
    if (span.isRecording()) span.setAttributes(spanOnly(described, request.sessionId, undefined));
  };

  /** A span for a notification sent (`CLIENT`) or received (`SERVER`, its parent from its `_meta`); it has no answer to wait for. */
  const notificationSpan =
    (peer: boolean) =>
    (message: unknown): void => {
      const event = message as NotificationEvent;
      const described = describer.describe(event.method, event.params, event.transport, event.protocolVersion, peer);
      const received = event.direction === 'received';
      const { parent, links } = received ? receivedParent(event.params._meta, undefined) : { parent: context.active(), links: undefined };
      const span = tracer.startSpan(described.name, { kind: received ? SpanKind.SERVER : SpanKind.CLIENT, attributes: described.metric, links }, parent);
      if (span.isRecording()) span.setAttributes(spanOnly(described, event.sessionId, received && !peer ? event.transport : undefined));
      span.end();
    };

  /** A session's duration, when its connection is gone. */
  const sessionDuration = (histogram: HistogramName, peer: boolean) => (message: unknown) => {
    const session = message as SessionEvent;
    instruments.get(histogram).record((performance.now() - session.startedAt) / 1000, sessionAttributes(session.transport, session.protocolVersion, peer));
  };

  if (options.server !== false) {
    traceChannel<RequestTrace & Traced>(TRACE_CHANNELS.request, (request) => startServerSpan(request, false));
    traceChannel<ServerRequestTrace & Traced>(TRACE_CHANNELS.serverRequest, (request) => startClientSpan(request, false));
    subscribe(TRACE_CHANNELS.sessionClosed, sessionDuration('serverSession', false));
    if (options.notifications !== false) {
      subscribe(TRACE_CHANNELS.notification, notificationSpan(false));
      subscribe(TRACE_CHANNELS.notificationReceived, notificationSpan(false));
    }
  }

  if (options.client !== false) {
    traceChannel<ClientRequestTrace & Traced>(TRACE_CHANNELS.clientRequest, (request) => startClientSpan(request, true));
    traceChannel<RequestTrace & Traced>(TRACE_CHANNELS.clientServerRequest, (request) => startServerSpan(request, true));
    subscribe(TRACE_CHANNELS.clientSessionClosed, sessionDuration('clientSession', true));
    if (options.notifications !== false) subscribe(TRACE_CHANNELS.clientNotification, notificationSpan(true));
  }

  let installed = true;
  return {
    uninstall() {
      if (!installed) return;
      installed = false;
      for (const step of undo) step();
    },
  };
}

/**
 * The attributes a span has beyond its description (a sampled span's only): `mcp.session.id` (a
 * legacy session's: none on 2026-07-28, which has no session), `mcp.resource.uri`, and on a
 * server's span for its client, `client.address` and `client.port` from `transport`.
 */
function spanOnly(described: Described, sessionId: string | undefined, transport: TransportInfo | undefined): Attributes {
  const attributes: Attributes = {};
  if (sessionId !== undefined) attributes[ATTR.sessionId] = sessionId;
  if (described.resourceUri !== undefined) attributes[ATTR.resourceUri] = described.resourceUri;
  if (transport) clientAddress(transport, attributes);
  return attributes;
}

/**
 * A received message's parent, by the conventions ("Context propagation"): the context in its
 * `params._meta`, else in the HTTP request's headers, else the active one. A parent taken from the
 * message is linked to the ambient span (an HTTP server span, say), so both stay reachable.
 */
function receivedParent(meta: unknown, headers: unknown): { parent: Context; links: Link[] | undefined } {
  const active = context.active();
  const extracted = extractedFrom(meta) ?? extractedFrom(headers);
  if (extracted === undefined) return { parent: active, links: undefined };
  const ambient = trace.getSpanContext(active);
  return { parent: extracted, links: ambient ? [{ context: ambient }] : undefined };
}

/** The context a carrier (`_meta`, HTTP headers) holds, if it holds a span's. */
function extractedFrom(carrier: unknown): Context | undefined {
  if (carrier === null || typeof carrier !== 'object') return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier as Record<string, unknown>, carrierGetter);
  return trace.getSpanContext(extracted) === undefined ? undefined : extracted;
}
