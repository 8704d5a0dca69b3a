/**
 * Memory bounded per client, whatever it asks for and leaves unread (issue 25, items 2 and 3).
 *
 * The hardening server runs in its own process (its resident memory is its own), on each HTTP
 * adapter (Fastify with WebSocket on; the Web handler on Node's HTTP server, which has no WebSocket). Its `big` tool returns the same 50 MB text to every call, so what
 * grows is the server's own copies of the answers. A client sends twenty calls at once and reads
 * none of the answers, on each of Streamable HTTP (legacy session, JSON answers), the stateless
 * 2026-07-28 era, the 2024-11-05 HTTP+SSE transport and WebSocket. The server must grow by less
 * than 256 MB (before the limits it grew by 1.3–2.2 GB), answer every call it took, and go on
 * serving:
 *
 * - with the defaults, a 50 MB result is larger than `maxResultBytes` (16 MiB): every call is
 *   answered -32013 and no copy of the text is made;
 * - with `maxResultBytes` raised to 64 MiB, the first answer goes out and the others would pass
 *   the client's `maxUnreadBytes` (64 MiB) while it is unread: they are answered -32011.
 *
 * And a 2025-03-26 batch: more than `maxBatchEntries` messages is refused whole (400); the members
 * of one whose answer would pass `maxResultBytes` are answered -32013, the rest with their results
 * (before: +1.3 GB for 4 000 calls, and with 520 × 1 MiB the request was never answered).
 */
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import {
  ACCEPT_BOTH,
  HttpFixture,
  MODERN,
  MODERN_META,
  bounded,
  openSession,
  pausedSseStream,
  rpc,
  rssOf,
  sessionPost,
  spawnHttpFixture,
} from '../../../../test-support/hardening';
import { eventually } from '../../../../test-support/e2e';
import { SseParser } from '../../../../test-support/sse-reader';
import { ADAPTERS, FIXTURE_OF } from '../../../../test-support/adapters';
import { parseAnswer } from '../../../../test-support/raw-http';

type Raw = Record<string, unknown>;

const MB = 1024 * 1024;
const BIG = 50 * MB;
const CALLS = 20;
const GROWTH_LIMIT = 256 * MB;
/** A bound on starting a fixture and making its 50 MB text (a 64 MiB answer read once): past jest's 30 s on a loaded machine. */
const WARM_UP_MS = 120_000;

/** A raw HTTP/1.1 request on its own connection, whose answer is not read until `read()`. */
class Unread {
  private readonly socket: Socket;
  private readonly chunks: Buffer[] = [];
  private closed: Promise<void>;

  constructor(port: number, head: string, body = '') {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.socket.pause();
    this.socket.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.write(`${head}\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** Reads the whole answer (the server closes the connection after it): status and body, de-chunked. */
  async read(): Promise<{ status: number; body: string }> {
    this.socket.resume();
    await bounded(this.closed, 'an answer to be read', 60_000);
    const answer = parseAnswer(Buffer.concat(this.chunks));
    if (!answer) throw new Error(`no answer: ${Buffer.concat(this.chunks).toString('utf8').slice(0, 200)}`);
    return answer;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The fixture's counters, through a stateless call (its own connection). */
async function stats(server: HttpFixture): Promise<Raw> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'stats' },
    body: JSON.stringify(rpc('stats', 'tools/call', { name: 'stats', arguments: {}, _meta: MODERN_META })),
  });
  return ((await response.json()) as { result: { structuredContent: Raw } }).result.structuredContent;
}

/**
 * Runs `burst` (which sends the calls and reads nothing), waits until the server handled them all
 * and its output settled, and returns how much it grew at its peak (sampled every 20 ms).
 */
async function peakGrowth(server: HttpFixture, burst: () => Promise<number | void>): Promise<number> {
  const handled = (await stats(server)).bigs as number;
  const before = rssOf(server.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 20);
  try {
    const accepted = (await burst()) ?? CALLS;
    await eventually('every call to be handled', async () => ((await stats(server)).bigs as number) >= handled + accepted, 60_000);
    // The answers are written (or refused) right after; give the writes time to settle.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssOf(server.pid));
  if (process.env.SHOW_GROWTH) process.stderr.write(`growth ${expect.getState().currentTestName}: ${Math.round((peak - before) / MB)} MB\n`);
  return peak - before;
}

const bigCall = (id: string | number, meta?: Raw) => rpc(id, 'tools/call', { name: 'big', arguments: { bytes: BIG }, ...(meta && { _meta: meta }) });

/** The error code of each answer (0 for a result), and the text length of the results. */
function outcomes(bodies: string[]): { codes: number[]; resultLengths: number[] } {
  const codes: number[] = [];
  const resultLengths: number[] = [];
  for (const body of bodies) {
    const message = JSON.parse(body) as { error?: { code: number }; result?: { content: Array<{ text: string }> } };
    codes.push(message.error?.code ?? 0);
    if (message.result) resultLengths.push(message.result.content[0].text.length);
  }
  return { codes, resultLengths };
}

/** Streamable HTTP, legacy session: twenty POSTs whose JSON answers are never read. */
async function legacyHttp(server: HttpFixture): Promise<{ growth: number; bodies: string[]; sessionId: string }> {
  const sessionId = await openSession(server.url);
  const requests: Unread[] = [];
  const growth = await peakGrowth(server, async () => {
    for (let i = 0; i < CALLS; i++) {
      const head = `POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: ${ACCEPT_BOTH}\r\nmcp-session-id: ${sessionId}`;
      requests.push(new Unread(server.port, head, JSON.stringify(bigCall(i))));
    }
  });
  const answers = await Promise.all(requests.map((r) => r.read()));
  for (const answer of answers) expect(answer.status).toBe(200);
  return { growth, bodies: answers.map((a) => a.body), sessionId };
}

/** 2026-07-28: twenty stateless POSTs whose answers are never read. */
async function modernHttp(server: HttpFixture): Promise<{ growth: number; bodies: string[] }> {
  const requests: Unread[] = [];
  const growth = await peakGrowth(server, async () => {
    for (let i = 0; i < CALLS; i++) {
      const head = `POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: ${ACCEPT_BOTH}\r\nmcp-protocol-version: ${MODERN}\r\nmcp-method: tools/call\r\nmcp-name: big`;
      requests.push(new Unread(server.port, head, JSON.stringify(bigCall(i, MODERN_META))));
    }
  });
  const answers = await Promise.all(requests.map((r) => r.read()));
  return { growth, bodies: answers.map((a) => a.body) };
}

/** HTTP+SSE (2024-11-05): one stream, read up to its endpoint event, then not read; twenty calls POSTed. */
async function legacySse(server: HttpFixture): Promise<{ growth: number; statuses: number[]; stream: Socket; parser: SseParser; post: (body: unknown) => Promise<number> }> {
  const { stream, parser, messagesUrl: messages } = await pausedSseStream(server.port);
  const post = async (body: unknown) => (await fetch(messages, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
  expect(await post(rpc('init', 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'unread', version: '1' } }))).toBe(202);
  expect(await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);
  let statuses: number[] = [];
  const growth = await peakGrowth(server, async () => {
    statuses = await Promise.all(Array.from({ length: CALLS }, (_, i) => post(bigCall(i))));
    return statuses.filter((status) => status === 202).length;
  });
  return { growth, statuses, stream, parser, post };
}

/** WebSocket: a socket that initializes, then sends twenty calls and stops reading. */
async function webSocket(server: HttpFixture): Promise<{ growth: number; answers: () => Promise<Raw[]>; socket: WebSocket }> {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/mcp/ws`, 'mcp', { maxPayload: 256 * MB });
  const received: Raw[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Raw));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify(rpc('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'unread', version: '1' } })));
  await eventually('the initialize answer', () => received.length === 1);
  socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const raw = (socket as unknown as { _socket: Socket })._socket;
  raw.pause();
  // While its output waits, the server reads no more frames: it takes up the calls it has read.
  const growth = await peakGrowth(server, async () => {
    for (let i = 0; i < CALLS; i++) socket.send(JSON.stringify(bigCall(i)));
    return 1;
  });
  const answers = async (): Promise<Raw[]> => {
    raw.resume();
    await eventually('every call to be answered', () => received.length >= CALLS + 1, 60_000);
    return received.slice(1);
  };
  return { growth, answers, socket };
}

describe.each(ADAPTERS)('%s: twenty calls for 50 MB results that the client never reads: the defaults (maxResultBytes 16 MiB)', (adapter) => {
  let server: HttpFixture;

  beforeAll(async () => {
    server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn' }, FIXTURE_OF[adapter]);
    // The shared 50 MB text is made once, before anything is measured.
    await openSession(server.url).then((id) => sessionPost(server.url, id, bigCall('warm')).then((r) => r.text()));
  }, WARM_UP_MS);

  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  it('Streamable HTTP session: every call is answered -32013 naming the limit, no copy is made, the session goes on', async () => {
    const { growth, bodies, sessionId } = await legacyHttp(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    expect(outcomes(bodies).codes).toEqual(Array(CALLS).fill(-32013));
    expect(JSON.parse(bodies[0])).toMatchObject({
      error: { message: expect.stringContaining('maxResultBytes'), data: { maxResultBytes: 16 * MB } },
    });
    expect((await sessionPost(server.url, sessionId, rpc('after', 'ping'))).status).toBe(200);
  });

  it('stateless 2026-07-28: every call is answered -32013', async () => {
    const { growth, bodies } = await modernHttp(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    expect(outcomes(bodies).codes).toEqual(Array(CALLS).fill(-32013));
  });

  it('HTTP+SSE: every call is answered -32013 on the stream, which stays open', async () => {
    const { growth, statuses, stream, parser, post } = await legacySse(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    expect(statuses).toEqual(Array(CALLS).fill(202));
    const events: string[] = [];
    // The answers to the twenty calls (numbered ids), after the initialize answer.
    stream.on('data', (text: string) =>
      events.push(
        ...parser
          .push(text)
          .map((e) => e.data)
          .filter((data) => /"id":\d/.test(data)),
      ),
    );
    stream.resume();
    await eventually('the twenty answers', () => events.length >= CALLS);
    expect(outcomes(events).codes).toEqual(Array(CALLS).fill(-32013));
    expect(await post(rpc('after', 'ping'))).toBe(202);
    stream.destroy();
  });

  // WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
  if (adapter === 'fastify') {
    it('WebSocket: every call is answered -32013', async () => {
      const { growth, answers, socket } = await webSocket(server);
      expect(growth).toBeLessThan(GROWTH_LIMIT);
      expect((await answers()).map((m) => (m.error as { code: number }).code)).toEqual(Array(CALLS).fill(-32013));
      socket.close();
    });
  }
});

describe.each(ADAPTERS)('%s: twenty calls for 50 MB results that the client never reads: maxResultBytes raised to 64 MiB (maxUnreadBytes 64 MiB)', (adapter) => {
  let server: HttpFixture;

  beforeAll(async () => {
    server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn', HARDENING_MAX_RESULT: String(64 * MB) }, FIXTURE_OF[adapter]);
    await openSession(server.url).then((id) => sessionPost(server.url, id, bigCall('warm')).then((r) => r.text()));
  }, WARM_UP_MS);

  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  /** One answer carries the 50 MB; the rest are -32011, naming maxUnreadBytes. */
  function expectOneSentRestRefused(bodies: string[]): void {
    const { codes, resultLengths } = outcomes(bodies);
    expect(resultLengths).toEqual([BIG]);
    expect(codes.filter((c) => c === 0)).toHaveLength(1);
    expect(codes.filter((c) => c === -32011)).toHaveLength(CALLS - 1);
    expect(JSON.parse(bodies.find((b) => b.includes('-32011'))!)).toMatchObject({
      error: { code: -32011, message: expect.stringContaining('maxUnreadBytes'), data: { maxUnreadBytes: 64 * MB, unreadBytes: expect.any(Number) } },
    });
  }

  it('Streamable HTTP session: one answer goes out, the others would pass maxUnreadBytes and are -32011; the session goes on', async () => {
    const { growth, bodies, sessionId } = await legacyHttp(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    expectOneSentRestRefused(bodies);
    expect((await sessionPost(server.url, sessionId, rpc('after', 'ping'))).status).toBe(200);
  });

  it('stateless 2026-07-28: the same, counted per client', async () => {
    const { growth, bodies } = await modernHttp(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    expectOneSentRestRefused(bodies);
  });

  it('HTTP+SSE: one answer goes out; the stream, past its maxBufferedBytes, closes and ends the session; the server serves new sessions', async () => {
    const { growth, statuses, stream, post } = await legacySse(server);
    expect(growth).toBeLessThan(GROWTH_LIMIT);
    // Accepted until the session ended with its stream; not found after.
    expect(statuses.filter((s) => s !== 202 && s !== 404)).toEqual([]);
    expect(statuses[0]).toBe(202);
    await eventually('the session to end', async () => (await post(rpc('after', 'ping'))) === 404);
    stream.destroy();
    expect((await sessionPost(server.url, await openSession(server.url), rpc('after', 'ping'))).status).toBe(200);
  });

  // WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
  if (adapter === 'fastify') {
    it('WebSocket: the server reads no more calls while an answer waits; each call it took is answered, with its result or -32011; the socket stays open', async () => {
      const { growth, answers, socket } = await webSocket(server);
      expect(growth).toBeLessThan(GROWTH_LIMIT);
      // Once the client reads, the calls it sent meanwhile are taken up: some fit now.
      const got = await answers();
      const codes = got.map((m) => (m.error as { code: number } | undefined)?.code ?? 0);
      if (process.env.SHOW_GROWTH) process.stderr.write(`codes ${codes.join(',')}\n`);
      expect(codes.filter((c) => c !== 0 && c !== -32011)).toEqual([]);
      expect(codes[0]).toBe(0);
      for (const m of got) if (m.result) expect((m.result as { content: Array<{ text: string }> }).content[0].text).toHaveLength(BIG);
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    });
  }
});

describe.each(ADAPTERS)('%s: 2025-03-26 batches are bounded', (adapter) => {
  let server: HttpFixture;
  let sessionId: string;

  beforeAll(async () => {
    server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn' }, FIXTURE_OF[adapter]);
    sessionId = await openSession(server.url, '2025-03-26');
  });

  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  const call = (id: number, bytes: number) => rpc(id, 'tools/call', { name: 'big', arguments: { bytes } });

  it('more than maxBatchEntries (100) messages: refused whole with 400 and -32600 naming the limit; none of it runs', async () => {
    const handled = (await stats(server)).bigs as number;
    const response = await sessionPost(
      server.url,
      sessionId,
      Array.from({ length: 4000 }, (_, i) => call(i, 64 * 1024)),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining('4000 messages'), data: { maxBatchEntries: 100 } } });
    expect((await stats(server)).bigs).toBe(handled);
  });

  it('a batch whose answer would pass maxResultBytes: the members past it are -32013, the others answered; the request is answered', async () => {
    // 100 × 1 MiB: 16 of them fit in 16 MiB with the envelope.
    const response = await sessionPost(
      server.url,
      sessionId,
      Array.from({ length: 100 }, (_, i) => call(i, MB)),
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.length).toBeLessThanOrEqual(16 * MB);
    const answers = JSON.parse(text) as Array<{ id: number; result?: unknown; error?: { code: number } }>;
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const results = answers.filter((a) => a.result).length;
    expect(results).toBe(15);
    expect(answers.filter((a) => a.error?.code === -32013)).toHaveLength(100 - results);
  });

  it('a batch at the limit of 100 small calls is answered whole', async () => {
    const response = await sessionPost(
      server.url,
      sessionId,
      Array.from({ length: 100 }, (_, i) => call(i, 10)),
    );
    const answers = (await response.json()) as Array<{ result?: unknown }>;
    expect(answers.filter((a) => a.result)).toHaveLength(100);
  });
});

describe.each(ADAPTERS)('%s: events kept for resumption are bounded in bytes per session (eventStoreBytes)', (adapter) => {
  let server: HttpFixture;

  beforeAll(async () => {
    server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn', HARDENING_EVENT_BYTES: '20000' }, FIXTURE_OF[adapter]);
  });

  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  it('a client that leaves a stream of 50 × 1 000-character events: the oldest go, a resumption from the first gets 400', async () => {
    const sessionId = await openSession(server.url);
    const floods = (await stats(server)).floodsFinished as number;
    const response = await sessionPost(
      server.url,
      sessionId,
      rpc('f', 'tools/call', { name: 'flood', arguments: { events: 50, bytes: 1000, delayMs: 5 }, _meta: { progressToken: 'p' } }),
    );
    const reader = response.body!.getReader();
    const parser = new SseParser();
    let first: string | undefined;
    while (first === undefined) {
      const { value } = await reader.read();
      first = parser.push(new TextDecoder().decode(value)).find((e) => e.data.includes('notifications/progress'))?.id;
    }
    await reader.cancel();
    await eventually('the flood to finish', async () => ((await stats(server)).floodsFinished as number) > floods);
    const resumed = await fetch(server.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': first } });
    expect(resumed.status).toBe(400);
    expect(await resumed.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining(first) } });
  });
});
