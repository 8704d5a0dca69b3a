/**
 * Hardening of the HTTP endpoint, one regression test per defect the stress run found, each
 * against each HTTP adapter on 127.0.0.1 driven with raw fetch (the test chooses every id,
 * header and byte):
 *
 * - 4: after `notifications/cancelled`, the request's SSE stream ends (no response, as the spec
 *   says), whether it had started streaming or not;
 * - 5: a request reusing the id of one still running is refused without touching the original;
 * - 6: one client cannot lock everyone out: a per-client session cap (429), and at the global
 *   cap the longest-idle session makes room;
 * - 8: DELETE with `Content-Type: application/json` and no body ends the session;
 * - 9: a 2025-03-26 batch of nothing but invalid elements gets the array of errors;
 * - 10: garbage from a client is logged quietly (one warn per connection, then debug; no stack);
 * - 12: Accept is parsed as media ranges; a `__proto__` key is refused saying so; an initialize
 *   that names a session belongs to that session.
 */
import 'reflect-metadata';
import type { HttpEndpointOptions, HttpRequest } from '@hermes-mcp/core';
import { HardeningServer, observed } from '../../../../test-support/fixtures/src/hardening.server';
import { ACCEPT_BOTH, LogLine, bounded, capturingLogger, messagesOf, openSession, rpc, sessionPost } from '../../../../test-support/hardening';
import { SseReader } from '../../../../test-support/sse-reader';
import { eventually } from '../../../../test-support/e2e';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

type Raw = Record<string, unknown>;

const servers: Serving[] = [];

async function start(adapter: Adapter, options: HttpEndpointOptions = {}, level = 'silent'): Promise<{ url: string; lines: LogLine[] }> {
  const { logger, lines } = capturingLogger(level);
  const serving = await serveOn(adapter, HardeningServer, () => options, { logger });
  servers.push(serving);
  return { url: serving.url, lines };
}

afterAll(async () => {
  await Promise.all(servers.map((serving) => serving.close()));
});

/** The client a test request names in `x-client` (`clientKey` gets a `FastifyRequest` on Fastify, an `HttpRequest` on the Web handler: both have `headers`). */
const xClient = (request: HttpRequest): string => String(request.headers['x-client'] ?? request.ip);

describe.each(ADAPTERS)('%s', (adapter) => {
  let url: string;
  beforeAll(async () => {
    ({ url } = await start(adapter));
  });

  function cancel(sessionId: string, requestId: string | number): Promise<Response> {
    return sessionPost(url, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'changed my mind' } });
  }

  describe('4: a cancelled request', () => {
    it('that was streaming progress: its SSE stream ends with no response, and the tool stops', async () => {
      const sessionId = await openSession(url);
      const aborted = observed.floodsAborted;
      const response = await sessionPost(
        url,
        sessionId,
        rpc('c1', 'tools/call', { name: 'flood', arguments: { events: 1000, bytes: 8, delayMs: 20 }, _meta: { progressToken: 'p1' } }),
      );
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = new SseReader(response.body!);
      let first = await bounded(events.next(), 'the first event');
      // 2025-11-25 streams start with a priming event (an id, no data).
      if (first?.data === '') first = await bounded(events.next(), 'the first progress');
      expect(JSON.parse(first!.data)).toMatchObject({ method: 'notifications/progress' });
      expect((await cancel(sessionId, 'c1')).status).toBe(202);
      // The stream ends (it stayed open for 45 s and more before).
      const rest: string[] = [];
      for (let event = await bounded(events.next(), 'the stream to end'); event; event = await bounded(events.next(), 'the stream to end')) rest.push(event.data);
      expect(rest.map((d) => (d === '' ? {} : JSON.parse(d))).filter((m: Raw) => 'result' in m || 'error' in m)).toEqual([]);
      await eventually('the tool to stop', () => observed.floodsAborted > aborted);
    });

    it('that had sent nothing yet: its POST is answered with an empty stream that ends', async () => {
      const sessionId = await openSession(url);
      const started = observed.slowStarted;
      const pending = sessionPost(url, sessionId, rpc('c2', 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
      await eventually('the tool to start', () => observed.slowStarted > started);
      expect((await cancel(sessionId, 'c2')).status).toBe(202);
      const response = await bounded(pending, 'the POST to be answered');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await messagesOf(response)).toEqual([]);
    });
  });

  describe('5: a duplicate request id in flight', () => {
    it('is refused with -32600, and the original still gets its answer', async () => {
      const sessionId = await openSession(url);
      const original = sessionPost(url, sessionId, rpc(77, 'tools/call', { name: 'slow', arguments: { ms: 300 } }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const duplicate = await sessionPost(url, sessionId, rpc(77, 'tools/call', { name: 'echo', arguments: { text: 'B' } }));
      expect(await messagesOf(duplicate)).toEqual([{ jsonrpc: '2.0', id: 77, error: { code: -32600, message: 'Invalid request: a request with id 77 is already in progress' } }]);
      const answer = await bounded(original, 'the original answer');
      expect(await messagesOf(answer)).toMatchObject([{ id: 77, result: { content: [{ text: 'slept 300' }] } }]);
      // The id is free again once answered.
      expect(await messagesOf(await sessionPost(url, sessionId, rpc(77, 'ping')))).toEqual([{ jsonrpc: '2.0', id: 77, result: {} }]);
    });
  });

  describe('6: sessions one client cannot exhaust', () => {
    it('a client past maxSessionsPerClient gets 429; another client still gets sessions', async () => {
      const capped = await start(adapter, { maxSessionsPerClient: 3, clientKey: xClient });
      const initialize = (client: string) =>
        sessionPost(capped.url, undefined, rpc('i', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: client, version: '1' } }), {
          'x-client': client,
        });
      for (let i = 0; i < 3; i++) expect((await initialize('greedy')).status).toBe(200);
      const refused = await initialize('greedy');
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        error: { code: -32600, message: expect.stringMatching(/this client holds its maximum of 3 sessions \(maxSessionsPerClient\)/) },
      });
      // The 2024-11-05 transport counts too.
      const sse = await fetch(`${capped.url}/sse`, { headers: { accept: 'text/event-stream', 'x-client': 'greedy' } });
      expect(sse.status).toBe(429);
      expect((await initialize('modest')).status).toBe(200);
    });

    it('10 000 sessions opened by one client leave room for everyone else: the longest idle ones make way', async () => {
      const full = await start(adapter, { maxSessions: 50, maxSessionsPerClient: 1_000_000 });
      const flood = await Promise.all(Array.from({ length: 200 }, () => openSession(full.url)));
      expect(new Set(flood).size).toBe(200);
      // Another client arrives: it gets a session, and keeps it.
      const mine = await openSession(full.url);
      expect(await messagesOf(await sessionPost(full.url, mine, rpc('p', 'ping')))).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);
      // The first of the flood were evicted to make room.
      const evicted = await sessionPost(full.url, flood[0], rpc('p', 'ping'));
      expect(evicted.status).toBe(404);
    });
  });

  describe('8: DELETE', () => {
    it('with Content-Type: application/json and no body ends the session', async () => {
      const sessionId = await openSession(url);
      const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'content-type': 'application/json' } });
      expect(deleted.status).toBe(200);
      expect((await sessionPost(url, sessionId, rpc('p', 'ping'))).status).toBe(404);
    });

    it('with a body it ignores ends the session too', async () => {
      const sessionId = await openSession(url);
      const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'content-type': 'application/json' }, body: '{"x":' });
      expect(deleted.status).toBe(200);
      expect((await sessionPost(url, sessionId, rpc('p', 'ping'))).status).toBe(404);
    });
  });

  describe('9: a 2025-03-26 batch of nothing but invalid elements', () => {
    it.each([
      ['[7, {"foo":1}]', 2],
      ['[[{"jsonrpc":"2.0","id":1,"method":"ping"}]]', 1],
      ['[7, {"jsonrpc":"2.0","method":"notifications/x"}, {"jsonrpc":"2.0","id":"ok","method":"ping"}]', 2],
    ])('%s gets the array of its errors (JSON-RPC 2.0 §6)', async (body, answers) => {
      const sessionId = await openSession(url, '2025-03-26');
      const response = await sessionPost(url, sessionId, body);
      expect(response.status).toBe(200);
      const [batch] = (await messagesOf(response)) as unknown as unknown[][];
      expect(Array.isArray(batch)).toBe(true);
      expect(batch).toHaveLength(answers);
      for (const answer of batch as Raw[]) {
        if (answer.id === 'ok') expect(answer).toEqual({ jsonrpc: '2.0', id: 'ok', result: {} });
        else expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      }
    });

    it('of only notifications and responses is accepted with 202 and no body', async () => {
      const sessionId = await openSession(url, '2025-03-26');
      const response = await sessionPost(url, sessionId, [
        { jsonrpc: '2.0', method: 'notifications/x' },
        { jsonrpc: '2.0', id: 5, result: {} },
      ]);
      expect(response.status).toBe(202);
      expect(await response.text()).toBe('');
    });
  });

  describe('10: garbage from a client', () => {
    it('is logged once at warn without a stack, then at debug; never at error', async () => {
      const noisy = await start(adapter, {}, 'trace');
      const sessionId = await openSession(noisy.url);
      const garbage: unknown[] = [
        { jsonrpc: '1.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 99, error: 'nope' },
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'your bytes' } },
        { jsonrpc: '2.0', result: {} },
        { jsonrpc: '2.0', id: 'unknown', result: {} },
      ];
      for (let round = 0; round < 20; round++) {
        for (const message of garbage) expect((await sessionPost(noisy.url, sessionId, message)).status).toBeLessThan(500);
      }
      await eventually('the mistakes to be logged', () => noisy.lines.filter((l) => /malformed message/.test(l.msg ?? '')).length >= 20);
      const loud = noisy.lines.filter((l) => l.level >= 50);
      expect(loud).toEqual([]);
      const warned = noisy.lines.filter((l) => l.level === 40);
      expect(warned).toHaveLength(1);
      expect(JSON.stringify(warned[0])).not.toMatch(/stack|\n\s+at /);
      expect(warned[0]).toMatchObject({ sessionId, msg: expect.stringMatching(/malformed message/) });
      // The session still serves.
      expect(await messagesOf(await sessionPost(noisy.url, sessionId, rpc('p', 'ping')))).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);
    });
  });

  describe('12: smaller edges', () => {
    it.each([
      ['application/jsonx, text/event-stream', 406],
      ['application/json, text/event-streamx', 406],
      ['application/json;q=0, text/event-stream', 406],
      ['application/json, text/event-stream;q=0.000', 406],
      ['application/json;q=0.5, text/event-stream', 200],
      ['application/*, text/*', 200],
      ['*/*', 200],
      ['APPLICATION/JSON , Text/Event-Stream', 200],
    ])('Accept "%s" is matched as media ranges: %s', async (accept, status) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify(rpc('i', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } })),
      });
      expect(response.status).toBe(status);
      if (status === 406) expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/Not Acceptable/) } });
      else await response.text();
    });

    it('a body with a "__proto__" key is refused, saying so (not "not valid JSON")', async () => {
      const response = await sessionPost(url, undefined, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"__proto__":{"admin":true}}}');
      expect(response.status).toBe(400);
      // Refused with its id, so a client waiting on it gets its answer.
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32600, message: 'Invalid request: the message has a "__proto__" key, which this server refuses (it could change object prototypes)' },
      });
      const escaped = await sessionPost(url, undefined, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"\\u005f_proto__":{}}}}');
      expect(await escaped.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/"__proto__" key/) } });
      const notJson = await sessionPost(url, undefined, '{"jsonrpc":');
      expect(await notJson.json()).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/^Parse error: .*JSON/) } });
    });

    it('an initialize that carries an Mcp-Session-Id belongs to that session: -32600 there, 404 for an unknown one', async () => {
      const sessionId = await openSession(url);
      const again = await sessionPost(url, sessionId, rpc('again', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } }));
      expect(again.status).toBe(200);
      expect(again.headers.get('mcp-session-id')).toBeNull();
      expect(await messagesOf(again)).toEqual([
        { jsonrpc: '2.0', id: 'again', error: { code: -32600, message: 'Invalid request: "initialize" was already received on this connection' } },
      ]);
      const unknown = await sessionPost(
        url,
        'no-such-session',
        rpc('x', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } }),
      );
      expect(unknown.status).toBe(404);
    });
  });

  describe('the endpoint after all that', () => {
    it('still serves a new client', async () => {
      const sessionId = await openSession(url);
      const listed = await messagesOf(await sessionPost(url, sessionId, rpc('l', 'tools/list')));
      expect((listed[0].result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      expect(ACCEPT_BOTH).toContain('text/event-stream');
    });
  });
});
