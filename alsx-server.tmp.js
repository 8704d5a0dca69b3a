const Fastify = require('fastify');
const variant = process.env.VARIANT;
const app = Fastify({ logger: false });
let wrap = (f) => f();
if (variant !== 'bare') {
  const { trace, SpanKind } = require('@opentelemetry/api');
  const sdk = require('@opentelemetry/sdk-trace');
  const drop = { export: (_s, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
  const processors = variant === 'batch' ? [new sdk.BatchSpanProcessor({ exporter: drop })] : variant === 'simple' ? [new sdk.SimpleSpanProcessor({ exporter: drop })] : [];
  const sampler = variant === 'off' ? new sdk.AlwaysOffSampler() : undefined;
  trace.setGlobalTracerProvider(new sdk.TracerProvider({ spanProcessors: processors, ...(sampler && { sampler }) }));
  const tracer = trace.getTracer('x');
  wrap = (f) => {
    const span = tracer.startSpan('x', { kind: SpanKind.SERVER });
    return Promise.resolve(f()).finally(() => span.end());
  };
}
app.post('/mcp', (request) => wrap(async () => ({ jsonrpc: '2.0', id: request.body.id, result: { content: [{ type: 'text', text: '5' }] } })));
app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) }).then(() => process.stdout.write('ready\n'));
