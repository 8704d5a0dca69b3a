/**
 * Event stores keep what was sent on each SSE stream of a session, so a client that lost its
 * connection can resume with `Last-Event-ID` and miss nothing. Event ids name their stream
 * (`<stream>_<seq>`), so a resumption replays only that stream.
 */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';

/** One stored event. */
export interface StoredEvent {
  id: string;
  message: JsonRpcMessage | JsonRpcMessage[];
}

/** Where a session's SSE events are kept for resumption. */
export interface EventStore {
  /** Stores a message sent on `streamId` and returns its event id. */
  append(streamId: string, message: JsonRpcMessage | JsonRpcMessage[]): string;
  /** A new event id on `streamId` with nothing stored under it (priming events). */
  mark(streamId: string): string;
  /**
   * The events of the stream `eventId` belongs to that came after it, oldest first; undefined
   * when the id is not one this store issued (or its events were evicted).
   */
  replayAfter(eventId: string): { streamId: string; events: StoredEvent[] } | undefined;
  /** Forgets a stream (its request was answered and the client has had time to resume). */
  forget(streamId: string): void;
}

/** The events kept of one stream. */
interface StreamEvents {
  /** The last sequence number issued on the stream (events and priming marks). */
  seq: number;
  /** Stored events, oldest first. */
  events: Array<{ seq: number; message: JsonRpcMessage | JsonRpcMessage[] }>;
  /** The newest sequence number dropped by eviction: a resumption from before it fails. */
  floor: number;
}

/**
 * Keeps events in memory, at most `limit` per session (default 1000). Past the limit, the oldest
 * stream (the first one still kept) loses its oldest event, and a resumption from before it fails
 * rather than skipping events silently. Each step costs the same however many events are kept:
 * no list of every event to search or shift.
 */
export class InMemoryEventStore implements EventStore {
  // Made on the first event: most sessions never stream, and an empty Map still costs ~170 bytes.
  private streams?: Map<string, StreamEvents> = undefined;
  /** Events kept, over all streams. */
  private stored = 0;

  constructor(private readonly limit = 1000) {}

  append(streamId: string, message: JsonRpcMessage | JsonRpcMessage[]): string {
    const stream = this.stream(streamId);
    const seq = ++stream.seq;
    stream.events.push({ seq, message });
    if (++this.stored > this.limit) this.evictOne();
    return `${streamId}_${seq}`;
  }

  mark(streamId: string): string {
    return `${streamId}_${++this.stream(streamId).seq}`;
  }

  replayAfter(eventId: string): { streamId: string; events: StoredEvent[] } | undefined {
    const cut = eventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = eventId.slice(0, cut);
    const after = Number(eventId.slice(cut + 1));
    const stream = this.streams?.get(streamId);
    if (!stream || !Number.isSafeInteger(after) || after > stream.seq || after < stream.floor) return undefined;
    return {
      streamId,
      events: stream.events.filter((e) => e.seq > after).map((e) => ({ id: `${streamId}_${e.seq}`, message: e.message })),
    };
  }

  forget(streamId: string): void {
    const stream = this.streams?.get(streamId);
    if (!stream) return;
    this.stored -= stream.events.length;
    this.streams!.delete(streamId);
  }

  /** Drops the oldest event of the oldest stream that has any (a Map iterates in insertion order). */
  private evictOne(): void {
    for (const stream of this.streams!.values()) {
      const oldest = stream.events.shift();
      if (oldest) {
        stream.floor = oldest.seq;
        this.stored--;
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
