/**
 * A GET stream that moves between instances while updates flow: three instances of
 * examples/cluster on one real redis-server behind the round-robin proxy; a 2025-11-25 session
 * subscribed to its resource raises updates in a loop (each `touch` call goes to the next
 * instance) while its GET stream is resumed with `Last-Event-ID` on another instance again and
 * again. Every update a call raised reaches the client exactly once, under consecutive event
 * numbers, and a replay of the whole stream from the store says what the client saw.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../../../test-support/e2e';
import { Instance, Proxy, startInstance, startProxy } from '../../../test-support/redis/cluster';
import { RedisServer, startRedis } from '../../../test-support/redis/redis-server';
import { LegacySession, loop } from './topologies/load';

jest.setTimeout(90_000);

let redis: RedisServer;
let instances: Instance[];
let proxy: Proxy;

beforeAll(async () => {
  redis = await startRedis();
  instances = await Promise.all(['one', 'two', 'three'].map((name) => startInstance(name, redis.url)));
  proxy = await startProxy(instances.map((i) => i.port));
});

afterAll(async () => {
  await proxy?.close();
  await Promise.allSettled((instances ?? []).map((i) => i.stop()));
  await redis?.stop();
});

it('delivers every update exactly once while the GET stream moves from instance to instance', async () => {
  const session = await LegacySession.open(`${proxy.url}/mcp`, 'handover');
  try {
    await eventually('the GET stream is open', async () => (await session.touch()) === 'ok' && session.stream.status === 200 && session.updates() > 0);
    // Three callers raise updates without pause; the stream moves every 100–250 ms.
    const loops = [0, 1, 2].map(() => loop(() => session.touch()));
    for (let move = 0; move < 30; move++) {
      await sleep(100 + (move % 4) * 50);
      await session.resume();
      await eventually(`the stream answers after move ${move + 1}`, () => session.stream.status === 200, 10_000).catch((error: Error) => {
        const sent = proxy.log.filter((f) => f.method === 'GET' && f.session === session.id).at(-1);
        throw new Error(
          `${error.message}: status ${session.stream.status}, ended ${session.stream.ended}, sent to instance ${sent?.backend} with ${sent?.lastEventId}, answered ${sent?.status}`,
        );
      });
    }
    await Promise.all(loops.map((l) => l.stop()));
    await eventually('every update raised has come', () => session.updates() >= session.touched, 10_000).catch(() => undefined);
    await sleep(300);
    expect(session.outcomes.filter((o) => o !== 'ok')).toEqual([]);
    expect({ updates: session.updates(), gaps: session.gaps() }).toEqual({ updates: session.touched, gaps: [] });
    // A replay of the whole stream, on yet another instance, is what the client was told.
    const id = session.lastEventId()!;
    const seen = session.received();
    const first = Math.min(...seen.keys());
    await session.stream.cancel();
    const replay = session.connect(`${id.slice(0, id.lastIndexOf('_'))}_${first - 1}`);
    await eventually('the whole replay', () => replay.events.filter((e) => e.data !== '').length >= seen.size, 10_000);
    const replayed = new Map(replay.events.filter((e) => e.id !== undefined && e.data !== '').map((e) => [Number(e.id!.slice(e.id!.lastIndexOf('_') + 1)), e.data]));
    expect(replayed).toEqual(seen);
  } finally {
    await session.close();
  }
});
