/**
 * `hermes-mcp proxy <url> --stdio`: a remote server given to a host that only spawns processes —
 * here the everything example behind an HTTP proxy, reached again over stdio by the official SDK
 * clients (v1 in a 2025-11-25 session, v2 pinned to 2026-07-28), questions included: nothing but
 * protocol on stdout. And a config file in the hosts' `mcpServers` shape: each server at
 * `/<name>/mcp`, or one picked with `--server` for `--stdio`. And the command lines it refuses.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, EVERYTHING, REPO_ROOT, RunningProxy, startProxy, textOf } from './support';

const NAME_ANSWER = { action: 'accept' as const, content: { name: 'Grace', color: 'red', subscribe: false } };

describe('a remote server over stdio', () => {
  let upstream: RunningProxy;

  beforeAll(async () => {
    upstream = await startProxy(['--http', '0', '--', ...EVERYTHING]);
  });

  afterAll(async () => {
    await upstream?.stop();
  });

  it('serves an SDK v1 client in a 2025-11-25 session, elicitation included', async () => {
    const stderr: string[] = [];
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'proxy', upstream.urls[0], '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => void stderr.push(chunk.toString()));
    const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => NAME_ANSWER);
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'hermes-everything' });
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'two hops' } }))).toBe('two hops');
      // The wire, as read (SDK v1 may drop a progress that shares a chunk with the answer: read it here).
      const wire: Record<string, unknown>[] = [];
      const read = transport.onmessage!;
      transport.onmessage = (message) => (wire.push(message), read(message));
      await client.callTool({ name: 'slow', arguments: { steps: 2, delayMs: 5 } }, undefined, { onprogress: () => undefined });
      expect(wire.map((message) => message.method ?? 'answer')).toEqual(['notifications/progress', 'notifications/progress', 'answer']);
      expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello Grace, who likes red');
    } finally {
      await client.close();
    }
  });

  it('serves an SDK v2 client pinned to 2026-07-28', async () => {
    const client = new ModernClient({ name: 'host', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async () => NAME_ANSWER);
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: [CLI, 'proxy', upstream.urls[0], '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'modern hops' } }))).toBe('modern hops');
      expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello Grace, who likes red');
    } finally {
      await client.close();
    }
  });

  it('subscribes the upstream for a resources/subscribe of the session and for a listen stream’s resourceSubscriptions, and passes the updates on', async () => {
    const legacy = new Client({ name: 'host', version: '1.0.0' });
    const legacySaw: string[] = [];
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void legacySaw.push(notification.params.uri));
    await legacy.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'proxy', upstream.urls[0], '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' }));
    const modern = new ModernClient({ name: 'host', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const modernSaw: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', (notification) => void modernSaw.push(notification.params.uri));
    await modern.connect(new ModernStdioTransport({ command: process.execPath, args: [CLI, 'proxy', upstream.urls[0], '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' }));
    try {
      // The session's calls and its subscription share its upstream session (a process of the HTTP proxy's own).
      await legacy.subscribeResource({ uri: 'status://server' });
      expect(textOf(await legacy.callTool({ name: 'touch', arguments: { uri: 'status://server' } }))).toBe('touched status://server');
      // 2026-07-28: the stream's URIs and the calls share the shared connection, through both proxies.
      const subscription = await modern.listen({ resourceSubscriptions: ['items://item/3'] });
      expect(textOf(await modern.callTool({ name: 'touch', arguments: { uri: 'items://item/3' } }))).toBe('touched items://item/3');
      for (let waited = 0; legacySaw.length === 0 || modernSaw.length === 0; waited += 20) {
        if (waited > 10_000) throw new Error(`no update within 10 s (session: ${legacySaw.join()}; stream: ${modernSaw.join()})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(legacySaw).toEqual(['status://server']);
      expect(modernSaw).toEqual(['items://item/3']);
      await subscription.close();
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it('reaches an upstream over the 2024-11-05 HTTP+SSE transport with --transport sse', async () => {
    const client = new Client({ name: 'host', version: '1.0.0' });
    const args = [CLI, 'proxy', `${upstream.urls[0]}/sse`, '--transport', 'sse', '--stdio'];
    await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: REPO_ROOT, stderr: 'pipe' }));
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'over sse' } }))).toBe('over sse');
    } finally {
      await client.close();
    }
  });

  it('writes nothing but JSON-RPC on stdout', () => {
    const input = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;
    const run = spawnSync(process.execPath, [CLI, 'proxy', upstream.urls[0], '--stdio'], { cwd: REPO_ROOT, input, encoding: 'utf8', timeout: 20_000 });
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[0])).toMatchObject({ id: 1, result: { serverInfo: { name: 'hermes-everything' } } });
  });
});

describe('a config file in the hosts’ mcpServers shape', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hermes-gateway-'));
    file = path.join(dir, 'mcp.json');
    const [command, ...args] = EVERYTHING;
    writeFileSync(file, JSON.stringify({ mcpServers: { notes: { command, args }, tasks: { command, args, env: { HERMES_LOG_LEVEL: 'error' } } } }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves each server at /<name>/mcp on one port', async () => {
    const gateway = await startProxy(['--config', file, '--http', '0'], 2);
    try {
      expect(gateway.urls.map((url) => new URL(url).pathname)).toEqual(['/notes/mcp', '/tasks/mcp']);
      for (const url of gateway.urls) {
        const client = new ModernClient({ name: 'host', version: '2.4.0' });
        await client.connect(new ModernHttpTransport(new URL(url)));
        expect(textOf(await client.callTool({ name: 'echo', arguments: { message: url } }))).toBe(url);
        await client.close();
      }
    } finally {
      await gateway.stop();
    }
  });

  it('serves one of them on stdio with --server', async () => {
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'proxy', '--config', file, '--server', 'tasks', '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' }),
    );
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'picked' } }))).toBe('picked');
    } finally {
      await client.close();
    }
  });
});

describe('the command line', () => {
  const proxy = (...args: string[]) => spawnSync(process.execPath, [CLI, 'proxy', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 });

  it('prints its usage for --help, exit 0', () => {
    const run = proxy('--help');
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^usage: hermes-mcp proxy /);
  });

  it.each([
    [[], 'name one upstream'],
    [['--http', '0'], 'name one upstream'],
    [['--', 'node', 'x.js'], 'one of --http <port> or --stdio'],
    [['http://127.0.0.1:1/mcp', '--http', '0', '--stdio'], 'one of --http <port> or --stdio'],
    [['not a url', '--stdio'], 'is not a URL'],
    [['--http', 'many', '--', 'node'], '--http wants a port'],
    [['--http', '0', '--header', 'X:1', '--', 'node'], 'for a URL upstream'],
    [['--http', '0', '--jwks', 'http://x', '--', 'node'], 'need --issuer'],
    [['--http', '0', '--issuer', 'http://x', '--', 'node'], 'needs --resource'],
    [['--http', '0', '--max-sessions', '0', '--', 'node'], '--max-sessions wants a whole number'],
  ])('refuses %j with exit 2, saying why', (args, why) => {
    const run = proxy(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(why);
  });

  it('is named, with how to install it, by a hermes-mcp that cannot find this package', () => {
    // The client alone, as npm installs it in a project without the gateway (its own dependencies linked).
    const project = mkdtempSync(path.join(tmpdir(), 'hermes-client-only-'));
    try {
      const client = path.join(project, 'node_modules/@hermes-mcp/client');
      cpSync(path.join(REPO_ROOT, 'packages/client/dist'), path.join(client, 'dist'), { recursive: true });
      cpSync(path.join(REPO_ROOT, 'packages/client/package.json'), path.join(client, 'package.json'));
      symlinkSync(path.join(REPO_ROOT, 'packages/protocol'), path.join(project, 'node_modules/@hermes-mcp/protocol'));
      for (const dependency of ['jsonc-parser', 'yaml']) symlinkSync(path.join(REPO_ROOT, 'node_modules', dependency), path.join(project, 'node_modules', dependency));
      const run = spawnSync(process.execPath, [path.join(client, 'dist/cli.js'), 'proxy', '--http', '0', '--', 'node', 'x.js'], {
        cwd: project,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('"proxy" is served by @hermes-mcp/gateway, which is not installed here');
      expect(run.stderr).toContain('npm install @hermes-mcp/gateway');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('exits 1 when the upstream cannot be started', () => {
    const run = proxy('--http', '0', '--', process.execPath, '-e', 'process.exit(3)');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('GATEWAY_UPSTREAM_UNAVAILABLE');
  });
});
