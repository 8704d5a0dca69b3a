/**
 * The Redis section's helpers: a redis-server of the run's own (nothing saved, loopback, a free
 * port) and its counters, read with `INFO stats` over a plain socket before and after each run —
 * commands processed and bytes in and out, so a row can say what one call costs Redis.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** A redis-server started for the run. */
export interface BenchRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Redis's counters at one moment. */
export interface RedisCounters {
  commands: number;
  bytesIn: number;
  bytesOut: number;
}

/** True when `redis-server` is on PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Sends one inline command and resolves with the raw reply (enough for PING and INFO). */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      // A simple string, or a bulk string once all of it arrived.
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      if (reply.startsWith('+') || reply.startsWith('-') || (bulk && Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2)) {
        socket.destroy();
        resolve(reply);
      }
    });
  });
}

/** Starts redis-server on a free loopback port and waits until it answers. */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if ((await ask(port, 'PING').catch(() => '')).startsWith('+PONG')) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Redis's command and byte counters now. */
export async function countersOf(redis: BenchRedis): Promise<RedisCounters> {
  const info = await ask(redis.port, 'INFO stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { commands: field('total_commands_processed'), bytesIn: field('total_net_input_bytes'), bytesOut: field('total_net_output_bytes') };
}
