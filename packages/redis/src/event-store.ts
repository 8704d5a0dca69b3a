/**
 * A session's SSE events in Redis Streams, one stream per SSE stream, so a client that lost its
 * connection resumes with `Last-Event-ID` on any instance. Each entry's id is the event's number
 * (`{seq}-0`), so a resumption reads from there in one `XRANGE`. The window is bounded twice: at
 * most `maxPerStream` entries (older ones are trimmed) and `maxAgeMs` after the stream's last event
 * (the key expires). A resumption from an event no longer kept fails (the endpoint answers 400)
 * rather than skipping events silently.
 */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import type { EventStore, StoredEvent } from '@hermes-mcp/core';
import type { RedisConnection } from './connection';

/** The bounds of the replay window of each stream. */
export interface EventWindow {
  /** Most events kept per stream (default 1000). */
  maxPerStream?: number;
  /** How long a stream is kept after its last event, in milliseconds (default 1 hour). */
  maxAgeMs?: number;
}

/** The defaults of {@link EventWindow}. */
export const EVENT_WINDOW_DEFAULTS = Object.freeze({ maxPerStream: 1000, maxAgeMs: 3_600_000 });

/** The events of one session's streams, in Redis. */
export class RedisEventStore implements EventStore {
  private readonly maxLength: string;
  private readonly maxAge: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly sessionId: string,
    window: EventWindow = {},
  ) {
    this.maxLength = String(window.maxPerStream ?? EVENT_WINDOW_DEFAULTS.maxPerStream);
    this.maxAge = String(window.maxAgeMs ?? EVENT_WINDOW_DEFAULTS.maxAgeMs);
  }

  private key(streamId: string): string {
    return `${this.redis.prefix}events:${this.sessionId}:${streamId}`;
  }

  async append(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[], broadcast?: string): Promise<void> {
    const key = this.key(streamId);
    // A priming event has a number but nothing to replay: field `p`; a broadcast's key goes in
    // field `k`. Sent together, the two commands share one round trip.
    const field = message === undefined ? ['p', ''] : broadcast === undefined ? ['m', JSON.stringify(message)] : ['m', JSON.stringify(message), 'k', broadcast];
    await Promise.all([this.redis.send(['XADD', key, 'MAXLEN', '~', this.maxLength, `${seq}-0`, ...field]), this.redis.send(['PEXPIRE', key, this.maxAge])]);
  }

  async replayAfter(streamId: string, seq: number): Promise<StoredEvent[] | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
    const entries = (await this.redis.send(['XRANGE', this.key(streamId), `${seq}-0`, '+'])) as Array<[string, string[]]> | null;
    // The event resumed from must still be kept: otherwise events after it may have been trimmed.
    if (!entries || entries.length === 0 || entries[0][0] !== `${seq}-0`) return undefined;
    const events: StoredEvent[] = [];
    for (let i = 1; i < entries.length; i++) {
      const [id, fields] = entries[i];
      if (fields[0] !== 'm') continue;
      events.push({ seq: Number(id.slice(0, id.indexOf('-'))), message: JSON.parse(fields[1]) as JsonRpcMessage | JsonRpcMessage[] });
    }
    return events;
  }

  async keys(streamId: string): Promise<ReadonlySet<string>> {
    const entries = (await this.redis.send(['XRANGE', this.key(streamId), '-', '+'])) as Array<[string, string[]]> | null;
    const keys = new Set<string>();
    for (const [, fields] of entries ?? []) {
      for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'k') keys.add(fields[i + 1]);
    }
    return keys;
  }

  async forget(streamId: string): Promise<void> {
    await this.redis.send(['DEL', this.key(streamId)]);
  }
}
