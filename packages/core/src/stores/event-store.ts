/**
 * Event stores keep what was sent on each SSE stream of a session, so a client that lost its
 * connection can resume with `Last-Event-ID` and miss nothing. Event ids name their stream
 * (`<stream>_<seq>`, made by the transport), so a resumption replays only that stream.
 */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import type { Awaitable } from './awaitable';

/** One stored event of a stream. */
export interface StoredEvent {
  /** Its number in the stream (from 1; priming events have numbers too but are not replayed). */
  seq: number;
  message: JsonRpcMessage | JsonRpcMessage[];
}

/** What {@link EventStore.claim} answers. */
export interface ClaimedStream {
  /** The events after the number asked for, oldest first. */
  events: StoredEvent[];
  /** The number of the stream's newest event, a priming event's too. */
  top: number;
  /** The keys of every broadcast kept on the stream (see {@link EventStore.append}). */
  keys: ReadonlySet<string>;
}

/** An event the in-memory store keeps, with what it weighs. */
interface KeptEvent extends StoredEvent {
  /** The characters of its JSON. */
  size: number;
}

/**
 * Where a session's SSE events are kept for resumption. The transport numbers the events of each
 * stream (1, 2, 3, …) and makes their ids; the store keeps them. Each method may answer at once or
 * with a promise (a networked store): the transport does not wait for `append` or `forget` (a
 * failure is logged), and holds a resumed stream's new events while `replayAfter` answers.
 */
export interface EventStore {
  /**
   * Keeps event `seq` of `streamId`. Without a message it is a priming event: nothing to replay,
   * but the stream can be resumed from it. `key` names a broadcast in a cluster (see
   * {@link EventStore.keys}); a store for one process may ignore it. `size` is the length of the
   * message's JSON, in characters, for a store that bounds what it keeps by size.
   */
  append(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[], key?: string, size?: number): Awaitable<void>;
  /**
   * The events of `streamId` after `seq`, oldest first; undefined when the store cannot replay
   * from there (a stream or number it never had, or events evicted since).
   */
  replayAfter(streamId: string, seq: number): Awaitable<StoredEvent[] | undefined>;
  /** Forgets a stream (its request was answered and the client has had time to resume). */
  forget(streamId: string): Awaitable<void>;
  /**
   * Makes this process the only one that writes `streamId` from now on — a cluster's GET stream
   * resumed here that another instance held: what the other appends afterwards is dropped — and
   * answers, in the same step, what `replayAfter(streamId, seq)` answers, the number of the
   * stream's newest event (`top`, priming events included) and the keys of every broadcast kept on
   * it. In one step because the other instance may still be appending: an event it keeps after the
   * replay was read but before the keys were would be in neither what the client is sent nor what
   * this process adds. Optional: a store for one process needs none (a cluster's store without it
   * resumes by `replayAfter`, and adds nothing it missed).
   */
  claim?(streamId: string, seq: number): Awaitable<ClaimedStream | undefined>;
  /**
   * Forgets every stream of the session, whichever process wrote it: the session ended (`DELETE`;
   * it expired — called by the last process holding it, once the session store no longer has its
   * record; or, without a cluster, it was evicted to make room). Optional: a store that lives and
   * dies with the session's objects (the in-memory one) needs none; a shared store without it
   * keeps a session's streams until they expire.
   */
  clear?(): Awaitable<void>;
}

/** The events kept of one stream. */
interface StreamEvents {
  /** The highest number kept on the stream (events and priming marks). */
  seq: number;
  /** Stored events, oldest first. */
  events: KeptEvent[];
  /** The newest sequence number dropped by eviction: a resumption from before it fails. */
  floor: number;
}

/** Default of the characters an {@link InMemoryEventStore} keeps per session: 16 MiB, one answer of the largest default size. */
export const DEFAULT_EVENT_STORE_BYTES = 16 * 1024 * 1024;

/**
 * Keeps events in memory, at most `limit` per session (default 1000) and at most `maxBytes`
 * characters of their JSON (default 16 MiB; the newest event is kept whatever its size). Past
 * either, the oldest stream (the first one still kept) loses its oldest event, and a resumption
 * from before it fails rather than skipping events silently. Each step costs the same however
 * many events are kept: no list of every event to search or shift.
 */
export class InMemoryEventStore implements EventStore {
  // Made on the first event: most sessions never stream, and an empty Map still costs ~170 bytes.
  private streams?: Map<string, StreamEvents> = undefined;
  /** Events kept, over all streams. */
  private stored = 0;
  /** Characters of the events kept, over all streams. */
  private bytes = 0;

  constructor(
    private readonly limit = 1000,
    private readonly maxBytes = DEFAULT_EVENT_STORE_BYTES,
  ) {}

  append(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[], _key?: string, size = 0): void {
    const stream = this.stream(streamId);
    if (seq > stream.seq) stream.seq = seq;
    if (message === undefined) return;
    stream.events.push({ seq, message, size });
    this.stored++;
    this.bytes += size;
    while ((this.stored > this.limit || this.bytes > this.maxBytes) && this.stored > 1) this.evictOne();
  }

  replayAfter(streamId: string, after: number): StoredEvent[] | undefined {
    const stream = this.streams?.get(streamId);
    if (!stream || !Number.isSafeInteger(after) || after > stream.seq || after < stream.floor) return undefined;
    return stream.events.filter((e) => e.seq > after).map(({ seq, message }) => ({ seq, message }));
  }

  forget(streamId: string): void {
    const stream = this.streams?.get(streamId);
    if (!stream) return;
    this.stored -= stream.events.length;
    for (const event of stream.events) this.bytes -= event.size;
    this.streams!.delete(streamId);
  }

  /** Drops the oldest event of the oldest stream that has any (a Map iterates in insertion order). */
  private evictOne(): void {
    for (const stream of this.streams!.values()) {
      const oldest = stream.events.shift();
      if (oldest) {
        stream.floor = oldest.seq;
        this.stored--;
        this.bytes -= oldest.size;
        return;
      }
    }
  }

  private stream(streamId: string): StreamEvents {
    const streams = (this.streams ??= new Map<string, StreamEvents>());
    let stream = streams.get(streamId);
    if (!stream) streams.set(streamId, (stream = { seq: 0, events: [], floor: 0 }));
    return stream;
  }
}
