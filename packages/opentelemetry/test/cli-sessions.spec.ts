/**
 * The session rows of `hermes-mcp` CLI clients, as an outside harness meets them: the built CLI in
 * a process of its own, the instrumentation preloaded into it on the SDK's meter provider
 * (test-support/fixtures/src/otel-session-rows.ts prints the rows when it exits), against a
 * Fastify server on 127.0.0.1 over Streamable HTTP, HTTP+SSE and WebSocket. A legacy session has
 * one `mcp.client.session.duration` row naming its transport (`network.transport`,
 * `network.protocol.name`, `network.protocol.version` on HTTP) and the server's address; a
 * 2026-07-28 exchange, a server that cannot be reached and one that refuses the CLI (401) have none.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { HttpError, McpServer, Tool } from '@hermes-mcp/core';
import { Serving, serveOn } from '../../../test-support/adapters';
import { freePort } from '../../../test-support/redis/redis-server';

@McpServer({ name: 'cli-sessions', version: '1.0.0' })
class GreetingServer {
  @Tool({ description: 'Says hello' }) hello() {
    return 'hello';
  }
}

const root = path.join(__dirname, '..', '..', '..');
const cli = path.join(root, 'packages', 'client', 'dist', 'cli.js');
const preload = path.join(root, 'test-support', 'fixtures', 'dist', 'otel-session-rows.js');

interface Row {
  attributes: Record<string, unknown>;
  count: number;
}

/** Runs the CLI with the instrumentation preloaded; its exit code and the session rows it printed. */
function cliRows(...args: string[]): Promise<{ code: number | null; client: Row[]; server: Row[]; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, ['--require', preload, cli, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 }, (error, _stdout, stderr) => {
      const line = stderr.split('\n').find((l) => l.startsWith('{"sessionRows"'));
      const rows = line ? (JSON.parse(line) as { sessionRows: { client: Row[]; server: Row[] } }).sessionRows : { client: [], server: [] };
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
        stderr,
        ...rows,
        ...(line === undefined && { client: [{ attributes: { missing: stderr }, count: 0 }] }),
      });
    }),
  );
}

let serving: Serving;
let refusing: Serving;
beforeAll(async () => {
  [serving, refusing] = await Promise.all([
    serveOn('fastify', GreetingServer),
    serveOn('fastify', GreetingServer, () => ({
      authenticate: () => {
        throw new HttpError(401, 'Unauthorized: no token', { 'www-authenticate': 'Bearer realm="mcp"' });
      },
    })),
  ]);
});
afterAll(() => Promise.all([serving?.close(), refusing?.close()]));

/** The row of one legacy session of the CLI, over HTTP or WebSocket. */
function row(port: number, protocol: 'http' | 'websocket'): Row {
  return {
    attributes: {
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': protocol,
      ...(protocol === 'http' && { 'network.protocol.version': '1.1' }),
      'server.address': '127.0.0.1',
      'server.port': port,
    },
    count: 1,
  };
}

it.each([
  ['Streamable HTTP', [], 'http'],
  ['HTTP+SSE', ['--sse'], 'http'],
  ['WebSocket', [], 'websocket'],
] as const)('%s: a legacy session has one row naming its transport, a tool call or a failing one alike', async (name, flags, protocol) => {
  const url = name === 'HTTP+SSE' ? `${serving.url}/sse` : name === 'WebSocket' ? `${serving.url.replace('http:', 'ws:')}/ws` : serving.url;
  for (const command of [
    ['call', 'hello'],
    ['call', 'missing'],
  ]) {
    const run = await cliRows(...command, '--url', url, ...flags, '--protocol', '2025-11-25');
    expect(run.code).toBe(command[1] === 'hello' ? 0 : 1);
    expect(run.client).toEqual([row(serving.port, protocol)]);
  }
});

it('no row for a 2026-07-28 exchange (no session), an unreachable server, or a server that refuses the CLI', async () => {
  const closed = await freePort();
  for (const [args, code] of [
    [['call', 'hello', '--url', serving.url], 0],
    [['call', 'hello', '--url', serving.url, '--protocol', '2026-07-28'], 0],
    [['call', 'hello', '--url', `http://127.0.0.1:${closed}/mcp`, '--protocol', '2025-11-25'], 1],
    [['call', 'hello', '--url', `ws://127.0.0.1:${closed}/mcp/ws`, '--protocol', '2025-11-25'], 1],
    [['call', 'hello', '--url', refusing.url, '--protocol', '2025-11-25'], 1],
    [['call', 'hello', '--url', `${refusing.url}/sse`, '--sse', '--protocol', '2025-11-25'], 1],
  ] as const) {
    const run = await cliRows(...args);
    expect([args, run.code, run.client]).toEqual([args, code, []]);
  }
});
