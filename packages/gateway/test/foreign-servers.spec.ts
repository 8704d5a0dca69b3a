/**
 * Servers no one here wrote, behind `hermes-mcp proxy`: the official SDK v1 server on stdio (it
 * speaks only the 2025-era revisions, and asks its question as a request of its own, tied to no
 * call) served over HTTP to the SDK v1 client in a session and to the SDK v2 client in 2026-07-28
 * — whose input round the gateway makes of the upstream's request —; and a fastmcp server over
 * Streamable HTTP given to a host over stdio.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { CLI, REPO_ROOT, RunningProxy, startProxy, textOf } from './support';

const FIXTURES = path.join(REPO_ROOT, 'packages/client/test/fixtures');

describe('the SDK v1 server on stdio, over HTTP', () => {
  let proxy: RunningProxy;
  let url: URL;

  beforeAll(async () => {
    proxy = await startProxy(['--http', '0', '--', process.execPath, path.join(FIXTURES, 'sdk-v1-server.mjs')]);
    url = new URL(proxy.urls[0]);
  });

  afterAll(async () => {
    await proxy?.stop();
  });

  it('serves the SDK v1 client in a 2025-11-25 session: tools, progress, its elicitation, resources, prompts', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'sdk-v1' });
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
      const progress: unknown[] = [];
      expect(textOf(await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: (update) => void progress.push(update) }))).toBe('stepped');
      expect(progress).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3 })));
      expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('you are Ada');
      expect((await client.readResource({ uri: 'notes://one' })).contents[0]).toMatchObject({ text: 'note one' });
      expect((await client.getPrompt({ name: 'hello' })).messages[0].content).toEqual({ type: 'text', text: 'Say hello' });
    } finally {
      await client.close();
    }
  });

  it('serves the SDK v2 client in 2026-07-28: the upstream’s elicitation request becomes an input round', async () => {
    const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    await client.connect(new ModernHttpTransport(url));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } }))).toBe('42');
      expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('you are Grace');
      expect(asked).toEqual([expect.objectContaining({ message: 'Who are you?' })]);
    } finally {
      await client.close();
    }
  });
});

describe('a fastmcp server over Streamable HTTP, on stdio', () => {
  let fastmcp: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    fastmcp = spawn(process.execPath, [path.join(FIXTURES, 'fastmcp-server.mjs'), String(port)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      fastmcp.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      fastmcp.once('exit', (code) => reject(new Error(`fastmcp exited (${code})`)));
    });
  });

  afterAll(() => {
    fastmcp?.kill();
  });

  it('serves an SDK v1 client over stdio', async () => {
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'proxy', url, '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' }));
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'fastmcp' });
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    } finally {
      await client.close();
    }
  });
});

describe('a server that speaks 2026-07-28 only, on stdio', () => {
  it('serves a 2025-11-25 session through it: the session’s connection, refused its revision, speaks 2026-07-28', async () => {
    const proxy = await startProxy(['--http', '0', '--', process.execPath, path.join(__dirname, 'fixtures/modern-only-server.mjs')]);
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.urls[0])));
      expect(client.getServerVersion()).toMatchObject({ name: 'modern-only' });
      expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from 2026-07-28');
    } finally {
      await client.close();
      await proxy.stop();
    }
  });
});
