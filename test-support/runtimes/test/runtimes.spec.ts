/**
 * The Web handler (`createWebHandler`) under the runtimes it promises, installed from npm as
 * devDependencies: `Bun.serve`, `Deno.serve`, and workerd (Cloudflare's Workers runtime) serving an
 * esbuild bundle. Each serves the decorated notes server (../notes.server.ts) on 127.0.0.1, driven
 * by @hermes-mcp/client in both eras: 2025-11-25 (initialize, a session, its GET stream) and
 * 2026-07-28 (stateless, `subscriptions/listen`); a resource update raised by one request reaches
 * the stream opened by another, and a client that leaves its stream leaves no error behind. Under
 * Bun and Deno the same server also speaks MCP over WebSocket through the runtime's own WebSocket
 * server, built on `@hermes-mcp/core/adapter` only (../websocket.ts, ../bun.ts, ../deno.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { build, type Plugin } from 'esbuild';
import { WebSocket } from 'ws';
import { McpClient, StreamableHttpClientTransport, WebSocketClientTransport } from '@hermes-mcp/client';
import { eventually } from '../../e2e';

const HERE = path.resolve(__dirname, '..');
const ROOT = path.resolve(HERE, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const NOTES = 'notes://all';

/** A runtime serving the notes server: its MCP URL, what it printed on stderr, and how to stop it. */
interface Served {
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Spawns `command`, resolving once `port(line)` finds the port in a line of `from` (stdout, or another pipe). */
async function serve(
  command: string,
  args: string[],
  options: { cwd: string; portIn?: 'stdout' | 3; port: (line: string) => number | undefined; cleanup?: () => void },
): Promise<Served> {
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const source = (options.portIn === 3 ? child.stdio[3] : child.stdout) as Readable;
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    source.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        const found = options.port(line);
        if (found !== undefined) resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill();
        await once(child, 'exit');
      }
      options.cleanup?.();
    },
  };
}

/** The port in the fixtures' `listening <port>` line. */
function listeningLine(line: string): number | undefined {
  const match = /^listening (\d+)$/.exec(line.trim());
  return match ? Number(match[1]) : undefined;
}

/** Bun runs the TypeScript as it is, with decorator metadata (test-support/runtimes/tsconfig.json). */
function bun(): Promise<Served> {
  return serve(path.join(BIN, 'bun'), ['bun.ts'], { cwd: HERE, port: listeningLine });
}

/**
 * Deno runs the TypeScript from a project of its own, as a user's: a package.json, a deno.json
 * with the decorator flags, and node_modules (the repository's, linked).
 */
function deno(): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hermes-deno-'));
  writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  writeFileSync(path.join(dir, 'deno.json'), JSON.stringify({ compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } }));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const file of ['notes.server.ts', 'websocket.ts', 'deno.ts']) copyFileSync(path.join(HERE, file), path.join(dir, file));
  return serve(path.join(BIN, 'deno'), ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', 'deno.ts'], {
    cwd: dir,
    port: listeningLine,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

/**
 * Node's built-in modules as a Workers bundle takes them: external (the runtime's `nodejs_compat`
 * provides them), and a CommonJS `require()` of one turned into an import, since an ES module
 * bundle has no `require` (wrangler does the same).
 */
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(build) {
    const names = new RegExp(`^(node:)?(${builtinModules.join('|').replace(/\//g, '\\/')})$`);
    build.onResolve({ filter: names }, (args) => {
      const name = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return args.kind === 'require-call' ? { path: name, namespace: 'required-builtin' } : { path: name, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, (args) => ({ contents: `import m from '${args.path}'; module.exports = m;`, resolveDir: HERE }));
  },
};

/** workerd serves the worker (../worker.ts) bundled as wrangler would: esbuild, the browser builds, ES modules. */
async function workerd(): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hermes-workerd-'));
  await build({
    entryPoints: [path.join(HERE, 'worker.ts')],
    outfile: path.join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    tsconfig: path.join(HERE, 'tsconfig.json'),
    plugins: [nodeBuiltins],
    logLevel: 'error',
  });
  writeFileSync(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  // workerd tells the port it listens on as a JSON line on the control fd (3).
  return serve(path.join(BIN, 'workerd'), ['serve', 'config.capnp', '--control-fd=3'], {
    cwd: dir,
    portIn: 3,
    port: (line) => {
      if (!line.startsWith('{')) return undefined;
      const event = JSON.parse(line) as { event?: string; port?: number };
      return event.event === 'listen' ? event.port : undefined;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((block) => block.text ?? '').join('');
}

describe.each([
  ['Bun', bun],
  ['Deno', deno],
  ['workerd', workerd],
])('the Web handler under %s', (_name, start) => {
  let served: Served;

  beforeAll(async () => {
    served = await start();
  });

  afterAll(async () => {
    await served?.stop();
  });

  it('serves 2025-11-25: a session; tools, a validated call, a resource, a prompt; an update raised by another request on the GET stream', async () => {
    const updates: string[] = [];
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2025-11-25', onResourceUpdated: (uri) => updates.push(uri) });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe('2025-11-25');
      expect((client.transport as { sessionId?: string }).sessionId).toBeTruthy();
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      const invalid = await client.callTool('add_note', { text: '' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain('text');
      await client.subscribe(NOTES);
      expect(textOf(await client.callTool('add_note', { text: 'legacy note' }))).toMatch(/note\(s\)$/);
      await eventually('the update on the GET stream', () => updates.includes(NOTES), 30_000);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain('legacy note');
      expect(JSON.stringify((await client.getPrompt('review', { focus: 'work' })).messages)).toContain('about work');
    } finally {
      await client.close();
    }
  });

  it('loads one copy of class-validator and class-transformer: Hermes reads the internals of the copy the server uses', () => {
    expect(served.stderr()).not.toMatch(/HERMES_INTEROP_FALLBACK: class-(validator|transformer)/);
  });

  it('keeps a session GET stream that nothing else is happening beside open until another request writes to it', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    const post = (body: unknown, sessionId?: string) =>
      fetch(served.url, { method: 'POST', headers: { ...headers, ...(sessionId && { 'mcp-session-id': sessionId }) }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: NOTES } }, sessionId)).text();
    const get = await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } });
    const reader = get.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The priming event: the stream is open, and no request is in flight beside it.
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
    await (await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add_note', arguments: { text: 'raw note' } } }, sessionId)).text();
    while (!text.includes('notifications/resources/updated')) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the GET stream ended before the update: ${text}`);
      text += decoder.decode(value);
    }
    await reader.cancel();
    await (await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })).text();
  });

  it('serves 2026-07-28: stateless; tools, a validated call, a resource, a prompt; an update raised by another request on a listen stream', async () => {
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2026-07-28' });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      expect((await client.callTool('add_note', { text: 42 })).isError).toBe(true);
      const seen: string[] = [];
      for await (const notification of client.listen({ resourceSubscriptions: [NOTES] })) {
        seen.push(notification.method);
        // Acknowledged: the stream is open. Another request raises the update it waits for.
        if (notification.method === 'notifications/subscriptions/acknowledged') await client.callTool('add_note', { text: 'modern note' });
        if (notification.method === 'notifications/resources/updated') break;
      }
      expect(seen).toEqual(['notifications/subscriptions/acknowledged', 'notifications/resources/updated']);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain('modern note');
      expect(JSON.stringify((await client.getPrompt('review')).messages)).toContain('modern note');
    } finally {
      await client.close();
    }
  });

  it('lets a client leave its listen stream: the stream ends, and the runtime prints nothing about it', async () => {
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2026-07-28' });
    await client.connect();
    try {
      const before = served.stderr();
      for await (const notification of client.listen({ toolsListChanged: true })) {
        expect(notification.method).toBe('notifications/subscriptions/acknowledged');
        break;
      }
      await eventually('the server to end the stream', async () => textOf(await client.callTool('open_streams')) === '0', 30_000);
      expect(served.stderr().slice(before.length)).toBe('');
    } finally {
      await client.close();
    }
  });
});

/** What a WebSocket upgrade refused before the upgrade got: its status and body. */
function refusedUpgrade(url: string, protocols: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', (error) => reject(error));
  });
}

describe.each([
  ['Bun', bun],
  ['Deno', deno],
])('MCP over WebSocket under %s, through @hermes-mcp/core/adapter', (_name, start) => {
  let served: Served;
  let wsUrl: string;

  beforeAll(async () => {
    served = await start();
    wsUrl = `${served.url.replace(/^http/, 'ws')}/ws`;
  });

  afterAll(async () => {
    await served?.stop();
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('serves %s to our client: tools/list, a validated call, a call', async (protocolVersion) => {
    const client = new McpClient(new WebSocketClientTransport({ url: wsUrl, WebSocket: WebSocket as never }), { protocolVersion });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe(protocolVersion);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      expect((await client.callTool('add_note', { text: '' })).isError).toBe(true);
      expect(textOf(await client.callTool('add_note', { text: `over WebSocket, ${protocolVersion}` }))).toMatch(/note\(s\)$/);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain(`over WebSocket, ${protocolVersion}`);
    } finally {
      await client.close();
    }
  });

  it('refuses an upgrade without the mcp subprotocol with 400, before upgrading, and a plain GET with 426', async () => {
    const refused = await refusedUpgrade(wsUrl, ['graphql-ws']);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Bad Request: MCP over WebSocket needs the subprotocol "mcp" (Sec-WebSocket-Protocol: mcp); offered: "graphql-ws"' },
    });
    const plain = await fetch(`${served.url}/ws`);
    expect(plain.status).toBe(426);
    expect(plain.headers.get('upgrade')).toBe('websocket');
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/^Upgrade Required: \/mcp\/ws serves MCP over WebSocket/);
  });
});
