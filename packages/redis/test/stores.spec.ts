/**
 * The Redis stores and bus against a real redis-server of the test's own: what each keeps, for how
 * long, what two instances see of each other, and what a lost Redis looks like.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import type { ClusterMessage, SessionMessage, TaskRecord } from '@hermes-mcp/core';
import { HermesError } from '@hermes-mcp/core';
import { AHEAD_WAIT_MS, RedisCluster, redisCluster } from '@hermes-mcp/redis';
import { RedisServer, freePort, startRedis } from '../../../test-support/redis/redis-server';

let server: RedisServer;
let a: RedisCluster;
let b: RedisCluster;
const quiet = { warn: () => undefined };

beforeAll(async () => {
  server = await startRedis();
  [a, b] = await Promise.all([redisCluster({ url: server.url, logger: quiet }), redisCluster({ url: server.url, logger: quiet })]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await server?.stop();
});

/** Resolves with the next `count` messages `subscribe` hands over, or rejects after 2 s. */
function collect<T>(subscribe: (receive: (message: T) => void) => void, count = 1): Promise<T[]> {
  const got: T[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`received ${got.length} of ${count} messages`)), 2_000);
    subscribe((message) => {
      got.push(message);
      if (got.length === count) {
        clearTimeout(timer);
        resolve(got);
      }
    });
  });
}

describe('RedisSessionStore', () => {
  const record = { id: 's1', protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' }, clientCapabilities: { elicitation: {} }, principal: 'iss sub:alice' };

  it('keeps a record that another instance reads, with changes from both', async () => {
    await a.sessionStore.create(record, 60_000);
    expect(await b.sessionStore.get('s1')).toEqual(record);
    await Promise.all([
      a.sessionStore.update('s1', { subscribe: 'status://a' }),
      b.sessionStore.update('s1', { logLevel: 'debug' }),
      b.sessionStore.update('s1', { subscribe: 'x://b c' }),
    ]);
    await a.sessionStore.update('s1', { unsubscribe: 'status://a' });
    expect(await a.sessionStore.get('s1')).toEqual({ ...record, logLevel: 'debug', subscriptions: ['x://b c'] });
  });

  it('expires a record idleMs after its last use, and a touch pushes that back', async () => {
    // Margins of a second or more either way: a busy CI machine oversleeps by hundreds of ms.
    await a.sessionStore.create({ ...record, id: 's2' }, 2_000);
    await sleep(1_000);
    const leftBefore = await a.client.pTTL('hermes:session:{s2}');
    await b.sessionStore.touch('s2', 4_000);
    expect(leftBefore).toBeLessThanOrEqual(1_000);
    expect(await a.client.pTTL('hermes:session:{s2}')).toBeGreaterThan(3_000);
    await sleep(1_500); // past the first expiry, well inside the second
    expect(await a.sessionStore.get('s2')).toBeDefined();
    const left = Number(await a.client.pTTL('hermes:session:{s2}'));
    await sleep(left + 200);
    expect(await a.sessionStore.get('s2')).toBeUndefined();
  });

  it('ends a record for every instance on delete, and a late change does not bring it back', async () => {
    await a.sessionStore.create({ ...record, id: 's3' }, 60_000);
    await b.sessionStore.delete('s3');
    await a.sessionStore.update('s3', { logLevel: 'info' });
    expect(await a.sessionStore.get('s3')).toBeUndefined();
    expect(await a.client.exists('hermes:session:{s3}')).toBe(0);
  });
});

describe('RedisEventStore', () => {
  it('replays a stream on another instance after the event resumed from, priming events skipped', async () => {
    const write = a.eventStore('sess');
    await write.append('get.x', 1);
    for (let seq = 2; seq <= 5; seq++) await write.append('get.x', seq, { jsonrpc: '2.0', method: 'notifications/message', params: { data: seq } });
    const read = b.eventStore('sess');
    expect((await read.replayAfter('get.x', 3))?.map((e) => e.seq)).toEqual([4, 5]);
    expect((await read.replayAfter('get.x', 1))?.map((e) => (e.message as unknown as { params: { data: number } }).params.data)).toEqual([2, 3, 4, 5]);
    expect(await read.replayAfter('get.x', 5)).toEqual([]);
    // Never sent, or of another session: nothing to resume from.
    expect(await read.replayAfter('get.x', 9)).toBeUndefined();
    expect(await b.eventStore('other').replayAfter('get.x', 1)).toBeUndefined();
    // Broadcasts are kept with their keys, for an instance that resumes the stream after its holder died.
    await write.append('get.x', 6, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'abc.7');
    expect((await read.replayAfter('get.x', 5))?.map((e) => e.message)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(await read.claim('get.x', 5)).toEqual({
      events: [{ seq: 6, message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }],
      top: 6,
      keys: new Set(['abc.7']),
    });
    await read.forget('get.x');
    expect(await write.replayAfter('get.x', 1)).toBeUndefined();
  });

  it('a claimed stream takes appends from its claimer only; the claim reads what was kept in the same step', async () => {
    const message = (data: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { data } });
    const holder = a.eventStore('claimed');
    await holder.append('get.a', 1);
    for (let seq = 2; seq <= 4; seq++) await holder.append('get.a', seq, message(seq), `k.${seq}`);
    const taker = b.eventStore('claimed');
    // Resumed after event 2: events 3 and 4 come whole, every key kept, and the newest number.
    expect(await taker.claim('get.a', 2)).toEqual({ events: [3, 4].map((seq) => ({ seq, message: message(seq) })), top: 4, keys: new Set(['k.2', 'k.3', 'k.4']) });
    // The old holder has not heard yet and goes on numbering: dropped; the claimer's next is kept.
    await holder.append('get.a', 5, message(50), 'k.late');
    await holder.append('get.a', 6);
    expect(await taker.replayAfter('get.a', 4)).toEqual([]);
    await taker.append('get.a', 5, message(5), 'k.5');
    expect(await holder.replayAfter('get.a', 4)).toEqual([{ seq: 5, message: message(5) }]);
    // Claimed back (the client resumed on the first instance again): now the other is dropped.
    expect((await holder.claim('get.a', 5))?.top).toBe(5);
    await taker.append('get.a', 6, message(60));
    await holder.append('get.a', 6, message(6));
    expect(await taker.replayAfter('get.a', 5)).toEqual([{ seq: 6, message: message(6) }]);
    // A claim the stream cannot be resumed from claims nothing.
    expect(await taker.claim('get.a', 9)).toBeUndefined();
    expect(await taker.claim('get.none', 0)).toBeUndefined();
    await holder.append('get.a', 7, message(7));
    expect((await taker.replayAfter('get.a', 6))?.map((e) => e.seq)).toEqual([7]);
  });

  it('a resumption from an event its holder wrote to the client before Redis kept it waits for that event, a bounded time', async () => {
    const message = (data: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { data } });
    const holder = a.eventStore('ahead');
    const taker = b.eventStore('ahead');
    await holder.append('get.a', 1);
    await holder.append('get.a', 2, message(2), 'k.2');
    // The client saw event 3 and resumed on another instance before the holder's append of it arrived.
    const late = sleep(50).then(() => holder.append('get.a', 3, message(3), 'k.3'));
    expect(await taker.claim('get.a', 3)).toEqual({ events: [], top: 3, keys: new Set(['k.2', 'k.3']) });
    await late;
    // A replay (a request's stream) waits the same way.
    const later = sleep(50).then(() => taker.append('get.a', 4, message(4), 'k.4'));
    expect(await holder.replayAfter('get.a', 4)).toEqual([]);
    await later;
    expect((await holder.replayAfter('get.a', 3))?.map((e) => e.seq)).toEqual([4]);
    // A number the stream never reaches is refused once the wait is over.
    const started = performance.now();
    expect(await taker.claim('get.a', 9)).toBeUndefined();
    expect(await taker.replayAfter('get.a', 9)).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * AHEAD_WAIT_MS - 10);
    // Nothing was claimed by the refused claim: the claimer's appends are still kept.
    await taker.append('get.a', 5, message(5));
    expect((await holder.replayAfter('get.a', 4))?.map((e) => e.seq)).toEqual([5]);
  });

  it('bounds a stream by count and age; a resumption from a trimmed event fails instead of skipping', async () => {
    const cluster = await redisCluster({ url: server.url, prefix: 'bounded:', events: { maxPerStream: 10, maxAgeMs: 300 }, logger: quiet });
    try {
      const store = cluster.eventStore('s');
      for (let seq = 1; seq <= 500; seq++) await store.append('p', seq, { jsonrpc: '2.0', method: 'm', params: { seq } });
      expect(await cluster.client.lLen('bounded:events:{s}:p')).toBe(10);
      expect(await store.replayAfter('p', 1)).toBeUndefined();
      expect((await store.replayAfter('p', 495))?.map((e) => e.seq)).toEqual([496, 497, 498, 499, 500]);
      await sleep(400);
      expect(await store.replayAfter('p', 495)).toBeUndefined();
    } finally {
      await cluster.close();
    }
  });

  it('costs what its events hold: a priming event is a number in the session index, and ten events take about what they weigh, not a 4 KB stream node', async () => {
    const store = a.eventStore('small');
    await store.append('get.x', 1);
    // A stream that never carried a message has no key of its own.
    expect(await a.client.exists('hermes:events:{small}:get.x')).toBe(0);
    expect(await b.eventStore('small').replayAfter('get.x', 1)).toEqual([]);
    const update = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'status://a' } } as const;
    for (let seq = 2; seq <= 11; seq++) await store.append('get.x', seq, update, `abc.${seq}`);
    const bytes = (await Promise.all(['hermes:events:{small}', 'hermes:events:{small}:get.x'].map((key) => a.client.memoryUsage(key, { SAMPLES: 0 })))).reduce(
      (sum, n) => Number(sum) + Number(n ?? 0),
      0,
    )!;
    // Ten events of ~90 bytes of JSON, their numbers and keys: ~1.3 KB (a Redis Stream took 4.7 KB, preallocated).
    expect(bytes).toBeLessThan(10 * (JSON.stringify(update).length + 40) + 400);
    expect((await b.eventStore('small').replayAfter('get.x', 1))?.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("forgets every stream of a session on clear, whichever instance wrote it, and nothing of another session's", async () => {
    const message = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 1 } } as const;
    await a.eventStore('gone').append('get.a', 1);
    await a.eventStore('gone').append('get.a', 2, message);
    await b.eventStore('gone').append('get.b', 1);
    await b.eventStore('gone').append('pb.0', 1, message);
    await a.eventStore('kept').append('get.a', 1, message);
    expect((await a.client.keys('hermes:events:{gone}*')).sort()).toEqual(['hermes:events:{gone}', 'hermes:events:{gone}:get.a', 'hermes:events:{gone}:pb.0']);
    await a.eventStore('gone').clear();
    expect(await a.client.keys('hermes:events:{gone}*')).toEqual([]);
    expect(await b.eventStore('gone').replayAfter('get.b', 1)).toBeUndefined();
    expect((await b.eventStore('kept').replayAfter('get.a', 0))?.map((e) => e.seq)).toEqual([1]);
  });

  it('refuses a resumption it cannot complete: a list that expired while the session index lived, a stream first seen after its start, an event numbered twice', async () => {
    const cluster = await redisCluster({ url: server.url, prefix: 'aged:', events: { maxAgeMs: 2_000 }, logger: quiet });
    try {
      const store = cluster.eventStore('s');
      const message = (data: number) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { data } }) as const;
      await store.append('get.x', 1, message(1));
      // Margins of most of a second: a busy CI machine oversleeps.
      await sleep(1_200);
      // Another stream of the session goes on: the index lives; get.x's own list expires.
      await store.append('pz.0', 1, message(1));
      await sleep(1_200);
      await store.append('pz.0', 2, message(2));
      expect(await cluster.client.exists('aged:events:{s}:get.x')).toBe(0);
      expect(await store.replayAfter('get.x', 0)).toBeUndefined();
      // First seen at event 7 (its earlier events are gone): resumable from 6 on, not before.
      await store.append('get.y', 7, message(7));
      expect(await store.replayAfter('get.y', 5)).toBeUndefined();
      expect((await store.replayAfter('get.y', 6))?.map((e) => e.seq)).toEqual([7]);
      // A second writer numbering an event the stream already has: the first one stands.
      await store.append('get.y', 7, message(70));
      await store.append('get.y', 8);
      await store.append('get.y', 9, message(9));
      expect((await store.replayAfter('get.y', 6))?.map((e) => (e.message as unknown as { params: { data: number } }).params.data)).toEqual([7, 9]);
    } finally {
      await cluster.close();
    }
  });
});

describe('RedisTaskStore', () => {
  const task = (over: Partial<TaskRecord> = {}): TaskRecord => ({
    taskId: 't1',
    status: 'working',
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUpdatedAt: '2026-01-01T00:00:00.000Z',
    ttlMs: 60_000,
    pollIntervalMs: 100,
    ...over,
  });

  it('is read and updated from any instance; a terminal task stays as it is', async () => {
    await a.taskStore.create(task());
    expect(await b.taskStore.get('t1')).toEqual(task());
    expect(await b.taskStore.update(task({ status: 'cancelled' }))).toBe(true);
    expect(await a.taskStore.update(task({ status: 'completed', result: { content: [] } }))).toBe(false);
    expect((await a.taskStore.get('t1'))?.status).toBe('cancelled');
    expect(await a.taskStore.update(task({ taskId: 'nope' }))).toBe(false);
    expect(await a.taskStore.get('nope')).toBeUndefined();
  });

  it('marks a running task failed once its instance stops renewing the lease', async () => {
    const dying = await redisCluster({ url: server.url, tasks: { leaseMs: 300 }, logger: quiet });
    await dying.taskStore.create(task({ taskId: 't2', result: undefined }));
    await sleep(600);
    // Still renewed while its instance lives.
    expect((await a.taskStore.get('t2'))?.status).toBe('working');
    await dying.close();
    await sleep(500);
    const failed = await a.taskStore.get('t2');
    expect(failed).toMatchObject({ taskId: 't2', status: 'failed', ttlMs: 60_000, pollIntervalMs: 100, error: { code: -32603 } });
    expect(failed?.statusMessage).toMatch(/instance running it stopped/);
    // Failed for good: the instance cannot bring it back.
    expect(await dying.taskStore.update(task({ taskId: 't2', status: 'completed' })).catch(() => false)).toBe(false);
  });

  it('expires a task ttlMs after it was created', async () => {
    await a.taskStore.create(task({ taskId: 't3', ttlMs: 200 }));
    await sleep(300);
    expect(await b.taskStore.get('t3')).toBeUndefined();
  });
});

describe('RedisBus', () => {
  it("carries a session's messages to the other instances that joined it, never back to the sender", async () => {
    const own: SessionMessage[] = [];
    await a.bus.join('bus-s', (m) => own.push(m));
    const got = collect<SessionMessage>((receive) => void b.bus.join('bus-s', receive), 2);
    await a.bus.publish('bus-s', { kind: 'change', change: { logLevel: 'error' } });
    await a.bus.publish('bus-s', { kind: 'inbound', message: { jsonrpc: '2.0', id: 'x-1', result: {} } });
    expect(await got).toEqual([
      { kind: 'change', change: { logLevel: 'error' } },
      { kind: 'inbound', message: { jsonrpc: '2.0', id: 'x-1', result: {} } },
    ]);
    expect(own).toEqual([]);
    await b.bus.leave('bus-s');
    await a.bus.leave('bus-s');
    expect(b.bus.joined).toBe(0);
  });

  it('broadcasts to every other instance', async () => {
    const message: ClusterMessage = { kind: 'notify', method: 'notifications/resources/updated', params: { uri: 'u://1' }, uri: 'u://1', key: 'abc.1' };
    const got = collect<ClusterMessage>((receive) => b.bus.onBroadcast(receive));
    await a.bus.broadcast(message);
    expect(await got).toEqual([message]);
  });

  it('ignores what is not a bus message on its channels', async () => {
    const bad: unknown[] = [];
    const cluster = await redisCluster({ url: server.url, logger: { warn: (bindings: object) => bad.push(bindings) } });
    try {
      await a.client.publish('hermes:{bus}', 'not json');
      await a.client.publish('hermes:{bus}', '{"o":1}');
      await sleep(100);
      expect(bad).toHaveLength(2);
    } finally {
      await cluster.close();
    }
  });
});

describe('without Redis', () => {
  it('fails to start with HERMES_REDIS_UNAVAILABLE', async () => {
    const port = await freePort();
    const attempt = redisCluster({ url: `redis://127.0.0.1:${port}`, connectTimeout: 500, logger: quiet });
    await expect(attempt).rejects.toThrow(HermesError);
    await expect(attempt).rejects.toMatchObject({ code: 'HERMES_REDIS_UNAVAILABLE' });
  });

  it("fails to start with HERMES_REDIS_UNAVAILABLE after connectTimeout with a client of the caller's that retries for ever", async () => {
    const port = await freePort();
    const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => undefined);
    const started = performance.now();
    try {
      await expect(redisCluster({ client, connectTimeout: 500, logger: quiet })).rejects.toMatchObject({
        code: 'HERMES_REDIS_UNAVAILABLE',
        message: expect.stringContaining('no connection within 500 ms (connectTimeout)'),
      });
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      client.destroy();
    }
  });

  it('fails calls at once while Redis is down, and serves again once it is back', async () => {
    const own = await startRedis();
    const cluster = await redisCluster({ url: own.url, logger: quiet });
    try {
      await own.stop();
      await sleep(100);
      const started = performance.now();
      await expect(cluster.sessionStore.get('x')).rejects.toMatchObject({ code: 'HERMES_REDIS_UNAVAILABLE' });
      expect(performance.now() - started).toBeLessThan(1_000);
      await own.start();
      let value: unknown = 'not yet';
      for (let i = 0; i < 100 && value === 'not yet'; i++) {
        value = await cluster.sessionStore.get('x').catch(() => 'not yet');
        if (value === 'not yet') await sleep(100);
      }
      expect(value).toBeUndefined();
    } finally {
      await cluster.close();
      await own.stop();
    }
  });
});
