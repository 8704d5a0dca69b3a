/**
 * Hardening, defect 3: graceful shutdown loses nothing. With 50 requests in flight on every HTTP
 * transport (Streamable HTTP sessions answering with SSE and with JSON, the 2024-11-05 HTTP+SSE
 * transport, stateless 2026-07-28), closing the adapter (each HTTP adapter, in process and as a
 * spawned process on SIGTERM) lets them finish within the grace
 * period; those that run past it are answered with -32010 (never a 404 that would tell the client
 * to re-initialize); new requests meanwhile are refused with -32010. The same on stdio (stdin
 * closed, SIGTERM) in a spawned process, and through `McpApp.close()`.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { InMemoryTransport, Peer } from '@hermes-mcp/protocol';
import { HardeningServer, observed } from '../../../../test-support/fixtures/src/hardening.server';
import { bounded, messagesOf, modernPost, openSession, rpc, sessionPost, spawnHttpFixture, spawnStdioFixture } from '../../../../test-support/hardening';
import { eventually } from '../../../../test-support/e2e';
import { ADAPTERS, Adapter, FIXTURE_OF, Serving, serveOn } from '../../../../test-support/adapters';

type Raw = Record<string, unknown>;

const silent = createLogger({ level: 'silent' });

/** How a request in flight ended, as its client saw it. */
type Outcome = { kind: 'result'; text: string } | { kind: 'error'; code: number; message: string } | { kind: 'lost'; detail: string };

/** The hardening server on `adapter`, connections left to the adapter to end (the harness turns Fastify's 503 while closing off). */
function start(adapter: Adapter, gracePeriod: number): Promise<Serving> {
  return serveOn(adapter, HardeningServer, () => ({ shutdownGracePeriod: gracePeriod }), { forceCloseConnections: false });
}

/** What an SDK call ended with. */
function sdkOutcome(call: Promise<{ content?: unknown }>): Promise<Outcome> {
  return call.then(
    (result) => ({ kind: 'result', text: (result.content as Array<{ text: string }>)[0].text }),
    (error: unknown) => (error instanceof SdkMcpError ? { kind: 'error', code: error.code, message: error.message } : { kind: 'lost', detail: String(error) }),
  );
}

/** What a raw HTTP call ended with (JSON or SSE answer carrying `id`). */
async function rawOutcome(response: Promise<Response>, id: string | number): Promise<Outcome> {
  try {
    const answered = await response;
    const answer = (await messagesOf(answered)).find((m) => m.id === id);
    if (!answer) return { kind: 'lost', detail: `HTTP ${answered.status} without an answer to ${id}` };
    if (answer.error) return { kind: 'error', ...(answer.error as { code: number; message: string }) };
    return { kind: 'result', text: ((answer.result as Raw).content as Array<{ text: string }>)[0].text };
  } catch (error) {
    return { kind: 'lost', detail: String(error) };
  }
}

/**
 * Starts 50 requests of `ms` milliseconds: 15 streaming progress on Streamable HTTP sessions (SSE
 * answers), 15 plain JSON answers on sessions, 10 on the HTTP+SSE transport, 10 stateless.
 */
async function fiftyInFlight(url: string, ms: number): Promise<{ outcomes: Array<Promise<Outcome>>; clients: Client[]; busySession: string }> {
  const clients: Client[] = [];
  const outcomes: Array<Promise<Outcome>> = [];
  const streaming = new Client({ name: 'sse', version: '1' });
  await streaming.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(streaming);
  // Progress every 50 ms until `ms`: SSE answers.
  for (let i = 0; i < 15; i++) {
    outcomes.push(
      sdkOutcome(
        streaming.callTool({ name: 'flood', arguments: { events: Math.max(1, Math.floor(ms / 50)), bytes: 8, delayMs: 50 } }, undefined, {
          onprogress: () => undefined,
          timeout: 60_000,
        }) as Promise<{ content?: unknown }>,
      ),
    );
  }
  const sessionId = await openSession(url);
  for (let i = 0; i < 15; i++) outcomes.push(rawOutcome(sessionPost(url, sessionId, rpc(`json-${i}`, 'tools/call', { name: 'slow', arguments: { ms } })), `json-${i}`));
  const legacy = new Client({ name: 'http+sse', version: '1' });
  await legacy.connect(new SSEClientTransport(new URL(`${url}/sse`)));
  clients.push(legacy);
  for (let i = 0; i < 10; i++) outcomes.push(sdkOutcome(legacy.callTool({ name: 'slow', arguments: { ms } }, undefined, { timeout: 60_000 }) as Promise<{ content?: unknown }>));
  for (let i = 0; i < 10; i++) outcomes.push(rawOutcome(modernPost(url, `modern-${i}`, 'tools/call', { name: 'slow', arguments: { ms } }), `modern-${i}`));
  return { outcomes, clients, busySession: sessionId };
}

describe.each(ADAPTERS)('closing the %s adapter with 50 requests in flight', (adapter) => {
  it('lets them finish within the grace period: all 50 answered with their results, none lost', async () => {
    const { close, url } = await start(adapter, 5_000);
    const started = { slow: observed.slowStarted, floods: observed.floods };
    const { outcomes, clients } = await fiftyInFlight(url, 600);
    await eventually('all 50 to be running', () => observed.slowStarted - started.slow === 35 && observed.floods - started.floods === 15);
    await bounded(close(), 'closing');
    const seen = await bounded(Promise.all(outcomes), 'every answer');
    expect(seen.filter((o) => o.kind !== 'result')).toEqual([]);
    expect(seen.filter((o) => o.kind === 'result' && /^(slept 600|sent 12)$/.test(o.text))).toHaveLength(50);
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  });

  it('answers those still running after the grace period with -32010 (no 404, none lost), and refuses new requests meanwhile', async () => {
    // Long enough for the four late requests below to land inside it on a loaded machine (400 ms did not, once, in a full run).
    const { close, url } = await start(adapter, 2_000);
    const idleSession = await openSession(url);
    const started = { slow: observed.slowStarted, floods: observed.floods };
    const { outcomes, clients, busySession } = await fiftyInFlight(url, 30_000);
    await eventually('all 50 to be running', () => observed.slowStarted - started.slow === 35 && observed.floods - started.floods === 15);
    const closed = close();
    // During the grace period: no new session, no new request on a session, no new stateless request.
    const initialize = await sessionPost(
      url,
      undefined,
      rpc('late', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } }),
    );
    expect(initialize.status).toBe(503);
    expect(await initialize.json()).toMatchObject({ error: { code: -32010, message: expect.stringMatching(/shutting down/) } });
    // A session with requests in flight refuses in-band; one that had none already ended: 503, not 404.
    const onBusySession = await sessionPost(url, busySession, rpc('late-ping', 'ping'));
    expect(onBusySession.status).toBe(200);
    expect(await messagesOf(onBusySession)).toMatchObject([{ id: 'late-ping', error: { code: -32010, message: expect.stringMatching(/shutting down/) } }]);
    const onIdleSession = await sessionPost(url, idleSession, rpc('late-ping', 'ping'));
    expect(onIdleSession.status).toBe(503);
    expect(await onIdleSession.json()).toMatchObject({ error: { code: -32010 } });
    const stateless = await modernPost(url, 'late-modern', 'tools/list');
    expect(stateless.status).toBe(503);
    expect(await stateless.json()).toMatchObject({ id: 'late-modern', error: { code: -32010 } });

    await bounded(closed, 'closing');
    const seen = await bounded(Promise.all(outcomes), 'every answer');
    expect(seen.filter((o) => o.kind === 'lost')).toEqual([]);
    expect(seen.filter((o) => o.kind === 'error' && o.code === -32010 && /grace period/.test(o.message))).toHaveLength(50);
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  });
});

describe.each(ADAPTERS)('%s in a spawned process: SIGTERM, then close (`app.close()`, `await handler.close()`) and `process.exit(0)`', (adapter) => {
  it('with 50 requests past the grace period: every one is answered -32010 before the process exits, JSON answers included', async () => {
    const server = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'warn', HARDENING_GRACE_MS: '400' }, FIXTURE_OF[adapter]);
    try {
      const counters = async () => {
        const [answer] = await messagesOf(await modernPost(server.url, 'stats', 'tools/call', { name: 'stats', arguments: {} }));
        return (answer.result as { structuredContent: Raw }).structuredContent;
      };
      const before = await counters();
      const { outcomes, clients } = await fiftyInFlight(server.url, 30_000);
      await eventually(
        'all 50 to be running',
        async () => {
          const now = await counters();
          return (now.slowStarted as number) - (before.slowStarted as number) === 35 && (now.floods as number) - (before.floods as number) === 15;
        },
        20_000,
      );
      server.child.kill('SIGTERM');
      expect(await bounded(server.exited, 'the process to exit')).toBe(0);
      const seen = await bounded(Promise.all(outcomes), 'every answer');
      expect(seen.filter((o) => o.kind === 'lost')).toEqual([]);
      expect(seen.filter((o) => o.kind === 'error' && o.code === -32010 && /grace period/.test(o.message))).toHaveLength(50);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    } finally {
      server.kill();
    }
  });
});

describe('McpApp.close()', () => {
  it('answers a request in flight within the grace period, then -32010 for one past it, and refuses new ones', async () => {
    const app = McpFactory.create(HardeningServer, { logger: silent, shutdownGracePeriod: 300 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.listen(serverSide);
    const client = new Peer(clientSide, { onRequest: () => ({}) });
    await client.start();
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    await client.notify('notifications/initialized');
    const quick = client.request('tools/call', { name: 'slow', arguments: { ms: 100 } });
    const long = client.request('tools/call', { name: 'slow', arguments: { ms: 30_000 } }).catch((e: unknown) => e);
    await eventually('both to run', () => observed.slowStarted >= 2);
    const closing = app.close();
    const refused = await client.request('ping', {}).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32010 });
    expect(await quick).toMatchObject({ content: [{ text: 'slept 100' }] });
    expect(await long).toMatchObject({ code: -32010, message: expect.stringMatching(/grace period/) });
    await bounded(closing, 'app.close()');
  });
});

describe('stdio (spawned process)', () => {
  it('stdin closed: the requests in flight are answered, then the process exits 0', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      await server.initialize('2025-11-25');
      for (let i = 0; i < 5; i++) server.send(rpc(i, 'tools/call', { name: 'slow', arguments: { ms: 300 } }));
      server.endInput();
      const exit = await bounded(server.exited, 'the process to exit');
      expect(exit).toEqual({ code: 0, signal: null });
      for (let i = 0; i < 5; i++)
        expect(server.received).toContainEqual(expect.objectContaining({ id: i, result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 300' }] }) }));
    } finally {
      server.kill();
    }
  });

  it('stdin closed with requests running past the grace period: they are answered with -32010, then the process exits', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn', HARDENING_GRACE_MS: '300' });
    try {
      await server.initialize('2025-11-25');
      for (let i = 0; i < 5; i++) server.send(rpc(i, 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.endInput();
      const exit = await bounded(server.exited, 'the process to exit');
      expect(exit).toEqual({ code: 0, signal: null });
      for (let i = 0; i < 5; i++) expect(server.received).toContainEqual({ jsonrpc: '2.0', id: i, error: { code: -32010, message: expect.stringMatching(/grace period/) } });
    } finally {
      server.kill();
    }
  });

  it('SIGTERM: requests in flight are answered, new ones refused with -32010, then the process exits 0', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      await server.initialize('2025-11-25');
      for (let i = 0; i < 5; i++) server.send(rpc(i, 'tools/call', { name: 'slow', arguments: { ms: 400 } }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.signal('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.send(rpc('late', 'ping'));
      const exit = await bounded(server.exited, 'the process to exit');
      expect(exit).toEqual({ code: 0, signal: null });
      for (let i = 0; i < 5; i++)
        expect(server.received).toContainEqual(expect.objectContaining({ id: i, result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 400' }] }) }));
      expect(server.received).toContainEqual({ jsonrpc: '2.0', id: 'late', error: { code: -32010, message: expect.stringMatching(/shutting down/) } });
    } finally {
      server.kill();
    }
  });
});
