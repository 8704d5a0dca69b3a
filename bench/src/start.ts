/**
 * The `start` section: what a host pays each time it spawns a stdio server — process start →
 * `initialize` answered → every `tools/list` page answered (following `nextCursor`: Hermes pages
 * by 100, the SDKs answer all at once) → exit. Per start: wall time from spawn to the last page,
 * and the server's CPU (user + system, from /proc, read the moment the last page arrives). Hosts
 * spawn a server per session, so this is what users feel.
 *
 * Every server (start-servers.ts) at every size, on every Node given, once per round in a shuffled
 * order, after one checked start each that is not counted; Node's compile cache is off in every
 * child, as on a host's first spawn, and the servers run on their own core as in the other sections
 * (children.ts, `pinCores`). Then, apart, the Hermes 2-tool server under a `--require`
 * hook (load-hook.ts) that times the loading of each package's modules.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { onServerCore } from './children';
import { cpuSeconds } from './cpu';
import type { LoadProfile } from './load-hook';
import { LEGACY_VERSION } from './mcp';
import { START_SERVERS, START_SIZES, startServerFile, writeStartServers } from './start-servers';
import { median, shuffled } from './stats';

/** One start of one server. */
export interface StartSample {
  /** Spawn → the last `tools/list` page answered, ms. */
  wallMs: number;
  /**
   * The server process's CPU (user + system, every thread) once it has gone quiet after the last
   * page, ms (NaN without /proc): what its start set going runs on after the answer (V8 finishing
   * optimised code and collections, deferred work of its own), and it is part of what the start cost.
   */
  cpuMs: number;
  /** The same when the last page arrived, ms: {@link cpuMs} less what ran after it. */
  cpuAtLastPageMs?: number;
  /** `tools/list` pages it took. */
  pages: number;
}

/** The packages the module-load table names, in its order; every other package is summed as the rest. */
export const LOAD_PACKAGES = [
  '@hermes-mcp/core',
  '@hermes-mcp/protocol',
  'class-validator',
  'validator',
  'libphonenumber-js',
  'pino',
  'class-transformer',
  'class-validator-jsonschema',
  'typedi',
  'reflect-metadata',
];

/** One package's module loading in the Hermes 2-tool server: median self time over the instrumented runs, and its module files. */
export interface PackageLoad {
  name: string;
  selfMs: number;
  files: number;
}

/** One Node's figures. */
export interface StartNodeResults {
  /** `process.version` of that Node. */
  version: string;
  path: string;
  /** server key → tool count → one start per round. */
  starts: Record<string, Record<number, StartSample[]>>;
  /** Module loading per package of the Hermes 2-tool server (every package the runs saw, largest first). */
  load: PackageLoad[];
  /** Time inside the outermost `Module._load` calls of the instrumented runs (median), ms. */
  loadTotalMs: number;
}

/** What the `start` section measured. */
export interface StartResults {
  servers: Array<{ key: string; label: string }>;
  sizes: number[];
  rounds: number;
  /** Instrumented runs per Node behind the module-load figures. */
  loadRuns: number;
  /** The runner's Node first, then each `--start-node`. */
  nodes: StartNodeResults[];
  /** When the section was measured in a run of its own and put beside a full run's other sections: says when and why (shown under its heading). */
  measuredApart?: string;
}

const TIMEOUT_MS = 30_000;

/** The hermes-mcp CLI, whose `snapshot` builds the snapshot row's launchers. */
const SNAPSHOT_CLI = join(__dirname, '..', '..', 'packages', 'client', 'dist', 'cli.js');
const EXIT_TIMEOUT_MS = 10_000;

/** The children's environment: Node's compile cache off, whatever the runner's says. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1', ...extra };
  delete env.NODE_COMPILE_CACHE;
  return env;
}

/**
 * Spawns `node file`, initializes, lists every tool page by page, checks the list (`size` tools,
 * `tool_0` … `tool_<size-1>`, each with the same input shape), closes its stdin and waits for it to
 * exit. Fails with the server's stderr on any wrong answer.
 */
export async function startOnce(
  node: string,
  file: string,
  size: number,
  options: { nodeFlags?: string[]; env?: Record<string, string>; launcher?: { command: string; args: string[] } } = {},
): Promise<StartSample> {
  const started = performance.now();
  // A snapshot's launcher is install's `/bin/sh -c …`, which execs `node --snapshot-blob …` (the same process).
  const [command, args] = options.launcher !== undefined ? onServerCore(options.launcher.command, options.launcher.args) : onServerCore(node, [...(options.nodeFlags ?? []), file]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(options.env) });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
  // 'close': exited, and its stdout and stderr read to the end.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // A write to a server that died fails here; the missing answer says so, with its stderr.
  child.stdin.on('error', () => undefined);
  const lines = answers(child.stdout);
  const request = (id: number, method: string, params?: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) })}\n`;
  try {
    child.stdin.write(request(1, 'initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } }));
    const init = JSON.parse(await lines.next()) as { id?: number; result?: { protocolVersion?: unknown } };
    if (init.id !== 1 || typeof init.result?.protocolVersion !== 'string') throw new Error(`initialize: unexpected answer ${JSON.stringify(init).slice(0, 300)}`);
    child.stdin.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}\n${request(2, 'tools/list')}`);
    const tools: unknown[] = [];
    let pages = 0;
    for (let id = 2; ; id++) {
      const page = JSON.parse(await lines.next()) as { id?: number; result?: { tools?: unknown[]; nextCursor?: string } };
      if (page.id !== id || !Array.isArray(page.result?.tools)) throw new Error(`tools/list page ${pages + 1}: unexpected answer ${JSON.stringify(page).slice(0, 300)}`);
      pages++;
      tools.push(...page.result.tools);
      const cursor = page.result.nextCursor;
      if (cursor === undefined) break;
      if (pages >= size + 1) throw new Error(`tools/list: still a nextCursor after ${pages} pages`);
      child.stdin.write(request(id + 1, 'tools/list', { cursor }));
    }
    const wallMs = performance.now() - started;
    const atLastPage = cpuSeconds(child.pid);
    checkTools(tools, size);
    const cpu = await cpuOnceQuiet(child.pid, atLastPage);
    child.stdin.end();
    const overdue = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(overdue);
    if (child.exitCode !== 0) throw new Error(`ended with ${child.exitCode ?? child.signalCode} after its stdin closed (killed if still running after ${EXIT_TIMEOUT_MS} ms)`);
    return { wallMs, cpuMs: (cpu ?? NaN) * 1000, cpuAtLastPageMs: (atLastPage ?? NaN) * 1000, pages };
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw new Error(`${node} ${file}: ${(error as Error).message}\n--- its stderr ---\n${stderr}`, { cause: error });
  }
}

/** How often, how long at most, and by how little a quiet server's CPU grows between two reads. */
const QUIET_POLL_MS = 50;
const QUIET_MAX_MS = 2_000;
const QUIET_GROWTH_S = 0.0005;

/**
 * The CPU of `pid` once it grows by less than 0.5 ms over 50 ms (at most 2 s after `first`, its
 * CPU when the last page arrived). A server idle after its answers uses none; what it still uses
 * right after them is work its start left running: at 1,000 tools SDK v2's went on for ~33 ms of
 * CPU after its last page on one core, Hermes' for ~0.1 ms (Node 24, 2026-11-30).
 */
async function cpuOnceQuiet(pid: number | undefined, first: number | undefined): Promise<number | undefined> {
  let last = first;
  const until = performance.now() + QUIET_MAX_MS;
  while (last !== undefined && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
    const now = cpuSeconds(pid);
    if (now === undefined || now - last < QUIET_GROWTH_S) return now ?? last;
    last = now;
  }
  return last;
}

/** The listed tools are `tool_0` … `tool_<size-1>`, each described, each taking `{ a, b, note? }`. */
function checkTools(tools: unknown[], size: number): void {
  if (tools.length !== size) throw new Error(`tools/list: expected ${size} tools, got ${tools.length}`);
  const names = new Set<string>();
  for (const tool of tools as Array<{ name?: string; description?: string; inputSchema?: { properties?: Record<string, unknown>; required?: string[] } }>) {
    const properties = Object.keys(tool.inputSchema?.properties ?? {}).sort();
    const required = [...(tool.inputSchema?.required ?? [])].sort();
    if (!tool.name || !tool.description || properties.join() !== 'a,b,note' || required.join() !== 'a,b')
      throw new Error(`tools/list: unexpected tool ${JSON.stringify(tool).slice(0, 300)}`);
    names.add(tool.name);
  }
  for (let i = 0; i < size; i++) if (!names.has(`tool_${i}`)) throw new Error(`tools/list: no tool_${i} among ${names.size} distinct names`);
}

/** The answer lines of a stdout, one at a time (bounded wait; fails once the stream ends). */
function answers(stdout: NodeJS.ReadableStream): { next(): Promise<string> } {
  let buffered = '';
  let ended = false;
  const ready: string[] = [];
  let waiting: { resolve(line: string): void; reject(error: Error): void } | undefined;
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      ready.push(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
    }
    if (waiting && ready.length) waiting.resolve(ready.shift()!);
  });
  stdout.once('end', () => {
    ended = true;
    waiting?.reject(new Error('its stdout ended before the answer'));
  });
  return {
    next: () =>
      ready.length
        ? Promise.resolve(ready.shift()!)
        : ended
          ? Promise.reject(new Error('its stdout ended before the answer'))
          : new Promise((resolve, reject) => {
              const timer = setTimeout(() => settle(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
              const settle = (result: string | Error) => {
                clearTimeout(timer);
                waiting = undefined;
                if (typeof result === 'string') resolve(result);
                else reject(result);
              };
              waiting = { resolve: settle, reject: settle };
            }),
  };
}

/** `process.version` of a Node binary. */
function versionOf(node: string): string {
  const result = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8', env: childEnv() });
  if (result.status !== 0) throw new Error(`${node} -p process.version failed: ${result.error?.message ?? result.stderr}`);
  return result.stdout.trim();
}

/**
 * The Hermes 2-tool server's module loading on `node`: `runs` starts under the load hook, and per
 * package the median self time and the module files loaded (every package seen, largest first).
 */
async function moduleLoad(node: string, runs: number): Promise<{ load: PackageLoad[]; totalMs: number }> {
  const dir = mkdtempSync(join(os.tmpdir(), 'hermes-bench-load-'));
  const profiles: LoadProfile[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const out = join(dir, `load-${run}.json`);
      await startOnce(node, startServerFile('hermes', 2), 2, { nodeFlags: ['--require', join(__dirname, 'load-hook.js')], env: { HERMES_BENCH_LOAD_OUT: out } });
      profiles.push(JSON.parse(readFileSync(out, 'utf8')) as LoadProfile);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const names = new Set(profiles.flatMap((p) => Object.keys(p.packages)));
  const load = [...names].map((name) => ({
    name,
    selfMs: median(profiles.map((p) => p.packages[name]?.selfMs ?? 0)),
    files: Math.max(...profiles.map((p) => p.packages[name]?.files ?? 0)),
  }));
  load.sort((a, b) => b.selfMs - a.selfMs);
  return { load, totalMs: median(profiles.map((p) => p.totalMs)) };
}

/**
 * Runs the section: the servers generated, each checked once per Node, then `rounds` rounds of
 * every (Node, server, size) in a shuffled order, then `loadRuns` instrumented runs per Node.
 * `nodes` are extra Node binaries (or the folders holding them) besides the runner's own.
 */
export async function measureStart(options: { rounds: number; loadRuns: number; nodes: string[] }, log: (line: string) => void): Promise<StartResults> {
  log('\n== start: spawn → initialize → every tools/list page → exit (stdio) ==');
  // A folder (what `node scripts/cache.mjs node 20` prints) stands for its `node`.
  const paths = [process.execPath, ...options.nodes.map((path) => (statSync(path).isDirectory() ? join(path, 'node') : path))];
  const unique = paths.filter((path, i) => paths.findIndex((other) => realpathSync(other) === realpathSync(path)) === i);
  const nodes: StartNodeResults[] = unique.map((path) => ({ version: versionOf(path), path, starts: {}, load: [], loadTotalMs: NaN }));
  const generated = performance.now();
  writeStartServers(START_SIZES);
  log(`servers generated in ${((performance.now() - generated) / 1000).toFixed(1)} s; Nodes: ${nodes.map((n) => `${n.version} (${n.path})`).join(', ')}`);
  // Hermes' snapshots, built by each Node (a snapshot loads only in the Node that built it).
  const launchers = new Map<string, { command: string; args: string[] }>();
  for (const node of nodes)
    for (const size of START_SIZES) {
      const built = spawnSync(node.path, [SNAPSHOT_CLI, 'snapshot', startServerFile('hermes', size)], { encoding: 'utf8', env: childEnv() });
      if (built.status !== 0) throw new Error(`hermes-mcp snapshot of ${size} tools on ${node.version} failed: ${built.stderr}`);
      const { command, args, ms, bytes } = JSON.parse(built.stdout) as { command: string; args: string[]; ms: number; bytes: number };
      launchers.set(`${node.path}|${size}`, { command, args });
      log(`snapshot  ${node.version.padEnd(9)} ${String(size).padStart(4)} tools: built in ${ms} ms, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
    }
  const runs = nodes.flatMap((node) => START_SERVERS.flatMap((server) => START_SIZES.map((size) => ({ node, key: server.key, label: server.label, size }))));
  const once = (run: (typeof runs)[number]) =>
    startOnce(
      run.node.path,
      startServerFile(run.key, run.size),
      run.size,
      run.key === 'hermes-snapshot' ? { launcher: launchers.get(`${run.node.path}|${run.size}`) } : run.key === 'hermes-first' ? { env: { HERMES_SCHEMA_CACHE: 'off' } } : {},
    );
  for (const { node, key, size } of runs) (node.starts[key] ??= {})[size] = [];
  const describe = (run: (typeof runs)[number]) => `${run.node.version.padEnd(9)} ${run.key.padEnd(15)} ${String(run.size).padStart(4)} tools`;
  // One start of each, not counted: its answers checked, and the files in the page cache.
  for (const run of runs) {
    const sample = await once(run);
    log(`checked  ${describe(run)}: ${sample.pages} page${sample.pages === 1 ? '' : 's'}, ${sample.wallMs.toFixed(0)} ms wall, ${sample.cpuMs.toFixed(0)} ms CPU`);
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const run of shuffled(runs)) {
      const sample = await once(run);
      run.node.starts[run.key][run.size].push(sample);
      log(`round ${round}  ${describe(run)}: ${sample.wallMs.toFixed(0).padStart(5)} ms wall, ${sample.cpuMs.toFixed(0).padStart(5)} ms CPU`);
    }
  }
  for (const node of nodes) {
    const { load, totalMs } = await moduleLoad(node.path, options.loadRuns);
    node.load = load;
    node.loadTotalMs = totalMs;
    const top = load.slice(0, 6).map((p) => `${p.name} ${p.selfMs.toFixed(0)} ms (${p.files} files)`);
    log(`module load, Hermes 2 tools, ${node.version}: ${totalMs.toFixed(0)} ms in Module._load; ${top.join(', ')} …`);
  }
  return { servers: START_SERVERS.map(({ key, label }) => ({ key, label })), sizes: START_SIZES, rounds: options.rounds, loadRuns: options.loadRuns, nodes };
}
