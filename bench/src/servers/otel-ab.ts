/**
 * The OpenTelemetry A/B (`telemetryAb` in bench/src/run.ts runs it on the servers' core and reads
 * the JSON it prints): Hermes' own OpenTelemetry CPU per `tools/call`, measured in one process
 * without sockets, because over HTTP it is a difference of differences of 30-60 µs rows that this
 * shared VM moves by 10-20 µs between slices (issue 29 read −3.7, 10.1 and 31.4 µs for the same
 * code; a finely interleaved HTTP A/B read 3.6 and 11.2 µs in two runs of 30 cycles).
 *
 * Six rows, as the HTTP section's: the add server (`AddServer`, the same class) answering a legacy
 * session's `tools/call` — plain, instrumented with every request sampled, instrumented at 10 % —
 * and the bare route's handler (an async function returning the sum) — plain, with the SDK's one
 * span and duration sampled, and never sampled. The server gets its requests through an in-memory
 * link that delivers each with what the HTTP endpoint gives a legacy session's request (`kind:
 * 'http'`, the request's headers, client address and port, HTTP version, path), so the
 * instrumentation does what it does on HTTP: the headers searched for a `traceparent`, every
 * attribute but `mcp.session.id` (a trace takes the session id from its connection, and this link's
 * connection has none). The SDK is set up once as ./telemetry.ts sets it up (its context manager enabled
 * for every row, so it cancels out); the sampler's ratio is switched and Hermes' instrumentation
 * installed and uninstalled between slices. Each slice: a full GC, a few calls untimed, then
 * `calls` calls (pipelined 20 at a time, as a client with requests in flight sends them) timed by
 * the process's CPU clock. Cycles of the six rows in a new random order; a cycle's difference is
 * one sample. Prints `{ cycles, calls, runs: { row: [µs per call, one per cycle] } }`.
 *
 * `node --expose-gc otel-ab.js [cycles] [calls]`
 */
import 'reflect-metadata';
import { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import { AlwaysOnSampler, ParentBasedSampler, Sampler, SamplingResult, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { InMemoryTransport, Peer, Transport, TransportInfo, parseFrame } from '@hermes-mcp/protocol';
import { OpenTelemetryInstrumentation, instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';
import { AddServer } from './add.server';
import { shuffled } from '../stats';
import { bareDurations, serverSpan, setUpSdk } from './telemetry';

/** The rows, by the HTTP section's keys. */
const ROWS = ['bare', 'bare-otel', 'bare-otel-0', 'legacy-json', 'legacy-json-otel', 'legacy-json-otel-10'] as const;
type Row = (typeof ROWS)[number];
/** What each row runs: Hermes or the bare handler, the span (bare) or instrumentation (Hermes), the share sampled. */
const SETUP: Record<Row, { hermes: boolean; traced: boolean; ratio: number }> = {
  bare: { hermes: false, traced: false, ratio: 1 },
  'bare-otel': { hermes: false, traced: true, ratio: 1 },
  'bare-otel-0': { hermes: false, traced: true, ratio: 0 },
  'legacy-json': { hermes: true, traced: false, ratio: 1 },
  'legacy-json-otel': { hermes: true, traced: true, ratio: 1 },
  'legacy-json-otel-10': { hermes: true, traced: true, ratio: 0.1 },
};
/** Calls in flight at once. */
const IN_FLIGHT = 20;
/** Untimed calls before each slice. */
const WARM = 200;

/** `ParentBased` over the current row's ratio. */
class SwitchedSampler implements Sampler {
  private readonly samplers = new Map<number, Sampler>([
    [1, new ParentBasedSampler({ root: new AlwaysOnSampler() })],
    [0.1, new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) })],
    [0, new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) })],
  ]);
  private current = this.samplers.get(1)!;

  use(ratio: number): void {
    this.current = this.samplers.get(ratio)!;
  }

  shouldSample(parent: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    return this.current.shouldSample(parent, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `Switched{${this.current.toString()}}`;
  }
}

/** The client's end of the link: each request arrives with an HTTP request's transport description, made per request as the endpoint makes it. */
class HttpLikeTransport extends InMemoryTransport {
  private port = 40_000;

  override sendRaw(text: string): Promise<void> {
    const other = this.other;
    const info: TransportInfo = {
      kind: 'http',
      sessionId: SESSION_ID,
      headers: {
        host: '127.0.0.1:3000',
        connection: 'keep-alive',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': SESSION_ID,
        'mcp-protocol-version': '2025-11-25',
        'content-length': String(text.length),
      },
      ip: '127.0.0.1',
      port: (this.port = this.port === 40_099 ? 40_000 : this.port + 1),
      httpVersion: '1.1',
      url: '/mcp',
    };
    queueMicrotask(() => {
      // What the HTTP endpoint does: each frame with its request's description (Transport's onframe).
      const deliver: Transport['onframe'] = other?.onframe;
      if (other && !other.closed) deliver?.(parseFrame(text), info);
    });
    return Promise.resolve();
  }
}
const SESSION_ID = '5b7f6c1e-2a44-4f0e-9a53-0d3c1b2e4f60';

async function main(): Promise<void> {
  const cycles = Number(process.argv[2] ?? 30);
  const calls = Number(process.argv[3] ?? 4_000);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const sampler = new SwitchedSampler();
  const meterProvider = setUpSdk(sampler);
  const histogram = bareDurations(meterProvider);

  // Hermes, a legacy session on the link.
  const app = McpFactory.create(AddServer, { logger: createLogger({ level: 'silent' }) });
  const [clientSide, serverSide] = InMemoryTransport.link(new HttpLikeTransport(), new HttpLikeTransport());
  const client = new Peer(clientSide, { onRequest: () => ({}), onNotification: () => undefined });
  await app.connect(serverSide);
  await client.start();
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } });
  await client.notify('notifications/initialized', {});
  const hermesCall = () => client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });

  // The bare route's handler (bare-fastify.server.ts), its span ./telemetry.ts's.
  let spanned = false;
  let nextId = 0;
  const bareCall = async () => {
    const body = JSON.parse('{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}') as {
      id: number;
      params: { arguments: { a: number; b: number } };
    };
    body.id = nextId++;
    const { a, b } = body.params.arguments;
    const answer = async () => ({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: String(a + b) }] } });
    return JSON.stringify(await (spanned ? serverSpan(histogram, body.id, answer) : answer()));
  };

  let instrumentation: OpenTelemetryInstrumentation | undefined;
  const use = (row: Row) => {
    const setup = SETUP[row];
    sampler.use(setup.ratio);
    spanned = !setup.hermes && setup.traced;
    const instrumented = setup.hermes && setup.traced;
    if (instrumented && !instrumentation) instrumentation = instrumentOpenTelemetry({ meterProvider });
    if (!instrumented && instrumentation) {
      instrumentation.uninstall();
      instrumentation = undefined;
    }
    return setup.hermes ? hermesCall : bareCall;
  };
  const drive = async (call: () => Promise<unknown>, count: number) => {
    for (let done = 0; done < count; done += IN_FLIGHT) {
      const batch: Array<Promise<unknown>> = [];
      for (let i = 0; i < IN_FLIGHT; i++) batch.push(call());
      await Promise.all(batch);
    }
  };
  const check = async (row: Row) => {
    const call = use(row);
    const answer = (await call()) as string | { content: Array<{ text: string }> };
    const text = typeof answer === 'string' ? (JSON.parse(answer) as { result: { content: Array<{ text: string }> } }).result.content[0].text : answer.content[0].text;
    if (text !== '5') throw new Error(`${row}: expected "5", got ${JSON.stringify(answer)}`);
  };

  for (const row of ROWS) {
    await check(row);
    await drive(use(row), calls);
  }
  const runs: Record<string, number[]> = Object.fromEntries(ROWS.map((row) => [row, []]));
  for (let cycle = 0; cycle < cycles; cycle++) {
    for (const row of shuffled(ROWS)) {
      const call = use(row);
      gc();
      await drive(call, WARM);
      const before = process.cpuUsage();
      await drive(call, calls);
      const spent = process.cpuUsage(before);
      runs[row].push((spent.user + spent.system) / calls);
    }
  }
  for (const row of ROWS) await check(row);
  process.stdout.write(`${JSON.stringify({ cycles, calls, runs })}\n`);
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
