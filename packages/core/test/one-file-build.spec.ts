/**
 * The one-file build npm installs (scripts/bundle.mjs, packed by scripts/pack.mjs): core and
 * protocol staged as `npm pack` stages them, into a project of their own in a temporary folder
 * whose other packages link to the repository's, and run there by Node as a user's server runs.
 *
 * What it holds to: a server answers as with tsc's build; every entry takes its exports from the
 * one bundle (one copy of each module's state) and names them for an ES module's import; the
 * loader compiles the bundle from V8's code cache once one is kept, writes it once, never serves a
 * cache of other code (a bundle patched in place runs as patched), and stands aside where it must
 * (HERMES_CODE_CACHE=off; another module registry, as jest's here).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const root = path.join(__dirname, '../../..');

let project: string;
let cache: string;

/** Node in the project: `args` with `input` on stdin; its exit code and output. */
function node(args: string[], input = '', env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: project, input, encoding: 'utf8', timeout: 30_000, env: { ...process.env, HERMES_SCHEMA_CACHE: 'off', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The code cache files kept for this Node: name → modification time. */
function kept(): Record<string, number> {
  let names: string[] = [];
  try {
    names = readdirSync(cache).filter((name) => name.includes(`-${process.version}-`));
  } catch {
    // none yet
  }
  return Object.fromEntries(names.sort().map((name) => [name, statSync(path.join(cache, name)).mtimeMs]));
}

const LINES = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'one-file-build.spec', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 7 } } },
]
  .map((line) => `${JSON.stringify(line)}\n`)
  .join('');

type Answer = { id: number; result?: { tools?: Array<{ name: string }>; content?: Array<{ text: string }>; isError?: boolean } };

/** The server's answers to LINES, by id. */
function serve(env: Record<string, string> = {}): Record<number, Answer> {
  const run = node(['server.js'], LINES, env);
  expect(run).toMatchObject({ code: 0 });
  return Object.fromEntries(
    run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Answer)
      .map((answer) => [answer.id, answer]),
  );
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'hermes-one-file-'));
  const modules = path.join(project, 'node_modules');
  mkdirSync(path.join(modules, '@hermes-mcp'), { recursive: true });
  for (const name of readdirSync(path.join(root, 'node_modules'))) {
    if (name === '@hermes-mcp' || name.startsWith('.')) continue;
    symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
  }
  // Staged and bundled as `npm run pack` does (scripts/pack.mjs), into the project's node_modules.
  const staged = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { stage } from ${JSON.stringify(path.join(root, 'scripts/pack.mjs'))}; for (const name of ['protocol', 'core']) stage(name, ${JSON.stringify(path.join(modules, '@hermes-mcp'))} + '/' + name);`,
    ],
    { encoding: 'utf8' },
  );
  expect(staged).toMatchObject({ status: 0, stderr: '' });
  cache = path.join(modules, '.cache/hermes-mcp/code');
  writeFileSync(
    path.join(project, 'server.js'),
    `'use strict';
require('reflect-metadata');
const { IsString } = require('class-validator');
const { McpFactory, McpServer, Tool } = require('@hermes-mcp/core');
class EchoInput {}
IsString()(EchoInput.prototype, 'text');
Reflect.defineMetadata('design:type', String, EchoInput.prototype, 'text');
class Server { echo({ text }) { return text + (globalThis.__patched ?? ''); } }
Tool({ description: 'Echoes text', input: EchoInput })(Server.prototype, 'echo', Object.getOwnPropertyDescriptor(Server.prototype, 'echo'));
McpServer({ name: 'one-file', version: '1.0.0' })(Server);
McpFactory.create(Server).listen();
`,
  );
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the one-file build', () => {
  it('loads core and protocol as one bundle each, through their loaders, and nothing else of Hermes (nor node:v8, which the loaders ask only in a snapshot build)', () => {
    const run = node([
      '-e',
      "require('reflect-metadata'); require('@hermes-mcp/core'); process.stdout.write(JSON.stringify({ v8: process.moduleLoadList.includes('NativeModule v8'), files: Object.keys(require.cache).filter((f) => f.includes('@hermes-mcp')).map((f) => path.relative(path.join(process.cwd(), 'node_modules'), f)).sort() }))",
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const { v8, files } = JSON.parse(run.stdout) as { v8: boolean; files: string[] };
    expect(v8).toBe(false);
    expect(files).toEqual([
      '@hermes-mcp/core/dist/core.bundle.js',
      '@hermes-mcp/core/dist/core.load.js',
      '@hermes-mcp/core/dist/index.js',
      '@hermes-mcp/protocol/dist/index.js',
      '@hermes-mcp/protocol/dist/protocol.bundle.js',
      '@hermes-mcp/protocol/dist/protocol.load.js',
    ]);
  });

  it("serves as tsc's build does, and keeps a code cache of each bundle once: the next start compiles from it and writes nothing", () => {
    rmSync(cache, { recursive: true, force: true });
    const first = serve();
    expect(first[1].result).toMatchObject({ serverInfo: { name: 'one-file' } });
    expect(first[2].result?.tools?.map((tool) => tool.name)).toEqual(['echo']);
    expect(first[3].result).toMatchObject({ content: [{ text: 'hi' }] });
    expect(first[4].result).toMatchObject({ isError: true });
    const files = kept();
    expect(Object.keys(files)).toEqual([
      expect.stringMatching(new RegExp(`^core\\.bundle\\.js-[0-9a-f]{16}-${process.version}-${process.arch}-\\d+-\\d+\\.bin$`)),
      expect.stringMatching(new RegExp(`^protocol\\.bundle\\.js-[0-9a-f]{16}-${process.version}-${process.arch}-\\d+-\\d+\\.bin$`)),
    ]);
    expect(serve()).toEqual(first);
    expect(kept()).toEqual(files);
  });

  it('resolves a package the bundle requires at most twice, not at each of its modules that imports it (Node resolves a package another file loaded anew at each require)', () => {
    const counter = path.join(project, 'count-requires.js');
    writeFileSync(
      counter,
      `const Module = require('node:module');
       const load = Module._load;
       const counts = {};
       // Node's require from the bundle: each one that gets here resolves its request.
       Module._load = function (request, parent, ...rest) {
         if (parent && /core\\.bundle\\.js$/.test(parent.filename ?? '') && !request.startsWith('node:')) counts[request] = (counts[request] ?? 0) + 1;
         return load.call(this, request, parent, ...rest);
       };
       process.on('exit', () => process.stderr.write('required:' + JSON.stringify(counts) + '\\n'));`,
    );
    const run = node(['--require', counter, 'server.js'], LINES);
    expect(run).toMatchObject({ code: 0 });
    const counts = JSON.parse(/required:(.*)/.exec(run.stderr)?.[1] ?? 'null') as Record<string, number>;
    // tsc writes require("reflect-metadata") in each of core's modules that imports it: 18 of them load here.
    expect(counts['reflect-metadata']).toBeGreaterThanOrEqual(1);
    expect(Object.entries(counts).filter(([, count]) => count > 2)).toEqual([]);
    expect(Object.keys(counts)).toEqual(expect.arrayContaining(['reflect-metadata', 'class-validator', 'typedi']));
  });

  it('ships each bundle as ASCII (V8 then keeps its source at a byte a character), its comments aside unchanged', () => {
    for (const name of ['core', 'protocol']) {
      const bundle = readFileSync(path.join(project, `node_modules/@hermes-mcp/${name}/dist/${name}.bundle.js`), 'utf8');
      expect(bundle.length).toBeGreaterThan(10_000);
      expect(bundle.match(/[^\t\n\r\x20-\x7e]/g)).toBeNull();
    }
  });

  it('gives every entry its exports from the one bundle: one copy of each module, whichever is imported first', () => {
    const run = node([
      '-e',
      `const adapter = require('@hermes-mcp/core/adapter');
       const internal = require('@hermes-mcp/core/internal');
       const core = require('@hermes-mcp/core');
       const protocol = require('@hermes-mcp/protocol');
       process.stdout.write(JSON.stringify([adapter.WS_CLOSE === core.WS_CLOSE, adapter.parseJson === protocol.parseJson, typeof internal.methodSpec('tools/call'), typeof core.McpFactory.create]));`,
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([true, true, 'object', 'function']);
  });

  it.each([
    ['@hermes-mcp/core', 'McpFactory'],
    ['@hermes-mcp/core/adapter', 'HttpEndpoint'],
    ['@hermes-mcp/core/internal', 'methodSpec'],
    ['@hermes-mcp/protocol', 'parseJson'],
  ])('names the exports of %s for an ES module: import { %s } finds it', (entry, name) => {
    const run = node(['--input-type=module', '-e', `import { ${name} } from ${JSON.stringify(entry)}; process.stdout.write(typeof ${name});`]);
    expect(run).toMatchObject({ code: 0, stdout: 'function', stderr: '' });
  });

  it('never serves the cache of other code: a bundle patched in place runs as patched, under a cache of its own', () => {
    serve();
    const before = kept();
    const bundle = path.join(project, 'node_modules/@hermes-mcp/core/dist/core.bundle.js');
    appendFileSync(bundle, "\nglobalThis.__patched = ' (patched)';\n");
    expect(serve()[3].result).toMatchObject({ content: [{ text: 'hi (patched)' }] });
    const after = kept();
    expect(Object.keys(after)).toHaveLength(Object.keys(before).length + 1);
    expect(serve()[3].result).toMatchObject({ content: [{ text: 'hi (patched)' }] });
  });

  it('writes nothing with HERMES_CODE_CACHE=off or --enable-source-maps (Node maps the stack traces), and keeps it in the folder HERMES_CODE_CACHE names', () => {
    rmSync(cache, { recursive: true, force: true });
    expect(serve({ HERMES_CODE_CACHE: 'off' })[3].result).toMatchObject({ content: [{ text: 'hi (patched)' }] });
    expect(kept()).toEqual({});
    expect(serve({ NODE_OPTIONS: '--enable-source-maps' })[3].result).toMatchObject({ content: [{ text: 'hi (patched)' }] });
    expect(kept()).toEqual({});
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'hermes-code-cache-'));
    try {
      serve({ HERMES_CODE_CACHE: elsewhere });
      expect(readdirSync(elsewhere).filter((name) => name.includes(`-${process.version}-`))).toHaveLength(2);
      expect(kept()).toEqual({});
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("stands aside under another module registry (jest's, here): the bundle is required as any module is, and no cache is written", async () => {
    rmSync(cache, { recursive: true, force: true });
    jest.isolateModules(() => {
      const core = require(path.join(project, 'node_modules/@hermes-mcp/core')) as { McpFactory: { create: unknown } };
      expect(typeof core.McpFactory.create).toBe('function');
    });
    // The loader writes its cache on the turn after it compiled: nothing is there after it.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(kept()).toEqual({});
  });
});
