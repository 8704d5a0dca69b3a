/**
 * The transport of one Streamable HTTP session (MCP 2025-03-26 … 2025-11-25).
 *
 * Every POST that carries requests opens an exchange. What the engine sends back is routed by
 * request id: the response — or anything related to that request (progress, logs, server→client
 * requests) — goes to its exchange. An exchange answers with plain JSON when the response is the
 * first thing it gets, and becomes an SSE stream when something comes before it. Everything else
 * goes to the session's GET stream. SSE events are numbered per stream and kept in the event store,
 * so a client that loses a stream resumes it with `Last-Event-ID` and misses nothing.
 */
import {
  JsonRpcMessage,
  McpError,
  ParsedFrame,
  RequestId,
  DONE,
  SendOptions,
  Transport,
  TransportInfo,
  isResponse,
  isThenable,
  errorResponse,
  serialize,
} from '@hermes-mcp/protocol';
import { SparseMap } from '@hermes-mcp/protocol/internal';
import type { ClaimedStream, EventStore, StoredEvent } from '../../stores/event-store';
import type { HttpResponse } from './exchange';
import { SseConnection } from './sse';
import { OutputLimits, Sendable, clientTooSlow, dropForSlowClient, outgoing } from '../backpressure';
import type { Unread } from '../unread';
import { Exchange, ExchangeOwner } from './streamable-exchange';
export { Exchange } from './streamable-exchange';
export type { Decision, ExchangeOwner } from './streamable-exchange';

/** Options of an {@link StreamableHttpTransport}. For the Hermes packages. */
export interface StreamableHttpTransportOptions {
  sessionId: string;
  eventStore: EventStore;
  /** Milliseconds a client should wait before reconnecting a closed stream (`retry`). */
  retryMs: number;
  /** Most bytes one stream may hold unread before it is closed. */
  maxBufferedBytes: number;
  /** Reports messages that had nowhere to go. */
  onDropped?: (message: JsonRpcMessage | JsonRpcMessage[]) => void;
  /** Reports an event store call that failed (events go out anyway; their resumption may fail). */
  onStoreError?: (error: unknown) => void;
  /**
   * Makes this process's stream ids its own (`[0-9a-z]`, no `_`): when other processes serve the
   * same session and keep its events in the same store (a cluster), their streams never share an id.
   */
  streamPrefix?: string;
  /** The limits on what goes out to the session's client (default: none). */
  limits?: OutputLimits;
  /**
   * The session's client, over all its connections: what it leaves unread (the limits count it),
   * and where the session's streams are counted while open.
   */
  client?: SessionClient;
}

/** What a session's transport asks of its client's output. For the Hermes packages. */
export interface SessionClient {
  /** Bytes the client has been sent and has not taken, over all its connections. */
  unread(): number;
  /** Counts `output` as the client's until `onClose` calls back. */
  track(output: Unread, onClose: (listener: () => void) => void): void;
}

/** No limits: a transport made without any. */
const UNLIMITED: OutputLimits = Object.freeze({ maxResultBytes: Infinity, maxUnreadBytes: Infinity });

/** What a POST carries that needs an answer. For the Hermes packages. */
export interface Expected {
  /** The ids of its requests (and of invalid members whose id could be read). */
  ids: RequestId[];
  /** Members of a batch that will be answered with id null (no readable id). */
  anonymous: number;
}

/** The id of a session's GET stream (a cluster's instances append `.{instance}`). */
const STANDALONE = 'get';
/** Broadcasts kept while another instance holds the GET stream: at most this many… */
const MISSED_LIMIT = 32;
/** …for at most this long (ms): enough for a client to reconnect after its instance died. */
const MISSED_MS = 60_000;

/** The newest broadcasts kept on a GET stream when it is claimed, of which a late one is recognised (see `claimedKeys`). */
const CLAIMED_KEYS = 64;

/** Whether a stream id names a GET stream (this process's, or one begun by another). */
function isStandalone(streamId: string): boolean {
  return streamId === STANDALONE || streamId.startsWith(`${STANDALONE}.`);
}

/** The transport of one Streamable HTTP session. For the Hermes packages. */
export class StreamableHttpTransport implements Transport, ExchangeOwner {
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The negotiated revision, once known (decides priming). */
  protocolVersion?: string;
  // Sparse: an idle session has nothing in flight, and most exchanges never stream.
  private readonly exchanges = new SparseMap<RequestId, Exchange>();
  private readonly streams = new SparseMap<string, Exchange>();
  /** The exchanges of batch POSTs, by the batch's `messages` array (batches exist on 2025-03-26 only). */
  private readonly batches = new SparseMap<readonly unknown[], Exchange>();
  private standalone?: SseConnection;
  /** True once the client opened a GET stream: from then on its messages are stored even while it is down. */
  private standaloneOpened = false;
  private closed = false;
  private nextStream = 0;
  /** The number of the GET stream's last event. */
  private standaloneSeq = 0;
  /** GET stream events sent while a resumption of it reads its replay, to follow it. */
  private standaloneHeld?: string[] = undefined;
  /** The GET stream's id: this process's own, or the one of another process that it resumed. */
  private standaloneId: string;
  /**
   * True while another instance of a cluster may hold the session's GET stream: from the start in
   * a cluster (this instance may have taken the session up after the stream was opened), until
   * this one holds it.
   */
  private standaloneElsewhere: boolean;
  /**
   * The broadcasts this instance did not write while another held the GET stream (their keys,
   * {@link SendOptions.eventKey}): if that instance dies and the stream is resumed here, those it
   * never kept follow the replay.
   */
  private missed?: Array<{ key: string; message: JsonRpcMessage; at: number }> = undefined;
  /** GET stream claims and openings so far: a claim that ends after a newer one started gives way. */
  private standaloneClaims = 0;
  /** What is sent for the GET stream while a claim of it is read (see `claim`): numbered once it is. */
  private claiming?: Array<{ key?: string; message: JsonRpcMessage }> = undefined;
  /**
   * The keys of the newest broadcasts the store had kept on the GET stream when this instance
   * claimed it, that this instance had not received yet: pub/sub reaches instances at different
   * times, and one kept by the old holder may reach this one after the claim. Each is skipped when
   * it comes (once: an instance receives a broadcast once); forgotten after {@link MISSED_MS}.
   */
  private claimedKeys?: { keys: Set<string>; until: number } = undefined;
  /** What starts the ids of request streams (`p`, then the stream prefix and a dot, if any). */
  private readonly requestStreamPrefix: string;

  constructor(private readonly options: StreamableHttpTransportOptions) {
    this.info = Object.freeze({ kind: 'http', sessionId: options.sessionId });
    const prefix = options.streamPrefix;
    this.standaloneId = prefix ? `${STANDALONE}.${prefix}` : STANDALONE;
    this.standaloneElsewhere = prefix !== undefined && prefix !== '';
    this.requestStreamPrefix = prefix ? `p${prefix}.` : 'p';
  }

  /** The session's id. */
  get sessionId(): string {
    return this.options.sessionId;
  }

  /** Where the session's events are kept (the endpoint clears it when the session ends for good). */
  get eventStore(): EventStore {
    return this.options.eventStore;
  }

  /** True while a GET stream is open. */
  get hasStandaloneStream(): boolean {
    return this.standalone !== undefined && !this.standalone.closed;
  }

  /** Most bytes one stream may hold unread before it is closed. */
  get maxBufferedBytes(): number {
    return this.options.maxBufferedBytes;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Registers the requests of a POST and feeds the frame to the engine. Returns the exchange that
   * will answer, or undefined when the frame holds no request (the POST gets 202). `info` must be
   * this POST's own object: it gains `closeStream`.
   */
  receive(frame: ParsedFrame, expected: Expected, info: TransportInfo, priming: boolean): Exchange | undefined {
    const requestIds = expected.ids;
    let exchange: Exchange | undefined;
    if (frame.kind === 'single' && requestIds.length === 1 && this.exchanges.has(requestIds[0])) {
      // The same id as a request still running: refused here, so the running one keeps its stream.
      const id = requestIds[0];
      exchange = new Exchange('', requestIds, 1, false, this);
      exchange.answerJson(errorResponse(id, McpError.requestInProgress(id)));
      return exchange;
    }
    if (requestIds.length > 0 || expected.anonymous > 0) {
      // Ids of requests still running stay with their own exchange (the peer refuses the duplicates).
      const own = requestIds.filter((id, i) => !this.exchanges.has(id) && requestIds.indexOf(id) === i);
      // Stream ids need only be unique within the session (whose id is the secret): a counter will do.
      exchange = new Exchange(`${this.requestStreamPrefix}${(this.nextStream++).toString(36)}`, own, own.length + expected.anonymous, priming, this);
      for (const id of own) this.exchanges.set(id, exchange);
      if (frame.kind === 'batch') this.batches.set(frame.messages, exchange);
    }
    const target = exchange;
    // `info` is this POST's own object: the request's handler may end its stream (SSE polling).
    if (target) info.closeStream = (retryMs?: number) => this.closeStream(target, retryMs);
    this.onframe?.(frame, info);
    return exchange;
  }

  /** Opens the session's GET stream for messages unrelated to any request. */
  openStandalone(response: HttpResponse, priming: boolean): SseConnection {
    this.standaloneClaims++;
    const connection = this.open(response);
    this.standaloneOpened = true;
    this.standaloneElsewhere = false;
    this.missed = undefined;
    if (priming) connection.prime(this.event(this.standaloneId, ++this.standaloneSeq), this.options.retryMs);
    this.keepStandalone(connection);
    return connection;
  }

  /**
   * Another process now holds the session's GET stream (a cluster): this one stops keeping and
   * writing what would go on it, and closes its own connection of it, if any.
   */
  releaseStandalone(): void {
    this.standaloneOpened = false;
    this.standaloneElsewhere = true;
    this.standaloneHeld = undefined;
    const connection = this.standalone;
    this.standalone = undefined;
    connection?.end();
  }

  /** Opens an SSE connection of the session, counted as its client's while open. */
  private open(response: HttpResponse): SseConnection {
    const connection = SseConnection.open(response, {}, this.options.maxBufferedBytes);
    this.options.client?.track(connection, (listener) => connection.onClose(listener));
    return connection;
  }

  private keepStandalone(connection: SseConnection): void {
    this.standalone = connection;
    connection.onClose(() => {
      if (this.standalone === connection) this.standalone = undefined;
    });
  }

  /**
   * Resumes a stream from `Last-Event-ID`: replays what came after it on that stream, then keeps
   * the connection for what is still to come. Undefined when the id is not one the event store can
   * replay from. Events sent while the store answers are held, and follow the replay.
   */
  async resume(response: HttpResponse, lastEventId: string): Promise<SseConnection | undefined> {
    const cut = lastEventId.lastIndexOf('_');
    const streamId = lastEventId.slice(0, cut);
    const after = Number(lastEventId.slice(cut + 1));
    if (cut <= 0 || !/^\d+$/.test(lastEventId.slice(cut + 1)) || !Number.isSafeInteger(after)) return undefined;
    const standalone = isStandalone(streamId);
    if (standalone && this.options.eventStore.claim) return this.claim(response, streamId, after);
    const exchange = standalone ? undefined : this.streams.get(streamId);
    const live = exchange !== undefined && !exchange.done;
    if (live) exchange.hold();
    else if (standalone) this.standaloneHeld ??= [];
    let events: StoredEvent[] | undefined;
    try {
      const replay = this.options.eventStore.replayAfter(streamId, after);
      events = isThenable(replay) ? await replay : replay;
    } finally {
      if (!events) {
        if (live) exchange.unhold();
        else if (standalone) this.standaloneHeld = undefined;
      }
    }
    if (!events) return undefined;
    const connection = this.open(response);
    for (const event of events) connection.write(serialize(event.message), `${streamId}_${event.seq}`);
    if (standalone) {
      const held = this.standaloneHeld ?? [];
      this.standaloneHeld = undefined;
      for (const frame of held) connection.writeFrame(frame);
      this.adoptStandalone(streamId, Math.max(after, events.length > 0 ? events[events.length - 1].seq : 0), false);
      this.keepStandalone(connection);
    } else if (live) {
      exchange.reattach(connection);
    } else {
      connection.end();
    }
    return connection;
  }

  /**
   * Resumes the GET stream of a cluster's session ({@link EventStore.claim}): in one step the store
   * says what was kept on it and makes this instance its only writer — the instance that held it
   * may go on writing until it hears (`releaseStandalone`), and nothing it writes then is kept.
   * What is sent here meanwhile waits, unnumbered. Then the replay, and after it the broadcasts
   * seen here that the store never kept — those missed while another instance held the stream
   * (it died, or had not yet received them) and those of the wait — numbered on from the
   * stream's newest event: each broadcast reaches the client once.
   */
  private async claim(response: HttpResponse, streamId: string, after: number): Promise<SseConnection | undefined> {
    // A newer resumption (or a new GET stream) started while this claim was read: it holds the
    // stream, and this one must not take it back (a claim slowed by a failover ends last).
    const claim = ++this.standaloneClaims;
    this.claiming ??= [];
    let claimed: ClaimedStream | undefined;
    try {
      const answer = this.options.eventStore.claim!(streamId, after);
      claimed = isThenable(answer) ? await answer : answer;
    } finally {
      // Not resumed here (the store cannot, or failed): what waited goes where it would have gone.
      if (!claimed) this.unclaim();
    }
    if (!claimed) return undefined;
    if (claim !== this.standaloneClaims) {
      const superseded = this.open(response);
      superseded.end();
      return superseded;
    }
    const waited = this.claiming ?? [];
    this.claiming = undefined;
    const connection = this.open(response);
    for (const event of claimed.events) connection.write(serialize(event.message), `${streamId}_${event.seq}`);
    this.adoptStandalone(streamId, claimed.top, true);
    const now = performance.now();
    const missed = (this.missed ?? []).filter((m) => m.at >= now - MISSED_MS);
    this.missed = undefined;
    const late = new Set([...claimed.keys].slice(-CLAIMED_KEYS));
    for (const { key, message } of [...missed, ...waited]) {
      // Kept already (and, having come here, not to come again).
      if (key !== undefined && claimed.keys.has(key)) {
        late.delete(key);
        continue;
      }
      const text = serialize(message);
      connection.write(text, this.event(streamId, ++this.standaloneSeq, message, key, text.length));
    }
    this.claimedKeys = late.size > 0 ? { keys: late, until: now + MISSED_MS } : undefined;
    this.keepStandalone(connection);
    return connection;
  }

  /** Whether the broadcast `key` is one the store had kept when this instance claimed the GET stream (see `claimedKeys`). */
  private alreadyKept(key: string): boolean {
    const claimed = this.claimedKeys!;
    if (performance.now() > claimed.until) this.claimedKeys = undefined;
    else if (claimed.keys.delete(key)) return true;
    return false;
  }

  /** Sends what waited on a claim that did not resume the stream where it would have gone without one. */
  private unclaim(): void {
    const waited = this.claiming ?? [];
    this.claiming = undefined;
    // Each was accepted once already; a refusal now (a client fallen behind) was dealt with by `route`.
    for (const { message, key } of waited) void this.route(message, key === undefined ? undefined : { eventKey: key })?.catch(() => undefined);
  }

  /**
   * This instance holds the GET stream `streamId` from now on, whose newest event is `top` (a
   * stream begun on another instance goes on from where it was, under its id); `exact` when the
   * store said so (a claim), rather than what this instance numbered itself.
   */
  private adoptStandalone(streamId: string, top: number, exact: boolean): void {
    if (streamId !== this.standaloneId) {
      this.standaloneId = streamId;
      this.standaloneSeq = 0;
    }
    this.standaloneSeq = exact ? top : Math.max(this.standaloneSeq, top);
    this.standaloneOpened = true;
    this.standaloneElsewhere = false;
  }

  /** A broadcast this instance does not write (another holds the GET stream), kept for a while. */
  private remember(key: string, message: JsonRpcMessage): void {
    const missed = (this.missed ??= []);
    const now = performance.now();
    while (missed.length > 0 && (missed.length >= MISSED_LIMIT || missed[0].at < now - MISSED_MS)) missed.shift();
    missed.push({ key, message, at: now });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return DONE;
    try {
      return this.route(message, options) ?? DONE;
    } catch (error) {
      // A notification or request that cannot be turned into JSON: its sender's mistake, told to it.
      return Promise.reject(error);
    }
  }

  /** Sends `message` where it belongs; a promise when it was refused (see {@link encode}). */
  private route(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> | undefined {
    const responses = Array.isArray(message) ? message : isResponse(message) ? [message] : undefined;
    let exchange: Exchange | undefined;
    if (options?.batch) {
      // A batch's answer goes to the POST of that batch, even when no member had a readable id.
      exchange = this.batches.get(options.batch);
      if (exchange) {
        this.batches.delete(options.batch);
        for (const id of exchange.ids) if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
        exchange.waiting = 0;
      }
    } else {
      const key = responses ? (responses[0] as { id: RequestId | null }).id : options?.relatedRequestId;
      exchange = key === undefined || key === null ? undefined : this.exchanges.get(key);
    }
    if (exchange) return this.deliver(exchange, message, responses, options?.relatedRequestId);
    if (!responses && this.claiming && !Array.isArray(message)) {
      const out = this.encode(message, options?.relatedRequestId);
      if (out.text === undefined) return out.refusal;
      this.claiming.push({ key: options?.eventKey, message: out.sent as JsonRpcMessage });
      return undefined;
    }
    if (!responses && this.standaloneOpened) {
      if (this.claimedKeys && options?.eventKey !== undefined && this.alreadyKept(options.eventKey)) return undefined;
      const out = this.encode(message, options?.relatedRequestId);
      if (out.text === undefined) return out.refusal;
      // Stored even while the GET stream is down, so a client that resumes it misses nothing.
      const id = this.event(this.standaloneId, ++this.standaloneSeq, out.sent, options?.eventKey, out.text.length);
      if (this.standaloneHeld) this.standaloneHeld.push(`id: ${id}\ndata: ${out.text}\n\n`);
      else if (this.standalone && !this.standalone.closed) this.standalone.write(out.text, id);
    } else if (!responses && this.standaloneElsewhere && options?.eventKey !== undefined && !Array.isArray(message)) {
      this.remember(options.eventKey, message);
    } else {
      this.options.onDropped?.(message);
    }
    return undefined;
  }

  private deliver(
    exchange: Exchange,
    message: JsonRpcMessage | JsonRpcMessage[],
    responses: JsonRpcMessage[] | undefined,
    related: RequestId | undefined,
  ): Promise<void> | undefined {
    if (responses && !Array.isArray(message)) {
      const id = (message as { id: RequestId }).id;
      if (this.exchanges.get(id) === exchange) {
        exchange.waiting--;
        this.exchanges.delete(id);
      }
    }
    const out = this.encode(message, related);
    if (out.text === undefined) return out.refusal;
    const last = responses !== undefined && exchange.waiting === 0;
    if (exchange.undecided && last) {
      exchange.answerJson(out.sent, out.text);
      return undefined;
    }
    if (exchange.undecided) this.stream(exchange);
    exchange.write(out.text, this.event(exchange.streamId, ++exchange.seq, out.sent, undefined, out.text.length));
    if (last) exchange.finish();
    return undefined;
  }

  /**
   * The text of `message` within the limits of the session's client (see backpressure.ts); for a
   * notification or request that must be dropped, the promise to answer its sender with (its
   * related request is answered with -32011).
   */
  private encode(message: JsonRpcMessage | JsonRpcMessage[], related: RequestId | undefined): Sendable | { text?: undefined; refusal: Promise<void> } {
    const client = this.options.client;
    const out = outgoing(message, client ? client.unread() : 0, this.options.limits ?? UNLIMITED);
    if (out.text !== undefined) return out;
    return { refusal: dropForSlowClient(message as JsonRpcMessage, related, out.refused, this.onabort) };
  }

  /**
   * The request of that id will get no response (the client cancelled it): its POST is answered
   * without one — the stream ends (an empty one, if it had not started).
   */
  requestCancelled(id: RequestId): void {
    const exchange = this.exchanges.get(id);
    if (!exchange) return;
    this.exchanges.delete(id);
    if (--exchange.waiting > 0) return;
    for (const key of [...this.batches.keys()]) if (this.batches.get(key) === exchange) this.batches.delete(key);
    if (exchange.undecided) this.stream(exchange);
    exchange.finish();
  }

  /** A request's stream was closed for falling behind: its requests are cancelled and answered with -32011. */
  overflowed(exchange: Exchange): void {
    const error = clientTooSlow(this.options.maxBufferedBytes, 'its stream');
    for (const id of exchange.ids) if (this.exchanges.get(id) === exchange) this.onabort?.(id, error);
  }

  onabort?: (requestId: RequestId, error: McpError) => void;

  /**
   * A finished stream's events are dropped: at once when the client got all of them, otherwise
   * after a while, so a client that lost the stream just now can still replay it.
   */
  retire(exchange: Exchange, delivered: boolean): void {
    const forget = () => {
      this.streams.delete(exchange.streamId);
      this.settle(this.options.eventStore.forget(exchange.streamId));
    };
    if (delivered) forget();
    else setTimeout(forget, Math.max(this.options.retryMs * 10, 30_000)).unref();
  }

  private stream(exchange: Exchange): void {
    this.streams.set(exchange.streamId, exchange);
    this.options.client?.track(exchange, (listener) => exchange.whenRetired(listener));
    exchange.startStream();
    if (exchange.priming) exchange.prime(this.event(exchange.streamId, ++exchange.seq), this.options.retryMs);
  }

  /**
   * Closes the connection of a request's stream without ending the stream (SSE polling): the
   * client reconnects after `retry` and resumes from the last event id.
   */
  private closeStream(exchange: Exchange, retryMs = this.options.retryMs): void {
    if (exchange.done) return;
    if (exchange.undecided) {
      this.streams.set(exchange.streamId, exchange);
      this.options.client?.track(exchange, (listener) => exchange.whenRetired(listener));
      exchange.startStream();
      exchange.prime(this.event(exchange.streamId, ++exchange.seq), retryMs);
    } else {
      // Already streaming: the spec asks for a `retry` field before the connection closes.
      exchange.retry(retryMs);
    }
    exchange.detach();
  }

  /** Keeps event `seq` of a stream in the event store (without waiting for it) and returns its id. */
  private event(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[], key?: string, size?: number): string {
    this.settle(this.options.eventStore.append(streamId, seq, message, key, size));
    return `${streamId}_${seq}`;
  }

  /** A store call not waited for: its failure is reported, never unhandled. */
  private settle(pending: unknown): void {
    if (pending !== undefined && isThenable(pending)) pending.then(undefined, this.storeFailed);
  }

  private readonly storeFailed = (error: unknown): void => this.options.onStoreError?.(error);

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const exchange of new Set(this.exchanges.values())) {
      if (exchange.undecided) exchange.abandon();
      else exchange.finish();
    }
    this.exchanges.clear();
    this.batches.clear();
    this.streams.clear();
    this.standalone?.end();
    this.standalone = undefined;
    this.onclose?.();
    return Promise.resolve();
  }
}
