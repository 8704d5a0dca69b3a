/**
 * 200 overlapping tool calls on one stdio connection to the built everything server
 * (dist/main.js), with progress and some cancellations: every response matches its request, and
 * no progress token or abort signal crosses from one call to another.
 *
 * Twice: through the official SDK v1 client (it picks the ids and uses them as progress tokens),
 * and in raw JSON lines, where the test picks ids and tokens itself — numbers and strings, tokens
 * that spell other calls' ids — and sees the wire exactly as the server wrote it. Last, an id
 * reused right after its cancellation belongs to the new call only.
 *
 * How the checks avoid depending on timing:
 * - Every `notifications/cancelled` is followed on the wire by a `ping` (a fence). The server reads
 *   its input in order, so by the time it answers the fence it has aborted the call: from then on
 *   no progress and no response of that call may appear. Progress that arrives before the fence's
 *   answer was legitimately in flight.
 * - A cancelled call still has at least three steps and 120 ms of work left when its cancellation
 *   is written (written with the request, on the first progress of any call, or on the call's own
 *   first or second progress). That is far more than a pipe needs, so the server reads the
 *   cancellation before the call can finish: the call gets no response and its handler sees its
 *   signal abort. Only a client stalled for longer than that (a loaded machine) could write the
 *   cancellation too late; the call is then answered before the fence — a legitimate race, which
 *   the checks accept as such, and never for a call cancelled together with its request. Where
 *   the cancellation is its request's own next write (the SDK's), not in the same write (the raw
 *   run), the call's first progress may also have been in flight when it was read.
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { LEGACY_REVISIONS, type LegacyRevision, type MessageId, loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';
import { RawStdioClient, type RawMessage, isRecord } from '../../../test-support/raw-stdio-client';
import { RecordingStdioTransport } from '../../../test-support/recording-transport';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER = { command: process.execPath, args: [path.resolve(__dirname, '../dist/main.js')], cwd: REPO_ROOT };

const schemas = loadSchemas();

/** How many `slow` calls run at once. */
const CALLS = 200;
/** The least work (in ms) a cancelled call has left when its cancellation is written. */
const CANCEL_MARGIN_MS = 120;

/** When a call is cancelled. */
type CancelMoment =
  /** Right behind its request (in the same write in the raw run): the handler finds its signal aborted at its first step, as a rule. */
  | { kind: 'with-request' }
  /** When the first progress of any call arrives (before this call's own first progress, as a rule). */
  | { kind: 'before-progress' }
  /** When this call's own k-th progress arrives. */
  | { kind: 'after-progress'; k: 1 | 2 };

/** One planned call. */
interface PlannedCall {
  index: number;
  label: string;
  steps: number;
  delayMs: number;
  cancel?: CancelMoment;
}

/** A small seeded generator, so the plan is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Progress a cancelled call has reported when its cancellation is written, at the least. */
const progressBeforeCancel = (cancel: CancelMoment): number => (cancel.kind === 'after-progress' ? cancel.k : 0);

/**
 * The calls: steps 1–5 and 5–40 ms a step; every fifth call (40 of 200) is cancelled, at the four
 * moments in turn, with enough work left then (see the file comment).
 */
function plan(): PlannedCall[] {
  const random = mulberry32(20251125);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const moments: CancelMoment[] = [{ kind: 'with-request' }, { kind: 'before-progress' }, { kind: 'after-progress', k: 1 }, { kind: 'after-progress', k: 2 }];
  return Array.from({ length: CALLS }, (_, index) => {
    const label = `call-${String(index).padStart(3, '0')}`;
    if (index % 5 !== 2) return { index, label, steps: int(1, 5), delayMs: int(5, 40) };
    const cancel = moments[Math.floor(index / 5) % moments.length];
    const before = progressBeforeCancel(cancel);
    const steps = int(before + 3, 5);
    // Enough delay that the steps left take CANCEL_MARGIN_MS at least.
    const delayMs = int(Math.max(30, Math.ceil(CANCEL_MARGIN_MS / (steps - before))), 40);
    return { index, label, steps, delayMs, cancel };
  });
}

const PLAN = plan();
const CANCELLED_LABELS = PLAN.filter((c) => c.cancel).map((c) => c.label);

/** A call as it went on the wire: the plan plus the id and progress token it was sent with. */
interface WiredCall extends PlannedCall {
  id: MessageId;
  token: MessageId;
}

/** `5` and `"5"` are different ids and tokens: keys keep the type. */
const key = (value: unknown): string => `${typeof value}:${String(value)}`;

/** What the wire shows for one call. */
interface Observed {
  label: string;
  /** The `result` or `error` of every response carrying the call's id. */
  responses: unknown[];
  /** The params (without the token) of every progress notification carrying the call's token. */
  progress: unknown[];
  /** Progress that arrived after the call's response. */
  progressAfterResponse: number;
  /** Whether the fence behind the call's cancellation was answered (the server had read it). */
  fenced: boolean;
  /** Progress and responses of the call that arrived after that fence's answer. */
  afterFence: number;
}

/** What the server sent that belongs to no call. */
interface Unmatched {
  /** Progress carrying a token no call was sent with. */
  progress: unknown[];
  /** Responses to ids the client never sent. */
  responses: unknown[];
  /** Anything else: server requests, other notifications, batches, unparseable lines. */
  other: unknown[];
}

/**
 * Walks the wire in order and sorts every server message to the call it belongs to. A `ping`
 * the client sends is the fence of the cancellations written since the previous one.
 */
function observe(
  wire: ReadonlyArray<{ from: 'client' | 'server'; message: unknown }>,
  calls: readonly WiredCall[],
  sentIds: readonly MessageId[],
): { observed: Observed[]; unmatched: Unmatched } {
  const byId = new Map(calls.map((c) => [key(c.id), c.index]));
  const byToken = new Map(calls.map((c) => [key(c.token), c.index]));
  const sent = new Set(sentIds.map(key));
  const observed: Observed[] = calls.map((c) => ({ label: c.label, responses: [], progress: [], progressAfterResponse: 0, fenced: false, afterFence: 0 }));
  const responded = new Set<number>();
  let unfenced: number[] = [];
  const fenceOf = new Map<string, number[]>();
  const unmatched: Unmatched = { progress: [], responses: [], other: [] };
  for (const { from, message } of wire) {
    if (!isRecord(message) || 'unparseable' in message) {
      if (from === 'server') unmatched.other.push(message);
      continue;
    }
    const params = isRecord(message.params) ? message.params : {};
    if (from === 'client') {
      const index = message.method === 'notifications/cancelled' ? byId.get(key(params.requestId)) : undefined;
      // A cancellation written after the call's response cancels nothing.
      if (index !== undefined && !responded.has(index)) unfenced.push(index);
      if (message.method === 'ping') {
        fenceOf.set(key(message.id), unfenced);
        unfenced = [];
      }
      continue;
    }
    if (message.method === 'notifications/progress') {
      const index = byToken.get(key(params.progressToken));
      if (index === undefined) {
        unmatched.progress.push(message);
        continue;
      }
      const { progressToken: _token, ...rest } = params;
      observed[index].progress.push(rest);
      if (responded.has(index)) observed[index].progressAfterResponse++;
      if (observed[index].fenced) observed[index].afterFence++;
    } else if ('method' in message) {
      unmatched.other.push(message);
    } else {
      const index = byId.get(key(message.id));
      if (index !== undefined) {
        observed[index].responses.push('result' in message ? { result: message.result } : { error: message.error });
        responded.add(index);
        if (observed[index].fenced) observed[index].afterFence++;
      } else if (!sent.has(key(message.id))) {
        unmatched.responses.push(message);
      }
      for (const fenced of fenceOf.get(key(message.id)) ?? []) observed[fenced].fenced = true;
    }
  }
  return { observed, unmatched };
}

/**
 * The cancelled calls the server finished before it read their cancellation: the response came
 * before the answer to the fence behind the cancellation. That race is legitimate (the response
 * was on its way); the margins of the plan make it all but impossible, and it can never happen to
 * a call cancelled with its request.
 */
function racedLabels(observed: readonly Observed[]): string[] {
  return PLAN.filter((call) => call.cancel && call.cancel.kind !== 'with-request')
    .map((call) => observed[call.index])
    .filter((o) => o.responses.length > 0 && o.afterFence === 0)
    .map((o) => o.label);
}

/**
 * What {@link observe} must find for each call on a connection that negotiated `revision`:
 * - a call that was not cancelled reports every step, then gets its own result;
 * - a cancelled call reports a prefix of its steps (at least those it was cancelled after, none
 *   when cancelled with its request in the same write), all before the server read the
 *   cancellation, and gets no response — unless it raced ({@link racedLabels}): then it is
 *   answered like any other.
 *
 * `sameWrite`: each with-request cancellation went out in the same write as its request (the raw
 * run). The SDK writes them one after the other: on a loaded machine the server may read the
 * request, and the call's first step (30–40 ms) may end, before the cancellation's bytes are read —
 * then its first progress was legitimately in flight, as for a cancellation at any other moment.
 */
function expectedObservations(revision: LegacyRevision, observed: readonly Observed[], sameWrite: boolean): Observed[] {
  const raced = new Set(racedLabels(observed));
  return PLAN.map((call) => {
    const answered = !call.cancel || raced.has(call.label);
    let seen = call.steps;
    if (call.cancel && !answered) {
      const min = progressBeforeCancel(call.cancel);
      const max = call.cancel.kind === 'with-request' && sameWrite ? 0 : call.steps - 1;
      const actual = observed[call.index].progress.length;
      seen = actual >= min && actual <= max ? actual : min;
    }
    const progress = Array.from({ length: seen }, (_, i) =>
      // `message` on progress arrived in 2025-03-26.
      revision >= '2025-03-26' ? { progress: i + 1, total: call.steps, message: `step ${i + 1} of ${call.steps}` } : { progress: i + 1, total: call.steps },
    );
    const responses = answered ? [{ result: { content: [{ type: 'text', text: `${call.label}: completed ${call.steps} steps` }] } }] : [];
    // A raced cancellation may even have been written after the response arrived: then it fenced nothing.
    const fenced = raced.has(call.label) ? observed[call.index].fenced : call.cancel !== undefined;
    return { label: call.label, responses, progress, progressAfterResponse: 0, fenced, afterFence: 0 };
  });
}

/** Checks the `cancellations` tool's answer: exactly the cancelled calls that did not race, and every one cancelled with its request. */
function expectAbortedAsCancelled(result: RawMessage, revision: LegacyRevision, observed: readonly Observed[]): void {
  const raced = racedLabels(observed);
  const labels = abortedLabels(result, revision);
  expect(labels).toEqual(CANCELLED_LABELS.filter((label) => !raced.includes(label)));
  const withRequest = PLAN.filter((c) => c.cancel?.kind === 'with-request').map((c) => c.label);
  expect(withRequest.filter((label) => !labels.includes(label))).toEqual([]);
}

function slowArguments(call: PlannedCall): { steps: number; delayMs: number; label: string } {
  return { steps: call.steps, delayMs: call.delayMs, label: call.label };
}

/** The labels the `cancellations` tool reported, from its JSON text (and its structured content where the revision has it). */
function abortedLabels(result: RawMessage, revision: LegacyRevision): string[] {
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content).toHaveLength(1);
  const fromText = (JSON.parse(content[0].text) as { aborted: string[] }).aborted;
  if (revision >= '2025-06-18') expect(result.structuredContent).toEqual({ aborted: fromText });
  else expect(result).not.toHaveProperty('structuredContent');
  return [...fromText].sort();
}

/** The server's log lines (pino JSON on stderr) at level warn or above, and any line that is not pino's. */
function warningsIn(stderr: string): string[] {
  return stderr.split('\n').filter((line) => {
    if (line.trim() === '') return false;
    try {
      return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40;
    } catch {
      return true;
    }
  });
}

it('the plan: 200 calls, 40 cancelled at four kinds of moment, steps 1–5, 5–40 ms a step', () => {
  expect(PLAN).toHaveLength(CALLS);
  expect(new Set(PLAN.map((c) => c.label)).size).toBe(CALLS);
  expect(CANCELLED_LABELS).toHaveLength(40);
  const kinds = PLAN.flatMap((c) => (c.cancel ? [c.cancel.kind === 'after-progress' ? `after-${c.cancel.k}` : c.cancel.kind] : []));
  for (const kind of ['with-request', 'before-progress', 'after-1', 'after-2']) expect(kinds.filter((k) => k === kind)).toHaveLength(10);
  expect(new Set(PLAN.map((c) => c.steps))).toEqual(new Set([1, 2, 3, 4, 5]));
  for (const call of PLAN) {
    expect(call.delayMs).toBeGreaterThanOrEqual(5);
    expect(call.delayMs).toBeLessThanOrEqual(40);
    if (call.cancel) {
      const left = call.steps - progressBeforeCancel(call.cancel);
      expect(left).toBeGreaterThanOrEqual(3);
      expect(left * call.delayMs).toBeGreaterThanOrEqual(CANCEL_MARGIN_MS);
    }
  }
});

describe('200 overlapping slow calls through the SDK v1 client (2025-11-25)', () => {
  const revision: LegacyRevision = '2025-11-25';
  let transport: RecordingStdioTransport;
  let client: Client;
  /** How each callTool settled. */
  let outcomes: Array<{ ok: true; result: RawMessage } | { ok: false; error: unknown }>;
  /** What the SDK delivered to each call's onprogress. */
  let delivered: Progress[][];
  let calls: WiredCall[];
  let aborted: RawMessage;

  beforeAll(async () => {
    transport = new RecordingStdioTransport(SERVER, revision);
    client = new Client({ name: 'concurrency-e2e', version: '1.0.0' });
    await client.connect(transport);

    const controllers = PLAN.map(() => new AbortController());
    const fences: Array<Promise<unknown>> = [];
    // Aborting makes the SDK write `notifications/cancelled` at once; the ping is written behind it.
    const cancel = (targets: readonly PlannedCall[], reason: string) => {
      for (const target of targets) controllers[target.index].abort(reason);
      fences.push(client.ping());
    };
    delivered = PLAN.map(() => []);
    let firstProgressSeen = false;
    const pending = PLAN.map((call) => {
      const settled = client
        .callTool({ name: 'slow', arguments: slowArguments(call) }, undefined, {
          signal: controllers[call.index].signal,
          onprogress: (progress) => {
            delivered[call.index].push(progress);
            if (!firstProgressSeen) {
              firstProgressSeen = true;
              cancel(
                PLAN.filter((other) => other.cancel?.kind === 'before-progress'),
                'before its first progress',
              );
            }
            if (call.cancel?.kind === 'after-progress' && delivered[call.index].length === call.cancel.k) cancel([call], `after progress ${call.cancel.k}`);
          },
        })
        .then(
          (result) => ({ ok: true as const, result: result }),
          (error: unknown) => ({ ok: false as const, error }),
        );
      // callTool writes the request before it returns, so the cancellation follows it on the wire.
      if (call.cancel?.kind === 'with-request') cancel([call], 'with its request');
      return settled;
    });
    outcomes = await Promise.all(pending);
    await Promise.all(fences);
    aborted = await client.callTool({ name: 'cancellations', arguments: {} });

    // The SDK chose the ids (and uses them as progress tokens); find each call's by its label.
    const idByLabel = new Map<string, MessageId>();
    for (const m of transport.sent as RawMessage[]) {
      const params = m.params as { name?: string; arguments?: { label?: string } } | undefined;
      if (m.method === 'tools/call' && params?.name === 'slow') idByLabel.set(params.arguments!.label!, m.id as MessageId);
    }
    calls = PLAN.map((call) => ({ ...call, id: idByLabel.get(call.label)!, token: idByLabel.get(call.label)! }));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('each call was sent once, with its id as its progress token', () => {
    expect(new Set(calls.map((c) => c.id)).size).toBe(CALLS);
    const sent = (transport.sent as RawMessage[])
      .filter((m) => m.method === 'tools/call' && (m.params as { name: string }).name === 'slow')
      .map((m) => ({ id: m.id, token: ((m.params as RawMessage)._meta as RawMessage).progressToken }));
    expect(sent).toHaveLength(CALLS);
    for (const { id, token } of sent) expect(token).toBe(id);
  });

  it('every call that was not cancelled resolves with its own label and steps; every cancelled call rejects', () => {
    const raced = racedLabels(observe(transport.wire, calls, []).observed);
    const summary = PLAN.map((call) => {
      const outcome = outcomes[call.index];
      if (!outcome.ok) return { label: call.label, rejected: true };
      return { label: call.label, text: (outcome.result.content as Array<{ text: string }>)[0].text, isError: outcome.result.isError ?? false };
    });
    const resolved = (call: PlannedCall) => ({ label: call.label, text: `${call.label}: completed ${call.steps} steps`, isError: false });
    const expected = PLAN.map((call, i) => {
      if (!call.cancel) return resolved(call);
      // A raced call settles with whichever came first: its response or its abort.
      if (raced.includes(call.label) && !('rejected' in summary[i])) return resolved(call);
      return { label: call.label, rejected: true };
    });
    expect(summary).toEqual(expected);
  });

  it('on the wire: one response per call that was not cancelled, none per cancelled call; progress only for live calls, in order', () => {
    const { observed, unmatched } = observe(transport.wire, calls, [...transport.requestMethodById.keys()]);
    expect(unmatched).toEqual({ progress: [], responses: [], other: [] });
    expect(observed).toEqual(expectedObservations(revision, observed, false));
    // Some cancelled calls had reported progress by then, some none.
    const cancelled = observed.filter((o) => CANCELLED_LABELS.includes(o.label));
    expect(cancelled.filter((o) => o.progress.length === 0).length).toBeGreaterThanOrEqual(10);
    expect(cancelled.filter((o) => o.progress.length > 0).length).toBeGreaterThanOrEqual(20);
  });

  it("onprogress got its own call's progress, as on the wire (a prefix: typescript-sdk#2580 may drop the last)", () => {
    const { observed } = observe(transport.wire, calls, []);
    for (const call of PLAN) {
      const wire = observed[call.index].progress as Progress[];
      const got = delivered[call.index].map((p) => ({ ...p }));
      expect({ label: call.label, got }).toEqual({ label: call.label, got: wire.slice(0, got.length) });
    }
  });

  it('the cancellations tool lists exactly the cancelled labels (that did not race their cancellation)', () => {
    expectAbortedAsCancelled(aborted, revision, observe(transport.wire, calls, []).observed);
  });

  it('every message the server sent validates against the 2025-11-25 schema', () => {
    const schema = schemas.revisions.get(revision)!;
    expect(transport.received.length).toBeGreaterThan(CALLS);
    const violations = transport.received.flatMap((m) => validateServerMessage(schema, m, transport.requestMethodById));
    expect(violations).toEqual([]);
  });

  it('the server keeps serving and logged no warning; it exits with code 0 when stdin ends', async () => {
    await expect(client.ping()).resolves.toEqual({});
    expect(transport.errors).toEqual([]);
    await client.close();
    await expect(transport.exited()).resolves.toEqual({ code: 0, signal: null });
    expect(warningsIn(transport.stderrText)).toEqual([]);
  });
});

/**
 * Ids and tokens of the raw variant, both types mixed: even calls have numeric ids, odd ones
 * `req-<n>`; half the tokens are digit strings (some spell another call's numeric id), half are
 * numbers (some equal to another call's numeric id).
 */
function rawIdentity(index: number): { id: MessageId; token: MessageId } {
  const id = index % 2 === 0 ? index : `req-${index}`;
  const token = index % 4 < 2 ? String(index + 1) : (index + 100) % CALLS;
  return { id, token };
}

describe.each(LEGACY_REVISIONS)('200 overlapping slow calls in raw JSON lines, revision %s', (revision) => {
  let server: RawStdioClient;
  let calls: WiredCall[];
  let aborted: RawMessage;
  /** Cancellations that match no running call: a numeric id spelled as a string, a token, unknown ids. */
  let decoys: MessageId[];

  beforeAll(async () => {
    server = new RawStdioClient(SERVER);
    const init = await server.initialize(revision);
    expect((init.result as RawMessage).protocolVersion).toBe(revision);

    calls = PLAN.map((call) => ({ ...call, ...rawIdentity(call.index) }));
    const byToken = new Map(calls.map((c) => [key(c.token), c]));
    const running = calls.filter((c) => !c.cancel);
    decoys = [
      ...running.filter((c) => typeof c.id === 'number').map((c) => String(c.id)),
      ...running.filter((c) => typeof c.token === 'string').map((c) => c.token),
      'no-such-request',
      99_999,
    ];

    const cancelled = (requestId: MessageId, reason: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
    let fences = 0;
    const fence = () => ({ jsonrpc: '2.0', id: `fence-${++fences}`, method: 'ping' });
    const progressSeen = new Map<string, number>();
    const answered = new Set<string>();
    let cancelsSent = 0;
    server.onmessage = (message) => {
      if (!isRecord(message)) return;
      if (!('method' in message) && 'id' in message) answered.add(key(message.id));
      if (message.method !== 'notifications/progress') return;
      const call = byToken.get(key((message.params as RawMessage).progressToken));
      if (!call) return;
      if (progressSeen.size === 0) {
        const early = calls.filter((c) => c.cancel?.kind === 'before-progress');
        server.send(...early.map((c) => cancelled(c.id, 'before its first progress')), ...decoys.map((id) => cancelled(id, 'decoy')), fence());
        cancelsSent += early.length;
      }
      const seen = (progressSeen.get(key(call.id)) ?? 0) + 1;
      progressSeen.set(key(call.id), seen);
      if (call.cancel?.kind === 'after-progress' && seen === call.cancel.k) {
        server.send(cancelled(call.id, `after progress ${seen}`), fence());
        cancelsSent++;
      }
    };

    // All 200 requests in one write; a with-request cancellation (and its fence) right behind its request.
    server.send(
      ...calls.flatMap((call) => {
        const request = { jsonrpc: '2.0', id: call.id, method: 'tools/call', params: { name: 'slow', arguments: slowArguments(call), _meta: { progressToken: call.token } } };
        if (call.cancel?.kind !== 'with-request') return [request];
        cancelsSent++;
        return [request, cancelled(call.id, 'with its request'), fence()];
      }),
    );
    await server.until(
      () =>
        cancelsSent === CANCELLED_LABELS.length &&
        running.every((c) => answered.has(key(c.id))) &&
        Array.from({ length: fences }, (_, i) => `string:fence-${i + 1}`).every((f) => answered.has(f)),
      'a response to every call that was not cancelled, and every cancellation written and fenced',
    );
    aborted = (await server.request('list-cancellations', 'tools/call', { name: 'cancellations', arguments: {} })).result as RawMessage;
    // A cancellation of a call that has been answered already is ignored.
    server.send(cancelled(calls[0].id, 'too late'));
    await expect(server.request('after', 'ping')).resolves.toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
  });

  afterAll(() => server?.kill());

  it("ids and tokens are distinct, of both types, and some tokens equal other calls' ids", () => {
    expect(new Set(calls.map((c) => key(c.id))).size).toBe(CALLS);
    expect(new Set(calls.map((c) => key(c.token))).size).toBe(CALLS);
    expect(new Set(calls.map((c) => typeof c.id))).toEqual(new Set(['string', 'number']));
    expect(new Set(calls.map((c) => typeof c.token))).toEqual(new Set(['string', 'number']));
    const ids = new Set(calls.map((c) => key(c.id)));
    expect(calls.filter((c) => ids.has(key(c.token))).length).toBeGreaterThanOrEqual(50);
  });

  it('every call that was not cancelled got exactly one response, its own; cancelled calls got none; progress only for live calls, in order, before the response', () => {
    const { observed, unmatched } = observe(server.wire, calls, [...server.methodById.keys()]);
    expect(unmatched).toEqual({ progress: [], responses: [], other: [] });
    expect(observed).toEqual(expectedObservations(revision, observed, true));
    const cancelled = observed.filter((o) => CANCELLED_LABELS.includes(o.label));
    expect(cancelled.filter((o) => o.progress.length === 0).length).toBeGreaterThanOrEqual(10);
    expect(cancelled.filter((o) => o.progress.length > 0).length).toBeGreaterThanOrEqual(20);
  });

  it('cancellations that match no running call (an id of another type, a token, unknown ids) cancel nothing', () => {
    expect(decoys.length).toBeGreaterThan(100);
    // Each running call got its own result (above); none of them saw its signal abort.
    expect(abortedLabels(aborted, revision).filter((label) => !CANCELLED_LABELS.includes(label))).toEqual([]);
  });

  it('the cancellations tool lists exactly the cancelled labels (that did not race their cancellation)', () => {
    expectAbortedAsCancelled(aborted, revision, observe(server.wire, calls, []).observed);
  });

  it('stdout carried one JSON message per line; the server logged no warning', () => {
    expect(server.received.filter((m) => !isRecord(m) || 'unparseable' in m)).toEqual([]);
    expect(warningsIn(server.stderr)).toEqual([]);
  });

  it(`every message the server sent validates against the ${revision} schema`, () => {
    const schema = schemas.revisions.get(revision)!;
    const violations = server.received.flatMap((m) => validateServerMessage(schema, m, server.methodById));
    expect(violations).toEqual([]);
  });
});

describe('an id reused after its cancellation (raw JSON lines, 2025-11-25)', () => {
  let server: RawStdioClient;

  beforeAll(async () => {
    server = new RawStdioClient(SERVER);
    await server.initialize('2025-11-25');
    server.discardUnread();
  });

  afterAll(() => server?.kill());

  it('belongs to the new call only: the cancelled one sends nothing more, and "7" stays apart from 7', async () => {
    const slow = (id: MessageId, token: MessageId, steps: number, delayMs: number, label: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow', arguments: { steps, delayMs, label }, _meta: { progressToken: token } },
    });
    const from = server.wire.length;
    // One write: the server reads the first call, its cancellation and the reuse of its id together.
    server.send(
      slow(7, 'first', 5, 40, 'first-7'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'replaced' } },
      slow(7, 'second', 3, 10, 'second-7'),
      slow('7', 7, 2, 10, 'string-7'),
    );
    const answered = (id: MessageId) =>
      server.wire.slice(from).some((e) => e.from === 'server' && isRecord(e.message) && !('method' in e.message) && key(e.message.id) === key(id));
    await server.until(() => answered(7) && answered('7'), 'the answers to 7 and "7"');
    const aborted = await server.request('list-cancellations', 'tools/call', { name: 'cancellations', arguments: {} });
    const sent = server.wire
      .slice(from)
      .filter((e) => e.from === 'server')
      .map((e) => e.message as RawMessage)
      .filter((m) => m.id !== 'list-cancellations');

    const progressOf = (token: MessageId) =>
      sent.filter((m) => m.method === 'notifications/progress' && key((m.params as RawMessage).progressToken) === key(token)).map((m) => (m.params as RawMessage).progress);
    expect(progressOf('first')).toEqual([]);
    expect(progressOf('second')).toEqual([1, 2, 3]);
    expect(progressOf(7)).toEqual([1, 2]);
    const responses = sent.filter((m) => !('method' in m));
    expect(responses).toHaveLength(2);
    expect(responses).toContainEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'second-7: completed 3 steps' }] } });
    expect(responses).toContainEqual({ jsonrpc: '2.0', id: '7', result: { content: [{ type: 'text', text: 'string-7: completed 2 steps' }] } });
    expect((aborted.result as RawMessage).structuredContent).toEqual({ aborted: ['first-7'] });
    await expect(server.request('after', 'ping')).resolves.toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
  });

  it('every message the server sent validates against the 2025-11-25 schema', () => {
    const schema = schemas.revisions.get('2025-11-25')!;
    expect(server.received.flatMap((m) => validateServerMessage(schema, m, server.methodById))).toEqual([]);
  });
});
