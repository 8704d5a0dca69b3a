/**
 * Hardening, defect 2: a client that asks for a stream and never reads it cannot grow the server's
 * memory. The server runs in its own process (the hardening fixture, so its resident memory is
 * its own), on each HTTP adapter; the client sends one `tools/call` to a tool that reports progress as fast as it can
 * (tens of megabytes of events) over a raw TCP socket and never reads a byte of the answer.
 *
 * The server must: close the stream once more than `maxBufferedBytes` wait unread, cancel the
 * request (the tool sees its signal abort and stops), keep the session (Streamable HTTP), and grow
 * by less than 64 MB. The same over stateless 2026-07-28 requests and the 2024-11-05 HTTP+SSE
 * transport (whose one stream is its session), and on stdio (a client that stops reading stdout):
 * there, input is not read while output waits, notifications past the limit are dropped and the
 * request is answered with -32011. Progress tokens and ids are capped (a 4 MB token is refused).
 */
import { connect, type Socket } from 'node:net';
import { eventually } from '../../../../test-support/e2e';
import {
  ACCEPT_BOTH,
  HttpFixture,
  MODERN,
  MODERN_META,
  messagesOf,
  modernPost,
  openSession,
  pausedSseStream,
  rpc,
  rssOf,
  sessionPost,
  spawnHttpFixture,
  spawnStdioFixture,
} from '../../../../test-support/hardening';
import { ADAPTERS, FIXTURE_OF } from '../../../../test-support/adapters';

type Raw = Record<string, unknown>;

/** Events and bytes per event of the flood: 40 000 × 4 KiB, about 160 MB if nothing stopped it. */
const FLOOD = { events: 40_000, bytes: 4096 };
const MB = 1024 * 1024;
const GROWTH_LIMIT = 64 * MB;

/** Writes a raw HTTP/1.1 POST on a socket that will never be read. */
function rawPost(port: number, path: string, headers: Record<string, string>, body: string): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => undefined);
  const lines = [`POST ${path} HTTP/1.1`, `host: 127.0.0.1:${port}`, `content-length: ${Buffer.byteLength(body)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  return socket;
}

/** The fixture's counters, through a stateless call (its own connection). */
async function stats(url: string): Promise<Raw> {
  const [answer] = await messagesOf(await modernPost(url, 'stats', 'tools/call', { name: 'stats', arguments: {} }));
  return (answer.result as { structuredContent: Raw }).structuredContent;
}

/** Waits for the flood to be cancelled, and checks how much the server grew meanwhile. */
async function expectStoppedAndBounded(server: HttpFixture, before: number, floodsBefore: number): Promise<void> {
  let peak = before;
  await eventually(
    'the flood to be cancelled',
    async () => {
      peak = Math.max(peak, rssOf(server.pid));
      const seen = await stats(server.url);
      return (seen.floodsAborted as number) > floodsBefore;
    },
    30_000,
  );
  peak = Math.max(peak, rssOf(server.pid));
  expect({ growthMB: Math.round((peak - before) / MB) }).toEqual({ growthMB: expect.any(Number) });
  expect(peak - before).toBeLessThan(GROWTH_LIMIT);
}

describe.each(ADAPTERS)('%s: a client that never reads its stream (HTTP, server in its own process)', (adapter) => {
  let server: HttpFixture;
  let baseline: number;

  beforeAll(async () => {
    server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn' }, FIXTURE_OF[adapter]);
    // Warm up: sessions, a flood that is read, so the heap has its working size before measuring. Its
    // whole output (2,000 × 1 KiB) stays under maxBufferedBytes (4 MiB): a reader slowed by a loaded
    // machine cannot get it closed (8 MiB did, once, in a clean-clone run).
    const warm = await openSession(server.url);
    const read = await sessionPost(server.url, warm, rpc(1, 'tools/call', { name: 'flood', arguments: { events: 2000, bytes: 1024 }, _meta: { progressToken: 'warm' } }));
    expect((await messagesOf(read)).length).toBeGreaterThan(1);
    baseline = rssOf(server.pid);
  });

  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  it('Streamable HTTP session: the request stream is closed past maxBufferedBytes, the tool stops, the session lives on, memory stays bounded', async () => {
    const sessionId = await openSession(server.url);
    const floods = (await stats(server.url)).floodsAborted as number;
    const before = Math.max(baseline, rssOf(server.pid));
    const body = JSON.stringify(rpc('flood', 'tools/call', { name: 'flood', arguments: FLOOD, _meta: { progressToken: 'p' } }));
    const socket = rawPost(server.port, '/mcp', { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId }, body);
    await expectStoppedAndBounded(server, before, floods);
    // The session was kept: it still answers.
    const ping = await sessionPost(server.url, sessionId, rpc('after', 'ping'));
    expect(ping.status).toBe(200);
    expect(await ping.json()).toMatchObject({ id: 'after', result: {} });
    socket.destroy();
  });

  it('stateless 2026-07-28: the response stream is closed past maxBufferedBytes and the tool stops', async () => {
    const floods = (await stats(server.url)).floodsAborted as number;
    const before = Math.max(baseline, rssOf(server.pid));
    const body = JSON.stringify(rpc('flood', 'tools/call', { name: 'flood', arguments: FLOOD, _meta: { ...MODERN_META, progressToken: 'p' } }));
    const socket = rawPost(
      server.port,
      '/mcp',
      { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'flood' },
      body,
    );
    await expectStoppedAndBounded(server, before, floods);
    socket.destroy();
  });

  it('HTTP+SSE (2024-11-05): its one stream is closed past maxBufferedBytes, ending the session; the tool stops', async () => {
    // Open the stream and read its first event (the endpoint), then stop reading.
    const { stream: socket, messagesUrl: messages } = await pausedSseStream(server.port);
    const post = (body: unknown) => fetch(messages, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(rpc('init', 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'slow', version: '1' } }))).status).toBe(202);
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    // 2024-11-05 progress has no message: the bytes travel as log notifications instead.
    expect((await post(rpc('level', 'logging/setLevel', { level: 'debug' }))).status).toBe(202);
    const floods = (await stats(server.url)).floodsAborted as number;
    const before = Math.max(baseline, rssOf(server.pid));
    expect((await post(rpc('flood', 'tools/call', { name: 'flood', arguments: { ...FLOOD, via: 'log' } }))).status).toBe(202);
    await expectStoppedAndBounded(server, before, floods);
    // The session was its stream: it is gone.
    await eventually('the session to end', async () => (await post(rpc('after', 'ping'))).status === 404);
    socket.destroy();
  });

  it('Streamable HTTP session: a client that vanishes mid-stream leaves nothing growing (its events go to the bounded event store)', async () => {
    const sessionId = await openSession(server.url);
    const finished = (await stats(server.url)).floodsFinished as number;
    const before = Math.max(baseline, rssOf(server.pid));
    // The flood waits a second after its first event: the client reads that one and is gone before
    // the rest could fill its stream past maxBufferedBytes (which would stop the tool instead: the
    // first test's case). Without the pause, a client slowed by a loaded machine raced the flood.
    const flood = { ...FLOOD, pauseAfterFirstMs: 1000 };
    const response = await sessionPost(server.url, sessionId, rpc('gone', 'tools/call', { name: 'flood', arguments: flood, _meta: { progressToken: 'g' } }));
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    let peak = before;
    await eventually(
      'the flood to finish',
      async () => {
        peak = Math.max(peak, rssOf(server.pid));
        return ((await stats(server.url)).floodsFinished as number) > finished;
      },
      30_000,
    );
    expect(peak - before).toBeLessThan(GROWTH_LIMIT);
    expect((await sessionPost(server.url, sessionId, rpc('after', 'ping'))).status).toBe(200);
  });

  it('refuses a 4 MB progress token (and id) instead of echoing it in every notification', async () => {
    const sessionId = await openSession(server.url);
    const huge = 'x'.repeat(4 * MB - 1024);
    const token = await sessionPost(server.url, sessionId, rpc('t', 'tools/call', { name: 'flood', arguments: { events: 10, bytes: 1 }, _meta: { progressToken: huge } }));
    expect(token.status).toBe(200);
    const [answer] = await messagesOf(token);
    expect(answer).toMatchObject({ id: 't', error: { code: -32600, message: expect.stringMatching(/progress token .* at most 1024 characters/) } });
    const id = await sessionPost(server.url, sessionId, rpc(huge, 'ping'));
    expect(id.status).toBe(400);
    expect(await id.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/"id" member must be a string of at most 1024 characters/) } });
    const modern = await modernPost(server.url, 'm', 'tools/call', { name: 'flood', arguments: { events: 10, bytes: 1 }, _meta: { progressToken: huge } });
    expect(modern.status).toBe(400);
    expect(await modern.json()).toMatchObject({ id: 'm', error: { code: -32600, message: expect.stringMatching(/progress token/) } });
  });
});

describe('a client that stops reading stdout (stdio, spawned server)', () => {
  // 120 s: 400 000 pings written and answered took longer than jest's 30 s on a loaded two-core machine.
  it('400 000 pings: input is not read while output waits, memory stays bounded, every ping is answered once reading resumes', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' }, 60_000);
    try {
      await server.initialize('2025-11-25');
      const before = rssOf(server.pid);
      server.pauseReading();
      const total = 400_000;
      const chunk = 10_000;
      let peak = before;
      for (let sent = 0; sent < total; sent += chunk) {
        let lines = '';
        for (let i = sent; i < sent + chunk; i++) lines += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
        server.writeRaw(lines);
        await new Promise((resolve) => setTimeout(resolve, 20));
        peak = Math.max(peak, rssOf(server.pid));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      peak = Math.max(peak, rssOf(server.pid));
      expect(peak - before).toBeLessThan(GROWTH_LIMIT);
      server.resumeReading();
      await server.until(() => server.lines.length >= total + 1, 'every ping to be answered');
      const answered = new Set(server.received.map((m) => (m as Raw).id));
      for (let i = 0; i < total; i += 997) expect(answered.has(i)).toBe(true);
      expect(server.lines.length).toBe(total + 1);
    } finally {
      server.kill();
    }
  }, 120_000);

  it('a tool flooding progress to a client that does not read: notifications past maxBufferedBytes are dropped, the request is answered -32011, memory stays bounded', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' }, 30_000);
    try {
      await server.initialize('2025-11-25');
      const before = rssOf(server.pid);
      server.pauseReading();
      server.send(rpc('flood', 'tools/call', { name: 'flood', arguments: FLOOD, _meta: { progressToken: 'p' } }));
      let peak = before;
      for (let i = 0; i < 40; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        peak = Math.max(peak, rssOf(server.pid));
      }
      expect(peak - before).toBeLessThan(GROWTH_LIMIT);
      server.resumeReading();
      const answer = await server.responseTo('flood');
      expect(answer).toMatchObject({ error: { code: -32011, message: expect.stringMatching(/client left more than 4194304 bytes of output unread \(maxBufferedBytes\)/) } });
      // The connection goes on.
      expect(await server.request('after', 'ping')).toMatchObject({ result: {} });
      const counters = await server.request('stats', 'tools/call', { name: 'stats', arguments: {} });
      expect((counters.result as { structuredContent: Raw }).structuredContent.floodsAborted).toBe(1);
      expect(server.lines.length).toBeLessThan(FLOOD.events);
    } finally {
      server.kill();
    }
  });
});
