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
import { TRACE_CHANNELS } from '@hermes-mcp/protocol';
import type { ClientRequestTrace, NotificationEvent, RequestTrace, ServerRequestTrace, SessionEvent } from '@hermes-mcp/protocol';
import { ATTR, Instruments, describe, outcomeOf, serverAddress } from './conventions';

/** Options of {@link instrumentOpenTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go; default the global tracer provider (`trace.setGlobalTracerProvider`, the Node SDK's). */
  tracerProvider?: TracerProvider;
  /** Where the durations go; default the global meter provider. */
  meterProvider?: MeterProvider;
  /** Trace the requests servers in this process answer (and those they send their clients); default true. */
  server?: boolean;
  /** Trace the requests `@hermes-mcp/client` clients in this process make; default true. */
  client?: boolean;
  /**
   * Also a span for each notification a server raises (progress, log messages, list changes,
   * resource updates); default false — a tool that reports progress often would make many.
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
  /** Its metric attributes. */
  metric: Attributes;
  /** Where its duration goes. */
  histogram: 'serverOperation' | 'clientOperation';
  ended?: true;
}

type Traced = { [STATE]?: InFlight; result?: unknown; error?: unknown };

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
 * conventions for MCP:
 *
 * - a `SERVER` span per request a server answers, named `{mcp.method.name} {target}` (`tools/call
 *   get_weather`), its parent the trace in the request's `params._meta` (`traceparent`,
 *   `tracestate`, `baggage`), else in the HTTP request's headers, else the active context; the
 *   handler runs inside it, so its own spans are children and `ctx.log` lines carry `trace_id` and
 *   `span_id`;
 * - a `CLIENT` span per request a client makes (and per request a server sends its client), with
 *   the trace injected into the request's `params._meta`, so one trace spans both processes;
 * - the histograms `mcp.server.operation.duration`, `mcp.client.operation.duration` and
 *   `mcp.server.session.duration`.
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
  const undo: Array<() => void> = [];

  const finish = (traced: Traced): void => {
    const state = traced[STATE];
    if (!state || state.ended) return;
    state.ended = true;
    // initialize: the revision is known once answered.
    const version = (traced.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === 'string' && state.metric[ATTR.protocolVersion] === undefined) {
      state.metric[ATTR.protocolVersion] = version;
      state.span.setAttribute(ATTR.protocolVersion, version);
    }
    const outcome = outcomeOf(traced.result, traced.error);
    if (outcome) {
      state.metric[ATTR.errorType] = outcome.type;
      if (outcome.code !== undefined) state.metric[ATTR.statusCode] = outcome.code;
      state.span.setAttributes(state.metric);
      state.span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.message !== undefined && { message: outcome.message }) });
      if (traced.error instanceof Error && outcome.code === undefined) state.span.recordException(traced.error);
    }
    state.span.end();
    instruments[state.histogram].record((performance.now() - state.started) / 1000, state.metric);
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

  if (options.server !== false) {
    traceChannel<RequestTrace & Traced>(TRACE_CHANNELS.request, (request) => {
      const described = describe(request.method, request.params, request.transport, request.protocolVersion);
      const { parent, links } = serverParent(request);
      const attributes = described.span;
      attributes[ATTR.requestId] = String(request.id);
      if (request.sessionId !== undefined) attributes[ATTR.sessionId] = request.sessionId;
      if (typeof request.transport.ip === 'string') attributes[ATTR.clientAddress] = request.transport.ip;
      const span = tracer.startSpan(described.name, { kind: SpanKind.SERVER, attributes, links }, parent);
      request[STATE] = { span, started: performance.now(), metric: described.metric, histogram: 'serverOperation' };
      const inSpan = trace.setSpan(parent, span);
      const outer = request.within;
      request.within = outer ? (run) => context.with(inSpan, () => outer(run)) : (run) => context.with(inSpan, run);
      const { traceId, spanId, traceFlags } = span.spanContext();
      request.logBindings = { ...request.logBindings, trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` };
    });
    traceChannel<ServerRequestTrace & Traced>(TRACE_CHANNELS.serverRequest, (request) => {
      const described = describe(request.method, request.params, request.transport, request.protocolVersion);
      if (request.sessionId !== undefined) described.span[ATTR.sessionId] = request.sessionId;
      startClientSpan(request, described, request.meta);
    });
    subscribe(TRACE_CHANNELS.sessionClosed, (message) => {
      const session = message as SessionEvent;
      const { metric } = describe('', {}, session.transport, session.protocolVersion);
      delete metric[ATTR.method];
      instruments.serverSession.record((performance.now() - session.startedAt) / 1000, metric);
    });
    if (options.notifications === true) {
      subscribe(TRACE_CHANNELS.notification, (message) => {
        const event = message as NotificationEvent;
        const described = describe(event.method, event.params, event.transport, undefined);
        if (event.sessionId !== undefined) described.span[ATTR.sessionId] = event.sessionId;
        tracer.startSpan(described.name, { kind: SpanKind.PRODUCER, attributes: described.span }).end();
      });
    }
  }

  if (options.client !== false) {
    traceChannel<ClientRequestTrace & Traced>(TRACE_CHANNELS.clientRequest, (request) => {
      const described = describe(request.method, request.params, request.transport, request.protocolVersion);
      serverAddress(request.transport, described.span);
      serverAddress(request.transport, described.metric);
      if (request.sessionId !== undefined) described.span[ATTR.sessionId] = request.sessionId;
      startClientSpan(request, described, request.meta);
    });
  }

  /** A `CLIENT` span under the active context, its trace injected into `meta` (the request's `_meta`). */
  function startClientSpan(request: Traced, described: ReturnType<typeof describe>, meta: Record<string, string>): void {
    const parent = context.active();
    const span = tracer.startSpan(described.name, { kind: SpanKind.CLIENT, attributes: described.span }, parent);
    request[STATE] = { span, started: performance.now(), metric: described.metric, histogram: 'clientOperation' };
    propagation.inject(trace.setSpan(parent, span), meta);
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
 * A server span's parent, by the conventions: the context in the request's `params._meta`, else in
 * the HTTP request's headers, else the active one. A parent taken from the message is linked to
 * the ambient span (an HTTP server span, say), so both stay reachable.
 */
function serverParent(request: RequestTrace): { parent: Context; links: Link[] } {
  const active = context.active();
  const meta = request.params._meta;
  const headers = request.transport.headers;
  for (const carrier of [meta, headers]) {
    if (carrier === null || typeof carrier !== 'object') continue;
    const extracted = propagation.extract(ROOT_CONTEXT, carrier as Record<string, unknown>, carrierGetter);
    if (trace.getSpanContext(extracted) === undefined) continue;
    const ambient = trace.getSpanContext(active);
    return { parent: extracted, links: ambient ? [{ context: ambient }] : [] };
  }
  return { parent: active, links: [] };
}
