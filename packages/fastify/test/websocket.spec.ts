/**
 * MCP over WebSocket, served by the plugin's `websocket` option at `{path}/ws`.
 *
 * The official SDK v1 client (`WebSocketClientTransport`) drives a real server on 127.0.0.1:
 * initialize, tools, resources, progress, cancellation, elicitation. Then careless and hostile
 * clients over raw `ws` sockets: garbage, binary and oversized frames, a missing or wrong
 * subprotocol, a foreign Origin, too many sockets, a client that never reads while the server
 * streams, a client that vanishes mid-call, and Fastify closing with a call in flight.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { IsInt, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';
import Fastify, { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { HermesError, McpContext, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp, type HermesMcpOptions } from '@hermes-mcp/fastify';
import { eventually, textOf, untilAborted } from '../../../test-support/e2e';
import { MODERN_META, bounded } from '../../../test-support/hardening';

// Node 20 has no global WebSocket, which the SDK's transport constructs (`new WebSocket(url, 'mcp')`):
// lend it the `ws` package's, whose client speaks the same browser-style API.
const globals = globalThis as { WebSocket?: unknown };
const nativeWebSocket = globals.WebSocket;
beforeAll(() => {
  globals.WebSocket ??= WebSocket;
});
afterAll(() => {
  globals.WebSocket = nativeWebSocket;
});

type Raw = Record<string, unknown>;

class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class CountInput {
  @IsInt() @Min(1) @Max(10) steps!: number;
}

class SlowInput {
  @IsInt() @Min(0) @Max(60_000) ms!: number;
}

class FloodInput {
  @IsInt() @Min(1) events!: number;
  @IsInt() @Min(0) bytes!: number;
  @IsOptional() @IsInt() delayMs?: number;
}

/** What the handlers saw, for checks on the server side. */
const seen = {
  slow: [] as Array<{ started: number; abortedWith?: unknown; finished?: boolean }>,
  floods: [] as Array<{ sent: number; abortedWith?: unknown }>,
  /** Calls of `big`. */
  big: 0,
};

/** What `count` awaits before answering: until its client saw the progress (see packages/core/test/http/interop.spec.ts). */
let beforeCountAnswers: () => Promise<void> = () => Promise.resolve();

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

class BigInput {
  @IsInt() @Min(0) bytes!: number;
}

class WhoForm {
  @IsOptional() @IsString() name?: string;
}

@McpServer({ name: 'ws-test', version: '1.0.0' })
class SocketServer {
  @Tool({ description: 'Add two numbers' })
  add(input: AddInput) {
    return String(input.a + input.b);
  }

  @Tool({ description: 'Count, reporting progress at each step' })
  async count(input: CountInput, ctx: McpContext) {
    for (let step = 1; step <= input.steps; step++) await ctx.progress(step, input.steps, `step ${step}`);
    await beforeCountAnswers();
    return `counted to ${input.steps}`;
  }

  @Tool({ description: 'Takes ms milliseconds, or until cancelled' })
  async slow(input: SlowInput, ctx: McpContext) {
    const record: (typeof seen.slow)[number] = { started: Date.now() };
    seen.slow.push(record);
    void untilAborted(ctx.signal).then((reason) => (record.abortedWith = reason));
    await sleep(input.ms, ctx.signal);
    record.finished = !ctx.signal.aborted;
    return `slept ${input.ms}`;
  }

  @Tool({ description: 'Sends progress as fast as it can until done or aborted' })
  async flood(input: FloodInput, ctx: McpContext) {
    const record: (typeof seen.floods)[number] = { sent: 0 };
    seen.floods.push(record);
    const message = 'x'.repeat(input.bytes);
    for (let i = 1; i <= input.events; i++) {
      if (ctx.signal.aborted) {
        record.abortedWith = ctx.signal.reason;
        return `stopped after ${record.sent}`;
      }
      await ctx.progress(i, input.events, message);
      record.sent++;
      if (input.delayMs) await sleep(input.delayMs, ctx.signal);
      else if (i % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return `sent ${record.sent}`;
  }

  @Tool({ description: 'Answers with a text of the given size' })
  big(input: BigInput) {
    seen.big++;
    return 'x'.repeat(input.bytes);
  }

  @Tool({ description: 'Asks the user their name' })
  async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', WhoForm);
    return answer.action === 'accept' ? `hello ${answer.content.name}` : `no answer: ${answer.action}`;
  }

  @Resource({ uri: 'ws://readme', name: 'readme', mimeType: 'text/plain' })
  readme() {
    return 'read me';
  }
}

const silent = createLogger({ level: 'silent' });

/** A Fastify app with the plugin and `websocket` on, listening on 127.0.0.1. */
async function start(options: Partial<HermesMcpOptions> = {}): Promise<{ app: FastifyInstance; http: string; ws: string }> {
  // return503OnClosing off: upgrades that arrive while closing reach the plugin, which refuses them in JSON-RPC.
  const app = Fastify({ logger: false, return503OnClosing: false });
  await app.register(hermesMcp, { server: SocketServer, path: '/mcp', appOptions: { logger: silent }, websocket: true, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return { app, http: `http://127.0.0.1:${port}/mcp`, ws: `ws://127.0.0.1:${port}/mcp/ws` };
}

/** A raw client socket that records what it receives and how it closed. */
class RawSocket {
  readonly messages: Raw[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('error', () => undefined);
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Raw);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string, protocols: string | string[] = 'mcp', headers?: Record<string, string>): Promise<RawSocket> {
    const socket = new WebSocket(url, protocols, { headers });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new RawSocket(socket)));
      socket.once('error', reject);
    });
  }

  send(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The first message received that `match` accepts (waiting for it). */
  async next(match: (message: Raw) => boolean, what = 'a message'): Promise<Raw> {
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      await bounded(new Promise<void>((resolve) => this.waiters.push(resolve)), what);
    }
  }

  /** Sends a request and waits for its response. */
  call(id: string | number, method: string, params?: Raw): Promise<Raw> {
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.next((m) => m.id === id && !('method' in m), `the answer to ${id}`);
  }

  async initialize(): Promise<void> {
    await this.call('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
}

/** How the server answered an upgrade it refused: HTTP status and JSON-RPC error body. */
function refusal(url: string, protocols: string | string[] | undefined, headers?: Record<string, string>): Promise<{ status: number; body: Raw }> {
  const socket = new WebSocket(url, protocols, { headers });
  return bounded(
    new Promise((resolve, reject) => {
      socket.on('open', () => reject(new Error('the upgrade was accepted')));
      socket.on('error', () => undefined);
      socket.on('unexpected-response', (request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        // Resolved once the server also ended the connection: a refused upgrade holds no socket.
        const ended = Promise.all([new Promise((end) => response.on('end', end)), new Promise((closed) => request.socket!.on('close', closed))]);
        void ended.then(() => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Raw }));
      });
    }),
    'the refusal',
  );
}

describe('the SDK client over WebSocket', () => {
  let server: Awaited<ReturnType<typeof start>>;
  let client: Client;
  const elicitations: Raw[] = [];

  beforeAll(async () => {
    server = await start();
    client = new Client({ name: 'ws-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new WebSocketClientTransport(new URL(server.ws)));
  });

  afterAll(async () => {
    await client.close();
    await server.app.close();
  });

  it('initializes, lists and calls tools, reads a resource', async () => {
    expect(client.getServerVersion()).toEqual({ name: 'ws-test', version: '1.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'big', 'count', 'flood', 'slow', 'who']);
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    const invalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(invalid.isError).toBe(true);
    expect((await client.readResource({ uri: 'ws://readme' })).contents).toEqual([{ uri: 'ws://readme', mimeType: 'text/plain', text: 'read me' }]);
  });

  it('delivers progress to the call’s onprogress, before the result', async () => {
    const updates: Progress[] = [];
    let allSeen!: () => void;
    const all = new Promise<void>((resolve) => (allSeen = resolve));
    beforeCountAnswers = () => bounded(all, 'the client to see three progress notifications');
    const result = await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => {
        updates.push(p);
        if (updates.length === 3) allSeen();
      },
    });
    beforeCountAnswers = () => Promise.resolve();
    expect(textOf(result)).toBe('counted to 3');
    expect(updates).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3, message: `step ${progress}` })));
  });

  it('cancels: the client’s AbortSignal aborts the handler’s ctx.signal on the server', async () => {
    const before = seen.slow.length;
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 30_000 } }, undefined, { signal: controller.signal });
    await eventually('the slow call to start', () => seen.slow.length === before + 1);
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const record = seen.slow[before];
    await eventually('the handler to see its signal abort', () => record.abortedWith !== undefined);
    expect(record.finished).toBe(false);
  });

  it('asks the client through elicitation/create and gets its answer', async () => {
    expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('hello Ada');
    expect(elicitations).toEqual([expect.objectContaining({ message: 'Who are you?', requestedSchema: expect.objectContaining({ type: 'object' }) })]);
  });
});

describe('careless and hostile clients over a raw WebSocket', () => {
  let server: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    server = await start({ maxSessionsPerClient: 20 });
  });

  afterAll(async () => {
    await server.app.close();
  });

  it('answers a garbage text frame with -32700, and the socket stays usable', async () => {
    const socket = await RawSocket.open(server.ws);
    socket.send('this is not JSON');
    expect(await socket.next((m) => m.error !== undefined)).toMatchObject({ id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } });
    socket.send({ jsonrpc: '2.0', id: 'x', method: 7 });
    expect(await socket.next((m) => m.id === 'x')).toMatchObject({ error: { code: -32600 } });
    await socket.initialize();
    const answer = await socket.call(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
    expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: '2' }] } });
    socket.socket.close();
  });

  it('serves 2026-07-28 requests (protocol version in _meta) on a socket, without initialize', async () => {
    const socket = await RawSocket.open(server.ws);
    const answer = await socket.call('m1', 'tools/call', { name: 'add', arguments: { a: 20, b: 22 }, _meta: MODERN_META });
    expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: '42' }] } });
    socket.socket.close();
  });

  it('closes the socket on a binary frame (1003, saying why)', async () => {
    const socket = await RawSocket.open(server.ws);
    socket.socket.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })), { binary: true });
    expect(await bounded(socket.closed, 'the close')).toEqual({ code: 1003, reason: expect.stringMatching(/binary frames are not accepted.*text frame/) });
  });

  it('closes the socket on a frame over the limit (1009) before buffering it; another client is served meanwhile', async () => {
    const socket = await RawSocket.open(server.ws);
    const other = await RawSocket.open(server.ws);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4 * 1024 * 1024) } }));
    expect((await bounded(socket.closed, 'the close')).code).toBe(1009);
    expect(await other.call('p', 'ping')).toMatchObject({ id: 'p', result: {} });
    other.socket.close();
  });

  it('honours a smaller maxPayload', async () => {
    const small = await start({ websocket: { maxPayload: 1024 } });
    try {
      const socket = await RawSocket.open(small.ws);
      expect(await socket.call('ok', 'ping', { pad: 'x'.repeat(900) })).toMatchObject({ result: {} });
      socket.send({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'x'.repeat(1100) } });
      expect((await bounded(socket.closed, 'the close')).code).toBe(1009);
    } finally {
      await small.app.close();
    }
  });

  it('refuses an upgrade without the mcp subprotocol, or with another one, before upgrading (400, saying why)', async () => {
    for (const protocols of [undefined, 'graphql-ws', ['chat', 'superchat']]) {
      const { status, body } = await refusal(server.ws, protocols);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/needs the subprotocol "mcp" \(Sec-WebSocket-Protocol: mcp\)/) } });
    }
    // Offered among others, mcp is chosen.
    const socket = await RawSocket.open(server.ws, ['chat', 'mcp']);
    expect(socket.socket.protocol).toBe('mcp');
    socket.socket.close();
  });

  it('answers a plain GET (no upgrade) with 426', async () => {
    const response = await fetch(server.ws.replace('ws:', 'http:'));
    expect(response.status).toBe(426);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/^Upgrade Required/) } });
  });

  it('applies the Origin check to the upgrade (403)', async () => {
    const { status, body } = await refusal(server.ws, 'mcp', { origin: 'https://evil.example' });
    expect(status).toBe(403);
    expect(body).toMatchObject({ error: { message: expect.stringMatching(/Origin "https:\/\/evil.example" is not allowed/) } });
  });

  it('keeps serving another client while one never reads a notification stream: notifications dropped, its call answered with -32011', async () => {
    const before = seen.floods.length;
    const reader = await RawSocket.open(server.ws);
    await reader.initialize();
    const stalled = await RawSocket.open(server.ws);
    await stalled.initialize();
    let received = 0;
    stalled.socket.on('message', (data: Buffer) => (received += data.length));
    // Stop reading: the server's writes pile up in the kernel, then in the socket's buffer.
    stalled.socket.pause();
    // 40 000 × 4 KiB: about 160 MB if nothing stopped it.
    stalled.send({ jsonrpc: '2.0', id: 'flood', method: 'tools/call', params: { name: 'flood', arguments: { events: 40_000, bytes: 4096 }, _meta: { progressToken: 'f' } } });
    await eventually('the flood to be stopped', () => seen.floods[before]?.abortedWith !== undefined, 20_000);
    const flood = seen.floods[before];
    expect(flood.abortedWith).toMatchObject({ code: -32011, message: expect.stringMatching(/maxBufferedBytes/) });
    expect(flood.sent).toBeLessThan(40_000);
    // Meanwhile another client is served.
    expect(await reader.call('r', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ result: { content: [{ text: '3' }] } });
    // Once it reads again, the stalled client gets its answer: -32011, after far less than the flood.
    stalled.socket.resume();
    expect(await stalled.next((m) => m.id === 'flood', 'the flood’s answer')).toMatchObject({ error: { code: -32011 } });
    expect(received).toBeLessThan(64 * 1024 * 1024);
    expect(await stalled.call('after', 'ping')).toMatchObject({ result: {} });
    reader.socket.close();
    stalled.socket.close();
  });

  it('reads no more requests from a client that does not read its answers, until it does', async () => {
    const socket = await RawSocket.open(server.ws);
    await socket.initialize();
    socket.socket.pause();
    // 1 000 calls answered with 64 KiB each: 64 MB if the server read them all while nobody reads.
    // Each call is padded to 1 KiB: the server reads the calls of one socket read (64 KiB) at
    // once, before any answer exists; then no more.
    const before = seen.big;
    const pad = 'x'.repeat(1024);
    for (let i = 0; i < 1000; i++) socket.send({ jsonrpc: '2.0', id: `big-${i}`, method: 'tools/call', params: { name: 'big', arguments: { bytes: 65_536 }, _meta: { pad } } });
    let last = -1;
    await eventually('the server to stop taking calls', async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = seen.big;
      const settled = now === last && now > before;
      last = now;
      return settled;
    });
    // About one socket read of calls (and what the kernel's buffers let through), not 1 000.
    expect(seen.big - before).toBeLessThan(500);
    socket.socket.resume();
    await socket.next((m) => m.id === 'big-999', 'the last answer');
    expect(seen.big - before).toBe(1000);
    expect(socket.messages.filter((m) => String(m.id).startsWith('big-') && m.result !== undefined)).toHaveLength(1000);
    socket.socket.close();
  });

  it('aborts the handler of a client that vanishes mid-call', async () => {
    const before = seen.slow.length;
    const socket = await RawSocket.open(server.ws);
    await socket.initialize();
    socket.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } });
    await eventually('the slow call to start', () => seen.slow.length === before + 1);
    socket.socket.terminate();
    const record = seen.slow[before];
    await eventually('the handler to see its signal abort', () => record.abortedWith !== undefined);
    expect(record.abortedWith).toMatchObject({ message: expect.stringMatching(/closed/) });
  });
});

describe('sockets are sessions', () => {
  it('count toward maxSessionsPerClient (429 before the upgrade)', async () => {
    const server = await start({ maxSessionsPerClient: 2 });
    try {
      const sockets = [await RawSocket.open(server.ws), await RawSocket.open(server.ws)];
      const { status, body } = await refusal(server.ws, 'mcp');
      expect(status).toBe(429);
      expect(body).toMatchObject({ error: { message: expect.stringMatching(/maxSessionsPerClient/) } });
      // An HTTP session is refused too: the client holds its two.
      const init = await fetch(server.http, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }),
      });
      expect(init.status).toBe(429);
      // One leaves: room for another.
      sockets[0].socket.close();
      await bounded(sockets[0].closed, 'the close');
      await eventually('the session to be forgotten', async () => {
        const socket = await RawSocket.open(server.ws).catch(() => undefined);
        socket?.socket.close();
        return socket !== undefined;
      });
      sockets[1].socket.close();
    } finally {
      await server.app.close();
    }
  });

  it('end after sessionIdleTimeout without a frame from the client (1000)', async () => {
    const server = await start({ sessionIdleTimeout: 300 });
    try {
      const socket = await RawSocket.open(server.ws);
      await socket.initialize();
      // Pings keep it alive past the timeout.
      for (let i = 0; i < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        socket.socket.ping();
      }
      expect(await socket.call('alive', 'ping')).toMatchObject({ result: {} });
      expect(await bounded(socket.closed, 'the idle close')).toEqual({ code: 1000, reason: 'session ended' });
    } finally {
      await server.app.close();
    }
  });
});

describe('closing Fastify with a call in flight on a socket', () => {
  it('answers the call within the grace period, refuses new sockets meanwhile (503), then closes with 1001', async () => {
    const server = await start({ shutdownGracePeriod: 5_000 });
    const before = seen.slow.length;
    const socket = await RawSocket.open(server.ws);
    await socket.initialize();
    const events: string[] = [];
    socket.socket.on('message', (data: Buffer) => events.push(`message ${(JSON.parse(data.toString()) as Raw).id}`));
    void socket.closed.then(({ code }) => events.push(`close ${code}`));
    socket.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { ms: 400 } } });
    await eventually('the slow call to start', () => seen.slow.length === before + 1);
    const closing = server.app.close();
    const late = await refusal(server.ws, 'mcp');
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({ error: { code: -32010 } });
    await bounded(closing, 'app.close()');
    expect(await bounded(socket.closed, 'the close')).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(await socket.next((m) => m.id === 'slow')).toMatchObject({ result: { content: [{ text: 'slept 400' }] } });
    expect(events).toEqual(['message slow', 'close 1001']);
  });

  it('answers a call still running after the grace period with -32010, then closes with 1001', async () => {
    const server = await start({ shutdownGracePeriod: 200 });
    const socket = await RawSocket.open(server.ws);
    await socket.initialize();
    const before = seen.slow.length;
    socket.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } });
    await eventually('the slow call to start', () => seen.slow.length === before + 1);
    await bounded(server.app.close(), 'app.close()');
    expect(await socket.next((m) => m.id === 'slow')).toMatchObject({ error: { code: -32010 } });
    expect((await bounded(socket.closed, 'the close')).code).toBe(1001);
  });
});

describe('@fastify/websocket', () => {
  it('is used as the app registered it, when it did (its own routes keep working)', async () => {
    const app = Fastify({ logger: false });

    await app.register(require('@fastify/websocket'));
    app.register(async (scope) => {
      scope.get('/echo', { websocket: true } as object, ((socket: WebSocket) => socket.on('message', (data) => socket.send(`echo ${data.toString()}`))) as never);
    });
    await app.register(hermesMcp, { server: SocketServer, path: '/mcp', appOptions: { logger: silent }, websocket: true });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    try {
      const socket = await RawSocket.open(`ws://127.0.0.1:${port}/mcp/ws`);
      await socket.initialize();
      expect(await socket.call(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ result: { content: [{ text: '3' }] } });
      const echo = new WebSocket(`ws://127.0.0.1:${port}/echo`);
      const reply = await bounded(
        new Promise<string>((resolve) => {
          echo.on('open', () => echo.send('hi'));
          echo.on('message', (data) => resolve(data.toString()));
        }),
        'the echo',
      );
      expect(reply).toBe('echo hi');
      echo.close();
      // Its preClose closes its sockets at once; the MCP one drains first, then closes with 1001.
      const closed = socket.closed;
      await app.close();
      expect((await bounded(closed, 'the close')).code).toBe(1001);
    } finally {
      await app.close();
    }
  });

  it('missing: registration fails with HERMES_MISSING_PEER naming the install command', async () => {
    let registered: PromiseLike<unknown> | undefined;
    jest.isolateModules(() => {
      jest.doMock('@fastify/websocket', () => {
        throw Object.assign(new Error("Cannot find module '@fastify/websocket' from 'websocket-route.ts'"), { code: 'MODULE_NOT_FOUND' });
      });

      const isolated = require('@hermes-mcp/fastify') as typeof import('@hermes-mcp/fastify');
      const app = Fastify({ logger: false });
      registered = app.register(isolated.hermesMcp, { server: SocketServer, appOptions: { logger: silent }, websocket: true }).ready();
    });
    const error = await Promise.resolve(registered).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'HERMES_MISSING_PEER', message: expect.stringContaining('npm install @fastify/websocket') });
    expect((error as Error).name).toBe(HermesError.name);
    jest.dontMock('@fastify/websocket');
  });
});
