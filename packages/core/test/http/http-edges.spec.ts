/**
 * The HTTP edges of the Streamable HTTP endpoint, driven with raw `fetch` against each HTTP
 * adapter (test-support/adapters.ts): every status the endpoint answers with (202, 400, 403, 404,
 * 406, 409, 413, 415, 503), what the error bodies say, the shape of session ids, idle expiry, and
 * DELETE ending a session with a request still running. The refusals any served server gives are
 * in test-support/http-edges.ts (Bun and Deno run them too); the rest need this process's server
 * (its tools, options and stores).
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { HttpEndpointOptions, InMemorySessionStore, McpContext, McpServer, Tool } from '@hermes-mcp/core';
import { eventually, untilAborted } from '../../../../test-support/e2e';
import { bounded } from '../../../../test-support/hardening';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';
import { ACCEPT_BOTH, describeRefusals, expectError, initialize, initializeRequest, post } from '../../../../test-support/http-edges';

class EchoInput {
  @IsString() text!: string;
}

/** What the `wait` tool saw: that it started, and why its signal aborted. */
const waitTool = {
  started: () => undefined as void,
  aborted: (_reason: unknown) => undefined as void,
};

@McpServer({ name: 'edges', version: '1.0.0' })
class EdgeServer {
  @Tool({ description: 'Echo' })
  echo(input: EchoInput) {
    return input.text;
  }

  @Tool({ description: 'Waits until its signal aborts' })
  async wait(ctx: McpContext) {
    waitTool.started();
    const reason = await untilAborted(ctx.signal);
    waitTool.aborted(reason);
    return 'stopped';
  }
}

const servers: Serving[] = [];

/**
 * A server on `adapter`, at a free port. Connections are force-closed at the end unless a test
 * turns that off (see `ServeKnobs.forceCloseConnections`).
 */
async function start(adapter: Adapter, options: HttpEndpointOptions = {}, forceCloseConnections = true): Promise<Serving> {
  const serving = await serveOn(adapter, EdgeServer, () => options, { forceCloseConnections });
  servers.push(serving);
  return serving;
}

afterAll(async () => {
  await Promise.all(servers.map((serving) => serving.close()));
});

describe.each(ADAPTERS)('%s: Streamable HTTP edges', (adapter) => {
  let server: Serving;

  beforeAll(async () => {
    server = await start(adapter);
  });

  describeRefusals(() => server);

  describe('413, 503', () => {
    it('answers a body over bodyLimit with 413 naming the limit', async () => {
      const small = await start(adapter, { bodyLimit: 1024 });
      const big = { ...initializeRequest(), padding: 'x'.repeat(4096) };
      await expectError(await post(small.url, big), 413, /Payload Too Large: the body exceeds 1024 bytes \(bodyLimit\)/);
      expect((await post(small.url, initializeRequest())).status).toBe(200);
    });

    it('at maxSessions, a new session replaces the one idle longest; when every session is busy, 503 says why', async () => {
      const limited = await start(adapter, { maxSessions: 2 });
      const first = await initialize(limited.url);
      const second = await initialize(limited.url);
      // The first was used last: the second is now the idlest, and makes room for the third.
      expect((await post(limited.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': first })).status).toBe(200);
      const third = await initialize(limited.url);
      await expectError(await post(limited.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': second }), 404, /Session not found/);
      // Both remaining sessions busy: nothing may be evicted.
      let started = 0;
      waitTool.started = () => void started++;
      const calls = [first, third].map((sessionId, i) =>
        fetch(limited.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: `w${i}`, method: 'tools/call', params: { name: 'wait', arguments: {} } }),
        }),
      );
      await eventually('both sessions to run a tool', () => started === 2);
      await expectError(await post(limited.url, initializeRequest()), 503, /Service Unavailable: this server holds its maximum of 2 sessions \(maxSessions\), all busy/, -32603);
      // Ending a session frees a place.
      expect((await fetch(limited.url, { method: 'DELETE', headers: { 'mcp-session-id': first } })).status).toBe(200);
      await initialize(limited.url);
      await fetch(limited.url, { method: 'DELETE', headers: { 'mcp-session-id': third } });
      await Promise.allSettled(calls);
    });
  });

  describe('sessions', () => {
    it('expire after sessionIdleTimeout without requests; each request restarts the clock', async () => {
      const store = new InMemorySessionStore();
      // 1 s: a ping's round trip stays well under it on a loaded machine (at 300 ms, with two adapters
      // and other suites running on two cores, one round trip took longer and the session expired).
      const idle = 1_000;
      const short = await start(adapter, { sessionIdleTimeout: idle, sessionStore: store });
      const sessionId = await initialize(short.url);
      // Requests one after another for well over twice the timeout keep the session alive.
      const until = Date.now() + idle * 2.5;
      let pings = 0;
      while (Date.now() < until) {
        const ping = await post(short.url, { jsonrpc: '2.0', id: ++pings, method: 'ping' }, { 'mcp-session-id': sessionId });
        expect(ping.status).toBe(200);
      }
      expect(store.get(sessionId)).toBeDefined();
      // Left alone, it is ended (watched through the store, since a request would restart the clock).
      const lastRequest = Date.now();
      await eventually('the idle session to expire', () => store.get(sessionId) === undefined);
      // The process ends its own copy on a timer set for the same moment; on a busy machine that
      // timer may fire a little after the record expired, so the late request waits a margin more.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastRequest + idle + 200 - Date.now())));
      await expectError(await post(short.url, { jsonrpc: '2.0', id: 'late', method: 'ping' }, { 'mcp-session-id': sessionId }), 404, /Session not found: it expired or was ended/);
    });

    it('DELETE ends the session and aborts its in-flight request; the tool sees its signal abort', async () => {
      const sessionId = await initialize(server.url);
      const started = new Promise<void>((resolve) => (waitTool.started = resolve));
      const aborted = new Promise<unknown>((resolve) => (waitTool.aborted = resolve));
      const call = post(server.url, { jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait', arguments: {} } }, { 'mcp-session-id': sessionId });
      await started;
      const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(deleted.status).toBe(200);
      const reason = await aborted;
      expect(reason).toMatchObject({ message: expect.stringMatching(/closed/) });
      // The POST that carried the call is told the session ended before an answer.
      await expectError(await call, 404, /Session ended before the request was answered/);
    });
  });

  describe('initialize', () => {
    it('keeps no session when initialize fails: the error comes without a session id', async () => {
      const store = new InMemorySessionStore();
      const own = await start(adapter, { sessionStore: store });
      const response = await post(own.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringContaining('"clientInfo"') } });
      await eventually('the failed session to be dropped', () => store.size === 0);
    });
  });

  describe('closing the adapter (Fastify: app.close(); the Web handler: close())', () => {
    it('ends open SSE streams, and answers in-flight requests with -32010 once the grace period is over (not 404)', async () => {
      // Without forcing connections closed: the adapter itself must end its streams and requests.
      const closing = await start(adapter, { shutdownGracePeriod: 200 }, false);
      servers.splice(servers.indexOf(closing), 1);
      const sessionId = await initialize(closing.url);
      const stream = await fetch(closing.url, { headers: { 'mcp-session-id': sessionId, accept: 'text/event-stream' } });
      expect(stream.status).toBe(200);
      const started = new Promise<void>((resolve) => (waitTool.started = resolve));
      const aborted = new Promise<unknown>((resolve) => (waitTool.aborted = resolve));
      const call = post(closing.url, { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'wait', arguments: {} } }, { 'mcp-session-id': sessionId });
      await started;
      await bounded(closing.close(), 'closing while a GET stream and a request are open');
      await bounded(aborted, 'the running tool to see its signal abort');
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ id: 'c', error: { code: -32010, message: expect.stringMatching(/shutting down.*grace period/) } });
      await bounded(stream.text(), 'the GET stream to end');
    });
  });
});
