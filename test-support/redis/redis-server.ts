/**
 * A real `redis-server` for tests: started on a free loopback port with nothing saved to disk,
 * stopped (and restarted on the same port) by the test. Needs `redis-server` on PATH (Debian:
 * `apt-get install redis-server`); jest leaves the Redis suites out when it is missing, except in CI.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';

/** A running `redis-server` of a test. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:{port}`. */
  readonly url: string;
  /** Stops it (SIGKILL: as abrupt as a crash; nothing is saved anyway). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing is answered, as a hung node. */
  pause(): void;
  /** Lets a frozen one go on (SIGCONT). */
  unpause(): void;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something answers PING on the port (or rejects after `timeoutMs`). */
async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a `redis-server` of its own on a free loopback port. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const spawned = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--loglevel', 'warning'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child = spawned;
    const failed = new Promise<never>((_, reject) => spawned.once('error', (error) => reject(new Error(`could not start redis-server: ${error.message}`))));
    await Promise.race([waitForPing(port), failed]);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start, pause: () => void child?.kill('SIGSTOP'), unpause: () => void child?.kill('SIGCONT') };
}
