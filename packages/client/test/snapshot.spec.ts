/**
 * `hermes-mcp snapshot`: a startup snapshot of a Hermes server's libraries and the launcher that
 * starts the server from it, run as a host runs it (`/bin/sh <launcher>`, spawned by the official
 * SDK v2 client). The server is a project of its own in a temporary folder — its node_modules
 * links to the repository's packages, except @hermes-mcp/core, copied, so a test can change an
 * installed library without touching the repository's.
 *
 * What it holds to: answers come from the snapshot (the process was restored, and core was not
 * loaded from disk); the user's code is read at every start (a change needs no rebuild); the
 * console is still kept off stdout; a stale snapshot — a library changed, or the Node binary
 * changed after the snapshot was written — is never used: the server starts without it, answers
 * the same, and a new snapshot is built in the background and used by the next start.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

const root = path.join(__dirname, '../../..');
const cli = path.join(root, 'packages/client/dist/cli.js');

let project: string;
let entry: string;

/** The server: `echo`, and `how`, which says how this process started (and logs with console.log, which must not reach stdout). */
function writeServer(extraTool = ''): void {
  writeFileSync(
    entry,
    `'use strict';
require('reflect-metadata');
const { IsString } = require('class-validator');
const { McpFactory, McpServer, Tool } = require('@hermes-mcp/core');
const decorate = (decorators, target, key, descriptor) => { for (const d of decorators.reverse()) descriptor = d(target, key, descriptor) || descriptor; return descriptor; };
class EchoInput {}
IsString()(EchoInput.prototype, 'text');
class Server {
  echo({ text }) { return text; }
  how() {
    console.log('how was called');
    const core = path.dirname(require.resolve('@hermes-mcp/core'));
    return JSON.stringify({ restored: process.execArgv.includes('--snapshot-blob'), coreFilesLoaded: Object.keys(require.cache).filter((f) => f.startsWith(core)).length });
  }
  ${extraTool ? 'extra() { return "extra"; }' : ''}
}
const path = require('node:path');
decorate([Tool({ description: 'Echoes text', input: EchoInput })], Server.prototype, 'echo', Object.getOwnPropertyDescriptor(Server.prototype, 'echo'));
decorate([Tool({ description: 'How this process started' })], Server.prototype, 'how', Object.getOwnPropertyDescriptor(Server.prototype, 'how'));
${extraTool ? `decorate([Tool({ name: ${JSON.stringify(extraTool)}, description: 'Added later' })], Server.prototype, 'extra', Object.getOwnPropertyDescriptor(Server.prototype, 'extra'));` : ''}
McpServer({ name: 'snapshot-spec', version: '1.0.0' })(Server);
McpFactory.create(Server).listen();
`,
  );
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'hermes-snapshot-'));
  const modules = path.join(project, 'node_modules');
  mkdirSync(path.join(modules, '@hermes-mcp'), { recursive: true });
  for (const name of readdirSync(path.join(root, 'node_modules'))) {
    if (name === '@hermes-mcp' || name.startsWith('.')) continue;
    symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
  }
  for (const name of readdirSync(path.join(root, 'node_modules/@hermes-mcp'))) {
    if (name !== 'core') symlinkSync(path.join(root, 'node_modules/@hermes-mcp', name), path.join(modules, '@hermes-mcp', name));
  }
  const core = path.join(modules, '@hermes-mcp/core');
  mkdirSync(core);
  cpSync(path.join(root, 'packages/core/package.json'), path.join(core, 'package.json'));
  cpSync(path.join(root, 'packages/core/dist'), path.join(core, 'dist'), { recursive: true });
  mkdirSync(path.join(project, 'dist'));
  entry = path.join(project, 'dist/main.js');
  writeServer();
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** `hermes-mcp snapshot` as a user runs it. */
function snapshot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, 'snapshot', ...args], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** One start through the launcher (its file, or a host's command), as a host does: tools listed, `how` and `echo` called; what the server wrote on stderr. */
async function start(
  launcher: string | { command: string; args: string[] },
  env?: Record<string, string>,
): Promise<{ tools: string[]; how: { restored: boolean; coreFilesLoaded: number }; echo: unknown; stderr: string }> {
  const { command, args } = typeof launcher === 'string' ? { command: '/bin/sh', args: [launcher] } : launcher;
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe', ...(env && { env: { ...getDefaultEnvironment(), ...env } }) });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'snapshot-spec', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    const how = JSON.parse(((await client.callTool({ name: 'how', arguments: {} })).content as Array<{ text: string }>)[0].text);
    const echo = ((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content as Array<{ text: string }>)[0].text;
    return { tools, how, echo, stderr };
  } finally {
    await client.close();
  }
}

/** Waits (bounded) until the blob is rewritten after `since` (its modification time, ms): the background rebuild. */
async function rebuiltAfter(blob: string, since: number): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 200) {
    try {
      if (statSync(blob).mtimeMs > since) return;
    } catch {
      // renamed into place meanwhile
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${blob} was not rebuilt within 60 s`);
}

describe('hermes-mcp snapshot', () => {
  let launcher: string;
  let blob: string;

  it('builds the snapshot and its launcher, and the server answers from it: core is restored, not loaded from disk', async () => {
    const built = snapshot('dist/main.js');
    expect(built).toMatchObject({ code: 0, stderr: '' });
    const said = JSON.parse(built.stdout);
    expect(said.packages).toEqual(['reflect-metadata', 'class-validator', 'class-transformer', 'typedi', '@hermes-mcp/protocol', '@hermes-mcp/core']);
    expect(said.files).toBeGreaterThan(100);
    ({ launcher, blob } = said);
    expect(launcher.startsWith(path.join(project, 'node_modules/.cache/hermes-mcp/snapshot/'))).toBe(true);

    const started = await start(launcher);
    expect(started).toMatchObject({ tools: ['echo', 'how'], how: { restored: true, coreFilesLoaded: 1 }, echo: 'hi' });
    // The console still goes to stderr: the transport's redirect works in a restored process.
    expect(started.stderr).toContain('how was called');
  });

  it("keeps the server's schemas under the snapshot's code, in a file of its own, and reads them back at the next start", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'hermes-snapshot-schemas-'));
    try {
      const first = await start(launcher, { HERMES_SCHEMA_CACHE: folder });
      expect(first).toMatchObject({ tools: ['echo', 'how'], how: { restored: true }, echo: 'hi' });
      const files = readdirSync(path.join(folder, 'schemas'));
      expect(files).toEqual([expect.stringMatching(new RegExp(`^main\\.js-[0-9a-z]+-node${process.versions.node.split('.')[0]}-snapshot\\.json$`))]);
      const file = path.join(folder, 'schemas', files[0]);
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { stamp: string; code: unknown[]; entries: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      // Stamped with the snapshot's code (the digest of its bundled files), not with files read from a module cache.
      expect(JSON.parse(kept.stamp)).toEqual(['snapshot', expect.stringMatching(/^[0-9a-f]{32}$/), process.versions.node.split('.')[0]]);
      expect(kept.code).toEqual([]);
      expect(Object.values(kept.entries).map((entry) => entry.schema.properties)).toContainEqual({ text: { type: 'string' } });
      const written = statSync(file).mtimeMs;
      // Read back: nothing new to build, so nothing is written.
      expect(await start(launcher, { HERMES_SCHEMA_CACHE: folder })).toMatchObject({ tools: first.tools, how: { restored: true }, echo: 'hi' });
      expect(statSync(file).mtimeMs).toBe(written);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('starts without the snapshot when HERMES_INTEROP is set: the self-checks it ran at build time are what that variable switches off', async () => {
    const before = statSync(blob).mtimeMs;
    expect(await start(launcher, { HERMES_INTEROP: 'public' })).toMatchObject({ how: { restored: false }, echo: 'hi' });
    expect(statSync(blob).mtimeMs).toBe(before);
  });

  it("reads the user's code from disk at every start: a tool added after the build is served from the same snapshot", async () => {
    writeServer('added_later');
    try {
      expect(await start(launcher)).toMatchObject({ tools: ['added_later', 'echo', 'how'], how: { restored: true } });
    } finally {
      writeServer();
    }
  });

  it('never serves a snapshot whose libraries changed: the server starts without it, and the next start has a new one', async () => {
    const before = statSync(blob).mtimeMs;
    appendFileSync(path.join(project, 'node_modules/@hermes-mcp/core/package.json'), '\n');
    const stale = await start(launcher);
    expect(stale).toMatchObject({ tools: ['echo', 'how'], how: { restored: false }, echo: 'hi' });
    expect(stale.how.coreFilesLoaded).toBeGreaterThan(1);
    expect(stale.stderr).toContain('the startup snapshot is stale (');
    expect(stale.stderr).toContain('@hermes-mcp/core/package.json changed');
    await rebuiltAfter(blob, before);
    expect(await start(launcher)).toMatchObject({ how: { restored: true, coreFilesLoaded: 1 } });
  });

  it('never hands a snapshot to a Node binary that changed after it was written (Node refuses another build): the launcher starts without it and rebuilds', async () => {
    // As after an in-place upgrade of Node: the binary's status changed after the snapshot was written.
    const old = new Date('2001-01-01T00:00:00Z');
    utimesSync(blob, old, old);
    const plain = await start(launcher);
    expect(plain).toMatchObject({ how: { restored: false }, echo: 'hi' });
    await rebuiltAfter(blob, old.getTime());
    expect(await start(launcher)).toMatchObject({ how: { restored: true } });
  });

  it("starts from the host's command (what install writes) even when the cache was wiped (npm ci empties node_modules): once without the snapshot, which is rebuilt", async () => {
    const built = JSON.parse(snapshot('dist/main.js').stdout) as { command: string; args: string[]; blob: string };
    expect(built.command).toBe('/bin/sh');
    expect(await start(built)).toMatchObject({ how: { restored: true } });
    rmSync(path.dirname(built.blob), { recursive: true, force: true });
    expect(await start(built)).toMatchObject({ tools: ['echo', 'how'], how: { restored: false }, echo: 'hi' });
    await rebuiltAfter(built.blob, 0);
    const rebuilt = await start(built);
    // Not restored: what the server said on stderr tells why (the snapshot found stale, and what changed).
    expect({ ...rebuilt, stderr: rebuilt.how.restored ? '' : rebuilt.stderr }).toMatchObject({ how: { restored: true, coreFilesLoaded: 1 }, stderr: '' });
  });

  it('refuses what it cannot snapshot with a message and exit 1, and a command line it cannot read with exit 2', () => {
    writeFileSync(path.join(project, 'dist/plain.js'), 'console.log(1)\n');
    const outside = mkdtempSync(path.join(tmpdir(), 'hermes-snapshot-plain-'));
    try {
      writeFileSync(path.join(outside, 'plain.js'), '\n');
      expect(spawnSync(process.execPath, [cli, 'snapshot', path.join(outside, 'plain.js')], { encoding: 'utf8' })).toMatchObject({
        status: 1,
        stderr: `hermes-mcp: @hermes-mcp/core cannot be found from ${outside}: a snapshot is made for a Hermes server\n`,
      });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    expect(snapshot('src/main.ts')).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a built .js file') });
    expect(snapshot()).toMatchObject({ code: 2, stderr: expect.stringContaining('snapshot takes one entry') });
    expect(snapshot('dist/main.js', '--fast')).toMatchObject({ code: 2, stderr: expect.stringContaining('snapshot takes no option --fast') });
  });
});
