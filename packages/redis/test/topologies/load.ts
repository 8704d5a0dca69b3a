/**
 * Load for the failover suites, through the round-robin proxy, raw HTTP on 127.0.0.1: sessions of
 * the 2025-11-25 era (each subscribed to a resource of its own, its GET stream open, a tool raising
 * an update on it in a loop) and calls of the 2026-07-28 era (sessionless, tasks). What each
 * request got is counted; every event a GET stream delivered is kept with its number, so a gap or a
 * duplicate shows.
 */
import { McpClient, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { SseEvent, SseParser } from '../../../../test-support/sse-reader';

const LEGACY = '2025-11-25';

/** What a request got: an answer, an error a client can act on (documented), or something else. */
export type Outcome = 'ok' | 'documented error' | `other: ${string}`;

/** Answers Hermes gives while Redis is away or failing over (docs/reliability.md). */
const DOCUMENTED =
  /the session store could not be read|the session store failed|HERMES_REDIS_UNAVAILABLE|Redis could not be reached|Service Unavailable|Internal error|the event store/;

/** How long a client waits for an answer before it counts the request as hung (far above any failover here). */
export const CLIENT_TIMEOUT_MS = 20_000;

/** POSTs one JSON-RPC message; resolves with the HTTP status, headers and body text (rejects after CLIENT_TIMEOUT_MS). */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The JSON-RPC message of a POST's answer (JSON, or the last message of an SSE body). */
export function answerOf(text: string): any {
  if (text.startsWith('{')) return JSON.parse(text);
  const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).filter((d) => d.startsWith('{'));
  return data.length > 0 ? JSON.parse(data[data.length - 1]) : undefined;
}

/** How a tool call's answer counts. */
export function outcomeOf(status: number, text: string): Outcome {
  const answer = status === 200 ? answerOf(text) : undefined;
  if (answer?.result && !answer.result.isError) return 'ok';
  if (status === 503 || status === 500 || (status === 200 && answer?.error) || (status === 200 && answer?.result?.isError)) {
    return DOCUMENTED.test(text) ? 'documented error' : `other: ${status} ${text.slice(0, 200)}`;
  }
  return `other: ${status} ${text.slice(0, 200)}`;
}

/** One GET stream connection, read until it ends or is cancelled. */
class StreamConnection {
  readonly events: SseEvent[] = [];
  status = 0;
  ended = false;
  private readonly abort = new AbortController();
  readonly done: Promise<void>;

  constructor(url: string, headers: Record<string, string>) {
    this.done = (async () => {
      try {
        const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: this.abort.signal });
        this.status = response.status;
        if (response.status !== 200 || !response.body) return void (await response.text().catch(() => undefined));
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) this.events.push(...parser.push(decoder.decode(chunk, { stream: true })));
      } catch {
        // Cancelled, or the connection dropped.
      } finally {
        this.ended = true;
      }
    })();
  }

  async cancel(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

/** A 2025-11-25 session through the proxy, subscribed to `status://{name}`, with its GET stream. */
export class LegacySession {
  readonly headers: Record<string, string>;
  /** Every connection of its GET stream, in order. */
  readonly connections: StreamConnection[] = [];
  /** Outcomes of its tool calls, in order. */
  readonly outcomes: Outcome[] = [];
  /** How many `touch` calls were answered ok (each raised one update on the stream). */
  touched = 0;
  private nextId = 10;

  private constructor(
    private readonly url: string,
    readonly id: string,
    readonly uri: string,
  ) {
    this.headers = { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY };
  }

  /** Opens it: initialize, initialized, subscribe, GET stream. */
  static async open(url: string, name: string): Promise<LegacySession> {
    const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name, version: '1.0.0' } } });
    if (init.status !== 200 || !answerOf(init.text)?.result) throw new Error(`initialize answered ${init.status}: ${init.text}`);
    const session = new LegacySession(url, init.headers.get('mcp-session-id')!, `status://${name}`);
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session.headers);
    const subscribed = await session.rpc('resources/subscribe', { uri: session.uri });
    if (subscribed.status !== 200 || !answerOf(subscribed.text)?.result) throw new Error(`subscribe answered ${subscribed.status}: ${subscribed.text}`);
    session.connect();
    return session;
  }

  /** Sends one request of the session. */
  rpc(method: string, params: unknown): Promise<{ status: number; text: string }> {
    return post(this.url, { jsonrpc: '2.0', id: this.nextId++, method, params }, this.headers);
  }

  /** Calls a tool; records and returns its outcome. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
    const outcome = await this.rpc('tools/call', { name, arguments: args }).then(
      ({ status, text }) => outcomeOf(status, text),
      (error: Error) => `other: ${error.message}` as Outcome,
    );
    this.outcomes.push(outcome);
    return outcome;
  }

  /** Raises an update on its own resource (one event on its GET stream when answered ok). */
  async touch(): Promise<Outcome> {
    const outcome = await this.call('touch', { uri: this.uri });
    if (outcome === 'ok') this.touched++;
    return outcome;
  }

  /** The open connection of its GET stream. */
  get stream(): StreamConnection {
    return this.connections[this.connections.length - 1];
  }

  /** (Re)connects its GET stream, from `lastEventId` if given. */
  connect(lastEventId?: string): StreamConnection {
    const connection = new StreamConnection(this.url, { ...this.headers, ...(lastEventId !== undefined && { 'last-event-id': lastEventId }) });
    this.connections.push(connection);
    return connection;
  }

  /** Closes the GET stream and resumes it with the id of the last event it got (the proxy sends it to the next instance). */
  async resume(): Promise<StreamConnection> {
    await this.stream.cancel();
    return this.connect(this.lastEventId());
  }

  /** The events with a message received on every connection, by number; throws on two different events under one id. */
  received(): Map<number, string> {
    const bySeq = new Map<number, string>();
    for (const connection of this.connections)
      for (const event of connection.events) {
        if (event.id === undefined || event.data === '') continue;
        const seq = Number(event.id.slice(event.id.lastIndexOf('_') + 1));
        const before = bySeq.get(seq);
        if (before !== undefined && before !== event.data) throw new Error(`event ${event.id} came twice with different data`);
        bySeq.set(seq, event.data);
      }
    return bySeq;
  }

  /** The id of the last event received on any connection (message or priming). */
  lastEventId(): string | undefined {
    let last: string | undefined;
    let top = -1;
    for (const connection of this.connections)
      for (const event of connection.events) {
        if (event.id === undefined) continue;
        const seq = Number(event.id.slice(event.id.lastIndexOf('_') + 1));
        if (seq > top) [top, last] = [seq, event.id];
      }
    return last;
  }

  /** Resource updates received (counted once per event id). */
  updates(): number {
    return [...this.received().values()].filter((data) => data.includes('notifications/resources/updated')).length;
  }

  /** Event numbers missing between the first and the last received (events lost). */
  gaps(): number[] {
    const seqs = [...this.received().keys()].sort((a, b) => a - b);
    const missing: number[] = [];
    for (let i = 1; i < seqs.length; i++) for (let s = seqs[i - 1] + 1; s < seqs[i]; s++) missing.push(s);
    return missing;
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.cancel()));
  }
}

/** A 2026-07-28 client through the proxy, with the tasks extension. */
export async function modernClient(url: string, rotation: string): Promise<McpClient> {
  const client = new McpClient(new StreamableHttpClientTransport({ url, headers: { 'x-rotation': rotation } }), { protocolVersion: '2026-07-28', tasks: true });
  await client.connect();
  return client;
}

/** Runs `step` over and over until `stop()`; resolves with how many rounds ran once stopped. */
export function loop(step: () => Promise<unknown>): { stop(): Promise<number> } {
  let running = true;
  let rounds = 0;
  const done = (async () => {
    while (running) {
      await step();
      rounds++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return rounds;
    },
  };
}

/** Counts outcomes by kind. */
export function tally(outcomes: readonly Outcome[]): { ok: number; documented: number; other: string[] } {
  return {
    ok: outcomes.filter((o) => o === 'ok').length,
    documented: outcomes.filter((o) => o === 'documented error').length,
    other: outcomes.filter((o) => o.startsWith('other')),
  };
}
