/**
 * The stores and the bus on a real 6-node Redis Cluster and a real Sentinel setup: the same calls
 * as on one node (stores.spec.ts), every key of a session in one slot, the bus on sharded pub/sub,
 * and no cross-slot command (Redis would answer CROSSSLOT).
 */
import { createCluster, createSentinel } from 'redis';
import type { SessionMessage } from '@hermes-mcp/core';
import { RedisCluster, RedisClusterClient, hashSlot, redisCluster } from '@hermes-mcp/redis';
import { RedisClusterNodes, RedisSentinelNodes, cli, startRedisCluster, startRedisSentinel } from '../../../../test-support/redis/redis-topologies';
import { eventually } from '../../../../test-support/e2e';

const quiet = { warn: () => undefined };
const plain = { serverArgs: () => [], cliArgs: [], scheme: 'redis' as const };

/** Exercises a pair of instances: every store, the bus both ways. */
async function exercise(a: RedisCluster, b: RedisCluster): Promise<void> {
  const record = { id: 'sess-1', protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' }, clientCapabilities: {} };
  await a.sessionStore.create(record, 60_000);
  await b.sessionStore.update('sess-1', { subscribe: 'status://a' });
  await b.sessionStore.update('sess-1', { logLevel: 'debug' });
  expect(await b.sessionStore.get('sess-1')).toEqual({ ...record, logLevel: 'debug', subscriptions: ['status://a'] });

  const message = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 1 } } as const;
  for (let seq = 1; seq <= 5; seq++) await a.eventStore('sess-1').append('get.x', seq, message, `k.${seq}`);
  await a.eventStore('sess-1').append('pb.0', 1, message);
  expect((await b.eventStore('sess-1').replayAfter('get.x', 2))?.map((e) => e.seq)).toEqual([3, 4, 5]);
  expect([...(await b.eventStore('sess-1').claim('get.x', 2))!.keys].sort()).toEqual(['k.1', 'k.2', 'k.3', 'k.4', 'k.5']);
  // The script that clears reads the index and deletes the lists it names: all in the session's slot.
  await b.eventStore('sess-1').clear();
  expect(await a.eventStore('sess-1').replayAfter('get.x', 2)).toBeUndefined();

  const task = { taskId: 't-1', status: 'working', createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttlMs: 60_000, pollIntervalMs: 100 } as const;
  await a.taskStore.create(task);
  expect(await b.taskStore.get('t-1')).toMatchObject({ status: 'working' });
  expect(await b.taskStore.update({ ...task, status: 'cancelled' })).toBe(true);
  expect(await a.taskStore.get('t-1')).toMatchObject({ status: 'cancelled' });

  expect(await a.replayStore.firstSeen('jti-1', 10_000)).toBe(true);
  expect(await b.replayStore.firstSeen('jti-1', 10_000)).toBe(false);

  // The bus: a session's messages reach the instance that joined it, with the count of receivers.
  const received: SessionMessage[] = [];
  await b.bus.join('sess-1', (m) => received.push(m));
  expect(await a.bus.publish('sess-1', { kind: 'stream' })).toBe(1);
  await eventually('the message arrived', () => received.length === 1);
  await b.bus.leave('sess-1');
  expect(await a.bus.publish('sess-1', { kind: 'stream' })).toBe(0);
  const broadcasts: unknown[] = [];
  b.bus.onBroadcast((m) => broadcasts.push(m));
  await a.bus.broadcast({ kind: 'notify', method: 'notifications/tools/list_changed' } as never);
  await eventually('the broadcast arrived', () => broadcasts.length === 1);
}

describe('on a Redis Cluster (3 masters, 3 replicas)', () => {
  let nodes: RedisClusterNodes;
  const clients: RedisClusterClient[] = [];
  const clusters: RedisCluster[] = [];

  beforeAll(async () => {
    nodes = await startRedisCluster();
  });

  afterAll(async () => {
    await Promise.allSettled(clusters.map((c) => c.close()));
    await Promise.allSettled(clients.map((c) => c.close()));
    await nodes?.stop();
  });

  async function instance(): Promise<RedisCluster> {
    const client = createCluster({ rootNodes: nodes.rootNodes, defaults: { disableOfflineQueue: true } });
    client.on('error', () => undefined);
    clients.push(client);
    const cluster = await redisCluster({ client, logger: quiet });
    clusters.push(cluster);
    return cluster;
  }

  it('serves every store and the bus, with every key of a session in the slot of its id', async () => {
    const [a, b] = [await instance(), await instance()];
    await exercise(a, b);
    // Keys spread over the masters, each session's together: `{id}` is the hash tag.
    const ids = Array.from({ length: 30 }, (_, i) => `spread-${i}`);
    for (const id of ids) {
      await a.sessionStore.create({ id, protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' }, clientCapabilities: {} }, 60_000);
      await a.eventStore(id).append('get.x', 1, { jsonrpc: '2.0', method: 'm' });
    }
    const holders = new Set<number>();
    for (const id of ids) {
      const slot = Number(await cli(nodes.nodes[0].port, plain, 'CLUSTER', 'KEYSLOT', id));
      for (const key of [`hermes:session:{${id}}`, `hermes:events:{${id}}`, `hermes:events:{${id}}:get.x`]) {
        expect(Number(await cli(nodes.nodes[0].port, plain, 'CLUSTER', 'KEYSLOT', key))).toBe(slot);
        // The slot Hermes computes to share one WAIT among the writes to one master (durability).
        expect(hashSlot(key)).toBe(slot);
      }
      holders.add((await nodes.masterOf(slot)).port);
    }
    expect(holders.size).toBe(3);
  });

  it('uses sharded pub/sub: a session channel has subscribers on its slot’s master only, none on classic pub/sub', async () => {
    const [a, b] = [await instance(), await instance()];
    await b.bus.join('sharded-1', () => undefined);
    await a.bus.join('sharded-1', () => undefined);
    const channel = 'hermes:bus:{sharded-1}';
    const slot = Number(await cli(nodes.nodes[0].port, plain, 'CLUSTER', 'KEYSLOT', channel));
    const master = await nodes.masterOf(slot);
    const counts = await Promise.all(nodes.nodes.map(async (n) => Number((await cli(n.port, plain, 'PUBSUB', 'SHARDNUMSUB', channel)).split('\n')[1])));
    expect(counts[nodes.nodes.indexOf(master)]).toBe(2);
    expect(counts.reduce((s, n) => s + n, 0)).toBe(2);
    for (const n of nodes.nodes) expect(await cli(n.port, plain, 'PUBSUB', 'CHANNELS')).toBe('');
  });
});

describe('on a Sentinel-watched primary (1 primary, 1 replica, 3 sentinels)', () => {
  let nodes: RedisSentinelNodes;
  const clusters: RedisCluster[] = [];
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    nodes = await startRedisSentinel();
  });

  afterAll(async () => {
    await Promise.allSettled(clusters.map((c) => c.close()));
    await Promise.allSettled(clients.map((c) => c.close()));
    await nodes?.stop();
  });

  it('serves every store and the bus through createSentinel', async () => {
    const pair: RedisCluster[] = [];
    for (let i = 0; i < 2; i++) {
      const client = createSentinel({ name: nodes.name, sentinelRootNodes: nodes.sentinelRootNodes, nodeClientOptions: { disableOfflineQueue: true } });
      client.on('error', () => undefined);
      clients.push(client);
      const cluster = await redisCluster({ client, logger: quiet });
      clusters.push(cluster);
      pair.push(cluster);
    }
    await exercise(pair[0], pair[1]);
  });
});
