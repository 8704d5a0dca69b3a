/**
 * The acceptance suite of issue 29: every rule of the OpenTelemetry semantic conventions for MCP —
 * open-telemetry/semantic-conventions v1.41.1 `docs/gen-ai/mcp.md` (cited below as "mcp.md §…")
 * and `model/mcp/*.yaml`, with the JSON-RPC attributes of `model/jsonrpc/registry.yaml` — checked
 * with the SDK's in-memory exporter and metric reader, for every method and notification the
 * conventions name, on stdio (the server in a spawned process: test-support/fixtures/src/otel-stdio.ts),
 * Streamable HTTP, HTTP+SSE and WebSocket (one Fastify server on 127.0.0.1 for the three), in both
 * eras, on the server and on the client. Each transport and era runs one scenario (every method,
 * once), then each rule is checked on what it recorded.
 */
import 'reflect-metadata';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { Attributes, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { McpApp, McpFactory } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { McpClient, SseClientTransport, StdioClientTransport, StreamableHttpClientTransport, Transport, WebSocketClientTransport, WebSocketConstructor } from '@hermes-mcp/client';
import { instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';
import { ConventionsServer, seenSpan, stalled } from '../../../test-support/fixtures/src/otel.server';

/** What a span says, from this process's exporter or printed by the stdio server's. */
interface SeenSpan {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  status: { code: SpanStatusCode; message?: string };
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  links: number;
}

/** One histogram's points. */
interface SeenMetric {
  name: string;
  unit: string;
  points: Array<{ attributes: Attributes; value: { count: number; buckets?: { boundaries: number[] } } }>;
}

/** What one scenario recorded, in the server's process and in the client's. */
interface Recorded {
  server: { spans: SeenSpan[]; metrics: SeenMetric[] };
  client: { spans: SeenSpan[]; metrics: SeenMetric[] };
  /** The client's local timeout (`stall` with `timeout`), as it rejected. */
  timedOut: unknown;
}

/** mcp.md §Metrics: every MCP histogram's `ExplicitBucketBoundaries`. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** mcp.md §Client/§Server, `mcp.resource.uri` note [4]: the methods that carry a resource URI. */
const RESOURCE_METHODS = ['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated'];
/** mcp.md §Client/§Server, span name: the attribute whose value is the target. */
const TARGETS: Record<string, string> = { 'tools/call': 'gen_ai.tool.name', 'prompts/get': 'gen_ai.prompt.name' };
const STDIO_SERVER = path.join(__dirname, '..', '..', '..', 'test-support', 'fixtures', 'dist', 'otel-stdio.js');

type Era = 'legacy' | 'modern';
type TransportName = 'stdio' | 'Streamable HTTP' | 'HTTP+SSE' | 'WebSocket';

const contextManager = new AsyncLocalStorageContextManager();
let app: FastifyInstance;
let mcp: McpApp;
let url: string;
let port: number;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  mcp = McpFactory.create(ConventionsServer);
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(hermesMcp, { server: mcp, path: '/mcp', websocket: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}/mcp`;
});

afterAll(async () => {
  await app.close();
  context.disable();
  propagation.disable();
});

/**
 * An SDK of its own: spans, a metric reader, and the instrumentation on them — of the servers in
 * this process (`side` server), of the clients, or of both.
 */
function telemetry(sampler?: TraceIdRatioBasedSampler | ParentBasedSampler, side?: 'server' | 'client') {
  const spans = new InMemorySpanExporter();
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })], ...(sampler && { sampler }) });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const instrumentation = instrumentOpenTelemetry({ tracerProvider, meterProvider, server: side !== 'client', client: side !== 'server' });
  return {
    instrumentation,
    spans: (): SeenSpan[] => spans.getFinishedSpans().map(seenSpan),
    metrics: async (): Promise<SeenMetric[]> =>
      (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.map((m) => ({ name: m.descriptor.name, unit: m.descriptor.unit, points: m.dataPoints as SeenMetric['points'] })),
      ),
    async shutdown() {
      instrumentation.uninstall();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

function transportOf(name: TransportName, onStderr: (chunk: string) => void): Transport {
  switch (name) {
    case 'stdio':
      return new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER], env: { ...process.env, HERMES_LOG_LEVEL: 'warn' }, onStderr });
    case 'Streamable HTTP':
      return new StreamableHttpClientTransport({ url });
    case 'HTTP+SSE':
      return new SseClientTransport({ url: `${url}/sse` });
    case 'WebSocket':
      return new WebSocketClientTransport({ url: `${url.replace('http:', 'ws:')}/ws`, WebSocket: WebSocket as unknown as WebSocketConstructor });
  }
}

/** Waits until `check` holds, polling (bounded generously; no timing asserted). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 4000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/** Runs every method and notification once over `name` in `era`; returns what both sides recorded. */
async function scenario(name: TransportName, era: Era): Promise<Recorded> {
  // The two sides apart, as two processes would be (the stdio server is one).
  const sides = { client: telemetry(undefined, 'client'), server: telemetry(undefined, 'server') };
  try {
    return await run(name, era, sides);
  } finally {
    await Promise.all([sides.client.shutdown(), sides.server.shutdown()]);
  }
}

type Sides = Record<'client' | 'server', ReturnType<typeof telemetry>>;

async function run(name: TransportName, era: Era, sides: Sides): Promise<Recorded> {
  let stderr = '';
  const client = new McpClient(
    transportOf(name, (chunk) => (stderr += chunk)),
    {
      protocolVersion: era === 'legacy' ? '2025-11-25' : '2026-07-28',
      onElicitation: () => ({ action: 'accept', content: { topic: 'yes' } }),
      onSampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test' }),
      onRoots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
      // 2026-07-28 asks for log messages in each request's envelope; a legacy session with logging/setLevel (below).
      ...(era === 'modern' && { logLevel: 'info' as const }),
    },
  );
  try {
    await client.connect();
    await exercise(client, name, era);
  } finally {
    await client.close();
  }
  const timedOut = lastTimeout;
  let server: Recorded['server'];
  if (name === 'stdio') {
    await until(() => stderr.includes('{"otel"'), 'the stdio server printed its telemetry');
    await until(() => stderr.slice(stderr.indexOf('{"otel"')).includes('\n'), 'the whole line');
    const line = stderr.split('\n').find((l) => l.startsWith('{"otel"'))!;
    server = (JSON.parse(line) as { otel: Recorded['server'] }).otel;
  } else {
    // The server is done once the stalled call ended, the cancellation came and the session ended.
    const seen = (method: string) => sides.server.spans().some((s) => s.kind === SpanKind.SERVER && s.attributes['mcp.method.name'] === method);
    await until(() => sides.server.spans().some((s) => s.name === 'tools/call stall'), 'the stalled call ended');
    if (era === 'legacy') {
      await until(() => seen('notifications/cancelled'), 'the server received the cancellation');
      await until(async () => histogram(await sides.server.metrics(), 'mcp.server.session.duration').length > 0, 'the server saw the session end');
    }
    server = { spans: sides.server.spans(), metrics: await sides.server.metrics() };
  }
  return { server, client: { spans: sides.client.spans(), metrics: await sides.client.metrics() }, timedOut };
}

/** The client's last local timeout (`stall` with `timeout`), as it rejected. */
let lastTimeout: unknown;

/** Every method and notification, once. */
async function exercise(client: McpClient, name: TransportName, era: Era): Promise<void> {
  if (era === 'legacy') {
    await client.ping();
    await client.setLogLevel('info');
  }
  await client.listTools();
  await client.callTool('forecast', { city: 'Oslo' }, { onProgress: () => undefined });
  await client.callTool('broken');
  await client.callTool('missing').catch(() => undefined);
  const before = stalled.length;
  lastTimeout = await client.callTool('stall', {}, { timeout: 50 }).catch((error: unknown) => error);
  // In this process the tool waits until released (over stdio, the server's own copy is released when it closes).
  if (name !== 'stdio') await until(() => stalled.length > before, 'the stalled call reached the tool');
  stalled.splice(0).forEach((release) => release());
  await client.listPrompts();
  await client.getPrompt('write', { topic: 'rain' });
  await client.listResources();
  await client.listResourceTemplates();
  await client.readResource('notes://today');
  if (era === 'legacy') {
    await client.subscribe('notes://today');
    if (name !== 'stdio') mcp.notifyResourceUpdated('notes://today');
    await client.unsubscribe('notes://today');
  }
  // The server's questions: requests of their own in a legacy session, input requests of a round in 2026-07-28.
  await client.callTool('confirm');
  await client.callTool('ask');
  await client.callTool('roots');
  if (era === 'legacy') {
    await client.notify('notifications/roots/list_changed');
    await client.ping();
  }
}

/** The spans of `method` of `kind`. */
function spansOf(spans: SeenSpan[], kind: SpanKind, method: string): SeenSpan[] {
  return spans.filter((s) => s.kind === kind && s.attributes['mcp.method.name'] === method);
}

function one(spans: SeenSpan[], kind: SpanKind, method: string): SeenSpan {
  const found = spansOf(spans, kind, method);
  expect(found.map((s) => `${s.name} (${s.kind})`)).toHaveLength(1);
  return found[0];
}

function histogram(metrics: SeenMetric[], name: string): SeenMetric['points'] {
  return metrics.find((m) => m.name === name)?.points ?? [];
}

const CASES: Array<[TransportName, Era]> = [
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['Streamable HTTP', 'legacy'],
  ['Streamable HTTP', 'modern'],
  ['HTTP+SSE', 'legacy'],
  ['WebSocket', 'legacy'],
  ['WebSocket', 'modern'],
];

describe.each(CASES)('%s, %s era', (name, era) => {
  const version = era === 'legacy' ? '2025-11-25' : '2026-07-28';
  const network = name !== 'stdio';
  const sessions = era === 'legacy' && network;
  let recorded: Recorded;
  let server: SeenSpan[];
  let client: SeenSpan[];

  beforeAll(async () => {
    recorded = await scenario(name, era);
    server = recorded.server.spans;
    client = recorded.client.spans;
  });

  /** The requests the client sends, and the notifications: what the server receives. */
  const clientRequests =
    era === 'legacy'
      ? [
          'initialize',
          'ping',
          'logging/setLevel',
          'tools/list',
          'tools/call',
          'prompts/list',
          'prompts/get',
          'resources/list',
          'resources/templates/list',
          'resources/read',
          'resources/subscribe',
          'resources/unsubscribe',
        ]
      : ['server/discover', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/templates/list', 'resources/read'];
  /** What the server asks its client: requests in a legacy session, a round's input requests in 2026-07-28 (MRTR, docs/mcp-2026.md). */
  const serverRequests = ['elicitation/create', 'sampling/createMessage', 'roots/list'];
  const clientNotifications = era === 'legacy' ? ['notifications/initialized', 'notifications/roots/list_changed'] : [];
  const serverNotifications = ['notifications/progress', 'notifications/message', ...(era === 'legacy' && network ? ['notifications/resources/updated'] : [])];

  it('mcp.md §Client/§Server: every method and notification has its span on each side, the sender CLIENT, the receiver SERVER', () => {
    for (const method of [...clientRequests, ...clientNotifications]) {
      expect([method, spansOf(client, SpanKind.CLIENT, method).length > 0]).toEqual([method, true]);
      expect([method, spansOf(server, SpanKind.SERVER, method).length > 0]).toEqual([method, true]);
    }
    // The cancellation the client's timeout sent (the peer sends it itself: the server's span only).
    if (era === 'legacy') expect(spansOf(server, SpanKind.SERVER, 'notifications/cancelled').length).toBeGreaterThan(0);
    for (const method of [...serverRequests, ...serverNotifications]) {
      expect([method, spansOf(server, SpanKind.CLIENT, method).length > 0]).toEqual([method, true]);
      expect([method, spansOf(client, SpanKind.SERVER, method).length > 0]).toEqual([method, true]);
    }
  });

  it('mcp.md §Client/§Server: the name, mcp.method.name, the target, gen_ai.operation.name and mcp.resource.uri of every span', () => {
    for (const span of [...server, ...client].filter((s) => s.attributes['mcp.method.name'] !== undefined)) {
      const method = span.attributes['mcp.method.name'] as string;
      const target = TARGETS[method] && span.attributes[TARGETS[method]];
      // Span name: `{mcp.method.name} {target}`, the target a tool's or prompt's name, never a resource URI.
      expect(span.name).toBe(target ? `${method} ${String(target)}` : method);
      if (TARGETS[method]) expect(target).toEqual(expect.any(String));
      // gen_ai.operation.name: `execute_tool` for a tool call, and not set otherwise (note [6]).
      expect(span.attributes['gen_ai.operation.name']).toBe(method === 'tools/call' ? 'execute_tool' : undefined);
      // mcp.resource.uri: conditionally required on the methods that carry one (notes [3], [4]).
      if (RESOURCE_METHODS.includes(method)) expect(span.attributes['mcp.resource.uri']).toBe('notes://today');
      else expect(span.attributes['mcp.resource.uri']).toBeUndefined();
    }
  });

  it('mcp.md §Client/§Server: jsonrpc.request.id on every request span of both sides (deviations 1, 2), never on a notification nor a 2026-07-28 input request (note [2]: no id)', () => {
    for (const span of [...server, ...client].filter((s) => s.attributes['mcp.method.name'] !== undefined)) {
      const method = span.attributes['mcp.method.name'] as string;
      const inputRequest = era === 'modern' && serverRequests.includes(method);
      if (method.startsWith('notifications/') || inputRequest) expect([span.name, span.attributes['jsonrpc.request.id']]).toEqual([span.name, undefined]);
      else expect([span.name, span.attributes['jsonrpc.request.id']]).toEqual([span.name, expect.any(String)]);
    }
    // The client's span and the server's of one request name the same id.
    const sent = spansOf(client, SpanKind.CLIENT, 'tools/list')[0];
    expect(spansOf(server, SpanKind.SERVER, 'tools/list')[0].attributes['jsonrpc.request.id']).toBe(sent.attributes['jsonrpc.request.id']);
  });

  it('mcp.md §Client/§Server: mcp.protocol.version on every span (deviation 7: notifications the server sends too); mcp.session.id only in a legacy session with an id', () => {
    for (const span of [...server, ...client].filter((s) => s.attributes['mcp.method.name'] !== undefined)) {
      // (A 2026-07-28 cancellation, the client's peer's own, carries no envelope: the server cannot tell its revision.)
      const unknowable = era === 'modern' && span.kind === SpanKind.SERVER && span.attributes['mcp.method.name'] === 'notifications/cancelled';
      if (!unknowable) expect([span.name, span.attributes['mcp.protocol.version']]).toEqual([span.name, version]);
      // 2026-07-28 has no session: mcp.session.id stays off (note [8]: "When the MCP request or notification is part of a session").
      // (A WebSocket client is never told the id the server gives its socket's session.)
      const untold = name === 'WebSocket' && client.includes(span);
      if (sessions && !untold) expect([span.name, span.kind, span.attributes['mcp.session.id']]).toEqual([span.name, span.kind, expect.any(String)]);
      else expect([span.name, span.attributes['mcp.session.id']]).toEqual([span.name, undefined]);
    }
  });

  it('mcp.md §Recording MCP transport: network.transport, network.protocol.name and, on HTTP, network.protocol.version (deviation 3)', () => {
    const expected =
      name === 'stdio'
        ? { 'network.transport': 'pipe' }
        : name === 'WebSocket'
          ? { 'network.transport': 'tcp', 'network.protocol.name': 'websocket' }
          : { 'network.transport': 'tcp', 'network.protocol.name': 'http' };
    for (const span of [...server, ...client].filter((s) => s.attributes['mcp.method.name'] !== undefined)) {
      expect(span.attributes).toMatchObject(expected);
      if (name === 'stdio') expect(span.attributes['network.protocol.name']).toBeUndefined();
    }
    // The server reads HTTP's version off the request it answers.
    if (name === 'Streamable HTTP' || name === 'HTTP+SSE') {
      expect(one(server, SpanKind.SERVER, 'tools/list').attributes['network.protocol.version']).toBe('1.1');
      const point = histogram(recorded.server.metrics, 'mcp.server.operation.duration').find(
        (p) => p.attributes['mcp.method.name'] === 'tools/list' && p.attributes['mcp.protocol.version'] === version,
      );
      expect(point?.attributes['network.protocol.version']).toBe('1.1');
    }
  });

  it('mcp.md §Recording MCP transport: on HTTP the client records network.protocol.version too (node:http speaks 1.1): every span, each duration', () => {
    const http = name === 'Streamable HTTP' || name === 'HTTP+SSE';
    // Everything the client records: its requests and notifications (CLIENT), its answers to the server (SERVER).
    const spans = client.filter((s) => s.attributes['mcp.method.name'] !== undefined);
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) expect([span.name, span.kind, span.attributes['network.protocol.version']]).toEqual([span.name, span.kind, http ? '1.1' : undefined]);
    const durations = ['mcp.client.operation.duration', 'mcp.server.operation.duration', 'mcp.client.session.duration'];
    for (const metric of durations) {
      for (const point of histogram(recorded.client.metrics, metric)) expect([metric, point.attributes['network.protocol.version']]).toEqual([metric, http ? '1.1' : undefined]);
    }
    // What the server sends its client for a request (its questions, progress, log messages) goes on that request's HTTP exchange.
    const asked = server.filter(
      (s) => s.kind === SpanKind.CLIENT && (serverRequests.includes(s.attributes['mcp.method.name'] as string) || s.attributes['mcp.method.name'] === 'notifications/progress'),
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const span of asked) expect([span.name, span.attributes['network.protocol.version']]).toEqual([span.name, http ? '1.1' : undefined]);
    for (const point of histogram(recorded.server.metrics, 'mcp.client.operation.duration')) expect(point.attributes['network.protocol.version']).toBe(http ? '1.1' : undefined);
  });

  it('mcp.md §Metric mcp.client.session.duration / mcp.server.session.duration: every session row names its transport (network.transport, network.protocol.name)', () => {
    if (!sessions) {
      // 2026-07-28 has no session; a legacy session over stdio is a pipe, no application protocol.
      for (const side of [recorded.server.metrics, recorded.client.metrics]) {
        for (const metric of ['mcp.server.session.duration', 'mcp.client.session.duration']) {
          for (const point of histogram(side, metric)) expect(point.attributes).toMatchObject({ 'network.transport': 'pipe' });
        }
      }
      if (era === 'modern') expect(histogram(recorded.client.metrics, 'mcp.client.session.duration')).toEqual([]);
      return;
    }
    const protocol = name === 'WebSocket' ? 'websocket' : 'http';
    const rows = [...histogram(recorded.client.metrics, 'mcp.client.session.duration'), ...histogram(recorded.server.metrics, 'mcp.server.session.duration')];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row.attributes).toMatchObject({ 'network.transport': 'tcp', 'network.protocol.name': protocol, 'mcp.protocol.version': version });
  });

  it('mcp.md §Server: client.address and client.port on the server span (deviation 4); §Client: server.address and server.port on every client span', () => {
    // The requests: a notification is told to observers by the connection, which knows no single HTTP request's address.
    const received = server.filter((s) => s.kind === SpanKind.SERVER && s.attributes['jsonrpc.request.id'] !== undefined);
    const sent = client.filter((s) => s.kind === SpanKind.CLIENT && s.attributes['mcp.method.name'] !== undefined);
    expect(received.length).toBeGreaterThan(0);
    expect(sent.length).toBeGreaterThan(0);
    for (const span of received) {
      if (network) expect(span.attributes).toMatchObject({ 'client.address': '127.0.0.1', 'client.port': expect.any(Number) });
      else expect(span.attributes['client.address']).toBeUndefined();
    }
    for (const span of sent) {
      if (network) expect(span.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': port });
      else expect(span.attributes['server.address']).toBeUndefined();
    }
  });

  it('recording-errors.md + issue 29: a caller mistake is no error of the server (status code only), an error of the client (deviation 5); a tool error is tool_error on both', () => {
    const missingServer = spansOf(server, SpanKind.SERVER, 'tools/call').find((s) => s.attributes['gen_ai.tool.name'] === 'missing')!;
    expect(missingServer.attributes).toMatchObject({ 'rpc.response.status_code': '-32602' });
    expect(missingServer.attributes['error.type']).toBeUndefined();
    expect(missingServer.status.code).toBe(SpanStatusCode.UNSET);
    const missingClient = spansOf(client, SpanKind.CLIENT, 'tools/call').find((s) => s.attributes['gen_ai.tool.name'] === 'missing')!;
    expect(missingClient.attributes).toMatchObject({ 'rpc.response.status_code': '-32602', 'error.type': '-32602' });
    // Span status: ERROR when error.type is present, its description the JSON-RPC error's message.
    expect(missingClient.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringContaining('missing') });
    for (const side of [server, client]) {
      const broken = side.find((s) => s.attributes['gen_ai.tool.name'] === 'broken' && s.attributes['mcp.method.name'] === 'tools/call')!;
      expect(broken.attributes).toMatchObject({ 'error.type': 'tool_error' });
      expect(broken.status.code).toBe(SpanStatusCode.ERROR);
    }
    // error.type: "If and only if the operation fails": no span has one without ERROR, or the reverse.
    for (const span of [...server, ...client]) expect([span.name, span.status.code === SpanStatusCode.ERROR]).toEqual([span.name, span.attributes['error.type'] !== undefined]);
    const serverPoint = histogram(recorded.server.metrics, 'mcp.server.operation.duration').find((p) => p.attributes['gen_ai.tool.name'] === 'missing')!;
    expect(serverPoint.attributes).toMatchObject({ 'rpc.response.status_code': '-32602' });
    expect(serverPoint.attributes['error.type']).toBeUndefined();
  });

  it('rpc.response.status_code is a response\'s: a local timeout records error.type "timeout" alone (deviation 6)', () => {
    expect(recorded.timedOut).toMatchObject({ code: -32001 });
    const stall = spansOf(client, SpanKind.CLIENT, 'tools/call').find((s) => s.attributes['gen_ai.tool.name'] === 'stall')!;
    expect(stall.attributes['error.type']).toBe('timeout');
    expect(stall.attributes['rpc.response.status_code']).toBeUndefined();
    expect(stall.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("mcp.md §Context propagation: a client call and its server span share one trace through _meta.traceparent, the server span the client span's child; what the server asks is a CLIENT span under the tool call's, answered under a SERVER span on the client, its child", () => {
    for (const method of [...clientRequests, ...serverRequests]) {
      const fromServer = serverRequests.includes(method);
      const sent = spansOf(fromServer ? server : client, SpanKind.CLIENT, method)[0];
      expect([method, sent?.kind]).toEqual([method, SpanKind.CLIENT]);
      const answered = spansOf(fromServer ? client : server, SpanKind.SERVER, method).find((s) => s.parentSpanId === sent.spanId);
      expect([method, answered?.traceId]).toEqual([method, sent.traceId]);
      if (!fromServer) continue;
      // Asked while the tool ran: its span is the tool call's child (2026-07-28: the round's that asked).
      const call = server.find((s) => s.kind === SpanKind.SERVER && s.spanId === sent.parentSpanId);
      expect([method, call?.attributes['mcp.method.name'], call?.traceId]).toEqual([method, 'tools/call', sent.traceId]);
    }
  });

  it("mcp.md §Metrics: the four histograms, in seconds, the conventions' buckets (deviations 10, 11), by method and outcome without high-cardinality attributes", () => {
    const names = ['mcp.server.operation.duration', 'mcp.client.operation.duration', ...(era === 'legacy' ? ['mcp.server.session.duration', 'mcp.client.session.duration'] : [])];
    for (const metric of names) {
      const where = metric.startsWith('mcp.server') ? recorded.server.metrics : recorded.client.metrics;
      const points = histogram(where, metric);
      expect([metric, points.length > 0]).toEqual([metric, true]);
      expect(where.find((m) => m.name === metric)!.unit).toBe('s');
      for (const point of points) {
        expect([metric, point.value.buckets?.boundaries]).toEqual([metric, BUCKETS]);
        // Opt-in or unbounded: never on a metric.
        for (const key of ['mcp.session.id', 'jsonrpc.request.id', 'mcp.resource.uri']) expect(point.attributes[key]).toBeUndefined();
        expect(point.attributes['mcp.protocol.version']).toBe(version);
        if (metric.endsWith('operation.duration')) expect(point.attributes['mcp.method.name']).toEqual(expect.any(String));
        if (metric === 'mcp.client.session.duration' && network) expect(point.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': port });
      }
    }
  });
});

describe('cheap enough to leave on', () => {
  it('an unsampled request records its durations and propagates its context (flags 00), and makes no span', async () => {
    const local = telemetry(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }));

    try {
      const client = new McpClient(new StreamableHttpClientTransport({ url }), { protocolVersion: '2025-11-25' });
      await client.connect();
      const answer = await client.callTool('traceparent');
      await client.close();
      // What the server received in _meta: the client span's context, not sampled.
      expect(answer.content).toEqual([{ type: 'text', text: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/) }]);
      expect(local.spans()).toEqual([]);
      const metrics = await local.metrics();
      for (const name of ['mcp.server.operation.duration', 'mcp.client.operation.duration']) {
        expect(histogram(metrics, name).find((p) => p.attributes['gen_ai.tool.name'] === 'traceparent')?.value.count).toBe(1);
      }
    } finally {
      await local.shutdown();
    }
  });
});

describe('not installed', () => {
  it('produces no span and no measurement on either side: nothing subscribes to the channels', async () => {
    const spans = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      const client = new McpClient(new StreamableHttpClientTransport({ url }), { protocolVersion: '2025-11-25' });
      await client.connect();
      await client.callTool('forecast', { city: 'Oslo' }, { onProgress: () => undefined });
      await client.close();
      expect(spans.getFinishedSpans()).toEqual([]);
    } finally {
      trace.disable();
      await tracerProvider.shutdown();
    }
  });
});
