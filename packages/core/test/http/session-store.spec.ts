/**
 * The session store contract: two instances (two apps, two servers on the same HTTP adapter, each
 * adapter in turn) share one store behind
 * a real round-robin balancer without stickiness, and the official SDK client does not notice —
 * a session opened on one instance is served by the other, with what `initialize`, the logging
 * level and subscriptions set. The store answers later (promises), as a networked store does. A
 * store that fails gives clear errors and the instance keeps serving.
 */
import 'reflect-metadata';
import { createServer, request as httpRequest, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsInt, Max, Min } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemorySessionStore, McpApp, McpContext, McpFactory, McpServer, Resource, SessionChange, SessionRecord, SessionStore, Tool, createLogger } from '@hermes-mcp/core';
import { eventually } from '../../../../test-support/e2e';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

class StepsInput {
  @IsInt() @Min(1) @Max(10) steps!: number;
}

/** The tools and resource of every instance. */
class SharedTools {
  @Tool({ description: 'Sends progress, then answers' })
  async steps(input: StepsInput, ctx: McpContext) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps);
    return `done ${input.steps}`;
  }

  @Tool({ description: 'Logs at debug and at warning' })
  async chatty(ctx: McpContext) {
    await ctx.notify('debug', 'a debug line');
    await ctx.notify('warning', 'a warning line');
    return 'logged';
  }

  @Resource({ uri: 'notes://today', description: 'Today' })
  today() {
    return 'nothing yet';
  }
}

/** The server of instance `name`: the shared tools, and one that says which instance answered. */
function serverNamed(name: string) {
  @McpServer({ name: 'shared', version: '1.0.0' })
  class Named extends SharedTools {
    @Tool({ description: 'Says which instance answered' })
    where() {
      return name;
    }
  }
  return Named;
}

/** Calls `f` a moment later (a networked store answers with promises). */
function later<T>(f: () => T): Promise<T> {
  return new Promise((resolve, reject) =>
    setTimeout(() => {
      try {
        resolve(f());
      } catch (error) {
        reject(error);
      }
    }, 1),
  );
}

/** A session store whose every answer is a promise, and which can be made to fail. */
class LaterSessionStore implements SessionStore {
  readonly inner = new InMemorySessionStore();
  failing = false;
  readonly calls: string[] = [];

  private run<T>(name: string, f: () => T): Promise<T> {
    this.calls.push(name);
    return later(() => {
      if (this.failing) throw new Error('the store is down');
      return f();
    });
  }

  create(record: SessionRecord, idleMs: number): Promise<void> {
    return this.run('create', () => this.inner.create(record, idleMs));
  }

  update(id: string, change: SessionChange): Promise<void> {
    return this.run('update', () => this.inner.update(id, change));
  }

  get(id: string): Promise<SessionRecord | undefined> {
    return this.run('get', () => this.inner.get(id));
  }

  touch(id: string, idleMs: number): Promise<void> {
    return this.run('touch', () => this.inner.touch(id, idleMs));
  }

  delete(id: string): Promise<void> {
    return this.run('delete', () => this.inner.delete(id));
  }
}

interface Instance {
  serving: Serving;
  mcp: McpApp;
  url: string;
  name: string;
}

async function instance(adapter: Adapter, name: string, store: SessionStore): Promise<Instance> {
  const mcp = McpFactory.create(serverNamed(name), { logger: createLogger({ level: 'silent' }) });
  const serving = await serveOn(adapter, mcp, () => ({ sessionStore: store }));
  return { serving, mcp, name, url: serving.url };
}

/** A balancer that sends each request to the next instance in turn (no stickiness), streaming both ways. */
async function roundRobin(targets: Instance[]): Promise<{ server: HttpServer; url: string; served: string[] }> {
  let next = 0;
  const served: string[] = [];
  const server = createServer((req, res) => {
    const target = targets[next++ % targets.length];
    served.push(`${req.method} ${target.name}`);
    const upstream = httpRequest(new URL(target.url).origin + req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, served, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

describe.each(ADAPTERS)('%s', (adapter) => {
  let store: LaterSessionStore;
  let a: Instance;
  let b: Instance;

  beforeEach(async () => {
    store = new LaterSessionStore();
    a = await instance(adapter, 'a', store);
    b = await instance(adapter, 'b', store);
  });

  afterEach(async () => {
    await Promise.all([a.serving.close(), b.serving.close()]);
  });

  function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  }

  async function initialize(url: string): Promise<string> {
    const response = await post(url, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
    });
    expect(response.status).toBe(200);
    return response.headers.get('mcp-session-id')!;
  }

  describe('two instances sharing a session store', () => {
    it('serve one SDK client through a round-robin balancer: every request lands on the other instance than the last', async () => {
      const balancer = await roundRobin([a, b]);
      const client = new Client({ name: 'balanced', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(balancer.url)));
        const answers = new Set<string>();
        for (let i = 0; i < 4; i++) {
          const result = await client.callTool({ name: 'where', arguments: {} });
          answers.add((result.content as Array<{ text: string }>)[0].text);
        }
        expect(answers).toEqual(new Set(['a', 'b']));
        const progress: number[] = [];
        const steps = await client.callTool({ name: 'steps', arguments: { steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
        expect(steps.content).toEqual([{ type: 'text', text: 'done 3' }]);
        expect(progress).toEqual([1, 2, 3]);
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['chatty', 'steps', 'where']);
        // Both instances served the session: the one that initialized it and the one that took it up.
        expect(new Set(balancer.served.filter((s) => s.startsWith('POST')).map((s) => s.split(' ')[1]))).toEqual(new Set(['a', 'b']));
      } finally {
        await client.close();
        balancer.server.closeAllConnections();
        await new Promise<void>((resolve) => balancer.server.close(() => resolve()));
      }
    });

    it('keep the logging level and subscriptions in the record, for an instance that takes the session up', async () => {
      const balancer = await roundRobin([a, b]);
      const client = new Client({ name: 'balanced', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(balancer.url)));
        await client.setLoggingLevel('warning');
        await client.subscribeResource({ uri: 'notes://today' });
        const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
        expect(await store.get(sessionId)).toMatchObject({
          logLevel: 'warning',
          subscriptions: ['notes://today'],
          protocolVersion: '2025-11-25',
          clientInfo: { name: 'balanced' },
        });
        // A third instance takes the session up with its subscription.
        const c = await instance(adapter, 'c', store);
        try {
          expect((await post(c.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' })).status).toBe(200);
          const [connection] = [...c.mcp.engine.connections];
          expect(connection.isSubscribed('notes://today')).toBe(true);
          expect(connection.logLevel()).toBe('warning');
          // It sends the client the log lines at or above the level set elsewhere, and no others.
          const chatty = await post(c.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', arguments: {} } }, { 'mcp-session-id': sessionId });
          const events = await chatty.text();
          expect(events).toContain('"level":"warning","data":"a warning line"');
          expect(events).not.toContain('a debug line');
          expect(connection.sessionInfo).toMatchObject({ id: sessionId, era: 'legacy', protocolVersion: '2025-11-25', clientInfo: { name: 'balanced', version: '1.0.0' } });
        } finally {
          await c.serving.close();
        }
      } finally {
        await client.close();
        balancer.server.closeAllConnections();
        await new Promise<void>((resolve) => balancer.server.close(() => resolve()));
      }
    });

    it('end a session for both when it is deleted on one', async () => {
      const sessionId = await initialize(a.url);
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      expect((await post(b.url, ping, { 'mcp-session-id': sessionId })).status).toBe(200);
      expect((await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(200);
      const refused = await post(a.url, ping, { 'mcp-session-id': sessionId });
      expect(refused.status).toBe(404);
      // B still serves the live copy it took up until it expires or is told; a third instance cannot take it up.
      const c = await instance(adapter, 'c', store);
      try {
        const third = await post(c.url, ping, { 'mcp-session-id': sessionId });
        expect(third.status).toBe(404);
        expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(/Session not found/);
      } finally {
        await c.serving.close();
      }
    });

    it('take up concurrent requests for a session once', async () => {
      const sessionId = await initialize(a.url);
      const gets = store.calls.length;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(b.url, { jsonrpc: '2.0', id: i, method: 'ping' }, { 'mcp-session-id': sessionId })));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(store.calls.slice(gets).filter((c) => c === 'get')).toEqual(['get']);
    });

    it('answer 404 for a session id no endpoint makes without asking the store', async () => {
      const before = store.calls.length;
      for (const id of ['x', 'a'.repeat(31), 'a'.repeat(33), `${'a'.repeat(31)}!`, 'é'.repeat(32)]) {
        const answer = await post(b.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': id });
        expect(answer.status).toBe(404);
      }
      expect(store.calls.slice(before)).toEqual([]);
    });
  });

  describe('a session store that fails', () => {
    it('refuses to open a session it cannot keep, with an error and no session id; the instance goes on serving', async () => {
      store.failing = true;
      const response = await post(a.url, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
      });
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: 0,
        error: { code: -32603, message: 'Internal error: the session store failed, so the session could not be kept; try again later' },
      });
      await eventually('the failed session to be dropped', () => a.mcp.engine.connections.size === 0);
      store.failing = false;
      expect(await initialize(a.url)).toMatch(/^[\x21-\x7e]{32,}$/);
    });

    it('answers 503 when a session cannot be looked up, and serves the sessions it holds meanwhile', async () => {
      const held = await initialize(a.url);
      const elsewhere = await initialize(b.url);
      store.failing = true;
      const lookup = await post(a.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': elsewhere });
      expect(lookup.status).toBe(503);
      expect(((await lookup.json()) as { error: { message: string } }).error.message).toBe('Service Unavailable: the session store could not be read; retry later');
      const served = await post(a.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': held });
      expect(await served.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      store.failing = false;
      expect((await post(a.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': elsewhere })).status).toBe(200);
    });
  });
});
