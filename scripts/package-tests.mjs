// `npm run test:packages`: Hermes as someone else's project uses it. Packs every package, then,
// in folders outside the repository:
//
// 1. consumer: runs the README's install commands as written (the blocks marked `consumer: install`
//    and `consumer: install test`, so the latest releases they pick are what is tested; only the
//    Hermes package names become the tarballs, real copies, no links; on a Node in the engines
//    range npm must print no EBADENGINE), writes the files the README shows (a server with a
//    nested DTO and constructor injection, a stdio main, a Fastify main) with the README's
//    tsconfig, compiles them as CommonJS and again as an ES module project (`nodenext`), runs each
//    over stdio and over HTTP and the .ts entry with `hermes-mcp run`, drives them with the
//    official SDK client, and runs the README's jest test (@swc/jest). All of it twice: with the
//    TypeScript `npm install typescript` gives (7), and with `typescript@5`;
// 2. folder install: installs core from its folder (a link, as `npm install <folder>` and
//    `npm link` do) and checks that bootstrap refuses the second copies of the libraries with
//    HERMES_DUPLICATE_LIBRARY instead of failing later with a misleading error;
// 3. scaffolder: `create-hermes-mcp` from its tarball writes a project that uses the tarballs; its
//    `npm run --silent inspect` writes its schema snapshot, and its `npm test` (@swc/jest) and
//    `npm start` (TypeScript 7's tsc, as the template asks) must work.
//
// Needs the registry (or npm's cache) for the peers; takes a minute or two. `--keep` leaves the
// folders for a look.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeInEngines } from './cache.mjs';
import { PACKAGES, packPackages } from './pack.mjs';
import docBlocksModule from './doc-blocks.cjs';

const { docBlocks } = docBlocksModule;

const repo = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = mkdtempSync(path.join(tmpdir(), 'hermes-packages-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const rootPackage = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
const versionOf = (name) => rootPackage.devDependencies[name];

function step(text) {
  process.stdout.write(`\n[packages] ${text}\n`);
}

function run(command, args, cwd, options = {}) {
  return execFileSync(command, args, { cwd, stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', env: { ...process.env, ...options.env } });
}

/** `npm install` in `cwd`; on a Node in the engines range, with no EBADENGINE warning. */
function install(cwd) {
  const result = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=warn'], { cwd, encoding: 'utf8' });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  check(result.status === 0, `npm install in ${cwd} exits 0 (got ${result.status})`);
  if (nodeInEngines()) check(!result.stderr.includes('EBADENGINE'), `npm install in ${cwd} on Node ${process.versions.node} warns of no engine (EBADENGINE)`);
}

function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
}

/**
 * The `npm install` commands of a README block, as argument lists, with each `@hermes-mcp/<name>`
 * replaced by its tarball (they are not published from here). Anything else in the block is a
 * mistake: the test must run what the README says, all of it.
 */
function installCommands(block, tarballs) {
  const lines = block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
  return lines.map((line) => {
    const words = line.split(/\s+/);
    check(words[0] === 'npm' && words[1] === 'install', `the README's install block holds npm install commands only (got "${line}")`);
    return words.slice(1).map((word) => {
      const hermes = /^@hermes-mcp\/([a-z-]+)$/.exec(word);
      if (!hermes) return word;
      check(hermes[1] in tarballs, `the README installs ${word}, a package that is packed here`);
      return tarballs[hermes[1]];
    });
  });
}

/**
 * Runs the `npm install` commands of a README block in `cwd`, as written but for the quieter
 * output; on a Node the packages' engines take, npm must not warn that anything installed wants
 * another Node (EBADENGINE).
 */
function installAsTheReadmeSays(block, tarballs, cwd) {
  for (const args of installCommands(block, tarballs)) {
    process.stdout.write(`  npm ${args.join(' ')}\n`);
    const result = spawnSync(npm, [...args, '--no-audit', '--no-fund', '--loglevel=warn'], { cwd, encoding: 'utf8' });
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    check(result.status === 0, `npm ${args.join(' ')} exits 0 (got ${result.status})`);
    if (nodeInEngines()) check(!result.stderr.includes('EBADENGINE'), `npm install on Node ${process.versions.node} warns of no engine (EBADENGINE)`);
  }
}

/** The code blocks of the README and docs/ marked `<!-- consumer: NAME -->`, by name (scripts/doc-blocks.cjs reads them). */
function readmeBlocks() {
  const blocks = new Map(docBlocks(repo).flatMap((block) => (block.marker?.kind === 'consumer' ? [[block.marker.what, block.code]] : [])));
  for (const name of [
    'install',
    'install test',
    'tsconfig cjs',
    'tsconfig esm',
    'src/weather.server.ts',
    'src/main.ts',
    'src/http.ts',
    'test/weather.spec.ts',
    'jest.config.cjs',
    'src/http-app.ts',
  ])
    check(blocks.has(name), `README has the block "${name}"`);
  return blocks;
}

async function main() {
  step(`building, then packing into ${work}`);
  run(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-b'], repo);
  const tarballs = {};
  for (const [name, packed] of Object.entries(packPackages(PACKAGES, path.join(work, 'tarballs')))) {
    tarballs[name] = packed.tarball;
    const files = packed.files;
    check(files.includes('LICENSE') && files.includes('README.md') && files.includes('package.json'), `${name}: the tarball has LICENSE, README.md and package.json`);
    check(!files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.tsbuildinfo')), `${name}: the tarball has no sources, tests or build info`);
    process.stdout.write(`  ${path.basename(packed.tarball)}: ${files.length} files, ${(packed.size / 1024).toFixed(0)} KiB\n`);
  }
  const file = (name) => `file:${tarballs[name]}`;
  const blocks = readmeBlocks();
  // The README's lines as written (`npm install typescript`: the latest, TypeScript 7 today), then
  // once more with `typescript@5`, each in a folder of its own.
  let consumer;
  for (const typescript of TYPESCRIPTS) {
    consumer = path.join(work, `consumer-ts${typescript.major}`);
    await consumerChecks(consumer, typescript, blocks, tarballs);
  }
  step('from a clone: the line `npm run pack -- core fastify` prints, run in a new project');
  const printed = run(process.execPath, [path.join(repo, 'scripts/pack.mjs'), 'core', 'fastify', '--dest', path.join(work, 'clone-packs')], repo, { capture: true }).trim();
  check(
    /^npm install \S+hermes-mcp-protocol-[^ ]+\.tgz \S+hermes-mcp-core-[^ ]+\.tgz \S+hermes-mcp-fastify-[^ ]+\.tgz /.test(printed),
    `pack prints the install line (got "${printed}")`,
  );
  const fromClone = path.join(work, 'from-clone');
  mkdirSync(fromClone);
  writeFileSync(path.join(fromClone, 'package.json'), JSON.stringify({ name: 'from-clone', private: true }, null, 2));
  installAsTheReadmeSays(printed, {}, fromClone);
  const loads = spawnSync(
    process.execPath,
    [
      '-e',
      "require('reflect-metadata'); const { McpFactory } = require('@hermes-mcp/core'); const { hermesMcp } = require('@hermes-mcp/fastify'); process.exit(typeof McpFactory.create === 'function' && typeof hermesMcp === 'function' ? 0 : 1)",
    ],
    { cwd: fromClone },
  );
  check(loads.status === 0, `the packed core and fastify load in the new project (${loads.stderr})`);

  step('folder install: core linked from its folder must be refused with HERMES_DUPLICATE_LIBRARY');
  const linked = path.join(work, 'linked');
  mkdirSync(path.join(linked, 'dist'), { recursive: true });
  writeFileSync(
    path.join(linked, 'package.json'),
    JSON.stringify(
      {
        name: 'hermes-linked',
        private: true,
        dependencies: {
          '@hermes-mcp/core': `file:${path.join(repo, 'packages/core')}`,
          '@hermes-mcp/protocol': `file:${path.join(repo, 'packages/protocol')}`,
          'class-transformer': versionOf('class-transformer'),
          'class-validator': versionOf('class-validator'),
          'reflect-metadata': versionOf('reflect-metadata'),
          typedi: versionOf('typedi'),
        },
      },
      null,
      2,
    ),
  );
  install(linked);
  for (const name of ['weather.server.js', 'main.js']) writeFileSync(path.join(linked, 'dist', name), readFileSync(path.join(consumer, 'cjs/dist', name)));
  const refused = await runToExit(process.execPath, [path.join(linked, 'dist/main.js')], linked);
  check(refused.code === 1, `the linked install exits with 1 (got ${refused.code})`);
  check(
    /HERMES_DUPLICATE_LIBRARY: .* is loaded twice: .* at .*node_modules.* and .* at .*node_modules/.test(refused.stderr),
    `the linked install names both copies; stderr:\n${refused.stderr}`,
  );
  check(/--install-links/.test(refused.stderr), 'the message says how to fix it');
  process.stdout.write(
    `  refused: ${refused.stderr
      .split('\n')
      .find((l) => /^\w*Error: HERMES_DUPLICATE_LIBRARY/.test(l.trim()))
      ?.trim()
      .slice(0, 240)}…\n`,
  );

  step('scaffolder: npm create hermes-mcp, from its tarball');
  const tool = path.join(work, 'create');
  mkdirSync(tool);
  writeFileSync(path.join(tool, 'package.json'), JSON.stringify({ name: 'create-tool', private: true, dependencies: { 'create-hermes-mcp': file('create-hermes-mcp') } }, null, 2));
  install(tool);
  const bin = path.join(tool, 'node_modules/.bin/create-hermes-mcp');
  run(bin, [path.join(work, 'my-server'), '--hermes-core', file('core'), '--hermes-testing', file('testing'), '--hermes-client', file('client')], work);
  const project = path.join(work, 'my-server');
  // The core, testing and client tarballs depend on @hermes-mcp/protocol (and testing on the client) at their version: point them at their tarballs too.
  const generated = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
  generated.overrides = { '@hermes-mcp/protocol': file('protocol'), '@hermes-mcp/core': file('core'), '@hermes-mcp/client': file('client') };
  writeFileSync(path.join(project, 'package.json'), JSON.stringify(generated, null, 2));
  install(project);
  step("scaffolder: the project's schema snapshot, as its README writes it (npm run --silent inspect > test/manifest.json)");
  writeFileSync(path.join(project, 'test/manifest.json'), run(npm, ['run', '--silent', 'inspect'], project, { capture: true }));
  step("scaffolder: the project's npm test");
  run(npm, ['test'], project);
  step("scaffolder: the project's npm start answers an MCP client on stdio");
  await driveStdio(consumer, npm, ['start', '--silent'], project, ['greet', 'greet_all'], { name: 'greet', arguments: { person: { name: 'Ada', language: 'es' } } }, 'Hola, Ada!');
  step('scaffolder: hermes-mcp install writes a host entry that starts the server from its startup snapshot (the packages as npm installed them)');
  const hostFile = path.join(work, 'host-mcp.json');
  run(path.join(project, 'node_modules/.bin/hermes-mcp'), ['install', 'claude-code', 'dist/main.js', '--config', hostFile], project, { capture: true });
  const entry = Object.values(JSON.parse(readFileSync(hostFile, 'utf8')).mcpServers)[0];
  check(
    entry.command === '/bin/sh' && entry.args[0] === '-c' && entry.args[1].includes('--snapshot-blob'),
    `the entry runs the snapshot's launcher (got ${JSON.stringify(entry)})`,
  );
  check(existsSync(entry.args[5]), `the snapshot was built (${entry.args[5]})`);
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'package-tests', version: '1.0.0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  const hosted = spawnSync(entry.command, entry.args, {
    cwd: work,
    input: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    encoding: 'utf8',
    env: { ...entry.env },
    timeout: 30_000,
  });
  const answers = hosted.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  check(
    answers.length === 2 && answers[1].result.tools.some((tool) => tool.name === 'greet'),
    `the host's command answers initialize and tools/list (stdout ${hosted.stdout.slice(0, 300)}; stderr ${hosted.stderr.slice(0, 500)})`,
  );
  check(!hosted.stderr.includes('stale'), `the snapshot was used, not refused as stale (stderr: ${hosted.stderr.slice(0, 500)})`);
  process.stdout.write(`  the host's command (the snapshot's launcher): initialize and tools/list over stdio: ok\n`);
  step('all package checks passed');
}

/**
 * The TypeScript each consumer pass installs: the README's `typescript` as written (the latest;
 * this test expects 7), then `typescript@5` in its place.
 */
const TYPESCRIPTS = [
  { major: 7, spec: 'typescript' },
  { major: 5, spec: 'typescript@5' },
];

/**
 * One consumer project in `consumer`: the README's install commands (with `typescript` read as
 * `typescript.spec`), its files compiled as CommonJS and as ES modules and driven over stdio and
 * HTTP, the .ts entry run by `hermes-mcp run`, and the README's test with jest.
 */
async function consumerChecks(consumer, typescript, blocks, tarballs) {
  const file = (name) => `file:${tarballs[name]}`;
  const label = `consumer, TypeScript ${typescript.major}`;
  const asWritten = (block) => block.replace(/(npm install --save-dev .*)\btypescript\b(?!@)/, `$1${typescript.spec}`);
  step(`${label}: the README's install commands, as written but for ${typescript.spec} (the Hermes packages from their tarballs)`);
  mkdirSync(consumer);
  // The tarballs depend on @hermes-mcp/protocol at their version, which the registry does not have:
  // an override points that dependency at its tarball (the other Hermes packages they depend on are
  // installed beside them). Nothing else is pinned here.
  const overrides = { '@hermes-mcp/protocol': file('protocol') };
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'hermes-consumer', private: true, overrides }, null, 2));
  installAsTheReadmeSays(asWritten(blocks.get('install')), tarballs, consumer);
  const tscVersion = JSON.parse(readFileSync(path.join(consumer, 'node_modules/typescript/package.json'), 'utf8')).version;
  check(Number(tscVersion.split('.')[0]) === typescript.major, `${label}: ${typescript.spec} installed TypeScript ${typescript.major} (got ${tscVersion})`);
  process.stdout.write(`  typescript ${tscVersion}\n`);
  step(`${label}: what this test needs beyond the README (the SDK client, the other packages, SWC for hermes-mcp run)`);
  run(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      file('client'),
      file('redis'),
      file('opentelemetry'),
      `@opentelemetry/api@${versionOf('@opentelemetry/api')}`,
      `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`,
      `@swc/core@${versionOf('@swc/core')}`,
    ],
    consumer,
  );
  step(`${label}: @hermes-mcp/redis and @hermes-mcp/opentelemetry load from their tarballs (CommonJS and ES modules)`);
  for (const [name, symbol] of [
    ['@hermes-mcp/redis', 'redisCluster'],
    ['@hermes-mcp/opentelemetry', 'instrumentOpenTelemetry'],
  ]) {
    const cjs = spawnSync(process.execPath, ['-e', `process.exit(typeof require(${JSON.stringify(name)}).${symbol} === 'function' ? 0 : 1)`], { cwd: consumer });
    check(cjs.status === 0, `${name}: require() gives ${symbol}`);
    const esm = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { ${symbol} } from ${JSON.stringify(name)}; process.exit(typeof ${symbol} === 'function' ? 0 : 1)`],
      { cwd: consumer },
    );
    check(esm.status === 0, `${name}: import gives ${symbol}`);
  }
  step(`${label}: the hermes-mcp command of @hermes-mcp/client runs from node_modules/.bin`);
  const hermes = path.join(consumer, 'node_modules/.bin/hermes-mcp');
  const usage = spawnSync(hermes, ['--help'], { encoding: 'utf8' });
  check(usage.status === 0 && usage.stderr.includes('usage: hermes-mcp <command>'), 'hermes-mcp --help prints the usage and exits 0');
  for (const mode of ['cjs', 'esm']) {
    step(`${label} (${mode === 'cjs' ? 'CommonJS' : 'ES modules, nodenext'}): the README's files, compiled with its tsconfig`);
    const dir = path.join(consumer, mode);
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `hermes-consumer-${mode}`, private: true, type: mode === 'cjs' ? 'commonjs' : 'module' }, null, 2));
    writeFileSync(path.join(dir, 'tsconfig.json'), blocks.get(`tsconfig ${mode}`));
    for (const name of ['src/weather.server.ts', 'src/main.ts', 'src/http.ts', 'src/http-app.ts']) writeFileSync(path.join(dir, name), blocks.get(name));
    run(process.execPath, [path.join(consumer, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
    await drive(consumer, dir, `${mode}, TypeScript ${typescript.major}`);
  }
  step(
    `${label}: core and protocol, installed as their one-file builds (scripts/bundle.mjs; one-file-build.spec checks what they load), load from V8's code cache, and the schema cache kept what the stdio servers built`,
  );
  // The servers started above kept V8's code cache of each bundle (scripts/bundle-loader.cjs); a later start compiles from it and writes nothing.
  const codeCache = path.join(consumer, 'node_modules/.cache/hermes-mcp/code');
  const codeFiles = () => (existsSync(codeCache) ? readdirSync(codeCache) : []).filter((name) => name.includes(`-${process.version}-`)).sort();
  const cached = codeFiles();
  check(
    cached.length === 2 && cached[0].startsWith('core.bundle.js-') && cached[1].startsWith('protocol.bundle.js-'),
    `${label}: a code cache of each bundle for Node ${process.version} (found ${cached.join(', ') || 'none'} in ${codeCache})`,
  );
  const written = cached.map((name) => statSync(path.join(codeCache, name)).mtimeMs);
  // Each entry's names are where an ES module's import finds them (the one-file build's entries say them for Node's lexer).
  for (const [entry, name] of [
    ['@hermes-mcp/core', 'McpFactory'],
    ['@hermes-mcp/core/adapter', 'HttpEndpoint'],
    ['@hermes-mcp/core/internal', 'methodSpec'],
    ['@hermes-mcp/protocol', 'parseJson'],
  ]) {
    const imported = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { ${name} } from ${JSON.stringify(entry)}; process.exit(typeof ${name} === 'function' ? 0 : 1)`],
      {
        cwd: consumer,
        encoding: 'utf8',
      },
    );
    check(imported.status === 0, `${label}: an ES module imports { ${name} } from ${entry} (${imported.stderr})`);
  }
  check(
    JSON.stringify(codeFiles()) === JSON.stringify(cached) && cached.every((name, n) => statSync(path.join(codeCache, name)).mtimeMs === written[n]),
    `${label}: loading core again (the imports above) compiled from the code cache and rewrote nothing`,
  );
  const schemas = path.join(consumer, 'node_modules/.cache/hermes-mcp/schemas');
  const kept = (existsSync(schemas) ? readdirSync(schemas) : [])
    .filter((name) => name.startsWith('main.js-'))
    .map((name) => JSON.parse(readFileSync(path.join(schemas, name), 'utf8')));
  check(
    kept.length === 2 &&
      kept.every(
        (cache) =>
          Object.keys(cache.entries).length > 0 &&
          cache.code.some((code) => code.root === path.join(consumer, 'node_modules/@hermes-mcp/core') && code.files.includes('dist/core.bundle.js')),
      ),
    `${label}: the CommonJS and ES module servers each kept their schemas, stamped with the installed core's one file (found ${kept.length} in ${schemas})`,
  );
  step(`${label}: the README's src/main.ts run directly, as \`npx hermes-mcp run src/main.ts\` (SWC)`);
  const cjs = path.join(consumer, 'cjs');
  const { Client, StdioClientTransport } = await sdk(consumer);
  const direct = new Client({ name: 'consumer-test', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: hermes, args: ['run', 'src/main.ts'], cwd: cjs, stderr: 'pipe' }));
  await exercise(direct, `hermes-mcp run src/main.ts, TypeScript ${typescript.major}`);
  await direct.close();

  step(`${label}: the README's test, with jest (@swc/jest) and @hermes-mcp/testing, installed as the README says`);
  installAsTheReadmeSays(blocks.get('install test'), tarballs, consumer);
  mkdirSync(path.join(cjs, 'test'));
  writeFileSync(path.join(cjs, 'test/weather.spec.ts'), blocks.get('test/weather.spec.ts'));
  writeFileSync(path.join(cjs, 'jest.config.cjs'), blocks.get('jest.config.cjs'));
  run(process.execPath, [path.join(consumer, 'node_modules/jest/bin/jest.js'), '--ci'], cjs);
}

/** Runs a command to its end; resolves with its exit code and output. */
function runToExit(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end();
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Imports the SDK from the consumer project (it is not a dependency of this script). */
async function sdk(consumer) {
  const load = (name) => import(pathToFileURL(path.join(consumer, 'node_modules/@modelcontextprotocol/sdk/dist/esm', name)).href);
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    load('client/index.js'),
    load('client/stdio.js'),
    load('client/streamableHttp.js'),
  ]);
  return { Client, StdioClientTransport, StreamableHTTPClientTransport };
}

/** Checks what every README server must do, through a connected SDK client. */
async function exercise(client, where) {
  const tools = (await client.listTools()).tools;
  const forecast = tools.find((t) => t.name === 'forecast');
  check(forecast && tools.some((t) => t.name === 'trip'), `${where}: tools/list has forecast and trip`);
  check(
    JSON.stringify(forecast.inputSchema).includes('"minLength":2') && forecast.inputSchema.required?.includes('place'),
    `${where}: the nested DTO's schema is published (${JSON.stringify(forecast.inputSchema)})`,
  );
  // (Progress is not checked here: the SDK client drops a progress notification that arrives in
  // the same chunk as its response, which on a fast server is a matter of timing.)
  const result = await client.callTool({ name: 'forecast', arguments: { place: { city: 'Paris' }, days: 2 } });
  check(
    result.structuredContent?.city === 'Paris' && result.structuredContent?.days === 2 && result.structuredContent?.tempC === 21,
    `${where}: forecast answers through the injected service (${JSON.stringify(result)})`,
  );
  const invalid = await client.callTool({ name: 'forecast', arguments: { place: { city: 'P' } } });
  check(invalid.isError === true && /place\.city/.test(invalid.content[0].text), `${where}: a nested field that fails validation is named (${JSON.stringify(invalid)})`);
  const missing = await client.callTool({ name: 'forecast', arguments: {} });
  check(missing.isError === true && /place/.test(missing.content[0].text), `${where}: a missing nested object is refused (@IsDefined)`);
  const trip = await client.callTool({ name: 'trip', arguments: { stops: [{ city: 'Paris' }, { city: 'Lima' }] } });
  check(trip.content[0].text === 'Paris → Lima', `${where}: an array of nested objects (${JSON.stringify(trip)})`);
  const city = await client.readResource({ uri: 'weather://city/Lima' });
  check(city.contents[0].text === 'Weather page of Lima', `${where}: the resource template`);
  const prompt = await client.getPrompt({ name: 'plan', arguments: { name: 'Lima' } });
  check(prompt.messages[0].content.text === 'Plan a trip to Lima', `${where}: the prompt`);
  process.stdout.write(`  ${where}: tools/list, tools/call (nested, invalid, missing, arrays), resources/read, prompts/get: ok\n`);
}

async function drive(consumer, dir, mode) {
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await sdk(consumer);
  // stdio: the SDK client spawns the server, as a desktop client does.
  const stdio = new Client({ name: 'consumer-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(dir, 'dist/main.js')], cwd: dir, stderr: 'pipe' });
  await stdio.connect(transport);
  await exercise(stdio, `${mode} over stdio`);
  await stdio.close();
  // HTTP: the Fastify mains (the README's and docs/http.md's) on a free port (Fastify's logger says which).
  for (const main of ['http.js', 'http-app.js']) {
    const server = spawn(process.execPath, [path.join(dir, 'dist', main)], { cwd: dir, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`${main} did not say where it listens:\n${out}`)), 15_000);
        server.stdout.on('data', (d) => {
          out += d;
          const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        server.on('exit', (code) => reject(new Error(`${main} exited with ${code}:\n${out}`)));
      });
      const http = new Client({ name: 'consumer-test', version: '1.0.0' });
      await http.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      await exercise(http, `${mode} over HTTP (Fastify, ${main})`);
      await http.close();
    } finally {
      server.kill();
    }
  }
}

/** Spawns a stdio server with `command`, connects the SDK client, lists tools and calls one. */
async function driveStdio(consumer, command, args, cwd, toolNames, call, text) {
  const { Client, StdioClientTransport } = await sdk(consumer);
  const client = new Client({ name: 'scaffold-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'pipe' }));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  for (const name of toolNames) check(tools.includes(name), `the scaffolded server lists ${name} (${tools})`);
  const result = await client.callTool(call);
  check(result.content[0].text === text, `the scaffolded server answers ${call.name} (${JSON.stringify(result)})`);
  await client.close();
  process.stdout.write(`  npm start: tools/list and tools/call over stdio: ok\n`);
}

main().then(
  () => {
    if (!keep) rmSync(work, { recursive: true, force: true });
  },
  (error) => {
    process.stderr.write(`\n[packages] FAILED: ${error instanceof Error ? error.stack : String(error)}\n[packages] the folders are kept in ${work}\n`);
    process.exit(1);
  },
);
