/**
 * While Redis is down, what needs it fails at once (issue 25, item 13): a new session and a
 * session taken up from its record are answered with their errors without waiting for node-redis's
 * next reconnection attempt — which these instances make only every 5 s, so a request that waited
 * for it would still be waiting after half of that. The bus's session channels joined or left
 * meanwhile are put right once Redis is back.
 *
 * Real redis-servers of the tests' own, stopped and started again; instances in this process
 * (Fastify, `redisCluster()`), raw HTTP on 127.0.0.1.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { FastifyInstance } from 'fastify';
import { createClient } from 'redis';
import { McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { RedisClient, RedisCluster, redisCluster } from '@hermes-mcp/redis';
import type { SessionMessage } from '@hermes-mcp/core';
import { eventually } from '../../../test-support/e2e';
import { RedisServer, startRedis } from '../../../test-support/redis/redis-server';

@McpServer({ name: 'outage', version: '1.0.0' })
class OutageServer {
  @Tool({ description: 'Answers' })
  hello() {
    return 'hello';
  }
}

jest.setTimeout(60_000);

const quiet = { warn: () => undefined };
/** node-redis tries to reconnect every 5 s: a call that waited for an attempt would wait that long. */
const RECONNECT_MS = 5_000;
/** Well below RECONNECT_MS, far above anything answered at once. */
const PATIENCE_MS = RECONNECT_MS / 2;

/** What `promise` settled with (a rejection's `code`), or `still waiting` after PATIENCE_MS. */
async function outcome<T>(promise: Promise<T>): Promise<T | string> {
  return Promise.race([promise.catch((error: { code?: string }) => `rejected ${error.code}`), sleep(PATIENCE_MS).then(() => 'still waiting')]);
}

/** A node-redis client of our own that reconnects only every RECONNECT_MS. */
function slowClient(url: string): RedisClient {
  const client: RedisClient = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => RECONNECT_MS } });
  client.on('error', () => undefined);
  return client;
}

describe('while Redis is down', () => {
  let redis: RedisServer;
  const clients: RedisClient[] = [];
  const servers: FastifyInstance[] = [];

  afterAll(async () => {
    await Promise.allSettled(servers.map((s) => s.close()));
    for (const client of clients) client.destroy();
    await redis?.stop();
  });

  /** An instance on its own slow client; its URL and cluster. */
  async function instance(): Promise<{ url: string; cluster: RedisCluster }> {
    const client = slowClient(redis.url);
    clients.push(client);
    const cluster = await redisCluster({ client, logger: quiet });
    const fastify = Fastify({ logger: false });
    await fastify.register(hermesMcp, { server: McpFactory.create(OutageServer, { logger: createLogger({ level: 'silent' }), cluster }), path: '/mcp' });
    fastify.addHook('onClose', () => cluster.close());
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    servers.push(fastify);
    return { url: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`, cluster };
  }

  function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  }

  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'outage', version: '1.0.0' } } };

  it('answers a new session and a take-up with their errors at once, not after the next reconnection attempt', async () => {
    redis = await startRedis();
    const [a, b] = [await instance(), await instance()];
    const opened = await fetch(a.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(opened.status).toBe(200);
    await opened.text();
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };

    await redis.stop();
    await eventually('both instances saw Redis go', () => !a.cluster.bus.ready && !b.cluster.bus.ready && !a.cluster.client.isReady && !b.cluster.client.isReady);

    // B never saw the session: it would take it up from its record.
    const takeUp = await outcome(post(b.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hello', arguments: {} } }, session));
    expect(takeUp).toMatchObject({ status: 503, body: { error: { message: expect.stringMatching(/the session store could not be read/) } } });
    const fresh = await outcome(post(b.url, initialize));
    expect(fresh).toMatchObject({ status: 200, body: { error: { code: -32603, message: expect.stringMatching(/the session store failed, so the session could not be kept/) } } });
    // A holds the session: it goes on serving it from memory.
    expect(await outcome(post(a.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hello', arguments: {} } }, session))).toMatchObject({
      status: 200,
      body: { result: { content: [{ type: 'text', text: 'hello' }] } },
    });
    // The bus itself: joining a session's channel fails at once too.
    expect(await outcome(b.cluster.bus.join('joined-while-down', () => undefined))).toBe('rejected HERMES_REDIS_UNAVAILABLE');

    // Back (so nothing is left waiting for a reconnection when the test ends).
    await redis.start();
    await eventually('both instances are back', () => a.cluster.bus.ready && b.cluster.bus.ready && a.cluster.client.isReady && b.cluster.client.isReady, 4 * RECONNECT_MS);
  });
});

describe('while Redis hangs', () => {
  it('fails what waits on it after commandTimeout with HERMES_REDIS_UNAVAILABLE, then serves again once it answers', async () => {
    const redis = await startRedis();
    const cluster = await redisCluster({ url: redis.url, logger: quiet, commandTimeout: 500 });
    const fastify = Fastify({ logger: false });
    try {
      await fastify.register(hermesMcp, { server: McpFactory.create(OutageServer, { logger: createLogger({ level: 'silent' }), cluster }), path: '/mcp' });
      await fastify.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`;
      const initialize = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hang', version: '1.0.0' } },
      };
      const open = () =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) }).then(
          async (response) => ({ status: response.status, session: response.headers.get('mcp-session-id'), body: await response.json() }),
        );
      redis.pause();
      // The connection stays up (no error for node-redis to see): only the timeout ends the wait.
      const started = performance.now();
      const [read, opened] = await Promise.all([
        cluster.sessionStore.get('any').then(
          () => 'answered',
          (error: Error) => error.message,
        ),
        open(),
      ]);
      const waited = performance.now() - started;
      expect(read).toMatch(/^HERMES_REDIS_UNAVAILABLE: Redis did not answer HGETALL within 500 ms \(commandTimeout\)/);
      expect(opened).toMatchObject({ status: 200, session: null, body: { error: { code: -32603, message: expect.stringMatching(/the session store failed/) } } });
      // Bounded by the timeout and the sweep's quarter of it, not by Redis.
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(5_000);
      redis.unpause();
      expect(await open()).toMatchObject({ status: 200, session: expect.any(String), body: { result: { serverInfo: { name: 'outage' } } } });
    } finally {
      redis.unpause();
      await fastify.close();
      await cluster.close();
      await redis.stop();
    }
  });
});

describe('once Redis is back', () => {
  it('the bus listens to the channels of the sessions joined while it was down, and no longer to those left meanwhile; a broadcast made meanwhile arrives', async () => {
    const redis = await startRedis();
    const [x, y] = await Promise.all([redisCluster({ url: redis.url, logger: quiet }), redisCluster({ url: redis.url, logger: quiet })]);
    try {
      await x.bus.join('left', () => undefined);
      await redis.stop();
      await eventually('the bus saw Redis go', () => !x.bus.ready);
      const received: SessionMessage[] = [];
      await expect(x.bus.join('rejoined', (message) => received.push(message))).rejects.toMatchObject({ code: 'HERMES_REDIS_UNAVAILABLE' });
      await x.bus.leave('left');
      // A broadcast made meanwhile waits in the bus's queue rather than being lost.
      const heard: unknown[] = [];
      y.bus.onBroadcast((message) => heard.push(message));
      const change = { kind: 'notify', method: 'notifications/tools/list_changed' } as const;
      await x.bus.broadcast(change as never);
      await redis.start();
      await eventually('the bus is back', () => x.bus.ready && y.client.isReady, 10_000);
      const subscribers = async (channel: string) => (await y.client.pubSubNumSub(channel))[channel];
      await eventually(
        'listening to the channel joined while down, not to the one left',
        async () => (await subscribers('hermes:bus:{rejoined}')) === 1 && (await subscribers('hermes:bus:{left}')) === 0,
      );
      await y.bus.publish('rejoined', { kind: 'stream' });
      await eventually('the message arrived', () => received.length === 1);
      expect(received).toEqual([{ kind: 'stream' }]);
      await eventually('the broadcast made while Redis was down arrived', () => heard.length === 1, 10_000);
      expect(heard).toEqual([change]);
    } finally {
      await Promise.all([x.close(), y.close()]);
      await redis.stop();
    }
  });
});
