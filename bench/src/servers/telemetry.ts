/**
 * The OpenTelemetry rows (`HERMES_BENCH_OTEL`): the SDK as an application sets it up — the
 * async-hooks context manager, W3C propagators, every span sampled and batched to an exporter that
 * drops them, durations aggregated for a reader that exports once a minute — then Hermes'
 * instrumentation. What is measured is the instrumentation's and the SDK's own cost per request.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';

/** Installs OpenTelemetry when the runner asks for it. */
export function benchTelemetry(): void {
  if (!process.env.HERMES_BENCH_OTEL) return;
  const drop: SpanExporter = { export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }), shutdown: () => Promise.resolve() };
  const dropMetrics: PushMetricExporter = {
    export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: drop })] }));
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })] });
  instrumentOpenTelemetry({ meterProvider });
}
