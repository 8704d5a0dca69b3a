/**
 * `hermes-mcp dev`, driven as a host drives it: the built dist/cli.js spawned by a real client —
 * ours and the official SDK v1's — against a temporary project whose entry is a .ts file (run
 * through SWC), whose files the tests edit. Every wait is for an event (a notification, a line on
 * stderr), bounded generously.
 */
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../src/client';
import { StdioClientTransport } from '../src/stdio';
import { StreamableHttpClientTransport } from '../src/streamable-http';
import { nodeRunsInspector } from '../src/cli/dev';
import { EntryProject, entryProject, serverSource } from './fixtures/entry-project';

const cli = path.join(__dirname, '../dist/cli.js');

// A restart spawns a server and compiles it with SWC: on a busy 2-core machine, several seconds.
jest.setTimeout(120_000);

const SHOUT = `
  @Tool({ description: 'Shouts a name' })
  shout(input: GreetInput) {
    return input.name.toUpperCase();
  }
`;

/** Something to wait for: resolves when `check` holds after a change, rejects after 60 s saying what never came. */
class Watch {
  private waiters: Array<() => void> = [];

  changed(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  async until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`never saw ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }
}

const text = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;

let project: EntryProject;
const closers: Array<() => Promise<unknown>> = [];
beforeEach(() => (project = entryProject()));
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  project.remove();
});

/** Our client spawning `hermes-mcp dev <entry>` (a legacy session: list_changed is a legacy notification). */
async function ourClient(): Promise<{ client: McpClient; changes: string[]; stderr: () => string; watch: Watch }> {
  const watch = new Watch();
  const changes: string[] = [];
  let stderr = '';
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'dev', project.entry], onStderr: (chunk) => ((stderr += chunk), watch.changed()) });
  const client = new McpClient(transport, { protocolVersion: '2025-11-25', onListChanged: (list) => (changes.push(list), watch.changed()) });
  closers.push(() => client.close());
  await client.connect();
  return { client, changes, stderr: () => stderr, watch };
}

describe('hermes-mcp dev <entry.ts> on stdio', () => {
  it('an edit of the tool file: the host gets tools/list_changed, sees the new tool, and its session still answers', async () => {
    const { client, changes, stderr, watch } = await ourClient();
    expect(text(await client.callTool('greet', { name: 'ada' }))).toBe('hello ada');
    project.write('src/server.ts', serverSource(SHOUT));
    await watch.until(() => changes.includes('tools'), 'notifications/tools/list_changed');
    expect(stderr()).toMatch(/hermes-mcp dev: restarted \(src\/server\.ts changed\)/);
    const tools = [];
    for await (const tool of client.listAllTools()) tools.push(tool.name);
    expect(tools).toEqual(['greet', 'crash', 'shout']);
    expect(text(await client.callTool('shout', { name: 'ada' }))).toBe('ADA');
    expect(text(await client.callTool('greet', { name: 'bob' }))).toBe('hello bob');
    expect(changes).toEqual(['tools']); // prompts and resources: none declared, none told
  });

  it("a syntax error: SWC's error is printed and the last good server keeps serving; the fix is served", async () => {
    const { client, changes, stderr, watch } = await ourClient();
    project.write('src/server.ts', serverSource(`${SHOUT}\n  @Tool() broken( {`));
    await watch.until(() => /the server did not start/.test(stderr()), 'the failed start');
    expect(stderr()).toContain(`hermes-mcp: SWC could not compile ${path.join(project.dir, 'src/server.ts')}:\n  x Expected`);
    expect(stderr()).toMatch(/the last good one keeps serving/);
    expect(text(await client.callTool('greet', { name: 'ada' }))).toBe('hello ada');
    await expect(client.callTool('shout', { name: 'ada' })).rejects.toThrow(/shout/);
    project.write('src/server.ts', serverSource(SHOUT));
    await watch.until(() => changes.includes('tools'), 'notifications/tools/list_changed after the fix');
    expect(text(await client.callTool('shout', { name: 'ada' }))).toBe('ADA');
  });

  it('a crash of the server process: the call in flight gets an error, the server is started again, the host stays connected', async () => {
    const { client, stderr, watch } = await ourClient();
    await expect(client.callTool('crash', {})).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/the server process ended \(exit code 3\) before answering/) as string,
    });
    await watch.until(() => /hermes-mcp dev: restarted \(it ended\)/.test(stderr()), 'the restart');
    expect(text(await client.callTool('greet', { name: 'ada' }))).toBe('hello ada');
  });

  it('a line the server prints on stdout that is not JSON-RPC goes to stderr, and the host reads on', async () => {
    project.write(
      'src/server.ts',
      serverSource(
        `\n  @Tool() chatty() {\n    process.stdout.write('a stray line\\n'); // console.log goes to stderr already (core's stdio transport)\n    return 'said';\n  }\n`,
      ),
    );
    const { client, stderr, watch } = await ourClient();
    expect(text(await client.callTool('chatty', {}))).toBe('said');
    await watch.until(() => stderr().includes('not JSON-RPC'), 'the stray line on stderr');
    expect(stderr()).toContain('hermes-mcp dev: the server wrote a line that is not JSON-RPC on stdout (sent to stderr instead): a stray line');
  });

  it('the official SDK v1 client (StdioClientTransport) sees list_changed and the new tool; its session still answers', async () => {
    const watch = new Watch();
    let changed = 0;
    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed++, watch.changed()));
    const transport = new SdkStdioTransport({ command: process.execPath, args: [cli, 'dev', project.entry], stderr: 'pipe' });
    transport.stderr?.on('data', () => watch.changed());
    closers.push(() => client.close());
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'crash']);
    project.write('src/server.ts', serverSource(SHOUT));
    await watch.until(() => changed > 0, 'notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'crash', 'shout']);
    expect(await client.callTool({ name: 'shout', arguments: { name: 'ada' } })).toMatchObject({ content: [{ type: 'text', text: 'ADA' }] });
    expect(await client.callTool({ name: 'greet', arguments: { name: 'bob' } })).toMatchObject({ content: [{ type: 'text', text: 'hello bob' }] });
  });
});

describe('hermes-mcp dev <entry.ts> --http', () => {
  it('keeps the host session (its Mcp-Session-Id) across a restart, with list_changed on the GET stream', async () => {
    const watch = new Watch();
    let stderr = '';
    const dev = spawn(process.execPath, [cli, 'dev', project.entry, '--http', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    closers.push(async () => {
      dev.kill('SIGTERM');
      await new Promise((resolve) => dev.once('exit', resolve));
    });
    dev.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), watch.changed()));
    await watch.until(() => /on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr), 'the URL');
    const url = new URL(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)![1]);
    const changes: string[] = [];
    const transport = new StreamableHttpClientTransport({ url });
    const client = new McpClient(transport, { protocolVersion: '2025-11-25', onListChanged: (list) => (changes.push(list), watch.changed()) });
    closers.push(() => client.close());
    await client.connect();
    const session = transport.sessionId;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(text(await client.callTool('greet', { name: 'ada' }))).toBe('hello ada');
    project.write('src/server.ts', serverSource(SHOUT));
    await watch.until(() => changes.includes('tools'), 'notifications/tools/list_changed');
    expect(text(await client.callTool('shout', { name: 'ada' }))).toBe('ADA');
    expect(text(await client.callTool('greet', { name: 'bob' }))).toBe('hello bob');
    expect(transport.sessionId).toBe(session);
  });
});

describe('hermes-mcp dev --inspector', () => {
  it('runs the Inspector only on Node 22.19 or newer (what its package asks)', () => {
    expect(['20.20.2', '22.18.0', '22.19.0', '24.1.0'].map((version) => nodeRunsInspector(version))).toEqual([false, false, true, true]);
  });

  it('on this Node 20: says what to do instead, starts nothing, exits 1', () => {
    expect(nodeRunsInspector()).toBe(false); // the machines the suite runs on have Node 20
    const result = spawnSync(process.execPath, [cli, 'dev', project.entry, '--inspector'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`the MCP Inspector needs Node 22.19 or newer, and this is Node ${process.versions.node}`);
    expect(result.stderr).toContain(`npx @modelcontextprotocol/inspector ${process.execPath} ${cli} dev ${project.entry}`);
  });
});

describe('hermes-mcp dev: command lines it cannot take (exit 2, nothing started)', () => {
  it.each([
    [[], /dev needs an entry file/],
    [['missing.ts'], /dev: no such file missing\.ts/],
    [['package.json'], /is neither a \.js nor a \.ts file/],
    [['src/main.ts', '--http', 'eighty'], /--http eighty is not a port \(0 to 65535; 0 picks a free one\)/],
    [['src/main.ts', '--watch'], /dev: unknown option --watch \(it takes --inspector, --http\)/],
  ])('%j', (args, said) => {
    const result = spawnSync(process.execPath, [cli, 'dev', ...args], { cwd: project.dir, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(said);
    expect(result.stdout).toBe('');
  });
});
