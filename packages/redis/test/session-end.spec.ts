/**
 * A session's keys in Redis end with the session (issue 25, item 11). `DELETE` forgets every
 * stream of it — the GET stream another instance wrote, a request's stream still open — and so
 * does the last instance whose copy of the session idles out, once the record is gone. An instance
 * whose copy idles out while the session goes on elsewhere leaves them: the stream is still
 * resumed there. Without a cluster (a Redis event store of one process), a session evicted to make
 * room ends, and its events go with it.
 *
 * Two instances in this process (Fastify, `redisCluster()`) on a real redis-server, raw HTTP on
 * 127.0.0.1, SSE read off the wire.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { McpApp, McpContext, McpFactory, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { RedisCluster, redisCluster } from '@hermes-mcp/redis';
import { eventually } from '../../../test-support/e2e';
import { SseReader } from '../../../test-support/sse-reader';
import { RedisServer, startRedis } from '../../../test-support/redis/redis-server';

@McpServer({ name: 'ending', version: '1.0.0' })
class EndingServer {
  @Tool({ description: 'Reports progress, then runs until it is cancelled (its session ending cancels it)' })
  async hold(ctx: McpContext) {
    await ctx.progress(1, 2, 'holding');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'cancelled';
  }

  @Resource({ uri: 'status://a', name: 'a', description: 'A resource to subscribe to', mimeType: 'text/plain' })
  a() {
    return 'a';
  }
}

/** One instance: its URL, its app and cluster, and the debug lines it logged. */
interface Instance {
  url: string;
  app: McpApp;
  cluster: RedisCluster;
  logs: Array<{ msg: string; sessionId?: string }>;
  close(): Promise<void>;
}

let redis: RedisServer;
const instances: Instance[] = [];

/**
 * One instance; `alone`: without a cluster, its events still in Redis (`eventStore`), its sessions
 * in memory, at most one.
 */
async function startInstance(sessionIdleTimeout: number, alone = false): Promise<Instance> {
  const logs: Instance['logs'] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const cluster = await redisCluster({ url: redis.url, logger: { warn: () => undefined } });
  const app = McpFactory.create(EndingServer, { logger: createLogger({ level: 'debug', destination: sink }), ...(!alone && { cluster }) });
  const fastify = Fastify({ logger: false });
  const single = alone ? { eventStore: (sessionId: string) => cluster.eventStore(sessionId), maxSessions: 1 } : {};
  await fastify.register(hermesMcp, { server: app, path: '/mcp', sessionIdleTimeout, ...single });
  fastify.addHook('onClose', () => cluster.close());
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const instance = { url: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`, app, cluster, logs, close: () => fastify.close() };
  instances.push(instance);
  return instance;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.allSettled(instances.map((i) => i.close()));
  await redis?.stop();
});

const VERSION = '2025-11-25';

function post(instance: Instance, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(instance.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/** Opens a session on `first`; the headers its later requests carry. */
async function open(first: Instance): Promise<Record<string, string>> {
  const init = await post(first, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'ending', version: '1.0.0' } },
  });
  expect(init.status).toBe(200);
  await init.text();
  return { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': VERSION };
}

/** POSTs a notification (202) or a request answered with JSON (200). */
async function call(instance: Instance, session: Record<string, string>, body: Record<string, unknown>): Promise<void> {
  const response = await post(instance, body, session);
  await response.text();
  expect(response.status).toBe('id' in body ? 200 : 202);
}

/** Opens the session's GET stream on `instance` (`lastEventId`: resumed); the stream, once its first event came. */
async function getStream(instance: Instance, session: Record<string, string>, lastEventId?: string): Promise<SseReader> {
  const response = await fetch(instance.url, { headers: { accept: 'text/event-stream', ...session, ...(lastEventId && { 'last-event-id': lastEventId }) } });
  expect(response.status).toBe(200);
  return new SseReader(response.body!);
}

/** Every key Redis holds that names the session. */
function keysOf(session: Record<string, string>): Promise<string[]> {
  return instances[0].cluster.client.keys(`*${session['mcp-session-id']}*`) as Promise<string[]>;
}

describe("a session's keys in Redis", () => {
  it('are all gone after DELETE: the GET stream another instance wrote, a request stream still open, the record', async () => {
    const [a, b] = [await startInstance(60_000), await startInstance(60_000)];
    const session = await open(a);
    await call(b, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await call(a, session, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'status://a' } });
    // B holds the GET stream and stores its events; the update is raised on A.
    const stream = await getStream(b, session);
    expect((await stream.expect('the priming event')).data).toBe('');
    a.app.notifyResourceUpdated('status://a');
    expect((await stream.message('the update')).message).toMatchObject({ method: 'notifications/resources/updated' });
    // A request's stream, open while the session ends: its events are in Redis too.
    const held = await post(a, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: { progressToken: 'p' } } }, session);
    const progress = new SseReader(held.body!);
    expect((await progress.message('the progress')).message).toMatchObject({ method: 'notifications/progress' });
    expect((await keysOf(session)).length).toBeGreaterThanOrEqual(3);

    const deleted = await fetch(a.url, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    expect(await keysOf(session)).toEqual([]);
    await stream.readToEnd();
    await progress.readToEnd();
    expect(await keysOf(session)).toEqual([]);
  });

  it('are all gone once the session idled out on every instance that held it', async () => {
    const [a, b] = [await startInstance(400), await startInstance(400)];
    const session = await open(a);
    await call(b, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await call(a, session, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'status://a' } });
    const stream = await getStream(b, session);
    await stream.expect('the priming event');
    a.app.notifyResourceUpdated('status://a');
    await stream.message('the update');
    expect((await keysOf(session)).length).toBeGreaterThanOrEqual(2);
    await eventually('no key of the session is left', async () => (await keysOf(session)).length === 0);
    await eventually('an instance said so', () => [...a.logs, ...b.logs].some((l) => l.sessionId === session['mcp-session-id'] && /its events were forgotten/.test(l.msg)));
  });

  it('stay while the session goes on elsewhere: a copy that idled out leaves them, and the GET stream is resumed on the instance still serving it', async () => {
    const [a, b] = [await startInstance(400), await startInstance(400)];
    const session = await open(b);
    await call(a, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await call(a, session, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'status://a' } });
    const stream = await getStream(a, session);
    const priming = await stream.expect('the priming event');
    b.app.notifyResourceUpdated('status://a');
    const update = await stream.message('the update');
    // The client goes on with B only; A's copy idles out meanwhile.
    const kept = () => a.logs.some((l) => l.sessionId === session['mcp-session-id'] && /its events stay/.test(l.msg));
    for (let id = 10; !kept() && id < 200; id++) {
      await call(b, session, { jsonrpc: '2.0', id, method: 'ping' });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(kept()).toBe(true);
    await stream.readToEnd();
    expect(await keysOf(session)).toContain(`hermes:events:{${session['mcp-session-id']}}`);
    const resumed = await getStream(b, session, priming.id);
    const replayed = await resumed.message('the replayed update');
    expect(replayed.event.id).toBe(update.event.id);
    expect(replayed.message).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'status://a' } });
    await resumed.cancel();
  });

  it('are gone when a session is evicted to make room, without a cluster', async () => {
    const alone = await startInstance(60_000, true);
    const first = await open(alone);
    await call(alone, first, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const stream = await getStream(alone, first);
    await stream.expect('the priming event');
    await eventually('the priming event is kept', async () => (await keysOf(first)).length > 0);
    // maxSessions is 1: the next session takes the first one's place.
    await open(alone);
    await stream.readToEnd();
    await eventually('no key of the evicted session is left', async () => (await keysOf(first)).length === 0);
  });
});
