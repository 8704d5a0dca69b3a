/**
 * `instrumentOpenTelemetry` with the OpenTelemetry SDK's in-memory span exporter and a metric
 * reader: a real Fastify server on 127.0.0.1 with the Hermes plugin, driven by our client over
 * Streamable HTTP (both eras), the legacy HTTP+SSE transport and WebSocket, and in memory. Every
 * method gives one server span with the conventions' attributes (errors marked), the client's span
 * and the server's share one trace through `_meta.traceparent`, the handler runs inside the server
 * span (its logger carries the ids), and nothing is produced when the instrumentation is not
 * installed. (stdio, across two processes: examples/opentelemetry and its test.)
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { IsString } from 'class-validator';
import Fastify, { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, ParentBasedSampler, ReadableSpan, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { McpApp, McpContext, McpFactory, McpServer, Prompt, Resource, Tool, ToolError, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { McpClient, SseClientTransport, StreamableHttpClientTransport, Transport, WebSocketClientTransport, WebSocketConstructor } from '@hermes-mcp/client';
import { createTestClient } from '@hermes-mcp/testing';
import { OpenTelemetryInstrumentation, instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';

class CityInput {
  @IsString() city!: string;
}

class Topic {
  @IsString() topic!: string;
}

/** The log lines `ctx.log` wrote, as parsed JSON. */
const logLines: Array<Record<string, unknown>> = [];

@McpServer({ name: 'otel-test', version: '1.0.0' })
class Weather {
  @Tool({ description: 'Tells the weather, and logs it' }) forecast(input: CityInput, ctx: McpContext) {
    ctx.log.info({ city: input.city }, 'forecast asked');
    // The handler runs inside the server span: a span it starts is its child.
    trace.getTracer('app').startActiveSpan('look up', (span) => span.end());
    return `sunny in ${input.city}`;
  }
  @Tool({ description: 'Fails as a tool' }) broken() {
    throw new ToolError('the sensor is down');
  }
  @Tool({ description: 'Asks the user (a server→client request)' }) async confirm(ctx: McpContext) {
    const answer = await ctx.elicit('Sure?', Topic);
    return answer.action;
  }
  @Prompt({ description: 'Writes about a topic' }) write(args: Topic) {
    return `Write about ${args.topic}`;
  }
  @Resource({ uri: 'notes://today', description: 'Today' }) today() {
    return 'nothing planned';
  }
}

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();

let app: FastifyInstance;
let mcp: McpApp;
let url: string;
let instrumentation: OpenTelemetryInstrumentation | undefined;
const clients: McpClient[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(tracerProvider);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  mcp = McpFactory.create(Weather, { logger: createLogger({ destination: sink }) });
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(hermesMcp, { server: mcp, path: '/mcp', websocket: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await app.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  context.disable();
  trace.disable();
  propagation.disable();
});

beforeEach(() => {
  instrumentation = instrumentOpenTelemetry({ meterProvider });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  instrumentation?.uninstall();
  spans.reset();
  logLines.length = 0;
});

type Era = 'legacy' | 'modern';

/** The `_meta` of the last elicitation the server sent. */
let elicitedMeta: unknown;

const TRANSPORTS: Record<string, (era: Era) => Transport> = {
  'Streamable HTTP': () => new StreamableHttpClientTransport({ url }),
  WebSocket: () => new WebSocketClientTransport({ url: `${url.replace('http:', 'ws:')}/ws`, WebSocket: WebSocket as unknown as WebSocketConstructor }),
};

async function connect(transport: Transport, era: Era): Promise<McpClient> {
  const client = new McpClient(transport, {
    protocolVersion: era === 'legacy' ? '2025-11-25' : '2026-07-28',
    onElicitation: (request) => {
      elicitedMeta = request._meta;
      return { action: 'accept', content: { topic: 'yes' } };
    },
  });
  clients.push(client);
  await client.connect();
  return client;
}

/** The finished spans of `kind` whose `mcp.method.name` is `method`. */
function spansOf(kind: SpanKind, method: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.kind === kind && s.attributes['mcp.method.name'] === method);
}

/** Exactly one span of `kind` for `method`. */
function oneSpan(kind: SpanKind, method: string): ReadableSpan {
  const found = spansOf(kind, method);
  expect(found.map((s) => s.name)).toHaveLength(1);
  return found[0];
}

/** Every client operation worth a span, and what its server span must say. */
async function everyMethod(client: McpClient, era: Era): Promise<Array<{ method: string; name: string; attributes: Record<string, unknown> }>> {
  // 2026-07-28 has no ping; its connect() asked server/discover.
  if (era === 'legacy') await client.ping();
  await client.listTools();
  await client.callTool('forecast', { city: 'Oslo' });
  await client.listPrompts();
  await client.getPrompt('write', { topic: 'rain' });
  await client.listResources();
  await client.readResource('notes://today');
  return [
    era === 'legacy' ? { method: 'ping', name: 'ping', attributes: {} } : { method: 'server/discover', name: 'server/discover', attributes: {} },
    { method: 'tools/list', name: 'tools/list', attributes: {} },
    { method: 'tools/call', name: 'tools/call forecast', attributes: { 'gen_ai.tool.name': 'forecast', 'gen_ai.operation.name': 'execute_tool' } },
    { method: 'prompts/list', name: 'prompts/list', attributes: {} },
    { method: 'prompts/get', name: 'prompts/get write', attributes: { 'gen_ai.prompt.name': 'write' } },
    { method: 'resources/list', name: 'resources/list', attributes: {} },
    { method: 'resources/read', name: 'resources/read', attributes: { 'mcp.resource.uri': 'notes://today' } },
  ];
}

describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
  const version = era === 'legacy' ? '2025-11-25' : '2026-07-28';

  it.each(Object.keys(TRANSPORTS))('one server span per request over %s, under the client span of the same trace', async (name) => {
    const client = await connect(TRANSPORTS[name](era), era);
    const expected = await everyMethod(client, era);
    const networkProtocol = name === 'WebSocket' ? 'websocket' : 'http';
    for (const { method, name: spanName, attributes } of expected) {
      const server = oneSpan(SpanKind.SERVER, method);
      const sent = oneSpan(SpanKind.CLIENT, method);
      expect(server.name).toBe(spanName);
      expect(sent.name).toBe(spanName);
      expect(server.attributes).toMatchObject({
        ...attributes,
        'mcp.method.name': method,
        'mcp.protocol.version': version,
        'network.transport': 'tcp',
        'network.protocol.name': networkProtocol,
        'jsonrpc.request.id': expect.any(String),
      });
      expect(server.attributes['error.type']).toBeUndefined();
      expect(server.status.code).toBe(SpanStatusCode.UNSET);
      // One trace across the wire, carried in params._meta: the client span is the server span's parent.
      expect(server.spanContext().traceId).toBe(sent.spanContext().traceId);
      expect(server.parentSpanContext?.spanId).toBe(sent.spanContext().spanId);
      expect(sent.attributes).toMatchObject({ 'mcp.method.name': method, 'server.address': '127.0.0.1', 'server.port': expect.any(Number) });
    }
    if (era === 'legacy') {
      const sessionId = oneSpan(SpanKind.SERVER, 'tools/call').attributes['mcp.session.id'];
      if (name === 'Streamable HTTP') expect(sessionId).toEqual(expect.any(String));
      expect(oneSpan(SpanKind.SERVER, 'initialize').attributes).toMatchObject({ 'mcp.method.name': 'initialize', 'mcp.protocol.version': version });
    } else {
      expect(oneSpan(SpanKind.SERVER, 'tools/call').attributes['mcp.session.id']).toBeUndefined();
    }
  });

  it('runs the handler inside the server span: its spans are children, its log lines carry the ids', async () => {
    const client = await connect(TRANSPORTS['Streamable HTTP'](era), era);
    await client.callTool('forecast', { city: 'Bergen' });
    const server = oneSpan(SpanKind.SERVER, 'tools/call');
    const inner = spans.getFinishedSpans().find((s) => s.name === 'look up')!;
    expect(inner.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const line = logLines.find((l) => l.msg === 'forecast asked')!;
    expect(line).toMatchObject({ city: 'Bergen', trace_id: server.spanContext().traceId, span_id: server.spanContext().spanId, method: 'tools/call' });
  });

  it("marks failures: a tool error as tool_error; a caller's mistake is the client's error, the server records its code", async () => {
    const client = await connect(TRANSPORTS['Streamable HTTP'](era), era);
    await client.callTool('broken');
    await expect(client.callTool('missing')).rejects.toMatchObject({ code: -32602 });
    const [toolError, protocolError] = spansOf(SpanKind.SERVER, 'tools/call');
    expect(toolError.attributes).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.name': 'broken' });
    expect(toolError.status.code).toBe(SpanStatusCode.ERROR);
    // The caller's mistake: the server answered it as it should, so its span records the code alone.
    expect(protocolError.attributes).toMatchObject({ 'rpc.response.status_code': '-32602', 'gen_ai.tool.name': 'missing' });
    expect(protocolError.attributes['error.type']).toBeUndefined();
    expect(protocolError.status.code).toBe(SpanStatusCode.UNSET);
    const [clientToolError, clientProtocolError] = spansOf(SpanKind.CLIENT, 'tools/call');
    expect(clientToolError.attributes['error.type']).toBe('tool_error');
    expect(clientProtocolError.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
  });

  it('records mcp.server.operation.duration and mcp.client.operation.duration by method and outcome', async () => {
    const client = await connect(TRANSPORTS['Streamable HTTP'](era), era);
    await client.callTool('forecast', { city: 'Oslo' });
    await client.callTool('forecast', { city: 'Rome' });
    await client.callTool('broken');
    const { resourceMetrics } = await reader.collect();
    const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const points = (name: string) => metrics.find((m) => m.descriptor.name === name)!.dataPoints as Array<{ attributes: Record<string, unknown>; value: { count: number } }>;
    for (const name of ['mcp.server.operation.duration', 'mcp.client.operation.duration']) {
      const ok = points(name).find((p) => p.attributes['gen_ai.tool.name'] === 'forecast' && p.attributes['mcp.protocol.version'] === version)!;
      const failed = points(name).find((p) => p.attributes['gen_ai.tool.name'] === 'broken' && p.attributes['mcp.protocol.version'] === version)!;
      expect(ok.value.count).toBeGreaterThanOrEqual(2);
      expect(ok.attributes['error.type']).toBeUndefined();
      expect(failed.attributes['error.type']).toBe('tool_error');
      // No high-cardinality attributes on a metric.
      expect(ok.attributes['mcp.session.id']).toBeUndefined();
      expect(ok.attributes['jsonrpc.request.id']).toBeUndefined();
    }
    expect(metrics.find((m) => m.descriptor.name === 'mcp.server.operation.duration')!.descriptor.unit).toBe('s');
  });
});

describe('legacy sessions', () => {
  it('the HTTP+SSE transport too; a server→client request is a client span under the tool call, its trace sent in _meta', async () => {
    const client = await connect(new SseClientTransport({ url: `${url}/sse` }), 'legacy');
    expect((await client.callTool('confirm')).content).toEqual([{ type: 'text', text: 'accept' }]);
    const call = oneSpan(SpanKind.SERVER, 'tools/call');
    expect(call.attributes).toMatchObject({ 'network.protocol.name': 'http', 'mcp.protocol.version': '2025-11-25', 'mcp.session.id': expect.any(String) });
    const asked = oneSpan(SpanKind.CLIENT, 'elicitation/create');
    expect(asked.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(asked.attributes['mcp.session.id']).toBe(call.attributes['mcp.session.id']);
    expect(elicitedMeta).toEqual({ traceparent: `00-${asked.spanContext().traceId}-${asked.spanContext().spanId}-01` });
  });

  it('records mcp.server.session.duration when a session ends', async () => {
    const client = await connect(TRANSPORTS['Streamable HTTP']('legacy'), 'legacy');
    await client.ping();
    await client.close();
    clients.length = 0;
    const { resourceMetrics } = await reader.collect();
    const sessions = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.session.duration');
    const point = (sessions?.dataPoints ?? []) as Array<{ attributes: Record<string, unknown>; value: { count: number } }>;
    expect(point.find((p) => p.attributes['network.protocol.name'] === 'http' && p.attributes['mcp.protocol.version'] === '2025-11-25')?.value.count).toBeGreaterThanOrEqual(1);
  });

  it('in memory (the testing package): spans without network attributes', async () => {
    const client = await createTestClient(Weather, { era: 'legacy' });
    await client.callTool('forecast', { city: 'Lima' });
    await client.close();
    const span = oneSpan(SpanKind.SERVER, 'tools/call');
    expect(span.name).toBe('tools/call forecast');
    expect(span.attributes['network.transport']).toBeUndefined();
  });
});

describe('2026-07-28 questions', () => {
  it("a round's elicitation is the server's CLIENT span under the round's tool call, answered under the client's SERVER span, its child, through the question's _meta", async () => {
    const client = await connect(TRANSPORTS['Streamable HTTP']('modern'), 'modern');
    expect((await client.callTool('confirm')).content).toEqual([{ type: 'text', text: 'accept' }]);
    const sent = oneSpan(SpanKind.CLIENT, 'tools/call');
    // Two rounds: the first asks, the second has the answer.
    const [asking, answered] = spansOf(SpanKind.SERVER, 'tools/call');
    expect([asking.parentSpanContext?.spanId, answered.parentSpanContext?.spanId]).toEqual([sent.spanContext().spanId, sent.spanContext().spanId]);
    const asked = oneSpan(SpanKind.CLIENT, 'elicitation/create');
    expect(asked.parentSpanContext?.spanId).toBe(asking.spanContext().spanId);
    expect(elicitedMeta).toEqual({ traceparent: `00-${asked.spanContext().traceId}-${asked.spanContext().spanId}-01` });
    const answering = oneSpan(SpanKind.SERVER, 'elicitation/create');
    expect(answering.parentSpanContext?.spanId).toBe(asked.spanContext().spanId);
    for (const span of [asked, answering]) {
      expect(span.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' });
      // An input request has no JSON-RPC id.
      expect(span.attributes['jsonrpc.request.id']).toBeUndefined();
    }
    // The client's answer is timed; the server's question is not (its answer comes in another request).
    const metrics = (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    // (The reader is cumulative: the legacy session's elicitation above is in it; this era's points only.)
    const methods = (name: string) =>
      (metrics.find((m) => m.descriptor.name === name)?.dataPoints ?? [])
        .filter((p) => p.attributes['mcp.protocol.version'] === '2026-07-28')
        .map((p) => p.attributes['mcp.method.name']);
    expect(methods('mcp.server.operation.duration')).toContain('elicitation/create');
    expect(methods('mcp.client.operation.duration')).not.toContain('elicitation/create');
  });
});

describe('the HTTP version a client records', () => {
  it('is 1.1 on its own HTTP client (node:http), and none when the transport was given a fetch, which does not tell', async () => {
    await connect(new StreamableHttpClientTransport({ url }), 'modern').then((c) => c.listTools());
    expect(oneSpan(SpanKind.CLIENT, 'tools/list').attributes).toMatchObject({ 'network.protocol.name': 'http', 'network.protocol.version': '1.1' });
    spans.reset();
    await connect(new StreamableHttpClientTransport({ url, fetch }), 'modern').then((c) => c.listTools());
    const given = oneSpan(SpanKind.CLIENT, 'tools/list');
    expect(given.attributes['network.protocol.name']).toBe('http');
    expect(given.attributes['network.protocol.version']).toBeUndefined();
  });
});

describe('parents', () => {
  it('takes the parent from a traceparent sent in _meta by a client that is not ours, and from HTTP headers when _meta has none', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', ...headers },
        body: JSON.stringify(body),
      }).then((r) => r.text());
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...envelope, traceparent: `00-${traceId}-00f067aa0ba902b7-01`, baggage: 'user=alice' } } },
      { 'mcp-method': 'tools/list' },
    );
    await post({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: envelope } }, { 'mcp-method': 'ping', traceparent: `00-${traceId}-00f067aa0ba902b8-01` });
    expect(oneSpan(SpanKind.SERVER, 'tools/list').parentSpanContext).toMatchObject({ traceId, spanId: '00f067aa0ba902b7', isRemote: true });
    expect(oneSpan(SpanKind.SERVER, 'ping').parentSpanContext).toMatchObject({ traceId, spanId: '00f067aa0ba902b8' });
  });
});

describe('not sampled', () => {
  it('a request the sampler drops gets no log bindings and no span, yet its duration is recorded', async () => {
    instrumentation!.uninstall();
    const unsampled = new TracerProvider({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
    });
    instrumentation = instrumentOpenTelemetry({ tracerProvider: unsampled, meterProvider });
    const client = await connect(TRANSPORTS['Streamable HTTP']('legacy'), 'legacy');
    await client.callTool('forecast', { city: 'Quito' });
    expect(spans.getFinishedSpans().filter((s) => s.attributes['mcp.method.name'] !== undefined)).toEqual([]);
    expect(logLines.find((l) => l.msg === 'forecast asked' && l.city === 'Quito')).not.toHaveProperty('trace_id');
    const { resourceMetrics } = await reader.collect();
    const durations = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration')!;
    expect(durations.dataPoints.some((p) => p.attributes['gen_ai.tool.name'] === 'forecast')).toBe(true);
  });
});

describe('not installed', () => {
  it('produces no span and no measurement: the channels have no subscriber', async () => {
    instrumentation!.uninstall();
    instrumentation = undefined;
    const before = (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => JSON.stringify(m.dataPoints.map((p) => p.value))));
    const client = await connect(TRANSPORTS['Streamable HTTP']('legacy'), 'legacy');
    await client.callTool('forecast', { city: 'Oslo' });
    await connect(TRANSPORTS['Streamable HTTP']('modern'), 'modern').then((c) => c.callTool('forecast', { city: 'Oslo' }));
    expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(['look up', 'look up']);
    const after = (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => JSON.stringify(m.dataPoints.map((p) => p.value))));
    expect(after).toEqual(before);
    // And the request log lines carry no trace ids.
    expect(logLines.find((l) => l.msg === 'forecast asked')).not.toHaveProperty('trace_id');
  });
});
