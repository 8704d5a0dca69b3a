/**
 * The OpenTelemetry set-up both processes share: a tracer provider that prints each finished span
 * as one JSON line on stderr (in a stdio server, stdout is the protocol's), the async-hooks context
 * manager, the W3C propagators (Trace Context and Baggage) — then Hermes' instrumentation on top.
 * In production, swap the console exporter for an OTLP one (or use the Node SDK, `@opentelemetry/sdk-node`).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, ExportResult, ExportResultCode, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ReadableSpan, SimpleSpanProcessor, SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';

/** The fields of a span worth reading on a console, as one JSON line. */
export interface PrintedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  durationMs: number;
}

/** Prints finished spans to stderr, one JSON line each. */
class ConsoleJsonSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const printed: PrintedSpan = {
        service: String(span.resource.attributes['service.name']),
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        ...(span.parentSpanContext && { parentSpanId: span.parentSpanContext.spanId }),
        attributes: span.attributes,
        status: span.status,
        durationMs: span.duration[0] * 1e3 + span.duration[1] / 1e6,
      };
      process.stderr.write(`${JSON.stringify(printed)}\n`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Sets OpenTelemetry up for `service`, then instruments Hermes; `shutdown()` flushes the spans. */
export function startTelemetry(service: string): { shutdown(): Promise<void> } {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new ConsoleJsonSpanExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const instrumentation = instrumentOpenTelemetry();
  return {
    async shutdown() {
      instrumentation.uninstall();
      await provider.shutdown();
    },
  };
}
