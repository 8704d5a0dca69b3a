/**
 * The Redis sections' helpers: a redis-server of the run's own (nothing saved, loopback, a free
 * port), commands to it over a plain socket, and its counters, read with `INFO stats` before and
 * after each run — commands processed and bytes in and out, so a row can say what one call costs
 * Redis (the sizing reads `INFO memory` and `MEMORY USAGE` the same way).
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

/** A RESP reply: a status or bulk string, an integer, null, or an array of replies. */
export type Resp = string | number | null | Resp[];

/** Reads one RESP reply from `text` at `at`: the reply and where the next one starts, or undefined when it has not all arrived. */
function parseResp(text: Buffer, at: number): { value: Resp; next: number } | undefined {
  const eol = text.indexOf('\r\n', at);
  if (eol === -1) return undefined;
  const type = String.fromCharCode(text[at]);
  const head = text.toString('utf8', at + 1, eol);
  if (type === '+') return { value: head, next: eol + 2 };
  if (type === '-') throw new Error(`Redis: ${head}`);
  if (type === ':') return { value: Number(head), next: eol + 2 };
  const length = Number(head);
  if (type === '$') {
    if (length < 0) return { value: null, next: eol + 2 };
    if (text.length < eol + 2 + length + 2) return undefined;
    return { value: text.toString('utf8', eol + 2, eol + 2 + length), next: eol + 2 + length + 2 };
  }
  if (type === '*') {
    if (length < 0) return { value: null, next: eol + 2 };
    const items: Resp[] = [];
    let next = eol + 2;
    for (let i = 0; i < length; i++) {
      const item = parseResp(text, next);
      if (!item) return undefined;
      items.push(item.value);
      next = item.next;
    }
    return { value: items, next };
  }
  throw new Error(`unexpected RESP type ${type}`);
}

/** Sends one command (its words, none with spaces) and resolves with the reply. */
export function ask(port: number, command: string): Promise<Resp> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = Buffer.alloc(0);
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      try {
        const parsed = parseResp(reply, 0);
        if (!parsed) return;
        socket.destroy();
        resolve(parsed.value);
      } catch (error) {
        socket.destroy();
        reject(error);
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
    if ((await ask(port, 'PING').catch(() => '')) === 'PONG') break;
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
  const info = String(await ask(redis.port, 'INFO stats'));
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { commands: field('total_commands_processed'), bytesIn: field('total_net_input_bytes'), bytesOut: field('total_net_output_bytes') };
}
