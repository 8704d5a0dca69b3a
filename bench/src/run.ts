/**
 * `npm run bench`: Hermes against the official SDKs and the bare limits, each server in its own
 * process on 127.0.0.1. Configurations are interleaved in rounds (A B C A B C …) so a slow moment
 * of a busy machine hits every one of them; the tables show medians over rounds, and every ratio is
 * taken between two runs of the same round.
 *
 *   npm run bench                      # everything; rewrites the results in docs/performance.md
 *   npm run bench -- --only http,stdio # some sections (docs untouched)
 *   npm run bench -- --only websocket  # tools/call over WebSocket against a bare ws echo
 *   npm run bench -- --only redis-memory # what a session of a 3-instance cluster costs Redis (used_memory)
 *   npm run bench -- --only redis-cluster # the Redis stores on one node vs a Redis Cluster (ops/s, commands/op, bytes/session)
 *   npm run bench -- --only start --start-node "$(node scripts/cache.mjs node 20)/node" # stdio starts, this Node and Node 20
 *   npm run bench -- --quick           # 1 round of 1 s: checks the harness (docs untouched)
 *   npm run bench -- --profile         # also writes a .cpuprofile per server (bench/dist/profiles)
 *
 * Flags: --rows KEY,… (only those rows of the HTTP and stdio sections; docs untouched), --rounds N (5), --duration S (3), --only http|stdio|websocket|client|memory|bootstrap|start|redis|redis-memory|redis-cluster,…,
 * --redis-sessions N (10 000, for redis-memory), --start-rounds N (starts of each server in the start
 * section: 10, or --rounds when given), --start-node PATH (a Node binary, or its folder, to run the start
 * section on too, besides the runner's; repeatable), --profile, --quick, --no-docs, --from FILE (measure
 * nothing: rewrite the docs from a saved last-run.json).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HttpServerProcess, onServerCore, pinCores, profileInto, startHttp, startStdio, stop, stopAll, stopAllOnExit } from './children';
import { BENCH_RESOURCE, BenchAuthorization, benchAuthorization } from './auth';
import { BenchClient, CLIENT_CONFIGS, STDIO_SERVER, pipelined, sequential } from './clients';
import { withCpu } from './cpu';
import { signatureVerifyUs } from './dpop';
import { HttpRun, load } from './http-load';
import { Expectation, MODERN_HEADERS, MODERN_META, PLAIN_HEADERS, PROGRESS_META, RequestTemplate, addCall, checkAnswer, listCall, openSession } from './mcp';
import { BenchResults, CallRuns, MachineInfo, telemetryOwn, writeReport } from './report';
import { MEMORY_PATH } from './servers/memory';
import { median } from './stats';
import { StdioClient } from './stdio-client';
import { WsClient } from './ws-client';
import { BenchRedis, RedisCounters, countersOf, hasRedisServer, startRedis } from './redis';
import { measureRedisMemory } from './redis-memory';
import { benchRedisCluster } from './redis-cluster';
import { measureStart } from './start';

type Section = 'http' | 'stdio' | 'websocket' | 'client' | 'memory' | 'bootstrap' | 'start' | 'redis' | 'redis-memory' | 'redis-cluster';
const SECTIONS: Section[] = ['http', 'stdio', 'websocket', 'client', 'memory', 'bootstrap', 'start', 'redis', 'redis-memory', 'redis-cluster'];

interface Options {
  rounds: number;
  seconds: number;
  sections: Section[];
  profile: boolean;
  quick: boolean;
  docs: boolean;
  /** Calls in one pipelined stdio burst. */
  pipelined: number;
  /** Idle sessions opened for the memory figure. */
  sessions: number;
  /** Sessions opened for the Redis sizing. */
  redisSessions: number;
  /** Calls between the two heap readings of the retained-heap figure. */
  retainedCalls: number;
  /** Starts of each server at each size in the start section (`--start-rounds`; else `--rounds` when given, else 10). */
  startRounds: number;
  /** Node binaries the start section also runs on, besides the runner's. */
  startNodes: string[];
  /** A saved run to report again instead of measuring. */
  from?: string;
  /** Only these rows of the HTTP and stdio sections (`--rows`, keys; docs untouched). */
  rows?: string[];
  /** Cycles of the OpenTelemetry A/B (`--otel-cycles`; servers/otel-ab.ts): every cycle one slice of each of its rows, shuffled. */
  otelCycles: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    rounds: 5,
    seconds: 3,
    sections: SECTIONS,
    profile: false,
    quick: false,
    docs: true,
    pipelined: 20_000,
    sessions: 1_000,
    redisSessions: 10_000,
    retainedCalls: 20_000,
    startRounds: 10,
    startNodes: [],
    otelCycles: 60,
  };
  let roundsGiven = false;
  let startRounds: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--rounds') {
      options.rounds = Number(value());
      roundsGiven = true;
    } else if (arg === '--duration') options.seconds = Number(value());
    else if (arg === '--only') {
      const wanted = value().split(',');
      const unknown = wanted.filter((s) => !SECTIONS.includes(s as Section));
      if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(', ')}: use ${SECTIONS.join(', ')}`);
      options.sections = wanted as Section[];
    } else if (arg === '--profile') options.profile = true;
    else if (arg === '--quick')
      Object.assign(options, { quick: true, rounds: 1, seconds: 1, pipelined: 2_000, sessions: 100, redisSessions: 300, retainedCalls: 2_000, otelCycles: 2 });
    else if (arg === '--no-docs') options.docs = false;
    else if (arg === '--from') options.from = value();
    else if (arg === '--rows') Object.assign(options, { rows: value().split(','), docs: false });
    else if (arg === '--redis-sessions') options.redisSessions = Number(value());
    else if (arg === '--start-rounds') startRounds = Number(value());
    else if (arg === '--start-node') options.startNodes.push(value());
    else if (arg === '--otel-cycles') options.otelCycles = Number(value());
    else throw new Error(`unknown flag ${arg}`);
  }
  options.startRounds = startRounds ?? (options.quick || roundsGiven ? options.rounds : options.startRounds);
  if (!(options.rounds >= 1) || !(options.seconds > 0) || !(options.startRounds >= 1)) throw new Error('--rounds, --start-rounds and --duration must be positive');
  return options;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function machine(): MachineInfo {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadBefore: os.loadavg(),
    loadAfter: [],
    date: new Date().toISOString(),
  };
}

function describeRun(run: HttpRun): string {
  const invalid = run.non2xx || run.errors ? `  !! ${run.non2xx} non-2xx, ${run.errors} errors` : '';
  const cpu = run.cpuUs === undefined ? '' : `  ${run.cpuUs.toFixed(1)} µs server CPU/req`;
  return `${Math.round(run.rps).toString().padStart(7)} req/s  p50 ${run.p50.toFixed(1)} ms  p99 ${run.p99.toFixed(1)} ms${cpu}${invalid}`;
}

// ---------------------------------------------------------------------------------------------
// HTTP tools/call
// ---------------------------------------------------------------------------------------------

/** One HTTP configuration: which server, and what request it is loaded with. */
interface HttpConfig {
  key: string;
  label: string;
  server: string;
  /** The request to replay; legacy configurations open their session here. */
  prepare(url: string): Promise<RequestTemplate>;
  expect: Expectation;
  /** The server's environment (the OAuth rows). */
  env?: () => Record<string, string>;
  /** Runs before each timed run of `seconds` (the DPoP row signs its proofs). */
  beforeRun?: (seconds: number) => void;
}

const legacy =
  (body: string, extra: () => Record<string, string> = () => ({})) =>
  async (url: string) => ({ headers: await openSession(url, extra()), body });

/** The OAuth rows' authorization server and tokens, started with the HTTP section. */
let authorization: BenchAuthorization | undefined;
const bearer = () => ({ authorization: `Bearer ${authorization!.token}` });
const authEnv = (cacheTtlMs: number) => () => ({ HERMES_BENCH_AUTH: JSON.stringify({ issuer: authorization!.issuer, resource: BENCH_RESOURCE, cacheTtlMs }) });
const fixed = (headers: Record<string, string>, body: string) => async () => ({ headers, body });
/** The OpenTelemetry rows: the same server, instrumented (bench/src/servers/telemetry.ts). */
const OTEL_ENV = () => ({ HERMES_BENCH_OTEL: '1' });
/** The same, sampling one trace in ten (`ParentBased(TraceIdRatioBased(0.1))`). */
const OTEL_10_ENV = () => ({ HERMES_BENCH_OTEL: '1', HERMES_BENCH_OTEL_RATIO: '0.1' });
/** The same, sampling none (`ParentBased(TraceIdRatioBased(0))`): what an unsampled request costs the SDK. */
const OTEL_0_ENV = () => ({ HERMES_BENCH_OTEL: '1', HERMES_BENCH_OTEL_RATIO: '0' });
/** The bare route making its own OpenTelemetry span, the SDK set up by `env`. */
function bareOtelRow(key: string, label: string, env: () => Record<string, string>): HttpConfig {
  return { key, label, server: 'bare-fastify.server.js', prepare: fixed(PLAIN_HEADERS, addCall()), expect: { framing: 'json' }, env };
}
/** Hermes' legacy JSON row with its OpenTelemetry instrumentation, the SDK set up by `env`. */
function legacyOtelRow(key: string, label: string, env: () => Record<string, string>): HttpConfig {
  return { key, label, server: 'hermes-http.server.js', prepare: legacy(addCall()), expect: { framing: 'json' }, env };
}
/** A legacy JSON row with a bearer token, the server verifying JWTs (cached for `cacheTtlMs`; 0: every request). */
function oauthRow(key: string, label: string, cacheTtlMs: number): HttpConfig {
  return { key, label, server: 'hermes-http.server.js', prepare: legacy(addCall(), bearer), expect: { framing: 'json' }, env: authEnv(cacheTtlMs) };
}
/** The URL a DPoP proof names: the resource's origin (what clients call) and the endpoint's path. */
const DPOP_HTU = new URL('/mcp', BENCH_RESOURCE).href;
/**
 * The DPoP row: the bearer row's request with a DPoP-bound token, and a fresh proof verified on
 * every request (signed before each timed run, enough for 15 000 requests a second).
 */
const DPOP_ROW: HttpConfig = {
  key: 'legacy-json-dpop',
  label: 'Hermes, legacy JSON, OAuth DPoP, proof every request',
  server: 'hermes-http.server.js',
  prepare: async (url) => {
    const fresh = () => ({ dpop: authorization!.proofs.next(DPOP_HTU) });
    return { headers: await openSession(url, { authorization: `DPoP ${authorization!.dpopToken}` }, fresh), body: addCall(), fresh };
  },
  expect: { framing: 'json' },
  env: authEnv(60_000),
  beforeRun: (seconds) => authorization!.proofs.prepare(DPOP_HTU, Math.ceil(seconds * 15_000)),
};

const HTTP_CONFIGS: HttpConfig[] = [
  { key: 'bare', label: 'bare Fastify route (limit)', server: 'bare-fastify.server.js', prepare: fixed(PLAIN_HEADERS, addCall()), expect: { framing: 'json' } },
  { key: 'legacy-json', label: 'Hermes, legacy session, JSON', server: 'hermes-http.server.js', prepare: legacy(addCall()), expect: { framing: 'json' } },
  { key: 'legacy-sse', label: 'Hermes, legacy session, SSE', server: 'hermes-http.server.js', prepare: legacy(addCall(PROGRESS_META)), expect: { framing: 'sse', progress: true } },
  { key: 'modern', label: 'Hermes, modern stateless', server: 'hermes-http.server.js', prepare: fixed(MODERN_HEADERS, addCall(MODERN_META)), expect: { framing: 'json' } },
  oauthRow('legacy-json-jwt', 'Hermes, legacy JSON, OAuth JWT', 60_000),
  oauthRow('legacy-json-jwt-each', 'Hermes, legacy JSON, OAuth JWT, signature every request', 0),
  DPOP_ROW,
  bareOtelRow('bare-otel', 'bare Fastify route, one OpenTelemetry span', OTEL_ENV),
  bareOtelRow('bare-otel-0', 'bare Fastify route, one OpenTelemetry span, never sampled', OTEL_0_ENV),
  legacyOtelRow('legacy-json-otel', 'Hermes, legacy JSON, OpenTelemetry', OTEL_ENV),
  legacyOtelRow('legacy-json-otel-10', 'Hermes, legacy JSON, OpenTelemetry, 10 % sampled', OTEL_10_ENV),
  {
    key: 'modern-otel',
    label: 'Hermes, modern, OpenTelemetry',
    server: 'hermes-http.server.js',
    prepare: fixed(MODERN_HEADERS, addCall(MODERN_META)),
    expect: { framing: 'json' },
    env: OTEL_ENV,
  },
  {
    key: 'gateway-json',
    label: 'Hermes stdio server behind the gateway (hermes-mcp proxy), legacy JSON',
    server: 'hermes-gateway.server.js',
    prepare: legacy(addCall()),
    expect: { framing: 'json' },
  },
  {
    key: 'gateway-modern',
    label: 'Hermes stdio server behind the gateway (hermes-mcp proxy), modern',
    server: 'hermes-gateway.server.js',
    prepare: fixed(MODERN_HEADERS, addCall(MODERN_META)),
    expect: { framing: 'json' },
  },
  { key: 'sdk-v1', label: 'SDK v1 1.32.2, stateful SSE', server: 'sdk-v1-http.server.js', prepare: legacy(addCall()), expect: { framing: 'sse' } },
  { key: 'sdk-v2', label: 'SDK v2 2.4.0, createMcpHandler', server: 'sdk-v2-http.server.js', prepare: fixed(MODERN_HEADERS, addCall(MODERN_META)), expect: { framing: 'json' } },
];
const CONNECTIONS = [10, 100];

interface Prepared {
  config: HttpConfig;
  server: HttpServerProcess;
  template: RequestTemplate;
}

/** Starts one server per configuration, prepares its request and checks its answer. */
async function prepareAll(configs: HttpConfig[], prefix = '', env: Record<string, string> = {}, nodeFlags: string[] = []): Promise<Prepared[]> {
  const prepared: Prepared[] = [];
  for (const config of configs) {
    const server = await startHttp(`${prefix}${config.key}`, config.server, { env: { ...env, ...config.env?.() }, nodeFlags });
    const template = await config.prepare(server.url);
    try {
      await checkAnswer(server.url, template, config.expect, '5');
    } catch (error) {
      throw new Error(`${config.label}: wrong answer before timing: ${(error as Error).message}`, { cause: error });
    }
    prepared.push({ config, server, template });
  }
  return prepared;
}

async function benchHttp(options: Options): Promise<BenchResults['http']> {
  log('\n== HTTP tools/call (autocannon) ==');
  authorization = await benchAuthorization();
  const configs = options.rows ? HTTP_CONFIGS.filter((c) => options.rows!.includes(c.key)) : HTTP_CONFIGS;
  const prepared = await prepareAll(configs);
  log(`answers checked: ${prepared.map((p) => p.config.key).join(', ')}`);
  for (const { server, template } of prepared) await load(server.url, template, 10, { seconds: Math.min(1, options.seconds) }); // warm-up
  const runs: Record<number, Record<string, HttpRun[]>> = {};
  for (const connections of CONNECTIONS) runs[connections] = Object.fromEntries(configs.map((c) => [c.key, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const connections of CONNECTIONS) {
      for (const { config, server, template } of prepared) {
        config.beforeRun?.(options.seconds);
        const run = await load(server.url, template, connections, { seconds: options.seconds }, server.process.pid);
        runs[connections][config.key].push(run);
        log(`round ${round}  c=${String(connections).padEnd(3)}  ${config.label.padEnd(34)} ${describeRun(run)}`);
      }
    }
  }
  // Still right after the load.
  for (const { config, server, template } of prepared) await checkAnswer(server.url, template, config.expect, '5');
  await Promise.all(prepared.map((p) => stop(p.server)));
  authorization.stop();
  const otelAb = !options.rows || options.rows.includes('otel-ab') ? await telemetryAb(options.otelCycles) : undefined;
  // The DPoP row's floor: what one signature verification of each kind costs here (the runner's core, after the load).
  const signatureVerify = signatureVerifyUs();
  log(`signature verification, CPU per call: RS256 ${signatureVerify.rs256.toFixed(1)} µs, ES256 ${signatureVerify.es256.toFixed(1)} µs`);
  return {
    configs: configs.map(({ key, label }) => ({ key, label })),
    connections: CONNECTIONS,
    seconds: options.seconds,
    runs,
    signatureVerifyUs: signatureVerify,
    ...(otelAb && { otelAb }),
  };
}

/**
 * The OpenTelemetry A/B (servers/otel-ab.ts, which says why it runs in one process without
 * sockets), on the servers' core; undefined with `--rows` unless they name `otel-ab`.
 */
async function telemetryAb(cycles: number): Promise<NonNullable<BenchResults['http']>['otelAb']> {
  if (cycles < 1) return undefined;
  const [command, args] = onServerCore(process.execPath, ['--expose-gc', join(__dirname, 'servers', 'otel-ab.js'), String(cycles), String(OTEL_AB_CALLS)]);
  const child = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (child.status !== 0) throw new Error(`OpenTelemetry A/B failed (${child.status ?? child.signal}): ${child.stderr.slice(-2000)}`);
  const ab = JSON.parse(child.stdout) as NonNullable<NonNullable<BenchResults['http']>['otelAb']>;
  const own = telemetryOwn(ab.runs);
  log(
    `OpenTelemetry A/B, ${ab.cycles} cycles of ${ab.calls} calls: Hermes' own CPU ${own.full.toFixed(2)} µs at 100 %, ${own.tenth.toFixed(2)} µs at 10 %; the SDK's span on the bare handler ${own.sdkSampled.toFixed(2)} µs, never sampled ${own.sdkUnsampled.toFixed(2)} µs (medians of the cycles)`,
  );
  return ab;
}

/** Calls in one slice of the OpenTelemetry A/B. */
const OTEL_AB_CALLS = 4_000;

// ---------------------------------------------------------------------------------------------
// Redis (@hermes-mcp/redis)
// ---------------------------------------------------------------------------------------------

/** The Redis rows: the in-memory baseline, one instance on Redis, and two instances sharing one session. */
const REDIS_CONFIGS = [
  { key: 'memory', label: 'Hermes, legacy JSON, in-memory sessions (baseline)' },
  { key: 'one', label: 'Hermes, legacy JSON, sessions in Redis, one instance' },
  { key: 'two', label: 'Hermes, legacy JSON, sessions in Redis, one session across two instances' },
];

/** What Redis did for one run, per call. */
function perCall(before: RedisCounters, after: RedisCounters, calls: number): RedisCounters {
  return { commands: (after.commands - before.commands) / calls, bytesIn: (after.bytesIn - before.bytesIn) / calls, bytesOut: (after.bytesOut - before.bytesOut) / calls };
}

/** Runs `load` on several servers at once, the connections shared out: one run, as the client saw it. */
async function loadAcross(urls: string[], template: RequestTemplate, connections: number, seconds: number): Promise<HttpRun> {
  const runs = await Promise.all(urls.map((url) => load(url, template, Math.max(1, Math.round(connections / urls.length)), { seconds })));
  const sum = (f: (r: HttpRun) => number) => runs.reduce((total, r) => total + f(r), 0);
  return {
    rps: sum((r) => r.rps),
    total: sum((r) => r.total),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

/**
 * Legacy-session tools/call with the session store in Redis, against the in-memory store in the
 * same run: one instance, and one session served by two instances at once (each request could go
 * to either; both take the session up). Redis's own counters give the commands and bytes per call.
 */
async function benchRedis(options: Options): Promise<BenchResults['redis']> {
  log('\n== Redis: legacy tools/call with sessions in Redis (autocannon) ==');
  if (!hasRedisServer()) {
    log('skipped: no redis-server on PATH (Debian: apt-get install redis-server)');
    return undefined;
  }
  const redis: BenchRedis = await startRedis();
  const servers: HttpServerProcess[] = [];
  try {
    const memory = await startHttp('redis-baseline', 'hermes-http.server.js');
    const env = { HERMES_BENCH_REDIS: redis.url };
    const first = await startHttp('redis-first', 'hermes-http.server.js', { env });
    const second = await startHttp('redis-second', 'hermes-http.server.js', { env });
    servers.push(memory, first, second);
    const inMemory = await legacy(addCall())(memory.url);
    // One session, opened on the first instance; the second takes it up from Redis on its first request.
    const shared = await legacy(addCall())(first.url);
    for (const [url, template] of [
      [memory.url, inMemory],
      [first.url, shared],
      [second.url, shared],
    ] as const) {
      await checkAnswer(url, template, { framing: 'json' }, '5');
      await load(url, template, 10, { seconds: Math.min(1, options.seconds) });
    }
    const runs: Record<number, Record<string, HttpRun[]>> = {};
    const redisPerCall: Record<string, RedisCounters[]> = { one: [], two: [] };
    for (const connections of CONNECTIONS) runs[connections] = Object.fromEntries(REDIS_CONFIGS.map((c) => [c.key, []]));
    for (let round = 1; round <= options.rounds; round++) {
      for (const connections of CONNECTIONS) {
        for (const { key, label } of REDIS_CONFIGS) {
          const before = key === 'memory' ? undefined : await countersOf(redis);
          const run =
            key === 'memory'
              ? await load(memory.url, inMemory, connections, { seconds: options.seconds })
              : key === 'one'
                ? await load(first.url, shared, connections, { seconds: options.seconds })
                : await loadAcross([first.url, second.url], shared, connections, options.seconds);
          runs[connections][key].push(run);
          let cost = '';
          if (before) {
            const used = perCall(before, await countersOf(redis), run.total);
            redisPerCall[key].push(used);
            cost = `  Redis per 1,000 calls: ${(used.commands * 1000).toFixed(1)} commands, ${(used.bytesIn * 1000).toFixed(0)} B in, ${(used.bytesOut * 1000).toFixed(0)} B out`;
          }
          log(`round ${round}  c=${String(connections).padEnd(3)}  ${label.padEnd(70)} ${describeRun(run)}${cost}`);
        }
      }
    }
    await checkAnswer(second.url, shared, { framing: 'json' }, '5');
    const medianOf = (key: string, f: (c: RedisCounters) => number) => median(redisPerCall[key].map(f));
    return {
      configs: REDIS_CONFIGS,
      connections: CONNECTIONS,
      seconds: options.seconds,
      runs,
      perCall: Object.fromEntries(
        Object.keys(redisPerCall).map((key) => [
          key,
          { commands: medianOf(key, (c) => c.commands), bytesIn: medianOf(key, (c) => c.bytesIn), bytesOut: medianOf(key, (c) => c.bytesOut) },
        ]),
      ),
    };
  } finally {
    await Promise.all(servers.map((s) => stop(s)));
    await redis.stop();
  }
}

/** The Redis sizing: what a session of a three-instance cluster costs Redis (redis-memory.ts). */
async function benchRedisMemory(options: Options): Promise<BenchResults['redisMemory']> {
  log('');
  if (!hasRedisServer()) {
    log('Redis sizing skipped: no redis-server on PATH (Debian: apt-get install redis-server)');
    return undefined;
  }
  return measureRedisMemory(options.redisSessions, log);
}

// ---------------------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------------------

const STDIO_CONFIGS = [
  { key: 'echo', label: 'bare newline-JSON echo (limit)', server: 'echo-stdio.server.js' },
  { key: 'hermes', label: 'Hermes (legacy, initialize)', server: 'hermes-stdio.server.js' },
  { key: 'hermes-pipe', label: 'Hermes behind a bare pipe (one hop, limit)', server: 'pipe-proxy-stdio.server.js' },
  { key: 'hermes-parse', label: 'Hermes behind a forwarding pipe (parses, renumbers ids; limit)', server: 'parse-proxy-stdio.server.js' },
  { key: 'hermes-mount', label: 'Hermes, the tool through a local mount', server: 'hermes-mount-stdio.server.js', tool: 'math_add' },
  {
    key: 'hermes-remote-stdio',
    label: 'Hermes, the tool through a remote mount (stdio upstream)',
    server: 'hermes-remote-mount-stdio.server.js',
    tool: 'math_add',
  },
  {
    key: 'hermes-remote-http',
    label: 'Hermes, the tool through a remote mount (HTTP upstream)',
    server: 'hermes-remote-mount-stdio.server.js',
    tool: 'math_add',
    env: { HERMES_BENCH_UPSTREAM: 'http' },
  },
  {
    key: 'hermes-compose',
    label: 'Hermes server + Hermes client by hand: a tool that calls the stdio upstream (limit of a mount)',
    server: 'hermes-compose-stdio.server.js',
    tool: 'math_add',
  },
  { key: 'hermes-dev', label: 'Hermes through `hermes-mcp dev`', server: 'hermes-dev-stdio.server.js' },
  { key: 'sdk-v1', label: 'SDK v1 1.32.2', server: 'sdk-v1-stdio.server.js' },
  { key: 'sdk-v2', label: 'SDK v2 2.4.0, serveStdio', server: 'sdk-v2-stdio.server.js' },
];

/** Pipelined bursts per configuration and round; the round's figure is their median. */
const BURSTS_PER_ROUND = 3;

/** A client of the one-connection sections (stdio, WebSocket). */
interface CallClient {
  sequential(durationMs: number): Promise<{ callsPerSec: number; medianUs: number; calls: number }>;
  pipelined(count: number): Promise<{ callsPerSec: number }>;
}

/**
 * The rounds of a one-connection section, after a warm-up: per server, sequential calls for two thirds of a run's
 * seconds, then pipelined bursts, with the server's CPU per call over each.
 */
async function callRounds(
  clients: Array<{ key: string; label: string; client: CallClient; server: { process: { pid?: number } } }>,
  options: Options,
  labelWidth: number,
): Promise<Pick<CallRuns, 'sequentialMs' | 'sequential' | 'pipelined' | 'pipelinedCpuUs'>> {
  log(`answers checked: ${clients.map((c) => c.key).join(', ')}`);
  for (const { client } of clients) {
    await client.pipelined(2_000);
    await client.sequential(300);
  }
  const sequential: CallRuns['sequential'] = {};
  const pipelined: CallRuns['pipelined'] = {};
  const pipelinedCpuUs: Record<string, number[]> = {};
  for (const { key } of clients) {
    sequential[key] = [];
    pipelined[key] = [];
  }
  const sequentialMs = Math.max(500, (options.seconds * 1000 * 2) / 3);
  for (let round = 1; round <= options.rounds; round++) {
    for (const { key, label, client, server } of clients) {
      const pid = server.process.pid;
      const seq = await withCpu(
        pid,
        () => client.sequential(sequentialMs),
        (r) => r.calls,
      );
      // A burst lasts 40–150 ms, which one pause of a shared VM can take a third of: the round's
      // figure is the median of a few bursts.
      const { bursts, cpuUs } = await withCpu(
        pid,
        () => burstsOf(client, options.pipelined),
        () => BURSTS_PER_ROUND * options.pipelined,
      );
      const pipe = median(bursts);
      sequential[key].push(seq);
      pipelined[key].push(pipe);
      if (cpuUs !== undefined) (pipelinedCpuUs[key] ??= []).push(cpuUs);
      log(
        `round ${round}  ${label.padEnd(labelWidth)} sequential ${Math.round(seq.callsPerSec).toString().padStart(6)} calls/s (median ${seq.medianUs.toFixed(0)} µs)   pipelined ${Math.round(pipe).toString().padStart(6)} calls/s (bursts ${bursts.map((b) => Math.round(b / 1000)).join(', ')} k)` +
          `   server CPU/call ${seq.cpuUs?.toFixed(1) ?? '–'} µs sequential, ${cpuUs?.toFixed(1) ?? '–'} µs pipelined`,
      );
    }
  }
  return { sequentialMs, sequential, pipelined, pipelinedCpuUs };
}

/** The round's pipelined bursts over one connection, calls per second each. */
async function burstsOf(client: Pick<CallClient, 'pipelined'>, calls: number): Promise<{ bursts: number[] }> {
  const bursts: number[] = [];
  for (let i = 0; i < BURSTS_PER_ROUND; i++) bursts.push((await client.pipelined(calls)).callsPerSec);
  return { bursts };
}

async function benchStdio(options: Options): Promise<BenchResults['stdio']> {
  log('\n== stdio ==');
  const clients: Array<{ key: string; label: string; client: StdioClient; server: ReturnType<typeof startStdio> }> = [];
  const configs = options.rows ? STDIO_CONFIGS.filter((c) => options.rows!.includes(c.key)) : STDIO_CONFIGS;
  for (const config of configs) {
    const server = startStdio(`stdio-${config.key}`, config.server, 'env' in config ? { env: config.env } : {});
    const client = new StdioClient(server, 'tool' in config ? config.tool : undefined);
    await client.handshakeAndCheck();
    clients.push({ ...config, client, server });
  }
  const runs = await callRounds(clients, options, 32);
  await Promise.all(clients.map((c) => stop(c.server)));
  return { configs: configs.map(({ key, label }) => ({ key, label })), pipelinedCalls: options.pipelined, ...runs };
}

// ---------------------------------------------------------------------------------------------
// WebSocket
// ---------------------------------------------------------------------------------------------

const WEBSOCKET_CONFIGS = [
  { key: 'echo', label: 'bare ws echo, @fastify/websocket (limit)', server: 'ws-echo.server.js' },
  { key: 'hermes', label: 'Hermes, websocket: true (legacy)', server: 'hermes-ws.server.js' },
];

/** tools/call over one WebSocket, sequential and pipelined, as on stdio. */
async function benchWebsocket(options: Options): Promise<BenchResults['websocket']> {
  log('\n== WebSocket ==');
  const clients: Array<{ key: string; label: string; client: WsClient; server: HttpServerProcess }> = [];
  for (const config of WEBSOCKET_CONFIGS) {
    const server = await startHttp(`ws-${config.key}`, config.server);
    const client = await WsClient.connect(config.label, `${server.url.replace(/^http/, 'ws')}/ws`);
    await client.handshakeAndCheck();
    clients.push({ ...config, client, server });
  }
  const runs = await callRounds(clients, options, 42);
  for (const { client } of clients) client.close();
  await Promise.all(clients.map((c) => stop(c.server)));
  return { configs: WEBSOCKET_CONFIGS.map(({ key, label }) => ({ key, label })), pipelinedCalls: options.pipelined, ...runs };
}

// ---------------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------------

const MEMORY_ENV = { BENCH_MEMORY: '1' };
// The young generation starts at its full size and stays there: left to grow (1 → 16 MiB semi-spaces), it can
// take a step of 8-16 MiB of RSS in the middle of a measurement, whatever the sessions hold. Its most is fixed
// too: Node 24's V8 lets a semi-space grow to 32 MiB (Node 20's to 16), and the first thousand sessions made
// only part of that resident, so the next thousand touched ~13 MiB more young-generation pages — 15 KiB of
// RSS "per session" on Node 24 against 3 KiB on Node 20 for the same code and the same 2.5 KiB of heap.
const MEMORY_FLAGS = ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16'];

// ---------------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------------

/** Our client and the SDK clients against the same Hermes server, over stdio and HTTP. */
async function benchClients(options: Options): Promise<BenchResults['clients']> {
  log('\n== clients ==');
  const http = await startHttp('client-http', 'hermes-http.server.js');
  const sequentialMs = Math.max(500, (options.seconds * 1000) / 2);
  const count = Math.min(options.pipelined, 5_000);
  const sequentialRuns: Record<string, Record<string, number[]>> = {};
  const pipelinedRuns: Record<string, Record<string, number[]>> = {};
  try {
    for (const transport of ['stdio', 'http'] as const) {
      const connected: Array<{ key: string; label: string; client: BenchClient }> = [];
      for (const config of CLIENT_CONFIGS) {
        const client = await config.connect({ stdioServer: STDIO_SERVER, httpUrl: http.url }, transport);
        // Warm-up, and a check that every call is answered right.
        await pipelined(client, 500);
        await sequential(client, 200);
        connected.push({ key: config.key, label: config.label, client });
      }
      sequentialRuns[transport] = Object.fromEntries(connected.map((c) => [c.key, []]));
      pipelinedRuns[transport] = Object.fromEntries(connected.map((c) => [c.key, []]));
      for (let round = 1; round <= options.rounds; round++) {
        for (const { key, label, client } of connected) {
          const seq = await sequential(client, sequentialMs);
          // As on stdio above: one pause of a shared VM can take a third of a burst; the median of a few.
          const bursts: number[] = [];
          for (let i = 0; i < BURSTS_PER_ROUND; i++) bursts.push(await pipelined(client, count));
          const pipe = median(bursts);
          sequentialRuns[transport][key].push(seq);
          pipelinedRuns[transport][key].push(pipe);
          log(
            `round ${round}  ${transport.padEnd(5)} ${label.padEnd(24)} sequential ${Math.round(seq).toString().padStart(6)} calls/s   pipelined ${Math.round(pipe).toString().padStart(6)} calls/s`,
          );
        }
      }
      await Promise.all(connected.map((c) => c.client.close()));
    }
  } finally {
    await stop(http);
  }
  return { configs: CLIENT_CONFIGS.map(({ key, label }) => ({ key, label })), pipelinedCalls: count, sequentialMs, sequential: sequentialRuns, pipelined: pipelinedRuns };
}

async function memoryOf(server: HttpServerProcess): Promise<NodeJS.MemoryUsage> {
  const response = await fetch(server.url.replace(/\/mcp$/, MEMORY_PATH));
  if (!response.ok) throw new Error(`${server.name}: memory probe answered ${response.status}`);
  return (await response.json()) as NodeJS.MemoryUsage;
}

/** Opens `count` legacy sessions, `concurrency` at a time. */
async function openSessions(url: string, count: number, concurrency = 10): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--;
        await openSession(url);
      }
    }),
  );
}

async function benchMemory(options: Options): Promise<BenchResults['memory']> {
  log('\n== memory ==');
  const sessionServers = [
    { key: 'hermes', label: 'Hermes, legacy Streamable HTTP session', file: 'hermes-http.server.js' },
    { key: 'sdk-v1', label: 'SDK v1 1.32.2, stateful session', file: 'sdk-v1-http.server.js' },
  ];
  const perSession: Record<string, Array<{ rss: number; heap: number }>> = { hermes: [], 'sdk-v1': [] };
  // RSS moves in pages and heap growth steps: a fresh process per measurement, in rounds, and the median.
  for (let round = 1; round <= options.rounds; round++) {
    for (const { key, label, file } of sessionServers) {
      const server = await startHttp(`${key}-sessions`, file, { env: MEMORY_ENV, nodeFlags: MEMORY_FLAGS });
      // Warm-up: as many sessions again, kept open. The work of the first thousand sessions touches
      // pages of V8's young generation (reserved, not yet resident) whatever a session keeps; the
      // next thousand show what a session holds.
      await openSessions(server.url, options.sessions);
      const before = await memoryOf(server);
      await openSessions(server.url, options.sessions);
      const after = await memoryOf(server);
      await stop(server);
      const entry = { rss: (after.rss - before.rss) / options.sessions, heap: (after.heapUsed - before.heapUsed) / options.sessions };
      perSession[key].push(entry);
      log(`round ${round}  ${label.padEnd(40)} per idle session: RSS ${(entry.rss / 1024).toFixed(1)} KiB, heap ${(entry.heap / 1024).toFixed(1)} KiB`);
    }
  }
  const sessions = sessionServers.map(({ key, label }) => ({
    key,
    label,
    count: options.sessions,
    rssBytes: median(perSession[key].map((e) => e.rss)),
    heapBytes: median(perSession[key].map((e) => e.heap)),
  }));

  const retained: NonNullable<BenchResults['memory']>['retained'] = [];
  // The OAuth rows need the HTTP section's authorization server; what they retain is the plain rows'.
  // The gateway's rows have no memory probe (its Fastify app is the gateway package's own).
  for (const config of HTTP_CONFIGS.filter((c) => c.env === undefined && c.server !== 'hermes-gateway.server.js')) {
    const [{ server, template }] = await prepareAll([config], 'retained-', MEMORY_ENV, MEMORY_FLAGS);
    await load(server.url, template, 10, { requests: 2_000 });
    const before = await memoryOf(server);
    const run = await load(server.url, template, 10, { requests: options.retainedCalls });
    const after = await memoryOf(server);
    await stop(server);
    if (run.non2xx || run.errors) throw new Error(`${config.label}: ${run.non2xx} non-2xx answers, ${run.errors} errors during the retained-heap run`);
    const entry = { key: config.key, label: config.label, calls: options.retainedCalls, heapBytesPerCall: (after.heapUsed - before.heapUsed) / options.retainedCalls };
    retained.push(entry);
    log(`${config.label.padEnd(40)} heap retained per call after ${options.retainedCalls} calls: ${entry.heapBytesPerCall.toFixed(1)} B`);
  }
  return { sessions, retained };
}

// ---------------------------------------------------------------------------------------------
// Bootstrap of 1,000 tools, and tools/list of them
// ---------------------------------------------------------------------------------------------

async function benchBootstrap(options: Options): Promise<BenchResults['bootstrap']> {
  log('\n== bootstrap: 1,000 decorated tools ==');
  const starts: NonNullable<BenchResults['bootstrap']>['starts'] = [];
  let server: HttpServerProcess | undefined;
  // A schema cache of this section's own, empty: the first round is a first start (it builds every
  // schema and keeps it) whatever an earlier run left in node_modules/.cache, and the others read back.
  const schemas = mkdtempSync(join(os.tmpdir(), 'hermes-bench-schemas-'));
  const env = { HERMES_SCHEMA_CACHE: schemas };
  for (let round = 1; round <= options.rounds; round++) {
    if (server) await stop(server);
    server = await startHttp('many-tools', 'many-tools.server.js', { env });
    const t = server.timings!;
    const start = {
      load: t.load,
      decorate: t.decorate,
      inputs: t.inputs,
      create: t.create,
      serve: t.serve,
      bootstrap: t.decorate + t.create + t.serve,
      spawnToReady: server.startMs,
    };
    starts.push(start);
    log(
      `round ${round}  load ${start.load.toFixed(0)} ms, decorate ${start.decorate.toFixed(0)} ms (inputs ${start.inputs.toFixed(0)} ms), McpFactory.create ${start.create.toFixed(0)} ms, plugin+listen ${start.serve.toFixed(0)} ms → bootstrap ${start.bootstrap.toFixed(0)} ms (spawn to ready ${start.spawnToReady.toFixed(0)} ms)`,
    );
  }
  const again = await startHttp('many-tools-again', 'many-tools.server.js', { env: { ...env, HERMES_BENCH_CREATE_AGAIN: '1' } });
  const createAgain = again.timings!.createAgain;
  await stop(again);
  log(`McpFactory.create again in the same process, 1,000 new classes of the same code: ${createAgain.toFixed(0)} ms (first: ${again.timings!.create.toFixed(0)} ms)`);
  const ours = server!;
  const template: RequestTemplate = { headers: await openSession(ours.url), body: listCall() };
  const firstStart = performance.now();
  const result = await checkAnswer(ours.url, template, { framing: 'json' });
  const firstListMs = performance.now() - firstStart;
  const tools = result.tools as unknown[];
  if (tools.length !== 1000 || result.nextCursor !== undefined)
    throw new Error(`tools/list: expected 1000 tools on one page, got ${tools.length} (nextCursor ${String(result.nextCursor)})`);
  const resultFile = join(mkdtempSync(join(os.tmpdir(), 'hermes-bench-')), 'tools-list.json');
  writeFileSync(resultFile, JSON.stringify(result));
  const bare = await startHttp('bare-list', 'bare-fastify.server.js', { env: { BENCH_LIST_RESULT: resultFile } });
  const bareTemplate: RequestTemplate = { headers: PLAIN_HEADERS, body: listCall() };
  const bareResult = await checkAnswer(bare.url, bareTemplate, { framing: 'json' });
  if (JSON.stringify(bareResult) !== JSON.stringify(result)) throw new Error('the bare tools/list body differs from ours');
  const bodyBytes = Buffer.byteLength(JSON.stringify(result));
  log(`tools/list: 1000 tools, ${(bodyBytes / 1024).toFixed(0)} KiB result, first call ${firstListMs.toFixed(1)} ms`);
  await load(ours.url, template, 10, { seconds: Math.min(1, options.seconds) });
  await load(bare.url, bareTemplate, 10, { seconds: Math.min(1, options.seconds) });
  const list: NonNullable<BenchResults['bootstrap']>['list'] = { ours: [], bare: [] };
  for (let round = 1; round <= options.rounds; round++) {
    for (const [key, server, tpl] of [
      ['ours', ours, template],
      ['bare', bare, bareTemplate],
    ] as const) {
      const run = await load(server.url, tpl, 10, { seconds: options.seconds }, server.process.pid);
      list[key].push(run);
      log(`round ${round}  tools/list ${key === 'ours' ? 'Hermes, legacy session' : 'bare Fastify, pre-built body'}`.padEnd(62) + describeRun(run));
    }
  }
  await Promise.all([stop(ours), stop(bare)]);
  rmSync(schemas, { recursive: true, force: true });
  return { tools: 1000, starts, createAgain, firstListMs, bodyBytes, list };
}

// ---------------------------------------------------------------------------------------------
// Start of a stdio server (start.ts)
// ---------------------------------------------------------------------------------------------

/** Instrumented starts per Node behind the module-load table (fewer when the section runs fewer rounds). */
const START_LOAD_RUNS = 5;

// ---------------------------------------------------------------------------------------------

/**
 * Process warnings, each kind once: the SDK clients add a listener per request in flight (a
 * `drain` listener per stdio write, an abort listener per HTTP request on one signal), and Node's
 * warning for each of 5,000 pipelined calls would bury the bench's log. How many followed is told
 * at the end.
 */
const warningsSeen = new Map<string, number>();
function warnOncePerKind(): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const kind = `${warning.name}: ${warning.message.replace(/\d+/g, 'N')}`;
    const seen = warningsSeen.get(kind) ?? 0;
    warningsSeen.set(kind, seen + 1);
    if (seen === 0) log(`(warning, shown once per kind) ${warning.name}: ${warning.message}`);
  });
  process.on('exit', () => {
    for (const [kind, count] of warningsSeen) if (count > 1) log(`(${count} warnings of the kind) ${kind}`);
  });
}

async function main(): Promise<void> {
  warnOncePerKind();
  const options = parseArgs(process.argv.slice(2));
  stopAllOnExit();
  const root = resolve(__dirname, '..', '..');
  if (options.from) {
    const saved = JSON.parse(readFileSync(options.from, 'utf8')) as BenchResults;
    const complete = Boolean(saved.http && saved.stdio && saved.memory && saved.bootstrap && saved.start);
    const written = writeReport(saved, root, { docs: options.docs && complete });
    log(written.markdown);
    log(written.files.length ? `written: ${written.files.join(', ')}` : 'docs untouched (the saved run is partial, or --no-docs)');
    return;
  }
  if (options.profile) {
    const dir = join(root, 'bench', 'dist', 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
    mkdirSync(dir, { recursive: true });
    profileInto(dir);
    log(`CPU profiles: ${dir}`);
  }
  const info = machine();
  log(`${info.cpu}, ${info.cores} cores, Node ${info.node}; load average before: ${info.loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
  const startRounds = options.sections.includes('start') ? ` (start: ${options.startRounds} round${options.startRounds === 1 ? '' : 's'})` : '';
  log(`rounds ${options.rounds} × ${options.seconds} s${startRounds}; sections: ${options.sections.join(', ')}; ${pinCores()}`);
  const results: BenchResults = { machine: info, rounds: options.rounds };
  const started = performance.now();
  try {
    if (options.sections.includes('http')) results.http = await benchHttp(options);
    if (options.sections.includes('stdio')) results.stdio = await benchStdio(options);
    if (options.sections.includes('websocket')) results.websocket = await benchWebsocket(options);
    if (options.sections.includes('client')) results.clients = await benchClients(options);
    if (options.sections.includes('memory')) results.memory = await benchMemory(options);
    if (options.sections.includes('bootstrap')) results.bootstrap = await benchBootstrap(options);
    if (options.sections.includes('start'))
      results.start = await measureStart({ rounds: options.startRounds, loadRuns: Math.min(START_LOAD_RUNS, options.startRounds), nodes: options.startNodes }, log);
    if (options.sections.includes('redis')) results.redis = await benchRedis(options);
    if (options.sections.includes('redis-memory')) results.redisMemory = await benchRedisMemory(options);
    if (options.sections.includes('redis-cluster') && hasRedisServer()) await benchRedisCluster(options.rounds, options.seconds, log);
  } finally {
    await stopAll();
  }
  info.loadAfter = os.loadavg();
  results.elapsedSeconds = (performance.now() - started) / 1000;
  const complete = options.sections.length === SECTIONS.length && !options.quick;
  if (options.rows) {
    // Some rows only: the report's ratios need rows that did not run; the log lines have the figures.
    const saved = join(root, 'bench', 'dist', 'last-rows.json');
    writeFileSync(saved, `${JSON.stringify(results, null, 2)}\n`);
    log(`\nrows ${options.rows.join(', ')}: the figures are the log lines above and in ${saved}; no report (--rows)`);
    return;
  }
  const written = writeReport(results, root, { docs: options.docs && complete });
  log(`\n${written.markdown}`);
  log(`load average after: ${info.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ${results.elapsedSeconds.toFixed(0)} s in all`);
  log(written.files.length ? `written: ${written.files.join(', ')}` : 'docs untouched (partial, quick or --no-docs run)');
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
