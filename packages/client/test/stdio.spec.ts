/**
 * McpClient over its stdio transport, against spawned servers: our everything example (built by
 * `npm test`'s `tsc -b`) in both eras, the official SDK v1 server (which knows no
 * `server/discover`, so `auto` falls back to `initialize`), and servers that crash or never start.
 */
import * as path from 'node:path';
import { McpClient, StdioClientTransport, unwrap } from '@hermes-mcp/client';

const root = path.join(__dirname, '../../..');
const everything = path.join(root, 'examples/everything/dist/main.js');
const sdkV1 = path.join(__dirname, 'fixtures/sdk-v1-server.mjs');

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function spawnClient(
  args: string[],
  options: ConstructorParameters<typeof McpClient>[1] = {},
  onStderr?: (chunk: string) => void,
): { client: McpClient; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: root, onStderr: onStderr ?? (() => undefined), closeGracePeriod: 500 });
  const client = new McpClient(transport, options);
  clients.push(client);
  return { client, transport };
}

describe('our everything server over stdio', () => {
  it.each([
    ['auto', 'modern', '2026-07-28'],
    ['2025-11-25', 'legacy', '2025-11-25'],
  ] as const)('connects (%s → %s) and calls a tool with progress', async (protocolVersion, era, version) => {
    const { client, transport } = spawnClient([everything], { protocolVersion });
    await client.connect();
    expect({ era: client.era, version: client.protocolVersion, server: client.serverInfo?.name }).toEqual({ era, version, server: 'hermes-everything' });
    const progress: number[] = [];
    const result = unwrap(await client.callTool('slow', { steps: 3, delayMs: 1, label: 'x' }, { onProgress: (p) => progress.push(p.progress) }));
    expect(result.content).toEqual([{ type: 'text', text: 'x: completed 3 steps' }]);
    expect(progress).toEqual([1, 2, 3]);
    const status = transport.status();
    expect(status).toMatchObject({ state: 'connected', pid: expect.any(Number) });
    expect(status.bytesIn).toBeGreaterThan(0);
    expect(status.bytesOut).toBeGreaterThan(0);
    await client.close();
    // stdin ended: the server exits by itself, cleanly.
    expect(transport.status()).toMatchObject({ state: 'disconnected', exit: { code: 0, signal: null } });
  });

  it('cancels a call mid-way: the server’s handler sees its signal abort', async () => {
    const { client } = spawnClient([everything]);
    await client.connect();
    const call = client.callTool('slow', { steps: 50, delayMs: 100, label: 'cancel-me' }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(client.cancelAll()).toBe(1);
    expect(await call).toMatchObject({ message: 'Request cancelled by the client' });
    let aborted: unknown;
    for (let i = 0; i < 100 && !aborted; i++) {
      const seen = unwrap(await client.callTool('cancellations')).structuredContent as { aborted: string[] };
      if (seen.aborted.includes('cancel-me')) aborted = true;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(aborted).toBe(true);
  });
});

describe('the official SDK v1 server over stdio', () => {
  it("falls back to initialize ('auto'), lists, calls with progress, reads, gets prompts", async () => {
    const { client } = spawnClient([sdkV1]);
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'sdk-v1', version: '1.0.0' });
    const names: string[] = [];
    for await (const tool of client.listAllTools()) names.push(tool.name);
    expect(names).toEqual(['add', 'steps', 'who', 'wait']);
    expect(unwrap(await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    const progress: number[] = [];
    await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect((await client.readResource('notes://one')).contents).toEqual([{ uri: 'notes://one', text: 'note one' }]);
    expect((await client.getPrompt('hello')).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello' } }]);
  });

  it('answers its elicitation with onElicitation', async () => {
    const { client } = spawnClient([sdkV1], { onElicitation: () => ({ action: 'accept', content: { name: 'Lin' } }) });
    await client.connect();
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Lin' }]);
  });

  it('times a call out: the SDK server’s handler is cancelled', async () => {
    let stderr = '';
    const { client } = spawnClient([sdkV1], {}, (chunk) => (stderr += chunk));
    await client.connect();
    await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001, message: 'Request timed out after 100 ms' });
    for (let i = 0; i < 1_000 && !stderr.includes('wait: cancelled'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stderr).toContain('wait: cancelled');
  });
});

/** A server that initializes, then exits with code 3 on the first tools/call. */
const CRASHING = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'crash', version: '1' } } }) + '\\n');
  if (m.method === 'tools/call') process.exit(3);
});`;

describe('servers that fail', () => {
  it('rejects every pending call with the exit status of a server that crashes', async () => {
    const { client, transport } = spawnClient(['-e', CRASHING], { protocolVersion: '2025-11-25' });
    await client.connect();
    const calls = await Promise.all([client.callTool('a').catch((e: unknown) => e), client.callTool('b').catch((e: unknown) => e)]);
    for (const error of calls)
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', message: 'Connection closed: the server exited with code 3', data: { exit: { code: 3, signal: null } } });
    expect(transport.status()).toMatchObject({ state: 'error', exit: { code: 3, signal: null }, lastError: expect.objectContaining({ message: 'the server exited with code 3' }) });
    expect(client.pendingRequests()).toEqual([]);
  });

  it('fails to connect to a program that does not exist', async () => {
    const transport = new StdioClientTransport({ command: path.join(root, 'no-such-program'), onStderr: () => undefined });
    const client = new McpClient(transport);
    await expect(client.connect()).rejects.toMatchObject({ code: 'ENOENT' });
    expect(transport.status().state).toBe('error');
  });

  it('kills a server that ignores the end of its input: SIGTERM after the grace period', async () => {
    const stubborn = `process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => { const m = JSON.parse(line); if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'stubborn', version: '1' } } }) + '\\n'); });`;
    const { client, transport } = spawnClient(['-e', stubborn], { protocolVersion: '2025-11-25' });
    await client.connect();
    await client.close();
    expect(transport.status().exit).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
