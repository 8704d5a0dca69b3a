/**
 * The bench's child processes: each server runs in its own Node process, is tracked from spawn to
 * exit, and is stopped when the run ends — normally, on an error, or on Ctrl+C. Servers also end by
 * themselves when the runner disappears (IPC channel or stdin closed), so none outlive it.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import type { ReadyMessage } from './servers/lifeline';

const SERVERS = join(__dirname, 'servers');
const STDERR_TAIL = 4096;
const READY_TIMEOUT_MS = 30_000;

/** How to start a server process. */
export interface StartOptions {
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Extra Node flags (`--expose-gc`, `--cpu-prof` …). */
  nodeFlags?: string[];
}

/** A running server process. */
export interface ServerProcess {
  readonly name: string;
  readonly process: ChildProcess;
  /** The end of what it wrote to stderr (for error messages). */
  stderr(): string;
}

/** A running HTTP server process, once it listens. */
export interface HttpServerProcess extends ServerProcess {
  readonly url: string;
  readonly timings?: Record<string, number>;
  /** Milliseconds from spawn to the ready message. */
  readonly startMs: number;
}

const running = new Set<ChildProcess>();
let profileDir: string | undefined;

/** Every server started from now on runs with `--cpu-prof`, writing `<name>.cpuprofile` into `dir`. */
export function profileInto(dir: string): void {
  profileDir = dir;
}

function flagsFor(name: string, options: StartOptions): string[] {
  const flags = [...(options.nodeFlags ?? [])];
  if (profileDir) flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name.replace(/[^\w.-]+/g, '-')}.cpuprofile`);
  return flags;
}

/** The core every server runs on, once {@link pinCores} pinned the runner to another. */
let serverCore: string | undefined;

/**
 * With two cores or more and Linux's `taskset`: the runner (the load generator) and its threads on
 * core 1, every server started from now on on core 0 — a server's CPU per call is then its own, not
 * what it costs while fighting the load generator for a core (unpinned, the same Hermes server read
 * 94 µs per call where pinned it read 62, the bare route 40 and 38). Says what it did.
 */
export function pinCores(): string {
  if (os.cpus().length < 2) return 'not pinned (one core)';
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  if (pinned.status !== 0) return 'not pinned (no taskset)';
  serverCore = '0';
  return 'servers pinned to core 0, the runner to core 1';
}

/**
 * The command and arguments that run `command args` on the servers' core once {@link pinCores}
 * pinned the runner, else as they are. taskset execs the command in place: the child's pid is the
 * server's.
 */
export function onServerCore(command: string, args: string[]): [string, string[]] {
  return serverCore === undefined ? [command, args] : ['taskset', ['-c', serverCore, command, ...args]];
}

function launch(name: string, file: string, options: StartOptions, stdio: 'http' | 'stdio'): ServerProcess {
  const [command, args] = onServerCore(process.execPath, [...flagsFor(name, options), join(SERVERS, file)]);
  const child = spawn(command, args, {
    stdio: stdio === 'http' ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let tail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL);
  });
  return { name, process: child, stderr: () => tail };
}

/** Starts an HTTP server file and waits until it listens on 127.0.0.1. */
export function startHttp(name: string, file: string, options: StartOptions = {}): Promise<HttpServerProcess> {
  const started = performance.now();
  const server = launch(name, file, options, 'http');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${READY_TIMEOUT_MS} ms\n${server.stderr()}`)), READY_TIMEOUT_MS);
    server.process.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening (${signal ?? code})\n${server.stderr()}`));
    });
    server.process.once('message', (message: ReadyMessage) => {
      clearTimeout(timer);
      resolve({ ...server, url: `http://127.0.0.1:${message.port}/mcp`, timings: message.timings, startMs: performance.now() - started });
    });
  });
}

/** Starts a stdio server file; its stdin/stdout are the protocol. */
export function startStdio(name: string, file: string, options: StartOptions = {}): ServerProcess {
  return launch(name, file, options, 'stdio');
}

/** Stops one server: SIGTERM (so profiles are written), SIGKILL after 5 s. */
export function stop(server: ServerProcess): Promise<void> {
  const child = server.process;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every server still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stop({ name: '', process: child, stderr: () => '' })));
}

/** Makes sure no server outlives the runner, whatever way it ends. */
export function stopAllOnExit(): void {
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the servers\n`);
      void stopAll().finally(() => process.exit(130));
    });
  }
}
