/**
 * The Redis sizing (`npm run bench -- --only redis-memory`): what a session costs Redis when three
 * instances share it behind a round-robin balancer, measured with Redis's own `used_memory`.
 *
 * Three instances (servers/hermes-cluster.server.ts) on one redis-server of the run's own; each
 * request of a session goes to the instance after the one its previous request went to. Step by
 * step, for every one of `sessions` sessions: `initialize`, `notifications/initialized` (a second
 * instance takes the session up), `resources/subscribe` (the third does), a GET stream opened and
 * left after its priming event, then ten resource updates raised (each one stored on every GET
 * stream), then `DELETE`. Redis's `used_memory` is read after each step, once Redis has been idle
 * for a moment (events are stored without waiting), and `MEMORY USAGE` of one session's keys at the
 * end. The differences divided by the number of sessions are the costs per session; Redis's
 * counters (`INFO stats`) give the commands and bytes it received for each step the same way (the
 * few `INFO` of the waits included).
 */
import { HttpServerProcess, startHttp, stop } from './children';
import { BenchRedis, Resp, ask, countersOf, startRedis } from './redis';

/** Redis memory per session after each step, and one session's keys. */
export interface RedisMemoryResults {
  sessions: number;
  instances: number;
  events: number;
  /**
   * step → bytes of `used_memory` it added, per session (negative: freed), and the commands and
   * bytes Redis received for it, per session (`INFO stats`).
   */
  perSession: Array<{ step: string; bytes: number; commands: number; bytesIn: number }>;
  /** Bytes left per session after `DELETE`, over the baseline. */
  leftAfterDelete: number;
  /** `MEMORY USAGE` of one session's keys after the events, by key (the session id replaced by `{id}`). */
  keys: Array<{ key: string; type: string; bytes: number }>;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INSTANCES = 3;
const EVENTS = 10;
const CONCURRENCY = 32;

/** `used_memory` now. */
async function usedMemory(redis: BenchRedis): Promise<number> {
  const info = String(await ask(redis.port, 'INFO memory'));
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN);
}

/** Waits until Redis has processed no command for 300 ms (the instances store events without waiting). */
async function settled(redis: BenchRedis): Promise<void> {
  let before = (await countersOf(redis)).commands;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = (await countersOf(redis)).commands;
    // The INFO command itself counts as one.
    if (now - before <= 1) return;
    before = now;
  }
}

/** Runs `work(i)` for i in [0, count), `CONCURRENCY` at a time. */
async function each(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** One session of the run: its id, and the instance its next request goes to. */
interface Session {
  id: string;
  next: number;
}

/** POSTs a JSON-RPC message to the session's next instance; the status and the body. */
async function send(urls: string[], session: Session, body: unknown): Promise<{ status: number; text: string }> {
  const url = urls[session.next];
  session.next = (session.next + 1) % urls.length;
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** Opens a session on `urls[first]` as a 2025-11-25 client with elicitation and roots would. */
async function open(urls: string[], first: number): Promise<Session> {
  const response = await fetch(urls[first], {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {}, roots: { listChanged: true } }, clientInfo: { name: 'hermes-bench-sizing', version: '1.0.0' } },
    }),
  });
  const id = response.headers.get('mcp-session-id');
  const text = await response.text();
  if (response.status !== 200 || !id) throw new Error(`initialize: HTTP ${response.status} ${text.slice(0, 200)}`);
  return { id, next: (first + 1) % urls.length };
}

/** Opens the session's GET stream on its next instance, reads its priming event, and leaves. */
async function openGetStream(urls: string[], session: Session): Promise<void> {
  const url = urls[session.next];
  session.next = (session.next + 1) % urls.length;
  const stop = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
    signal: stop.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`GET: HTTP ${response.status}`);
  const reader = response.body.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  if (!/^id: get[^\n]*_1$/m.test(text)) throw new Error(`GET: no priming event in ${JSON.stringify(text)}`);
  stop.abort();
  await reader.cancel().catch(() => undefined);
}

/** Expects a status. */
function expectStatus(what: string, got: { status: number; text: string }, status: number): void {
  if (got.status !== status) throw new Error(`${what}: HTTP ${got.status} ${got.text.slice(0, 200)}`);
}

/** Measures what `sessions` sessions cost Redis, step by step (see the file's comment). */
export async function measureRedisMemory(sessions: number, log: (line: string) => void): Promise<RedisMemoryResults> {
  const redis = await startRedis();
  const servers: HttpServerProcess[] = [];
  try {
    for (let i = 0; i < INSTANCES; i++) servers.push(await startHttp(`redis-sizing-${i}`, 'hermes-cluster.server.js', { env: { HERMES_BENCH_REDIS: redis.url } }));
    const urls = servers.map((s) => s.url);
    // The session that raises the updates, opened before the baseline.
    const raiser = await open(urls, 0);
    expectStatus('initialized', await send(urls, raiser, { jsonrpc: '2.0', method: 'notifications/initialized' }), 202);
    const opened: Session[] = [];
    const perSession: RedisMemoryResults['perSession'] = [];
    await settled(redis);
    const baseline = await usedMemory(redis);
    let last = baseline;
    const step = async (name: string, work: () => Promise<void>) => {
      const before = await countersOf(redis);
      await work();
      await settled(redis);
      const after = await countersOf(redis);
      const now = await usedMemory(redis);
      const row = { step: name, bytes: (now - last) / sessions, commands: (after.commands - before.commands) / sessions, bytesIn: (after.bytesIn - before.bytesIn) / sessions };
      perSession.push(row);
      log(`  ${name.padEnd(72)} ${row.bytes.toFixed(0).padStart(6)} B  ${row.commands.toFixed(2).padStart(6)} commands  ${row.bytesIn.toFixed(0).padStart(6)} B in`);
      last = now;
    };
    log(`== Redis sizing: ${sessions} sessions, ${INSTANCES} instances, round robin (per session: used_memory added; commands and bytes Redis received) ==`);
    await step('initialize (record, bus channel of the first instance)', () =>
      each(sessions, async (i) => {
        opened[i] = await open(urls, i % INSTANCES);
      }),
    );
    await step('notifications/initialized on a second instance (take-up: bus channel)', () =>
      each(sessions, async (i) => expectStatus('initialized', await send(urls, opened[i], { jsonrpc: '2.0', method: 'notifications/initialized' }), 202)),
    );
    await step('resources/subscribe on the third (take-up: bus channel; subscription)', () =>
      each(sessions, async (i) =>
        expectStatus('subscribe', await send(urls, opened[i], { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'status://all' } }), 200),
      ),
    );
    await step('GET stream opened (priming event), then left', () => each(sessions, (i) => openGetStream(urls, opened[i])));
    await step(`${EVENTS} resource updates stored on the GET stream`, async () => {
      for (let n = 0; n < EVENTS; n++) {
        const answer = await send(urls, raiser, { jsonrpc: '2.0', id: n + 10, method: 'tools/call', params: { name: 'touch', arguments: { uri: 'status://all' } } });
        expectStatus('touch', answer, 200);
      }
    });
    const sample = opened[0].id;
    const names = [...((await ask(redis.port, `KEYS *${sample}*`)) as Resp[])].map(String).sort();
    const keys: RedisMemoryResults['keys'] = [];
    for (const key of names) {
      keys.push({ key: key.replace(sample, '{id}'), type: String(await ask(redis.port, `TYPE ${key}`)), bytes: Number(await ask(redis.port, `MEMORY USAGE ${key} SAMPLES 0`)) });
    }
    await step('DELETE', () =>
      each(sessions, async (i) => {
        const response = await fetch(urls[opened[i].next], { method: 'DELETE', headers: { 'mcp-session-id': opened[i].id, 'mcp-protocol-version': '2025-11-25' } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`DELETE: HTTP ${response.status}`);
      }),
    );
    const leftAfterDelete = (last - baseline) / sessions;
    log(`  left per session after DELETE: ${leftAfterDelete.toFixed(0)} B`);
    log('  MEMORY USAGE of one session’s keys, after the events:');
    for (const { key, type, bytes } of keys) log(`    ${key.padEnd(48)} ${type.padEnd(8)} ${String(bytes).padStart(6)} B`);
    return { sessions, instances: INSTANCES, events: EVENTS, perSession, leftAfterDelete, keys };
  } finally {
    await Promise.all(servers.map((s) => stop(s)));
    await redis.stop();
  }
}
