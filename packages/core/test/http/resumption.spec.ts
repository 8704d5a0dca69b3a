/**
 * Resumable SSE streams, read raw off `fetch` bodies: a request's stream that loses its connection
 * and is resumed with `Last-Event-ID` (nothing lost, nothing twice), one that went out whole
 * forgotten once written, the server closing a stream on purpose for SSE polling
 * (`ctx.transport.closeStream()`), the standalone GET stream carrying list_changed notifications and
 * resuming the same way, and unknown event ids refused.
 *
 * The tools wait at checkpoints the test releases, so what is sent while the client is away is
 * decided by the test, not by timing. Everything runs twice: with the default in-memory event
 * store, and with one that answers every call later, as a networked store does, on each HTTP adapter.
 */
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';
import { EventStore, InMemoryEventStore, McpApp, McpContext, McpFactory, McpServer, StoredEvent, Tool, createLogger } from '@hermes-mcp/core';
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import { SseEvent, SseParser, SseReader } from '../../../../test-support/sse-reader';
import { eventually } from '../../../../test-support/e2e';
import { bounded } from '../../../../test-support/hardening';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

const WAIT_MS = 5_000;
/** Characters of the `large` tool's answer: more than a socket takes in the tick it is written. */
const LARGE_ANSWER = 10 * 1024 * 1024;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Numbered points where a tool stops until the test lets it go on. */
class Checkpoints {
  private readonly points = new Map<number, { reached: Deferred; release: Deferred }>();

  /** Tool side: reports checkpoint `n` reached and waits for its release. */
  async pass(n: number): Promise<void> {
    const point = this.point(n);
    point.reached.resolve();
    await bounded(point.release.promise, `the release of checkpoint ${n}`);
  }

  /** Test side: resolves once the tool reached checkpoint `n`. */
  reached(n: number): Promise<void> {
    return bounded(this.point(n).reached.promise, `the tool to reach checkpoint ${n}`);
  }

  /** Test side: lets the tool go on past checkpoint `n`. */
  release(n: number): void {
    this.point(n).release.resolve();
  }

  private point(n: number) {
    let point = this.points.get(n);
    if (!point) this.points.set(n, (point = { reached: deferred(), release: deferred() }));
    return point;
  }
}

let checkpoints = new Checkpoints();

class PhasesInput {
  @IsInt() @Min(1) @Max(5) phases!: number;
  @IsInt() @Min(1) @Max(5) perPhase!: number;
}

// Prompts come only at runtime (the GET stream test adds one): declared, so sessions are told of them.
@McpServer({ name: 'resumable', version: '1.0.0', capabilities: { prompts: {} } })
class ResumableServer {
  @Tool({ description: 'Sends progress in phases, stopping at a checkpoint after each phase but the last' })
  async phases(input: PhasesInput, ctx: McpContext) {
    const total = input.phases * input.perPhase;
    let sent = 0;
    for (let phase = 1; phase <= input.phases; phase++) {
      for (let i = 0; i < input.perPhase; i++) {
        sent++;
        await ctx.progress(sent, total, `event ${sent}`);
      }
      if (phase < input.phases) await checkpoints.pass(phase);
    }
    return `sent ${sent} progress notifications`;
  }

  @Tool({ description: 'Sends a progress notification, then answers at once with 10 MiB of text' })
  async large(ctx: McpContext) {
    await ctx.progress(1, 1, 'before the large answer');
    return 'x'.repeat(LARGE_ANSWER);
  }

  @Tool({ description: 'Sends a progress notification, waits for checkpoint 1 (so its answer streams), then answers with 10 MiB of text' })
  async largeLater(ctx: McpContext) {
    await ctx.progress(1, 1, 'before the large answer');
    await checkpoints.pass(1);
    return 'x'.repeat(LARGE_ANSWER);
  }

  @Tool({ description: 'Closes its stream at once (SSE polling), then answers after checkpoints 1 and 2' })
  async poll(ctx: McpContext) {
    const closeStream = ctx.transport.closeStream;
    if (!closeStream) throw new Error('ctx.transport.closeStream is missing');
    closeStream(50);
    await checkpoints.pass(1);
    await ctx.progress(1, 1, 'after the close');
    await checkpoints.pass(2);
    return 'answered after polling';
  }

  @Tool({ description: 'Streams a progress notification, then closes its stream (SSE polling) and answers after checkpoint 1' })
  async pollLate(ctx: McpContext) {
    await ctx.progress(1, 2, 'before the close');
    (ctx.transport.closeStream as (retryMs?: number) => void)(50);
    await checkpoints.pass(1);
    await ctx.progress(2, 2, 'after the close');
    return 'answered after a late close';
  }
}

const ACCEPT_BOTH = 'application/json, text/event-stream';

type Raw = Record<string, unknown>;

/** Calls `f` a moment later, in the order asked (as a networked store answers the commands of one connection). */
function later<T>(f: () => T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(f()), 2));
}

/** When set, the next replay answers only once the test opens it. */
let replayGate: { entered: Deferred; open: Deferred } | undefined;

/** An event store whose every answer is a promise, settled a few milliseconds later. */
class LaterEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();

  append(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    return later(() => this.inner.append(streamId, seq, message));
  }

  async replayAfter(streamId: string, seq: number): Promise<StoredEvent[] | undefined> {
    const events = await later(() => this.inner.replayAfter(streamId, seq));
    // What was read is what is replayed; a test may hold the answer back.
    if (replayGate) {
      replayGate.entered.resolve();
      await replayGate.open.promise;
    }
    return events;
  }

  forget(streamId: string): Promise<void> {
    return later(() => this.inner.forget(streamId));
  }
}

const EVENT_STORES: Array<[string, ((sessionId: string) => EventStore) | undefined]> = [
  ['the in-memory event store', undefined],
  ['an event store that answers later', () => new LaterEventStore()],
];

describe.each(ADAPTERS.flatMap((adapter) => EVENT_STORES.map(([name, makeEventStore]) => [adapter, name, makeEventStore] as const)))(
  '%s: with %s',
  (adapter, _name, makeEventStore) => {
    let serving: Serving;
    let mcp: McpApp;
    let url: string;

    beforeAll(async () => {
      mcp = McpFactory.create(ResumableServer, { logger: createLogger({ level: 'silent' }) });
      serving = await serveOn(adapter, mcp, () => ({ eventStore: makeEventStore }));
      url = serving.url;
    });

    afterAll(async () => {
      await serving.close();
    });

    beforeEach(() => {
      checkpoints = new Checkpoints();
    });

    function post(body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(body), signal });
    }

    function get(headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
      return fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal });
    }

    /** A session on `protocolVersion`; returns the headers every later request carries. */
    async function session(protocolVersion = '2025-11-25'): Promise<Record<string, string>> {
      const init = await post(
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-sse', version: '1.0.0' } } },
        {},
      );
      expect(init.status).toBe(200);
      expect(((await init.json()) as Raw).result).toMatchObject({ protocolVersion });
      const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': protocolVersion };
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
      return headers;
    }

    function callTool(id: string, name: string, args: Raw, progressToken?: string): Raw {
      const params: Raw = { name, arguments: args };
      if (progressToken !== undefined) params._meta = { progressToken };
      return { jsonrpc: '2.0', id, method: 'tools/call', params };
    }

    function expectSse(response: Response): SseReader {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      return new SseReader(response.body!, WAIT_MS);
    }

    /** Splits an event id `<stream>_<seq>`. */
    function idParts(id: string | undefined): { stream: string; seq: number } {
      expect(id).toMatch(/^.+_\d+$/);
      const cut = id!.lastIndexOf('_');
      return { stream: id!.slice(0, cut), seq: Number(id!.slice(cut + 1)) };
    }

    /** The messages of events that carry one, parsed. */
    function messagesOf(events: SseEvent[]): Raw[] {
      return events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as Raw);
    }

    /** A short description of each message, to compare sequences. */
    function describeMessage(m: Raw): string {
      if (m.method === 'notifications/progress') return `progress ${(m.params as Raw).progress}`;
      if ('result' in m) return `result ${String(m.id)}`;
      if ('error' in m) return `error ${String(m.id)}`;
      return String(m.method);
    }

    describe('resuming a request stream with Last-Event-ID', () => {
      it('delivers, after a lost connection, the events sent while away and the rest live: none lost, none twice', async () => {
        const headers = await session('2025-11-25');
        const first = new AbortController();
        const response = await post(callTool('call-1', 'phases', { phases: 3, perPhase: 3 }, 'tok'), headers, first.signal);
        const before = expectSse(response);

        // 2025-11-25: a priming event first, with an id, a retry and empty data.
        const priming = await before.expect('the priming event');
        expect(priming).toEqual({ id: expect.any(String), retry: 1000, data: '' });
        const { stream, seq: primingSeq } = idParts(priming.id);
        for (let i = 0; i < 3; i++) await before.message(`progress ${i + 1}`);
        await checkpoints.reached(1);
        const lastSeen = before.events[before.events.length - 1].id!;

        // The connection drops; the tool goes on and sends phase 2 while nobody listens.
        first.abort();
        await before.cancel();
        checkpoints.release(1);
        await checkpoints.reached(2);

        const resumed = expectSse(await get({ ...headers, 'last-event-id': lastSeen }));
        for (let i = 0; i < 3; i++) await resumed.message(`replayed progress ${i + 4}`);
        // Phase 3 and the response come live on the resumed connection, which then ends.
        checkpoints.release(2);
        await resumed.readToEnd();

        const events = [...before.events.slice(1), ...resumed.events];
        expect(messagesOf(events).map(describeMessage)).toEqual([...Array.from({ length: 9 }, (_, i) => `progress ${i + 1}`), 'result call-1']);
        // Every event carries an id of the same stream, numbered on from the priming event without gaps.
        expect(events.map((e) => idParts(e.id))).toEqual(events.map((_, i) => ({ stream, seq: primingSeq + 1 + i })));
        const result = messagesOf(events).pop()!;
        expect(result.result).toEqual({ content: [{ type: 'text', text: 'sent 9 progress notifications' }] });
        expect(
          messagesOf(events)
            .slice(0, 9)
            .map((m) => m.params),
        ).toEqual(Array.from({ length: 9 }, (_, i) => ({ progressToken: 'tok', progress: i + 1, total: 9, message: `event ${i + 1}` })));
      });

      it('holds what is sent while the replay is read, and sends it after the replay: none lost, none twice', async () => {
        const headers = await session('2025-11-25');
        const first = new AbortController();
        const before = expectSse(await post(callTool('call-h', 'phases', { phases: 3, perPhase: 1 }, 'tok'), headers, first.signal));
        await before.expect('the priming event');
        await before.message('progress 1');
        await checkpoints.reached(1);
        const lastSeen = before.events[before.events.length - 1].id!;
        first.abort();
        await before.cancel();

        replayGate = { entered: deferred(), open: deferred() };
        try {
          const resuming = get({ ...headers, 'last-event-id': lastSeen });
          // A store that answers later has read the replay and not answered yet: progress 2 is sent meanwhile.
          if (makeEventStore) await bounded(replayGate.entered.promise, 'the replay to be read');
          checkpoints.release(1);
          await checkpoints.reached(2);
          replayGate.open.resolve();
          const resumed = expectSse(await resuming);
          await resumed.message('progress 2');
          checkpoints.release(2);
          await resumed.readToEnd();
          const events = [...before.events.slice(1), ...resumed.events];
          expect(messagesOf(events).map(describeMessage)).toEqual(['progress 1', 'progress 2', 'progress 3', 'result call-h']);
          const seqs = events.map((e) => idParts(e.id).seq);
          expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
        } finally {
          replayGate = undefined;
        }
      });

      it('replays a finished stream from any of its ids, then ends it', async () => {
        const headers = await session('2025-11-25');
        const reader = expectSse(await post(callTool('call-2', 'phases', { phases: 2, perPhase: 1 }, 'tok'), headers));
        await reader.expect('the priming event');
        await reader.message('progress 1');
        checkpoints.release(1);
        await reader.readToEnd();
        const ids = reader.events.map((e) => e.id!);
        expect(messagesOf(reader.events).map(describeMessage)).toEqual(['progress 1', 'progress 2', 'result call-2']);

        // From the priming event: everything; from the second progress: only the result.
        const all = expectSse(await get({ ...headers, 'last-event-id': ids[0] }));
        expect(messagesOf(await all.readToEnd()).map(describeMessage)).toEqual(['progress 1', 'progress 2', 'result call-2']);
        const tail = expectSse(await get({ ...headers, 'last-event-id': ids[2] }));
        expect(messagesOf(await tail.readToEnd()).map(describeMessage)).toEqual(['result call-2']);
      });

      it('forgets a stream that went out whole: the progress and result of a quick tool are one response, with nothing left to resume', async () => {
        const headers = await session('2025-11-25');
        const response = await post(callTool('call-5', 'phases', { phases: 1, perPhase: 2 }, 'tok'), headers);
        expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(await response.clone().text())));
        const events = await expectSse(response).readToEnd();
        expect(messagesOf(events).map(describeMessage)).toEqual(['progress 1', 'progress 2', 'result call-5']);
        let refusal = '';
        await eventually('the delivered stream to be forgotten', async () => {
          const again = await get({ ...headers, 'last-event-id': events[0].id! });
          refusal = await again.text();
          return again.status === 400;
        });
        expect(refusal).toContain('is unknown here');
      });

      it('forgets a stream that went out whole once its last bytes left, though the socket could not take them as the response ended', async () => {
        const headers = await session('2025-11-25');
        const response = await post(callTool('call-6', 'large', {}, 'tok'), headers);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/event-stream');
        // Parsed in one go (an SseReader rescans a line that comes in many chunks).
        const text = await response.text();
        expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
        const events = new SseParser().push(text);
        expect(messagesOf(events).map(describeMessage)).toEqual(['progress 1', 'result call-6']);
        await eventually('the delivered stream to be forgotten', async () => {
          const again = await get({ ...headers, 'last-event-id': events[0].id! });
          // A replay is not read: its connection goes.
          await again.body?.cancel();
          return again.status === 400;
        });
      });

      it('keeps a stream that went out whole but whose client left before its last bytes: a Last-Event-ID replays it', async () => {
        const headers = await session('2025-11-25');
        const response = await post(callTool('call-7', 'large', {}, 'tok'), headers);
        expect(response.headers.get('content-type')).toBe('text/event-stream');
        // The first chunk (the priming event and the progress), then the client is gone.
        const reader = response.body!.getReader();
        let seen = '';
        while (!/\n\n[^]*\n\n/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        const first = new SseParser().push(seen.slice(0, seen.indexOf('\n\n') + 2))[0];
        expect(first.id).toEqual(expect.any(String));
        const again = await get({ ...headers, 'last-event-id': first.id! });
        expect(again.status).toBe(200);
        const text = await again.text();
        expect(messagesOf(new SseParser().push(text)).map(describeMessage)).toEqual(['progress 1', 'result call-7']);
      });

      it('keeps a stream that streamed and ended but whose client left before its last bytes: a Last-Event-ID replays the rest', async () => {
        const headers = await session('2025-11-25');
        const response = await post(callTool('call-8', 'largeLater', {}, 'tok'), headers);
        expect(response.headers.get('content-type')).toBe('text/event-stream');
        const reader = response.body!.getReader();
        let seen = '';
        // The priming event and the progress, streamed before the answer exists.
        while ((seen.match(/\n\n/g) ?? []).length < 2) seen += new TextDecoder().decode((await reader.read()).value);
        checkpoints.release(1);
        // The first bytes of the 10 MiB answer, then the client is gone.
        seen += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        const progress = new SseParser().push(seen.slice(0, seen.lastIndexOf('\n\n') + 2)).filter((event) => event.data !== '');
        expect(messagesOf(progress).map(describeMessage)).toEqual(['progress 1']);
        let text = '';
        await eventually('the answer to be replayable', async () => {
          const again = await get({ ...headers, 'last-event-id': progress[0].id! });
          text = await again.text();
          return again.status === 200 && text.includes('call-8');
        });
        expect(messagesOf(new SseParser().push(text)).map(describeMessage)).toEqual(['result call-8']);
      });

      it('refuses an unknown Last-Event-ID, or one of another session, with 400 naming it', async () => {
        const headers = await session('2025-11-25');
        for (const id of ['nope_1', 'no-separator', 'get_999999']) {
          const response = await get({ ...headers, 'last-event-id': id });
          expect(response.status).toBe(400);
          expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
            `Bad Request: Last-Event-ID "${id}" is unknown here (evicted, or from another session); open a new stream with a GET without it`,
          );
        }
        const other = await session('2025-11-25');
        const reader = expectSse(await post(callTool('call-3', 'phases', { phases: 1, perPhase: 1 }, 'tok'), other));
        await reader.readToEnd();
        const foreign = await get({ ...headers, 'last-event-id': reader.events[0].id! });
        expect(foreign.status).toBe(400);
        expect(await foreign.text()).toContain('is unknown here');
      });

      it('sends no priming event to a 2025-06-18 session, but still numbers its events for resumption', async () => {
        const headers = await session('2025-06-18');
        const reader = expectSse(await post(callTool('call-4', 'phases', { phases: 2, perPhase: 1 }, 'tok'), headers));
        await reader.message('progress 1');
        checkpoints.release(1);
        await reader.readToEnd();
        const events = reader.events;
        expect(events.every((e) => e.data !== '' && e.retry === undefined && e.id !== undefined)).toBe(true);
        expect(messagesOf(events).map(describeMessage)).toEqual(['progress 1', 'progress 2', 'result call-4']);
        const replay = expectSse(await get({ ...headers, 'last-event-id': events[0].id! }));
        expect(messagesOf(await replay.readToEnd()).map(describeMessage)).toEqual(['progress 2', 'result call-4']);
      });
    });

    describe('SSE polling: the server closes the stream with ctx.transport.closeStream()', () => {
      it('ends the POST stream after the priming event (with the retry asked); a GET with Last-Event-ID re-attaches and gets the rest live', async () => {
        const headers = await session('2025-11-25');
        const reader = expectSse(await post(callTool('poll-1', 'poll', {}, 'tok'), headers));
        expect(await reader.readToEnd()).toEqual([{ id: expect.any(String), retry: 50, data: '' }]);
        expect(reader.failure).toBeUndefined();
        await checkpoints.reached(1);

        const resumed = expectSse(await get({ ...headers, 'last-event-id': reader.events[0].id! }));
        checkpoints.release(1);
        expect(describeMessage((await resumed.message('the progress')).message)).toBe('progress 1');
        checkpoints.release(2);
        const rest = await resumed.readToEnd();
        const answer = messagesOf(rest);
        expect(answer).toEqual([{ jsonrpc: '2.0', id: 'poll-1', result: { content: [{ type: 'text', text: 'answered after polling' }] } }]);
        const { stream } = idParts(reader.events[0].id);
        expect(resumed.events.map((e) => idParts(e.id).stream)).toEqual([stream, stream]);
      });

      it('keeps what is sent while no connection is attached, and replays it with the result', async () => {
        const headers = await session('2025-11-25');
        const reader = expectSse(await post(callTool('poll-2', 'poll', {}, 'tok'), headers));
        const [priming] = await reader.readToEnd();
        // The tool finishes while the client is away.
        checkpoints.release(1);
        checkpoints.release(2);
        await checkpoints.reached(2);
        const resumed = expectSse(await get({ ...headers, 'last-event-id': priming.id! }));
        // Whether the result was stored before the GET or comes live after it, each arrives once.
        expect(messagesOf(await resumed.readToEnd()).map(describeMessage)).toEqual(['progress 1', 'result poll-2']);
      });

      it('closes a stream that is already streaming after a retry field with the interval asked', async () => {
        const headers = await session('2025-11-25');
        const reader = expectSse(await post(callTool('poll-3', 'pollLate', {}, 'tok'), headers));
        const events = await reader.readToEnd();
        expect(events.map((e) => ({ ...e, id: e.id === undefined ? undefined : 'id' }))).toEqual([
          { id: 'id', retry: 1000, data: '' },
          { id: 'id', data: expect.stringContaining('"progress":1') },
          // No id: the client resumes from the last event that had one.
          { id: undefined, retry: 50, data: '' },
        ]);
        const resumed = expectSse(await get({ ...headers, 'last-event-id': events[1].id! }));
        checkpoints.release(1);
        expect(messagesOf(await resumed.readToEnd()).map(describeMessage)).toEqual(['progress 2', 'result poll-3']);
      });
    });

    describe('the standalone GET stream', () => {
      it('carries list_changed notifications of runtime changes, and resumes by Last-Event-ID without losing those sent while away', async () => {
        const headers = await session('2025-11-25');
        const sessionId = headers['mcp-session-id'];
        const first = new AbortController();
        const reader = expectSse(await get(headers, first.signal));
        const priming = await reader.expect('the priming event of the GET stream');
        expect(priming).toEqual({ id: expect.any(String), retry: 1000, data: '' });
        const { stream } = idParts(priming.id);

        const one = mcp.addTool({ name: 'one', description: 'added at runtime' }, () => 'one');
        const changed = await reader.message('the first list_changed');
        expect(changed.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        expect(idParts(changed.event.id).stream).toBe(stream);

        // The client goes away; once the server saw it go, more changes happen.
        first.abort();
        await reader.cancel();
        const transport = [...mcp.engine.connections].find((c) => (c.transport as { sessionId?: string }).sessionId === sessionId)!.transport as { hasStandaloneStream?: boolean };
        const deadline = Date.now() + WAIT_MS;
        while (transport.hasStandaloneStream && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(transport.hasStandaloneStream).toBe(false);
        mcp.addPrompt({ name: 'two', description: 'added at runtime' }, () => 'two');
        await new Promise((resolve) => setImmediate(resolve));

        const resumed = expectSse(await get({ ...headers, 'last-event-id': changed.event.id! }));
        const missed = await resumed.message('the list_changed sent while away');
        expect(missed.message).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
        one.disable();
        const live = await resumed.message('a list_changed on the resumed stream');
        expect(live.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        const seqs = [changed.event, missed.event, live.event].map((e) => idParts(e.id));
        expect(seqs.map((s) => s.stream)).toEqual([stream, stream, stream]);
        expect(seqs[1].seq).toBe(seqs[0].seq + 1);
        expect(seqs[2].seq).toBe(seqs[1].seq + 1);
        await resumed.cancel();
      });

      it('takes nothing that answers a request: responses go to their POST, never to the GET stream', async () => {
        const headers = await session('2025-11-25');
        const standalone = new AbortController();
        const reader = expectSse(await get(headers, standalone.signal));
        await reader.expect('the priming event');
        const ping = await post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, headers);
        expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
        mcp.addTool({ name: 'marker', description: 'added at runtime' }, () => 'marker');
        // The next event on the GET stream is the list change, not the ping's answer.
        expect((await reader.message('the list change')).message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        standalone.abort();
        await reader.cancel();
      });
    });
  },
);
