/**
 * `hermes-mcp dev`, driven as a host drives it: the built dist/cli.js spawned by a real client —
 * ours and the official SDK v1's — against a temporary project whose entry is a .ts file (run
 * through SWC), whose files the tests edit. Every wait is for an event (a notification, a line on
 * stderr), bounded generously.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../src/client';
import { StdioClientTransport } from '../src/stdio';
import { StreamableHttpClientTransport } from '../src/streamable-http';
import { nodeRunsInspector } from '../src/cli/dev';
import { EntryProject, entryProject, serverSource } from './fixtures/entry-project';
import { InspectorServer, InspectorTransport, InspectorWeb } from './fixtures/inspector-web';

const cli = path.join(__dirname, '../dist/cli.js');

// A restart spawns a server and compiles it with SWC: on a busy 2-core machine, several seconds.
jest.setTimeout(120_000);

const SHOUT = `
  @Tool({ description: 'Shouts a name' })
  shout(input: GreetInput) {
    return input.name.toUpperCase();
  }
`;

/** Something to wait for: resolves when `check` holds after a change, rejects after `ms` (60 s) saying what never came. */
class Watch {
  private waiters: Array<() => void> = [];

  changed(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  async until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
    const deadline = Date.now() + ms;
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

/** Starts `hermes-mcp dev <entry> --http 0` (ended after the test); its URL, once it says it. */
async function devOverHttp(watch: Watch): Promise<URL> {
  let stderr = '';
  const dev = spawn(process.execPath, [cli, 'dev', project.entry, '--http', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  closers.push(async () => {
    dev.kill('SIGTERM');
    await new Promise((resolve) => dev.once('exit', resolve));
  });
  dev.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), watch.changed()));
  await watch.until(() => /on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr), 'the URL');
  return new URL(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)![1]);
}

describe('hermes-mcp dev <entry.ts> --http', () => {
  it('keeps the host session (its Mcp-Session-Id) across a restart, with list_changed on the GET stream', async () => {
    const watch = new Watch();
    const url = await devOverHttp(watch);
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

/**
 * A server with a resource to subscribe to, a tool that tells its subscribers it changed
 * (`notifyResourceUpdated`, through the app main.ts keeps) and a tool that logs once at debug and
 * once at warning (`ctx.notify`, sent at the level the client set, nothing when it set none);
 * `extra` goes inside the class.
 */
function notesSource(extra = ''): string {
  return `import { McpContext, McpServer, Resource, Tool } from '@hermes-mcp/core';

/** The running app, set by main.ts. */
export const running: { app?: { notifyResourceUpdated(uri: string): void } } = {};

@McpServer({ name: 'notes', version: '1.0.0' })
export class DevServer {
  @Resource({ uri: 'notes://today', name: 'today', mimeType: 'text/plain' })
  today() {
    return 'nothing yet';
  }

  @Tool({ description: 'Tells the subscribers of notes://today that it changed' })
  touch() {
    running.app!.notifyResourceUpdated('notes://today');
    return 'touched';
  }

  @Tool({ description: 'Logs at debug, then at warning' })
  async log(ctx: McpContext) {
    await ctx.notify('debug', 'a debug line');
    await ctx.notify('warning', 'a warning line');
    return 'logged';
  }
${extra}
}
`;
}

const NOTES_MAIN = `import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { DevServer, running } from './server';

const app = McpFactory.create(DevServer);
running.app = app;
app.listen().catch((error: unknown) => {
  process.stderr.write(\`\${String(error)}\\n\`);
  process.exit(1);
});
`;

/** A tool more, so that an edit changes the tool list (the host is told: the new process serves). */
const ADDED = (name: string) => `
  @Tool({ description: 'Added by an edit' })
  ${name}() {
    return '${name}';
  }
`;

/** The official SDK v1 client as a host: the resources/updated URIs, log messages and tools/list_changed it got. */
async function sdkHost(transport: SdkTransport, watch: Watch): Promise<{ client: Client; updated: string[]; logs: string[]; changes: () => number }> {
  const updated: string[] = [];
  const logs: string[] = [];
  let changes = 0;
  const client = new Client({ name: 'sdk-host', version: '1.0.0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void (updated.push(notification.params.uri), watch.changed()));
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification) => void (logs.push(`${notification.params.level}: ${String(notification.params.data)}`), watch.changed()),
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes++, watch.changed()));
  closers.push(() => client.close());
  await client.connect(transport);
  return { client, updated, logs, changes: () => changes };
}

/** Calls touch, then log: what touch sent (resources/updated) is on the stream before what log sends. */
async function touchAndLog(client: Client): Promise<void> {
  await client.callTool({ name: 'touch', arguments: {} });
  await client.callTool({ name: 'log', arguments: {} });
}

describe('hermes-mcp dev: what the host set in its session (log level, subscriptions) is replayed to each new process', () => {
  beforeEach(() => {
    project.write('src/server.ts', notesSource());
    project.write('src/main.ts', NOTES_MAIN);
  });

  it('the official SDK v1 client on stdio: after a restart it still gets resources/updated for its subscription, and log messages at its level only; an unsubscribe is kept too', async () => {
    const watch = new Watch();
    const transport = new SdkStdioTransport({ command: process.execPath, args: [cli, 'dev', project.entry], stderr: 'pipe' });
    transport.stderr?.on('data', () => watch.changed());
    const { client, updated, logs, changes } = await sdkHost(transport, watch);
    await client.subscribeResource({ uri: 'notes://today' });
    await client.setLoggingLevel('warning');
    await touchAndLog(client);
    await watch.until(() => logs.length === 1, 'the warning before the restart', 20_000);
    expect(updated).toEqual(['notes://today']);

    project.write('src/server.ts', notesSource(ADDED('added')));
    await watch.until(() => changes() === 1, 'tools/list_changed (the new process serves)');
    await touchAndLog(client);
    await watch.until(() => logs.length === 2, 'the warning from the new process', 20_000);
    expect(updated).toEqual(['notes://today', 'notes://today']);
    expect(logs).toEqual(['warning: a warning line', 'warning: a warning line']); // debug is below the level the host set

    // What the host undid is undone in the next process too.
    await client.unsubscribeResource({ uri: 'notes://today' });
    await client.setLoggingLevel('debug');
    project.write('src/server.ts', notesSource(ADDED('added') + ADDED('again')));
    await watch.until(() => changes() === 2, 'the second tools/list_changed');
    await touchAndLog(client);
    await watch.until(() => logs.length === 4, 'debug and warning from the third process', 20_000);
    expect(logs.slice(2)).toEqual(['debug: a debug line', 'warning: a warning line']);
    expect(updated).toEqual(['notes://today', 'notes://today']);
  });

  it('the official SDK v1 client over --http: each host session keeps its own subscriptions and level across a restart', async () => {
    const watch = new Watch();
    const url = await devOverHttp(watch);
    // Two hosts: one subscribed at warning, one not subscribed at debug.
    const subscribed = await sdkHost(new SdkHttpTransport(url), watch);
    const other = await sdkHost(new SdkHttpTransport(url), watch);
    await subscribed.client.subscribeResource({ uri: 'notes://today' });
    await subscribed.client.setLoggingLevel('warning');
    await other.client.setLoggingLevel('debug');

    project.write('src/server.ts', notesSource(ADDED('added')));
    await watch.until(() => subscribed.changes() === 1 && other.changes() === 1, 'tools/list_changed on both GET streams');
    await touchAndLog(subscribed.client);
    await touchAndLog(other.client);
    await watch.until(() => subscribed.logs.length === 1 && other.logs.length === 2, 'the log messages from the new processes', 20_000);
    expect(subscribed.updated).toEqual(['notes://today']);
    expect(subscribed.logs).toEqual(['warning: a warning line']);
    expect(other.updated).toEqual([]);
    expect(other.logs).toEqual(['debug: a debug line', 'warning: a warning line']);
  });
});

/**
 * `hermes-mcp dev <entry> [--http <port>] --inspector`, spawned as a user runs it, with the
 * Inspector's web UI on a free port (`CLIENT_PORT`; its sandbox and app origin on ports the OS
 * picks), no browser opened, and secrets kept in memory (not the keychain); resolves once the
 * Inspector printed its URL. npx fetches the Inspector the first time: up to 90 s. The first
 * `node` on its PATH is another one, which fails (as when a user starts dev by a Node's path,
 * with an older Node on the PATH): npx and the Inspector must run on dev's.
 */
async function devWithInspector(args: string[] = []): Promise<{ dev: ChildProcess; web: InspectorWeb; exited: Promise<number | null>; output: () => string; watch: Watch }> {
  const port = await freePort();
  const watch = new Watch();
  let output = '';
  mkdirSync(path.join(project.dir, '.other-node'));
  project.write('.other-node/node', '#!/bin/sh\necho "the other node on PATH ran $*" >&2\nexit 97\n');
  chmodSync(path.join(project.dir, '.other-node/node'), 0o755);
  const env = {
    ...process.env,
    PATH: [path.join(project.dir, '.other-node'), process.env.PATH].join(path.delimiter),
    CLIENT_PORT: String(port),
    MCP_SANDBOX_PORT: '0',
    MCP_APP_ORIGIN_PORT: '0',
    MCP_AUTO_OPEN_ENABLED: 'false',
    MCP_INSPECTOR_SECRET_STORE: 'memory',
  };
  // In a process group of its own: should dev leave a process behind (the Inspector, its server), the group is ended after the test.
  const dev = spawn(process.execPath, [cli, 'dev', project.entry, ...args, '--inspector'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve));
  closers.push(async () => {
    if (dev.exitCode === null && dev.signalCode === null) dev.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    try {
      process.kill(-dev.pid!, 'SIGKILL');
    } catch {
      // nothing left in it
    }
  });
  for (const stream of [dev.stdout, dev.stderr]) stream.setEncoding('utf8').on('data', (chunk: string) => ((output += chunk), watch.changed()));
  void exited.then(() => watch.changed());
  const over = () => dev.exitCode !== null || output.includes('hermes-mcp dev: the Inspector ended');
  await watch.until(() => InspectorWeb.printedIn(output) !== undefined || over(), 'the URL of the Inspector', 90_000);
  const web = InspectorWeb.printedIn(output);
  if (!web) throw new Error(`the Inspector ended before it printed its URL:\n${output}`);
  expect(web.origin).toBe(`http://127.0.0.1:${port}`);
  return { dev, web, exited, output: () => output, watch };
}

/** A port of 127.0.0.1 free now (the Inspector's web UI takes no 0). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once nothing answers at `origin` (connections refused), rejects after 20 s. */
async function gone(origin: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answered = await fetch(origin).then(
      () => true,
      () => false,
    );
    if (!answered) return;
    if (Date.now() > deadline) throw new Error(`${origin} still answers`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The SDK v1 client connected through the Inspector to `server`, as the Inspector's page connects; counts tools/list_changed. */
async function throughInspector(web: InspectorWeb, server: InspectorServer, watch: Watch): Promise<{ client: Client; transport: InspectorTransport; changes: () => number }> {
  let changes = 0;
  const client = new Client({ name: 'inspector-page', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes++, watch.changed()));
  const transport = web.transport(server);
  transport.onlog = () => watch.changed();
  closers.push(() => client.close());
  await client.connect(transport);
  return { client, transport, changes: () => changes };
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

/**
 * Which tests run depends on the Node that runs the suite: the Inspector needs Node 22.19 or newer,
 * and dev checks the Node it runs on. On such a Node, dev starts the real Inspector (npx) and the
 * tests drive it as its page does; on an older one, dev's refusal is what a user gets, and is
 * tested. (The other path would need another Node binary, which the suite does not download.)
 */
describe('hermes-mcp dev --inspector', () => {
  it('runs the Inspector only on Node 22.19 or newer (what its package asks)', () => {
    expect(['20.20.2', '22.18.0', '22.19.0', '24.1.0'].map((version) => nodeRunsInspector(version))).toEqual([false, false, true, true]);
  });

  if (nodeRunsInspector()) {
    it(`on this Node ${process.versions.node}: starts the Inspector's web UI with hermes-mcp dev <entry> as its stdio server, through which the tools answer and an edit is told; dev's end ends the Inspector`, async () => {
      const { dev, web, exited, watch } = await devWithInspector();
      const page = await web.page();
      expect([page.status, page.type]).toEqual([200, 'text/html; charset=UTF-8']);
      expect(page.text).toContain('<title>MCP Inspector</title>');
      const servers = Object.values(await web.servers());
      expect(servers).toEqual([{ type: 'stdio', command: process.execPath, args: [cli, 'dev', project.entry], cwd: process.cwd() }]);
      const { client, transport, changes } = await throughInspector(web, servers[0], watch);
      expect(await toolNames(client)).toEqual(['greet', 'crash']);
      expect(await client.callTool({ name: 'greet', arguments: { name: 'ada' } })).toMatchObject({ content: [{ type: 'text', text: 'hello ada' }] });
      expect(transport.logs.join('\n')).toMatch(/hermes-mcp dev: serving \S*src\/main\.ts on stdio, watching /);
      project.write('src/server.ts', serverSource(SHOUT));
      await watch.until(() => changes() > 0, 'notifications/tools/list_changed through the Inspector');
      await watch.until(() => transport.logs.includes('hermes-mcp dev: restarted (src/server.ts changed)'), "the restart in the Inspector's server log");
      expect(await toolNames(client)).toEqual(['greet', 'crash', 'shout']);
      expect(await client.callTool({ name: 'shout', arguments: { name: 'ada' } })).toMatchObject({ content: [{ type: 'text', text: 'ADA' }] });
      dev.kill('SIGTERM');
      expect(await exited).toBe(0);
      await gone(web.origin);
    });

    it(`on this Node ${process.versions.node}, with --http: the Inspector is pointed at dev's URL and its tools answer through it; dev's end ends the Inspector`, async () => {
      const { dev, web, exited, output, watch } = await devWithInspector(['--http', '0']);
      const url = /on (http:\/\/127\.0\.0\.1:\d+\/mcp) \(Streamable HTTP\)/.exec(output())![1];
      expect(output()).toContain(`hermes-mcp dev: starting the Inspector, pointed at ${url} (Streamable HTTP)`);
      expect(Object.values(await web.servers())).toEqual([{ type: 'streamable-http', url }]);
      const { client } = await throughInspector(web, { type: 'streamable-http', url }, watch);
      expect(await client.callTool({ name: 'greet', arguments: { name: 'ada' } })).toMatchObject({ content: [{ type: 'text', text: 'hello ada' }] });
      dev.kill('SIGTERM');
      expect(await exited).toBe(0);
      await gone(web.origin);
      expect(output()).not.toContain('the Inspector ended');
    });
  } else {
    it(`on this Node ${process.versions.node}: says what to do instead, starts nothing, exits 1`, () => {
      const result = spawnSync(process.execPath, [cli, 'dev', project.entry, '--inspector'], { encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`the MCP Inspector needs Node 22.19 or newer, and this is Node ${process.versions.node}`);
      expect(result.stderr).toContain(`npx @modelcontextprotocol/inspector@2 ${process.execPath} ${cli} dev ${project.entry}`);
    });

    it(`on this Node ${process.versions.node}, with --http: says how to point the Inspector at dev's URL instead, starts nothing, exits 1`, () => {
      const result = spawnSync(process.execPath, [cli, 'dev', project.entry, '--http', '3000', '--inspector'], { encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`the MCP Inspector needs Node 22.19 or newer, and this is Node ${process.versions.node}`);
      expect(result.stderr).toContain('npx @modelcontextprotocol/inspector@2 --transport http --server-url http://127.0.0.1:3000/mcp\n');
      expect(result.stderr).toContain(`with hermes-mcp dev ${project.entry} --http 3000 (without --inspector) serving on this Node`);
      expect(result.stderr).not.toContain('serving on http://'); // no HTTP front was started
    });
  }
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
