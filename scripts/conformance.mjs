// `npm run conformance`: runs the official MCP conformance suite against examples/conformance-server.
//
// 1. Makes sure the pinned suite is in .cache/ (git-ignored; scripts/cache.mjs installs it once,
//    never as a project dependency), and a Node 22+ to run it on: this one, else the pinned Node 24.
// 2. Builds the repository (tsc -b), starts the conformance server on 127.0.0.1 on a free port and
//    waits until it answers.
// 3. Runs the suite once per entry of RUNS, streaming its output; `npm run conformance -- <args>`
//    runs it once with <args> instead (e.g. `-- --suite all`, `-- --scenario tools-list`).
//    All of it once per adapter of ADAPTERS: the Fastify plugin, the Web-standard handler, the
//    Fastify plugin with its sessions, streams and tasks in Redis (@hermes-mcp/redis, a
//    redis-server of its own on a free port; left out with one line when there is no redis-server
//    on PATH, except in CI), and the Web-standard handler served by `Bun.serve` (the compiled
//    server run by the `bun` devDependency), and `hermes-mcp proxy` (@hermes-mcp/gateway) serving
//    the server spawned on stdio over HTTP — `CONFORMANCE_ADAPTERS=web` picks one.
// 4. Stops the server, then runs the suite's client side once per entry of RUNS against
//    examples/conformance-client (@hermes-mcp/client, signing in with its OAuthClient), the
//    authorization extensions (DPoP, the JWT-bearer grants) included, with no expected failures.
//    `CONFORMANCE_SIDES=server` or `=client`
//    runs one side.
// 5. The Skills extension (SEP-2640), which no requirement set includes: its 3 server scenarios on
//    every adapter and its 4 client scenarios, each at 2026-07-28 and at 2025-11-25, one run per
//    scenario and revision (SKILLS). The suite exits 0 on a SKIPPED check, so each run's
//    checks.json is read too: every sep-2640-* check must be SUCCESS (save those the suite skips
//    by design at 2025-11-25, SKILLS.skipped) — a skipped check is a path not exercised.
// 6. Exits 0 when every run exited 0; otherwise with the first failing run's code.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer as createNetServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedPackage, nodeBinary } from './cache.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = { name: '@modelcontextprotocol/conformance', version: '0.2.0-alpha.12' };
/** The suite needs Node 22 or newer; on an older Node it runs on the pinned Node 24 (scripts/cache.mjs). */
const SUITE_NODE_MAJOR = 22;
const SERVER = join(ROOT, 'examples/conformance-server/dist/main.js');
const CLIENT = join(ROOT, 'examples/conformance-client/dist/main.js');
/** Which sides of the suite run (`CONFORMANCE_SIDES`, default both). */
const SIDES = (process.env.CONFORMANCE_SIDES ?? 'server,client').split(',').filter(Boolean);
const STARTUP_TIMEOUT_MS = 20_000;

/**
 * The suite's runs, one per revision (the CLI takes one per run; `--suite all` would run the shared
 * scenarios at 2025-11-25 only), each judged by its own exit code: the printed `Total:` line also
 * counts unscored scenarios (tasks-*, pending ones), which never change the exit code.
 */
const RUNS = [
  { label: '2025-11-25', args: ['--requirements', '2025-11-25'] },
  { label: '2026-07-28', args: ['--requirements', '2026-07-28'] },
];

/**
 * The Skills extension's scenarios (SEP-2640). Extension scenarios belong to no requirement set
 * and run with `--scenario`; `--spec-version` picks the wire (2026-07-28: stateless; 2025-11-25:
 * an initialized session, where Hermes offers skills as the SDK's "backport") and `--force` lets
 * an extension scenario run at a given revision. `skipped`: the checks the suite itself SKIPs at a
 * revision (the cache fields are 2026-07-28's), the only ones the audit lets be other than SUCCESS.
 */
const SKILLS = {
  server: ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'],
  client: ['sep-2640-client-no-prefetch', 'sep-2640-client-verify-digest', 'sep-2640-client-verify-size', 'sep-2640-client-verify-frontmatter'],
  revisions: ['2026-07-28', '2025-11-25'],
  skipped: { '2025-11-25': ['sep-2640-skills-list-cache-attributes', 'sep-2640-skills-get-cache-attributes'] },
};

/** The HTTP adapters the server runs on, one server each (`ADAPTER` of the conformance server). */
const ADAPTERS = (process.env.CONFORMANCE_ADAPTERS ?? 'fastify,web,redis,bun,proxy').split(',').filter(Boolean);
/** The `proxy` adapter: `hermes-mcp proxy` (@hermes-mcp/gateway) serving the conformance server, spawned on stdio, over HTTP. */
const PROXY_CLI = join(ROOT, 'packages/client/dist/cli.js');

/**
 * The runtime that runs the server for `adapter`: Bun (the devDependency's binary, which runs the
 * compiled dist/main.js and so has its decorator metadata) for `bun`, else this Node.
 */
function runtimeOf(adapter) {
  if (adapter !== 'bun') return process.execPath;
  const bin = readJson(join(ROOT, 'node_modules/bun/package.json')).bin.bun;
  return join(ROOT, 'node_modules/bun', bin);
}

const isWindows = process.platform === 'win32';

function log(line) {
  process.stderr.write(`[conformance] ${line}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', shell: isWindows, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A Node binary the suite can run on: this one when it is new enough, else Node 24 from the cache. */
function suiteNode() {
  return Number(process.versions.node.split('.')[0]) >= SUITE_NODE_MAJOR ? process.execPath : nodeBinary(24);
}

/** The suite's CLI entry point, installed at the pinned version. */
function suiteEntry() {
  const dir = cachedPackage('conformance', SUITE.name, SUITE.version);
  const bin = readJson(join(dir, 'package.json')).bin;
  return join(dir, typeof bin === 'string' ? bin : bin.conformance);
}

function build() {
  log('building (tsc -b)');
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const status = run(process.execPath, [tsc, '-b']);
  if (status !== 0) throw new Error(`the build failed (exit ${status})`);
}

/**
 * Starts the server with PORT=0 (the OS picks a free port; no race with other processes), reads
 * the URL it prints, and waits until it answers HTTP.
 */
async function startServer(adapter, env = {}) {
  // The proxy prints its endpoint as the server does; its upstream is the server on stdio (ADAPTER=stdio).
  const args = adapter === 'proxy' ? [PROXY_CLI, 'proxy', '--http', '0', '--', process.execPath, SERVER] : [SERVER];
  const child = spawn(runtimeOf(adapter), args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', ADAPTER: adapter === 'proxy' ? 'stdio' : adapter, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(process.stderr);
  try {
    return { child, url: await ready(child) };
  } catch (error) {
    await stopServer(child);
    throw error;
  }
}

async function ready(child) {
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the server printed no URL within ${STARTUP_TIMEOUT_MS} ms`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk) => {
      process.stderr.write(chunk);
      seen += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)\b/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.stderr.pipe(process.stderr);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited before it was ready (${signal ?? `exit ${code}`})`));
    });
  });
  // A dead endpoint "passes" some SHOULD-only scenarios: make sure this one answers first.
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    try {
      await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } });
      return url;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the server at ${url} does not answer: ${error.message}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A redis-server of its own for the `redis` adapter, on a free loopback port, nothing saved; undefined
 * (with one line saying so) when there is none on PATH — in CI its absence is an error.
 */
async function startRedis() {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
    if (process.env.CI === 'true') throw new Error('no redis-server on PATH (Debian: apt-get install redis-server)');
    log('redis adapter skipped: no redis-server on PATH (Debian: apt-get install redis-server)');
    return undefined;
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    const up = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}`, stop: () => stopServer(child) };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function runSuite(node, entry, url, args) {
  return spawnSuite(node, [entry, 'server', '--url', url, ...args]);
}

/** The client side: the suite starts a mock server per scenario and runs our client against it. */
function runClientSuite(node, entry, args) {
  // The suite runs the command through a shell, with the mock server's URL appended.
  const command = `"${process.execPath}" "${CLIENT}"`;
  return spawnSuite(node, [entry, 'client', '--command', command, ...args]);
}

/**
 * One Skills scenario at one revision (`side`: `server`, run by `runSide(args)` against the
 * server; `client`), its checks.json audited: exit code 1 when the suite failed or any sep-2640-*
 * check is not SUCCESS (bar SKILLS.skipped), with each such check named.
 */
async function runSkills(scenario, revision, runSide) {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-conformance-'));
  try {
    const code = await runSide(['--scenario', scenario, '--spec-version', revision, '--force', '-o', dir]);
    const checks = checksIn(dir).filter((check) => check.id.startsWith('sep-2640-'));
    const excused = SKILLS.skipped[revision] ?? [];
    const bad = checks.filter((check) => check.status !== 'SUCCESS' && !(check.status === 'SKIPPED' && excused.includes(check.id)));
    const passed = checks.filter((check) => check.status === 'SUCCESS').length;
    const excusedCount = checks.length - passed - bad.length;
    log(
      `${scenario} at ${revision}: ${passed}/${checks.length} sep-2640 checks SUCCESS${excusedCount > 0 ? ` (${excusedCount} skipped by the suite at this revision, by design)` : ''}`,
    );
    for (const check of bad) log(`  ${check.status}: ${check.id}${check.errorMessage ? ` — ${check.errorMessage}` : ''}`);
    if (checks.length === 0) log(`  no sep-2640 check was written (${dir})`);
    return code !== 0 ? code : bad.length > 0 || checks.length === 0 ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every check of the checks.json files the suite wrote below `dir` (`-o`: one folder per scenario). */
function checksIn(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((file) => file.endsWith('checks.json'))
    .flatMap((file) => readJson(join(dir, file)));
}

function spawnSuite(node, args) {
  return new Promise((resolve, reject) => {
    const suite = spawn(node, args, { cwd: ROOT, stdio: 'inherit' });
    suite.once('error', reject);
    suite.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  const extra = process.argv.slice(2);
  const runs = extra.length > 0 ? [{ label: extra.join(' '), args: extra }] : RUNS;
  const node = suiteNode();
  const entry = suiteEntry();
  build();
  const results = [];
  for (const adapter of SIDES.includes('server') ? ADAPTERS : []) {
    const redis = adapter === 'redis' ? await startRedis() : undefined;
    if (adapter === 'redis' && !redis) continue;
    const { child, url } = await startServer(adapter === 'redis' ? 'fastify' : adapter, redis ? { REDIS_URL: redis.url } : {});
    const stop = () =>
      stopServer(child)
        .then(() => redis?.stop())
        .finally(() => process.exit(130));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      for (const { label, args } of runs) {
        log(`running ${SUITE.name}@${SUITE.version} against ${url} (${adapter}): ${label}`);
        results.push({ label: `${adapter}: ${label}`, code: await runSuite(node, entry, url, args) });
      }
      for (const scenario of extra.length === 0 ? SKILLS.server : []) {
        for (const revision of SKILLS.revisions) {
          log(`running ${SUITE.name}@${SUITE.version} against ${url} (${adapter}): ${scenario} at ${revision}`);
          const code = await runSkills(scenario, revision, (args) => runSuite(node, entry, url, args));
          results.push({ label: `${adapter}: ${scenario} ${revision}`, code });
        }
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await stopServer(child);
      await redis?.stop();
    }
  }
  // Custom arguments are for the server side. The client also runs the backcompat suite (the
  // sign-in of 2025-03-26 servers), which neither requirement set includes.
  const clientRuns = [...RUNS, { label: 'backcompat', args: ['--suite', 'backcompat'] }];
  for (const { label, args } of SIDES.includes('client') && extra.length === 0 ? clientRuns : []) {
    log(`running ${SUITE.name}@${SUITE.version} client scenarios against @hermes-mcp/client: ${label}`);
    results.push({ label: `client: ${label}`, code: await runClientSuite(node, entry, args) });
  }
  for (const scenario of SIDES.includes('client') && extra.length === 0 ? SKILLS.client : []) {
    for (const revision of SKILLS.revisions) {
      log(`running ${SUITE.name}@${SUITE.version} client scenario ${scenario} at ${revision} against @hermes-mcp/client`);
      const code = await runSkills(scenario, revision, (args) => runClientSuite(node, entry, args));
      results.push({ label: `client: ${scenario} ${revision}`, code });
    }
  }
  for (const { label, code } of results) log(`${code === 0 ? 'passed' : 'FAILED'}: ${label} (exit ${code})`);
  return results.find((r) => r.code !== 0)?.code ?? 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
