/**
 * Real Redis topologies for tests, on loopback, in a temp dir of their own, torn down by the test:
 * a 6-node Redis Cluster (3 masters, 3 replicas: `redis-server --cluster-enabled yes` ×6 and
 * `redis-cli --cluster create … --cluster-replicas 1`), and a Sentinel setup (1 primary, 1 replica,
 * 3 sentinels: `redis-server --sentinel`). Nodes can be killed (SIGKILL, as in a crash) to watch a
 * failover. Needs `redis-server` and `redis-cli` on PATH (Debian: `apt-get install redis-server`).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server';

const run = promisify(execFile);

/** One redis-server (or sentinel) process of a topology. */
export interface RedisNode {
  readonly port: number;
  /** `redis://127.0.0.1:{port}` (`rediss://` under TLS). */
  readonly url: string;
  /** True until killed. */
  readonly alive: boolean;
  /** SIGKILL: the node dies at once, as in a crash. */
  kill(): Promise<void>;
}

/** Extra `redis-server` arguments (TLS, ACL) and what `redis-cli` needs to talk to such nodes. */
export interface NodeSecurity {
  /** Appended to every node's command line. */
  serverArgs(port: number): string[];
  /** Given to every `redis-cli` call. */
  cliArgs: string[];
  /** `redis` or `rediss`. */
  scheme: 'redis' | 'rediss';
}

const NONE: NodeSecurity = { serverArgs: () => [], cliArgs: [], scheme: 'redis' };

/** Starts one process; resolves once `redis-cli ping` answers on its port. */
async function startNode(args: string[], port: number, dir: string, security: NodeSecurity, binary = 'redis-server'): Promise<RedisNode> {
  const child: ChildProcess = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const failed = new Promise<never>((_, reject) => child.once('error', (error) => reject(new Error(`could not start ${binary}: ${error.message}`))));
  await Promise.race([waitFor(`node ${port} answers`, async () => (await cli(port, security, 'PING')) === 'PONG'), failed]);
  let alive = true;
  return {
    port,
    url: `${security.scheme}://127.0.0.1:${port}`,
    get alive() {
      return alive;
    },
    kill: async () => {
      if (!alive) return;
      alive = false;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `redis-cli -p port …args`, its output trimmed (empty when the node does not answer). */
export async function cli(port: number, security: NodeSecurity, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...security.cliArgs, ...args], { timeout: 5_000 });
    return stdout.trim();
  } catch {
    return '';
  }
}

/** Polls `check` every 100 ms until it holds, or rejects after `timeoutMs`. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// A replica's first sync starts at once (Redis 7 waits 5 s by default to batch replicas): a master
// killed before its replica ever synced cannot be replaced (the replica's data is too old to take over).
const COMMON = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--loglevel', 'warning', '--repl-diskless-sync-delay', '0'];

/** A 6-node Redis Cluster of a test. */
export interface RedisClusterNodes {
  readonly nodes: readonly RedisNode[];
  /** The nodes to give `createCluster` as `rootNodes`. */
  readonly rootNodes: Array<{ url: string }>;
  /** The node that is master of `slot` now (asked of a live node). */
  masterOf(slot: number): Promise<RedisNode>;
  /** Resolves once every live node says `cluster_state:ok` and every slot has a live master. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Kills every node and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * Starts a Redis Cluster of 3 masters and 3 replicas on free loopback ports. `cluster-node-timeout`
 * is 1 s, so a killed master is replaced by its replica within a few seconds.
 */
export async function startRedisCluster(security: NodeSecurity = NONE): Promise<RedisClusterNodes> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-redis-cluster-'));
  const ports = await uniquePorts(6);
  const nodes = await Promise.all(
    ports.map((port) =>
      startNode(
        [
          '--port',
          String(port),
          ...COMMON,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '1000',
          '--dir',
          dir,
          ...security.serverArgs(port),
        ],
        port,
        dir,
        security,
      ),
    ),
  );
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('redis-cli', [...security.cliArgs, '--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  const live = () => nodes.filter((n) => n.alive);
  /** The live masters' ports and the slot ranges they serve, as a live node sees them. */
  const masters = async (): Promise<Array<{ port: number; ranges: Array<[number, number]> }>> => {
    for (const node of live()) {
      const text = await cli(node.port, security, 'CLUSTER', 'NODES');
      if (!text) continue;
      return text
        .split('\n')
        .map((line) => line.split(' '))
        .filter((f) => f[2].includes('master') && !f[2].includes('fail'))
        .map((f) => ({
          port: Number(f[1].split(':')[1].split('@')[0]),
          ranges: f
            .slice(8)
            .filter((r) => /^\d/.test(r))
            .map((r) => r.split('-').map(Number) as [number, number])
            .map(([a, b]) => [a, b ?? a] as [number, number]),
        }));
    }
    return [];
  };
  const waitUntilOk = (timeoutMs = 30_000) =>
    waitFor(
      'the cluster is ok',
      async () => {
        for (const node of live()) if (!(await cli(node.port, security, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        const served = (await masters()).filter((m) => nodes.find((n) => n.port === m.port)?.alive).reduce((sum, m) => sum + m.ranges.reduce((s, [a, b]) => s + b - a + 1, 0), 0);
        return served === 16384;
      },
      timeoutMs,
    );
  try {
    await waitUntilOk();
    await waitFor('every replica is in sync with its master', async () => {
      for (const node of nodes) {
        const info = await cli(node.port, security, 'INFO', 'replication');
        if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
      }
      return true;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    rootNodes: nodes.slice(0, 3).map((n) => ({ url: n.url })),
    async masterOf(slot) {
      const master = (await masters()).find((m) => m.ranges.some(([a, b]) => slot >= a && slot <= b));
      const node = nodes.find((n) => n.port === master?.port);
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    waitUntilOk,
    stop,
  };
}

/** A Sentinel setup of a test: a primary, its replica, three sentinels. */
export interface RedisSentinelNodes {
  /** What `createSentinel` needs: the master's name and the sentinels. */
  readonly name: string;
  readonly sentinelRootNodes: Array<{ host: string; port: number }>;
  readonly data: readonly RedisNode[];
  readonly sentinels: readonly RedisNode[];
  /** The data node that is primary now, as the sentinels say. */
  primary(): Promise<RedisNode>;
  /** Resolves once the sentinels name a live primary other than `not`, and it says it is a master. */
  waitForPrimary(not?: RedisNode, timeoutMs?: number): Promise<RedisNode>;
  stop(): Promise<void>;
}

/** Starts a primary, a replica of it, and three sentinels watching it (`down-after-milliseconds` 1000, quorum 2). */
export async function startRedisSentinel(security: NodeSecurity = NONE): Promise<RedisSentinelNodes> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-redis-sentinel-'));
  const name = 'hermes';
  const [primaryPort, replicaPort, ...sentinelPorts] = await uniquePorts(5);
  const all: RedisNode[] = [];
  const stop = async () => {
    await Promise.all(all.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = await startNode(['--port', String(primaryPort), ...COMMON, '--dir', dir, ...security.serverArgs(primaryPort)], primaryPort, dir, security);
    all.push(primary);
    const replica = await startNode(
      ['--port', String(replicaPort), ...COMMON, '--dir', dir, '--replicaof', '127.0.0.1', String(primaryPort), ...security.serverArgs(replicaPort)],
      replicaPort,
      dir,
      security,
    );
    all.push(replica);
    await waitFor('the replica is in sync', async () => (await cli(replicaPort, security, 'INFO', 'replication')).includes('master_link_status:up'));
    const sentinels: RedisNode[] = [];
    for (const port of sentinelPorts) {
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'protected-mode no',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 5000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      const node = await startNode([file, '--sentinel', '--loglevel', 'warning'], port, dir, NONE);
      sentinels.push(node);
      all.push(node);
    }
    const data = [primary, replica];
    const primaryNow = async () => {
      for (const s of sentinels.filter((n) => n.alive)) {
        const [, port] = (await cli(s.port, NONE, 'SENTINEL', 'get-master-addr-by-name', name)).split('\n');
        const node = data.find((n) => n.port === Number(port));
        if (node) return node;
      }
      throw new Error('no sentinel names a primary');
    };
    // Every sentinel knows the replica and the other sentinels before the test starts.
    await waitFor('the sentinels see each other and the replica', async () => {
      for (const s of sentinels) {
        const info = await cli(s.port, NONE, 'SENTINEL', 'master', name);
        const field = (key: string) => Number(info.split('\n')[info.split('\n').indexOf(key) + 1]);
        if (field('num-slaves') < 1 || field('num-other-sentinels') < 2) return false;
      }
      return true;
    });
    return {
      name,
      sentinelRootNodes: sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
      data,
      sentinels,
      primary: primaryNow,
      async waitForPrimary(not, timeoutMs = 30_000) {
        let found: RedisNode | undefined;
        await waitFor(
          'a new primary',
          async () => {
            const node = await primaryNow().catch(() => undefined);
            if (!node || node === not || !node.alive) return false;
            found = node;
            return (await cli(node.port, security, 'INFO', 'replication')).includes('role:master');
          },
          timeoutMs,
        );
        return found!;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `count` distinct free ports (a cluster node also listens on its port + 10000: kept clear too). */
async function uniquePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = await freePort();
    if (port < 55_000) ports.add(port);
  }
  return [...ports];
}

/** One Hermes instance (test-support/redis/topology-instance.js) as its own process. */
export interface TopologyInstance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** The codes it logged (`HERMES_REDIS_UNAVAILABLE`…), in order. */
  readonly logged: string[];
  /** False once the process ended (it never should while a test runs). */
  readonly running: boolean;
  /** SIGTERM, and waits for it to end. */
  stop(): Promise<void>;
  /** Its resident memory now, in bytes (from /proc). */
  rss(): number;
}

/** Starts one instance of examples/cluster's server on the Redis `env` names (see topology-instance.js); resolves once it listens. */
export async function startTopologyInstance(name: string, env: Record<string, string>): Promise<TopologyInstance> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'topology-instance.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      INSTANCE: name,
      CURSOR_SECRET: 'cluster-test-cursor-secret-0123456789abcdef',
      REQUEST_STATE_SECRET: 'cluster-test-request-state-secret-0123456789',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const logged: string[] = [];
  let running = true;
  child.once('exit', () => (running = false));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not start: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const match of chunk.toString().matchAll(/^redis-error (\S+)$/gm)) logged.push(match[1]);
      if (out.includes('listening ')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited with ${code}: ${out}`));
    });
  });
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    logged,
    get running() {
      return running;
    },
    stop: async () => {
      if (!running) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      // An instance still holding streams open after 3 s is killed: the test must not leave it behind.
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
    rss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
  };
}

/** Starts one redis-server with `security` (TLS, an ACL file) on a free port, in a temp dir of its own. */
export async function startTlsRedis(security: NodeSecurity): Promise<RedisNode> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-redis-node-'));
  const [port] = await uniquePorts(1);
  const node = await startNode([...COMMON, '--dir', dir, ...security.serverArgs(port)], port, dir, security);
  return {
    port,
    url: node.url,
    get alive() {
      return node.alive;
    },
    kill: async () => {
      await node.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
