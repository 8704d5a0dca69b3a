/**
 * Helpers of the hardening suites: a pino logger whose lines a test reads, the hardening fixture
 * server (test-support/fixtures) spawned on stdio or HTTP, raw HTTP calls in both eras, and the
 * resident memory of a process read from /proc.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { RawStdioClient } from './raw-stdio-client';
import { SseParser } from './sse-reader';

/** The repository's root. */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** The built fixture mains (`npx tsc -b` builds them; `npm test` runs it first). */
export const FIXTURE = {
  stdio: path.join(REPO_ROOT, 'test-support/fixtures/dist/stdio.js'),
  http: path.join(REPO_ROOT, 'test-support/fixtures/dist/http.js'),
  /** The same server through the Web-standard handler on Node's HTTP server. */
  web: path.join(REPO_ROOT, 'test-support/fixtures/dist/web.js'),
};

/** The 2026-07-28 revision and the `_meta` envelope of a request that declares nothing. */
export const MODERN = '2026-07-28';
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Both kinds of Accept a Streamable HTTP POST must list. */
export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** One parsed pino line. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

/** pino's numeric levels. */
export const PINO_LEVELS: Record<string, number> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 };

/** A real pino logger at `level` whose lines land in `lines`, parsed. */
export function capturingLogger(level: string): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  let partial = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop()!;
      for (const line of parts) if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

/** Parses the pino lines a process wrote to stderr (other lines are skipped). */
export function logLinesOf(stderr: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // not a log line
    }
  }
  return out;
}

/** The hardening server on stdio, in a child process; `env` adds to the environment. */
export function spawnStdioFixture(env: Record<string, string> = {}, waitMs?: number): RawStdioClient & { pid: number } {
  if (!existsSync(FIXTURE.stdio)) throw new Error(`${FIXTURE.stdio} does not exist: build first with \`npx tsc -b\``);
  const client = new RawStdioClient({ command: process.execPath, args: [FIXTURE.stdio], cwd: REPO_ROOT, env }, waitMs);
  return client;
}

/** The hardening server mounted in Fastify, in a child process on 127.0.0.1. */
export interface HttpFixture {
  url: string;
  port: number;
  pid: number;
  child: ChildProcessWithoutNullStreams;
  /** What the process wrote to stderr so far (its logs). */
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  kill(): void;
}

/** Starts the HTTP fixture (Fastify, or `main`); resolves once it listens. */
export function spawnHttpFixture(env: Record<string, string> = {}, main: string = FIXTURE.http): Promise<HttpFixture> {
  if (!existsSync(main)) throw new Error(`${main} does not exist: build first with \`npx tsc -b\``);
  const child = spawn(process.execPath, [main], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      out += text;
      const match = /listening (\d+)/.exec(out);
      if (!match) return;
      const port = Number(match[1]);
      resolve({ url: `http://127.0.0.1:${port}/mcp`, port, pid: child.pid!, child, stderr: () => stderr, exited, kill: () => void child.kill('SIGKILL') });
    });
    void exited.then((code) => reject(new Error(`the HTTP fixture exited (${code}) before listening:\n${stderr}`)));
  });
}

/** Resident memory of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** A JSON-RPC request body. */
export function rpc(id: string | number, method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** POSTs a 2026-07-28 request (envelope and standard headers filled in). */
export function modernPost(url: string, id: string | number, method: string, params: Record<string, unknown> = {}, init: RequestInit = {}): Promise<Response> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  const meta = { ...MODERN_META, ...((params._meta as object | undefined) ?? {}) };
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(rpc(id, method, { ...params, _meta: meta })), ...init });
}

/** POSTs a message on a legacy Streamable HTTP session (no session header for an initialize). */
export function sessionPost(url: string, sessionId: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...(sessionId && { 'mcp-session-id': sessionId }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Opens a legacy Streamable HTTP session on `protocolVersion`; returns its id. */
export async function openSession(url: string, protocolVersion = '2025-11-25', capabilities: Record<string, unknown> = {}): Promise<string> {
  const response = await sessionPost(url, undefined, rpc('init', 'initialize', { protocolVersion, capabilities, clientInfo: { name: 'hardening', version: '1.0.0' } }));
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${await response.text()}`);
  const sessionId = response.headers.get('mcp-session-id');
  if (!sessionId) throw new Error('initialize answered without Mcp-Session-Id');
  await response.text();
  const initialized = await sessionPost(url, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  await initialized.text();
  return sessionId;
}

/** The JSON-RPC messages of a response: its JSON body, or the data of each SSE event. */
export async function messagesOf(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return text
      .split(/\n\n/)
      .map((event) =>
        event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n'),
      )
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data) as Record<string, unknown>);
  }
  return text === '' ? [] : [JSON.parse(text) as Record<string, unknown>];
}

/** `promise`, or a rejection saying what never happened after `ms`. */
export function bounded<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms waiting for ${what}`)), ms))),
  ]);
}

/**
 * Opens a 2024-11-05 HTTP+SSE stream on a raw socket, reads it up to its `endpoint` event, and
 * stops reading (the socket is paused): the stream, its SSE parser (for what is read later) and
 * the URL to POST messages to.
 */
export async function pausedSseStream(port: number): Promise<{ stream: Socket; parser: SseParser; messagesUrl: string }> {
  const stream = connect(port, '127.0.0.1');
  stream.on('error', () => undefined);
  stream.setEncoding('utf8');
  stream.write(`GET /mcp/sse HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/event-stream\r\n\r\n`);
  const parser = new SseParser();
  const endpoint = await bounded(
    new Promise<string>((resolve) => {
      let head = '';
      const onData = (text: string): void => {
        head += text;
        const cut = head.indexOf('\r\n\r\n');
        if (cut === -1) return;
        const event = parser.push(head.slice(cut + 4)).find((e) => e.event === 'endpoint');
        if (event) {
          stream.off('data', onData);
          stream.pause();
          resolve(event.data);
        }
      };
      stream.on('data', onData);
    }),
    'the endpoint event',
  );
  return { stream, parser, messagesUrl: `http://127.0.0.1:${port}${endpoint}` };
}
