/**
 * The OpenTelemetry rows (`HERMES_BENCH_OTEL`): the SDK as an application sets it up — the
 * async-hooks context manager, W3C propagators, every span sampled (or, with
 * `HERMES_BENCH_OTEL_RATIO`, `ParentBased(TraceIdRatioBased(ratio))`) and batched to an exporter that
 * drops them, durations aggregated for a reader that exports once a minute — then Hermes'
 * instrumentation. What is measured is the instrumentation's and the SDK's own cost per request;
 * the bare route's OpenTelemetry row shows the SDK's part alone (one span and one duration per request).
 */
import { Histogram, SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, ParentBasedSampler, Sampler, SpanExporter, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';

/**
 * Sets the SDK up as an application does: the async-hooks context manager, W3C propagators, spans
 * batched to an exporter that drops them (sampled by `sampler`, else every one), durations
 * aggregated for a reader that exports once a minute. Returns the meter provider.
 */
export function setUpSdk(sampler?: Sampler): MeterProvider {
  const drop: SpanExporter = { export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }), shutdown: () => Promise.resolve() };
  const dropMetrics: PushMetricExporter = {
    export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: drop })], ...(sampler && { sampler }) }));
  return new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })] });
}

/**
 * Installs OpenTelemetry when the runner asks for it; `hermes: false` sets the SDK up without
 * Hermes' instrumentation (the bare route's row, which makes its own span).
 */
export function benchTelemetry({ hermes = true } = {}): boolean {
  if (!process.env.HERMES_BENCH_OTEL) return false;
  const ratio = process.env.HERMES_BENCH_OTEL_RATIO;
  const meterProvider = setUpSdk(ratio === undefined ? undefined : new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Number(ratio)) }));
  if (hermes) instrumentOpenTelemetry({ meterProvider });
  else bareHistogram = bareDurations(meterProvider);
  return true;
}

/** The bare route's histogram (what Hermes' instrumentation records, by name). */
export function bareDurations(meterProvider: MeterProvider): Histogram {
  return meterProvider.getMeter('bench').createHistogram('mcp.server.operation.duration', { unit: 's' });
}

/** The bare row's histogram. */
let bareHistogram: Histogram | undefined;

/**
 * What any OpenTelemetry-instrumented request pays at least, for the bare route: one server span
 * (the attributes Hermes sets), the handler run inside its context, one duration recorded.
 */
export function withServerSpan<T>(id: unknown, run: () => Promise<T>): Promise<T> {
  return serverSpan(bareHistogram!, id, run);
}

/** {@link withServerSpan}, its duration recorded in `histogram`. */
export function serverSpan<T>(histogram: Histogram, id: unknown, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': '2025-11-25',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
  };
  const span = trace.getTracer('bench').startSpan('tools/call add', { kind: SpanKind.SERVER, attributes: { ...attributes, 'jsonrpc.request.id': String(id) } });
  return context.with(trace.setSpan(context.active(), span), run).finally(() => {
    span.end();
    histogram.record((performance.now() - started) / 1000, attributes);
  });
}
