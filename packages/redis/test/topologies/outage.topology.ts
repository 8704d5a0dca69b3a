/**
 * Redis stopped for 10 s under load (issue 45): three instances (separate processes) on one
 * redis-server behind the round-robin proxy, sessions of the 2025-11-25 era raising updates on
 * their GET streams, new sessions being opened and 2026-07-28 calls, while Redis is away. Every
 * request in that window gets an answer or a documented error within the client's timeout (none
 * hangs), the instances' memory stays bounded, and service comes back by itself once Redis does.
 * packages/redis/test/outage.spec.ts holds the single calls (how fast each fails); this is the load.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpClient } from '@hermes-mcp/client';
import { Proxy, startProxy } from '../../../../test-support/redis/cluster';
import { RedisServer, startRedis } from '../../../../test-support/redis/redis-server';
import { TopologyInstance, startTopologyInstance } from '../../../../test-support/redis/redis-topologies';
import { eventually } from '../../../../test-support/e2e';
import { LegacySession, Outcome, loop, modernClient, tally } from './load';

const OUTAGE_MS = 10_000;
/** What an instance's resident memory may grow by across the outage: the load is a few hundred requests a second. */
const MEMORY_BOUND = 64 * 1024 * 1024;

describe('Redis stopped for 10 s under load', () => {
  let redis: RedisServer;
  const instances: TopologyInstance[] = [];
  let proxy: Proxy | undefined;

  afterAll(async () => {
    await proxy?.close();
    await Promise.allSettled(instances.map((i) => i.stop()));
    await redis?.stop();
  });

  it('answers every request with a result or a documented error, keeps memory bounded, and serves again by itself', async () => {
    redis = await startRedis();
    for (const name of ['one', 'two', 'three']) instances.push(await startTopologyInstance(name, { REDIS_URL: redis.url }));
    proxy = await startProxy(instances.map((i) => i.port));
    const url = `${proxy.url}/mcp`;
    const sessions: LegacySession[] = [];
    let modern: McpClient | undefined;
    try {
      for (let i = 0; i < 6; i++) sessions.push(await LegacySession.open(url, `outage-${i}`));
      modern = await modernClient(url, `outage-modern-${Date.now()}`);
      const opened: Outcome[] = [];
      const modernOutcomes: Outcome[] = [];
      const loops = [
        ...sessions.map((s) => loop(() => s.touch())),
        // New sessions all along: they need Redis to be kept.
        loop(() =>
          LegacySession.open(url, 'fresh').then(
            (s) => (opened.push('ok'), s.close()),
            (error: Error) =>
              void opened.push(/the session store failed|Service Unavailable|could not be read/.test(error.message) ? 'documented error' : `other: ${error.message}`),
          ),
        ),
        loop(() =>
          modern!.callTool('whoami').then(
            () => void modernOutcomes.push('ok'),
            (error: Error) => void modernOutcomes.push(`other: ${error.message}`),
          ),
        ),
      ];
      await sleep(500);
      const before = instances.map((i) => i.rss());
      await redis.stop();
      await sleep(OUTAGE_MS);
      const during = instances.map((i) => i.rss());
      const openedDuring = opened.length;
      await redis.start();
      // Back by itself: a new session opens again, with no restart of anything but Redis.
      await eventually('a new session opens again', () => opened.slice(openedDuring).includes('ok'), 30_000);
      await sleep(500);
      await Promise.all(loops.map((l) => l.stop()));

      const calls = tally([...sessions.flatMap((s) => s.outcomes), ...opened, ...modernOutcomes]);
      expect(calls.other).toEqual([]);
      // Sessions were refused while Redis was away, and opened before and after.
      expect(opened.filter((o) => o === 'documented error').length).toBeGreaterThan(0);
      expect(opened.filter((o) => o === 'ok').length).toBeGreaterThan(1);
      for (const [i, instance] of instances.entries()) {
        expect(instance.running).toBe(true);
        expect(during[i] - before[i]).toBeLessThan(MEMORY_BOUND);
      }
      // The sessions held in memory went on being served throughout.
      for (const s of sessions) expect(await s.call('whoami')).toBe('ok');
      process.stdout.write(
        `outage: ${JSON.stringify({ calls, opened: tally(opened), rssBeforeMB: before.map((b) => +(b / 2 ** 20).toFixed(1)), rssDuringMB: during.map((d) => +(d / 2 ** 20).toFixed(1)), logged: instances.flatMap((i) => i.logged) })}\n`,
      );
    } finally {
      await Promise.allSettled([...sessions.map((s) => s.close()), modern?.close()]);
    }
  }, 120_000);
});
