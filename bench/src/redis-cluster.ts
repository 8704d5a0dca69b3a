/**
 * `npm run bench -- --only redis-cluster`: what @hermes-mcp/redis's stores cost on one Redis node
 * against a Redis Cluster (3 masters, 3 replicas, all on this machine), and with
 * `durability: { replicas: 1 }` (a `WAIT` behind each write). Two `redisCluster()` instances in
 * the runner's process drive the stores directly, 64 operations in flight:
 *
 * - `initialize`: a session record kept (`sessionStore.create`) and its bus channel joined;
 * - `event`: one SSE event stored (`eventStore.append`), what a streamed notification costs;
 * - `task`: a task started, read by the other instance, completed (create, get, update);
 * - `initialize, node-redis alone`: the floor of `initialize` — node-redis itself sending the two
 *   commands a new session needs (`SET … PX`, then `SUBSCRIBE`, or `SSUBSCRIBE` on a cluster), no
 *   Hermes code: how much of the cluster's cost per new session is the client's and the nodes'.
 *
 * Over HTTP, one Hermes instance (`hermes-http.server.ts`) on the Redis at 10 connections: a
 * `tools/call` of a session it holds, and `initialize` (a new session per request); beside it the
 * floor of that `initialize`, `bare-redis.server.ts` (node-redis alone behind a bare Fastify
 * route, the same Redis work per new session): how much of what a cluster costs per new session is
 * Hermes's and how much any server on this machine pays.
 *
 * Commands per operation are `total_commands_processed` summed over the masters (replicas replay
 * the same writes; not counted). Memory per session is `used_memory` summed over the masters,
 * before and after 10,000 sessions each with its record, its joined bus channel and ten events of
 * ~100 bytes on one stream. Rows only in the log (not in docs/performance.md): the docs quote them
 * (docs/scaling.md, "Redis Cluster, Sentinel, TLS"). The nodes run on the servers' core, the
 * runner on its own (as the other sections): with 2 cores, the six nodes of the cluster share one.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient, createCluster } from 'redis';
import { RedisCluster, redisCluster } from '@hermes-mcp/redis';
import { onServerCore, startHttp, stop } from './children';
import { load } from './http-load';
import { LEGACY_VERSION, PLAIN_HEADERS, RequestTemplate, addCall, checkAnswer, openSession } from './mcp';
import { ask } from './redis';
import { BareSessions, bareSessions } from './servers/bare-sessions';
import { median } from './stats';

interface Target {
  label: string;
  /** Ports of the nodes whose counters count (the masters). */
  masters: number[];
  connect(): Promise<RedisCluster>;
  /** node-redis alone on this Redis: what a new session's two commands cost without Hermes (the floor row). */
  bare(): Promise<BareSessions>;
  /** The environment that makes `hermes-http.server.ts` an instance on this Redis. */
  serverEnv: Record<string, string>;
  stop(): Promise<void>;
}

const quiet = { warn: () => undefined };
const IN_FLIGHT = 64;
const SESSIONS = 10_000;
const EVENT = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'status://some/resource/0001' } } as const;

async function freePorts(count: number): Promise<number[]> {
  const { createServer } = await import('node:net');
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    if (port < 55_000) ports.add(port);
  }
  return [...ports];
}

async function startNodes(ports: number[], dir: string, extra: (port: number) => string[]): Promise<ChildProcess[]> {
  // On the servers' core (children.ts), as every server of the bench: the runner keeps its own.
  const children = ports.map((port) => {
    const [command, args] = onServerCore('redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'warning',
      '--dir',
      dir,
      '--repl-diskless-sync-delay',
      '0',
      ...extra(port),
    ]);
    return spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  });
  for (const port of ports) {
    const deadline = Date.now() + 10_000;
    while ((await ask(port, 'PING').catch(() => '')) !== 'PONG') {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return children;
}

const stopAll = async (children: ChildProcess[], dir: string) => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
};

async function oneNode(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const [port] = await freePorts(1);
  const children = await startNodes([port], dir, () => []);
  return {
    label: 'one node',
    masters: [port],
    connect: () => redisCluster({ client: createClient({ url: `redis://127.0.0.1:${port}`, disableOfflineQueue: true }), logger: quiet }),
    bare: () => bareSessions(`redis://127.0.0.1:${port}`, false),
    serverEnv: { HERMES_BENCH_REDIS: `redis://127.0.0.1:${port}` },
    stop: () => stopAll(children, dir),
  };
}

async function cluster(durable: boolean): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-cluster-'));
  const ports = await freePorts(6);
  const children = await startNodes(ports, dir, (port) => ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000']);
  execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { stdio: 'ignore' });
  const masters = async () => {
    const nodes = String(await ask(ports[0], 'CLUSTER NODES'));
    return nodes
      .split('\n')
      .filter((l) => l.includes('master') && !l.includes('fail'))
      .map((l) => Number(l.split(' ')[1].split(':')[1].split('@')[0]));
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = (await Promise.all(ports.map(async (p) => String(await ask(p, 'CLUSTER INFO')).includes('cluster_state:ok')))).every(Boolean);
    const synced = (await Promise.all(ports.map(async (p) => String(await ask(p, 'INFO replication'))))).every(
      (i) => !i.includes('role:slave') || i.includes('master_link_status:up'),
    );
    if (ok && synced && (await masters()).length === 3) break;
    if (Date.now() > deadline) throw new Error('the bench cluster did not come up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    label: durable ? 'cluster, durability { replicas: 1 }' : 'cluster (3 masters)',
    masters: await masters(),
    connect: () =>
      redisCluster({
        client: createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${ports[0]}` }], defaults: { disableOfflineQueue: true } }),
        logger: quiet,
        ...(durable && { durability: { replicas: 1 } }),
      }),
    bare: () => bareSessions(`redis://127.0.0.1:${ports[0]}`, true),
    serverEnv: { HERMES_BENCH_REDIS_CLUSTER: `redis://127.0.0.1:${ports[0]}`, ...(durable && { HERMES_BENCH_REDIS_REPLICAS: '1' }) },
    stop: () => stopAll(children, dir),
  };
}

async function sum(ports: number[], section: string, field: string): Promise<number> {
  let total = 0;
  for (const port of ports) total += Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(String(await ask(port, `INFO ${section}`)))?.[1] ?? NaN);
  return total;
}

/** Runs `op` with IN_FLIGHT in flight for `seconds`; operations per second and commands per operation. */
async function measure(target: Target, seconds: number, op: (n: number) => Promise<unknown>): Promise<{ perSecond: number; commands: number; cpuUs: number }> {
  const before = await sum(target.masters, 'stats', 'total_commands_processed');
  const cpu = process.cpuUsage();
  let n = 0;
  let done = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        await op(n++);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const after = await sum(target.masters, 'stats', 'total_commands_processed');
  // The INFO calls themselves: one per master, twice.
  return { perSecond: done / elapsed, commands: (after - before - target.masters.length) / done, cpuUs: (used.user + used.system) / done };
}

/** The `initialize` of a new 2025-11-25 session, for autocannon (its id placeholder). */
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: '[<id>]',
  method: 'initialize',
  params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
});

/**
 * The HTTP workloads: what one Hermes instance serves with its sessions in this Redis, and the
 * floor of a new session (`bare-redis.server.ts`: node-redis alone behind a bare Fastify route).
 */
const HTTP_WORKLOADS = ['tools/call', 'initialize', 'initialize floor'] as const;
type HttpWorkload = (typeof HTTP_WORKLOADS)[number];

/** One HTTP row: calls per second, the server's CPU per call, Redis commands per call (medians). */
interface HttpRow {
  perSecond: number;
  cpuUs: number;
  commands: number;
}

/**
 * One Hermes instance (`hermes-http.server.ts`, on the servers' core) on `target`, loaded over
 * HTTP at 10 connections: the legacy `tools/call` of a session it holds, and `initialize` (a new
 * session per request: its record kept, its bus channel joined); and the same `initialize` to the
 * bare floor server on the same Redis. The workloads take turns within each round.
 */
async function httpRows(target: Target, rounds: number, seconds: number): Promise<Record<HttpWorkload, HttpRow>> {
  const server = await startHttp('redis-cluster-http', 'hermes-http.server.js', { env: target.serverEnv });
  const floor = await startHttp('redis-cluster-floor', 'bare-redis.server.js', { env: target.serverEnv }).catch(async (error: unknown) => {
    await stop(server);
    throw error;
  });
  try {
    const workloads: Record<HttpWorkload, { url: string; pid?: number; template: RequestTemplate }> = {
      'tools/call': { url: server.url, pid: server.process.pid, template: { headers: await openSession(server.url), body: addCall() } },
      initialize: { url: server.url, pid: server.process.pid, template: { headers: PLAIN_HEADERS, body: INITIALIZE } },
      'initialize floor': { url: floor.url, pid: floor.process.pid, template: { headers: PLAIN_HEADERS, body: INITIALIZE } },
    };
    await checkAnswer(server.url, workloads['tools/call'].template, { framing: 'json' }, '5');
    const runs = Object.fromEntries(HTTP_WORKLOADS.map((w) => [w, [] as HttpRow[]])) as Record<HttpWorkload, HttpRow[]>;
    for (const { url, template } of Object.values(workloads)) await load(url, template, 10, { seconds: Math.min(1, seconds) });
    for (let round = 0; round < rounds; round++) {
      for (const workload of HTTP_WORKLOADS) {
        const { url, pid, template } = workloads[workload];
        const before = await sum(target.masters, 'stats', 'total_commands_processed');
        const run = await load(url, template, 10, { seconds }, pid);
        const after = await sum(target.masters, 'stats', 'total_commands_processed');
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${target.label} ${workload}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
        runs[workload].push({ perSecond: run.rps, cpuUs: run.cpuUs ?? NaN, commands: (after - before - target.masters.length) / run.total });
      }
    }
    const rows = {} as Record<HttpWorkload, HttpRow>;
    for (const workload of HTTP_WORKLOADS) {
      const own = runs[workload];
      rows[workload] = { perSecond: median(own.map((r) => r.perSecond)), cpuUs: median(own.map((r) => r.cpuUs)), commands: median(own.map((r) => r.commands)) };
    }
    return rows;
  } finally {
    await Promise.all([stop(server), stop(floor)]);
  }
}

/** One row per target and workload, the median of `rounds`; memory per session once per target. */
export async function benchRedisCluster(rounds: number, seconds: number, log: (line: string) => void): Promise<void> {
  log('\n== Redis Cluster: the stores on one node, a 3-master cluster, and with WAIT for a replica ==');
  /** The one node's HTTP rows, which the cluster's are measured against. */
  let oneNodeHttp: Record<string, HttpRow> | undefined;
  /** The one node's store-level operations per second, likewise. */
  const oneNodeOps: Record<string, { perSecond: number; cpuUs: number }> = {};
  for (const make of [oneNode, () => cluster(false), () => cluster(true)]) {
    const target = await make();
    const [a, b] = [await target.connect(), await target.connect()];
    try {
      const http = await httpRows(target, rounds, seconds);
      oneNodeHttp ??= http;
      if (http !== oneNodeHttp) {
        // A new session on a cluster against one node, Hermes's and the floor's; the target proposed: Hermes ≥ 0.9 × the floor's ratio.
        const own = http.initialize.perSecond / oneNodeHttp.initialize.perSecond;
        const floor = http['initialize floor'].perSecond / oneNodeHttp['initialize floor'].perSecond;
        log(
          `${target.label.padEnd(38)} HTTP initialize: ${own.toFixed(2)} × one node, the floor ${floor.toFixed(2)} ×: Hermes keeps ${(own / floor).toFixed(2)} of what the floor keeps (target ≥ 0.9)`,
        );
      }
      for (const workload of HTTP_WORKLOADS) {
        const row = http[workload];
        const ratio = row.perSecond / oneNodeHttp[workload].perSecond;
        log(
          `${target.label.padEnd(38)} HTTP ${workload.padEnd(16)} ${row.perSecond.toFixed(0).padStart(7)} calls/s  ${row.cpuUs.toFixed(1)} µs server CPU/call  ` +
            `${(row.commands * 1000).toFixed(1)} Redis commands/1,000 calls  ${ratio.toFixed(2)} × one node${workload === 'initialize floor' ? ' (the floor: node-redis alone behind a bare route)' : ' (target ≥ 0.9 × on a cluster)'}`,
        );
      }
      const record = (id: string) => ({ id, protocolVersion: '2025-11-25', clientInfo: { name: 'bench', version: '1' }, clientCapabilities: { elicitation: {} } });
      const now = new Date().toISOString();
      const workloads: Record<string, (n: number, round: number) => Promise<unknown>> = {
        initialize: async (n, round) => {
          const id = `init-${round}-${n}`;
          await a.sessionStore.create(record(id), 60_000);
          await a.bus.join(id, () => undefined);
        },
        event: (n, round) => a.eventStore(`ev-${round}-${n % 500}`).append('get.x', Math.floor(n / 500) + 1, EVENT, `k.${n}`),
        task: async (n, round) => {
          const task = { taskId: `t-${round}-${n}`, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 100 } as const;
          await a.taskStore.create(task);
          await b.taskStore.get(task.taskId);
          await a.taskStore.update({ ...task, status: 'completed' });
        },
      };
      // The floor of `initialize`: node-redis alone sending the same two commands, no Hermes code.
      const bare = await target.bare();
      workloads['initialize, node-redis alone'] = (n, round) => {
        const id = `bare-${round}-${n}`;
        return bare.keep(id, JSON.stringify(record(id)));
      };
      try {
        for (const [name, op] of Object.entries(workloads)) {
          const runs: Array<{ perSecond: number; commands: number; cpuUs: number }> = [];
          for (let round = 0; round < rounds; round++) runs.push(await measure(target, seconds, (n) => op(n, round)));
          const perSecond = median(runs.map((r) => r.perSecond));
          const cpuUs = median(runs.map((r) => r.cpuUs));
          oneNodeOps[name] ??= { perSecond, cpuUs };
          log(
            `${target.label.padEnd(38)} ${name.padEnd(28)} ${perSecond.toFixed(0).padStart(7)} ops/s  ${cpuUs.toFixed(1)} µs client CPU/op  ` +
              `${median(runs.map((r) => r.commands)).toFixed(2)} Redis commands/op  ${(perSecond / oneNodeOps[name].perSecond).toFixed(2)} × one node`,
          );
        }
      } finally {
        await bare.close();
      }
      // Memory per session: FLUSHALL first (the workloads' keys), then 10,000 sessions.
      for (const port of target.masters) await ask(port, 'FLUSHALL');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = await sum(target.masters, 'memory', 'used_memory');
      for (let i = 0; i < SESSIONS; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, async (_, k) => {
            const id = `mem-${i + k}`;
            await a.sessionStore.create(record(id), 600_000);
            await a.bus.join(id, () => undefined);
            for (let seq = 1; seq <= 10; seq++) await a.eventStore(id).append('get.x', seq, EVENT, `k.${seq}`);
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await sum(target.masters, 'memory', 'used_memory');
      log(`${target.label.padEnd(38)} memory     ${((after - before) / SESSIONS).toFixed(0).padStart(7)} B per session (record, bus channel, 10 events), summed over the masters`);
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await Promise.allSettled([a.client.close(), b.client.close()]);
      await target.stop();
    }
  }
}
