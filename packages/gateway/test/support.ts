/**
 * What the gateway's suites share: `hermes-mcp proxy` started as a process (the built CLI of
 * @hermes-mcp/client, which loads the built gateway), its endpoint URLs read from what it prints,
 * and the processes it spawned (its children), to kill an upstream mid-call. Needs the build
 * (`npx tsc -b`), which `npm test` runs first.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { McpApp, createWebHandler, toNodeListener } from '@hermes-mcp/core';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(REPO_ROOT, 'packages/client/dist/cli.js');
/** The everything example on stdio (25 catalog resources in pages of 10, every feature a tool). */
export const EVERYTHING = [process.execPath, path.join(REPO_ROOT, 'examples/everything/dist/main.js')];

/** A running `hermes-mcp proxy`. */
export interface RunningProxy {
  child: ChildProcess;
  /** The endpoint URLs it printed, in order. */
  urls: string[];
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `hermes-mcp proxy <args>` and waits until it printed `count` endpoint URLs. */
export function startProxy(args: string[], count = 1, env: NodeJS.ProcessEnv = {}): Promise<RunningProxy> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString();
      const urls = [...stderr.matchAll(/served at (http:\/\/\S+)/g)].map((m) => m[1]);
      if (urls.length >= count) {
        child.stderr.off('data', onData);
        child.stderr.on('data', (more: Buffer) => (stderr += more.toString()));
        resolve({ child, urls, stderr: () => stderr, stop });
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`hermes-mcp proxy exited (${signal ?? code}) before serving:\n${stderr}\n${stdout}`)));
  });
}

/** The pids of the processes whose parent is `pid` (Linux: /proc), oldest first. */
export function childrenOf(pid: number): number[] {
  const found: { pid: number; start: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid … starttime is field 22; comm may hold spaces, so split after ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) found.push({ pid: Number(entry), start: Number(fields[19]) });
    } catch {
      // gone meanwhile
    }
  }
  return found.sort((a, b) => a.start - b.start || a.pid - b.pid).map((child) => child.pid);
}

/** The text of a result holding one text block. */
export function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text?: string }> }).content;
  expect(content).toHaveLength(1);
  return content[0].text!;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: unknown; data?: unknown }> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error & { code?: unknown; data?: unknown };
}

/**
 * `hermes-mcp proxy --http 0 -- <the everything example>` for the spec that calls this: started
 * before its tests, stopped after them. Read `proxy` and `url` inside the tests.
 */
export function everythingProxy(): { readonly proxy: RunningProxy; readonly url: URL } {
  const running: { proxy?: RunningProxy; url?: URL } = {};
  beforeAll(async () => {
    running.proxy = await startProxy(['--http', '0', '--', ...EVERYTHING]);
    running.url = new URL(running.proxy.urls[0]);
  });
  afterAll(async () => {
    await running.proxy?.stop();
  });
  return {
    get proxy() {
      return running.proxy!;
    },
    get url() {
      return running.url!;
    },
  };
}

/** Listens on a free loopback port; resolves with the origin, `http://127.0.0.1:<port>`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` (when there is one) and the connections it still holds. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Serves `app` over Streamable HTTP (core's Web handler under node:http) on loopback: the server and its /mcp URL. */
export async function serveApp(app: McpApp): Promise<{ server: Server; url: URL }> {
  const server = createServer(toNodeListener(createWebHandler(app)));
  return { server, url: new URL(`${await listen(server)}/mcp`) };
}
