/**
 * Where Streamable HTTP sessions are kept. A session lives in the process that serves it (its
 * streams, requests in flight); what the store keeps is its record — what `initialize` negotiated,
 * the logging level, the subscriptions — so that an instance that never saw the session can take
 * it up. The in-memory store is the default; a shared store (Redis, in `@hermes-mcp/redis`)
 * implements the same interface.
 */
import type { ClientCapabilities, Implementation, LoggingLevel } from '@hermes-mcp/protocol';
import type { Awaitable } from './awaitable';

/** What is kept of a session: enough for any instance to serve its requests. Plain JSON. */
export interface SessionRecord {
  readonly id: string;
  /** The revision `initialize` negotiated. */
  readonly protocolVersion: string;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  /** The level set with `logging/setLevel`, if any. */
  readonly logLevel?: LoggingLevel;
  /** The resource URIs subscribed to, if any. */
  readonly subscriptions?: readonly string[];
  /** Who opened it (issuer and subject of the caller's token), when the endpoint authenticates. */
  readonly principal?: string;
}

/**
 * One change to a session's record: the level `logging/setLevel` set, or a URI subscribed to or
 * unsubscribed from. Changes are applied field by field, so that instances serving the same
 * session do not overwrite each other's.
 */
export type SessionChange = { readonly logLevel: LoggingLevel } | { readonly subscribe: string } | { readonly unsubscribe: string };

/**
 * A place to keep session records by id. Each method may answer at once or with a promise: the
 * in-memory store answers at once, a networked one with a promise. A record expires `idleMs`
 * after it was last set or touched (the endpoint's `sessionIdleTimeout`).
 */
export interface SessionStore {
  /** Keeps a new session's record (`initialize`), for `idleMs` from now. */
  create(record: SessionRecord, idleMs: number): Awaitable<void>;
  /** Applies one change to a kept record (nothing when it is gone). */
  update(id: string, change: SessionChange): Awaitable<void>;
  /** The record of that id; undefined when unknown, ended or expired. */
  get(id: string): Awaitable<SessionRecord | undefined>;
  /** The session was used: it expires `idleMs` from now. */
  touch(id: string, idleMs: number): Awaitable<void>;
  /** The session ended (DELETE, or evicted to make room). */
  delete(id: string): Awaitable<void>;
}

/** One kept record and when it expires. */
interface Kept {
  record: SessionRecord;
  /** `performance.now()` at which it expires. */
  expires: number;
}

/**
 * Session records in a Map, in this process. The Map is kept in order of expiry (a touch moves a
 * record to the end; one endpoint uses one idle timeout), so expired records are at its front:
 * each call drops the ones it finds there, and memory stays bounded without a timer.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly kept = new Map<string, Kept>();

  create(record: SessionRecord, idleMs: number): void {
    this.sweep();
    this.kept.delete(record.id);
    this.kept.set(record.id, { record, expires: performance.now() + idleMs });
  }

  update(id: string, change: SessionChange): void {
    const kept = this.kept.get(id);
    if (kept === undefined) return;
    kept.record = applyChange(kept.record, change);
  }

  get(id: string): SessionRecord | undefined {
    const kept = this.kept.get(id);
    if (kept === undefined) return undefined;
    if (kept.expires > performance.now()) return kept.record;
    this.kept.delete(id);
    return undefined;
  }

  touch(id: string, idleMs: number): void {
    const kept = this.kept.get(id);
    if (kept === undefined) return;
    this.kept.delete(id);
    kept.expires = performance.now() + idleMs;
    this.kept.set(id, kept);
    this.sweep();
  }

  delete(id: string): void {
    this.kept.delete(id);
  }

  /** How many records are kept (expired ones included until a call drops them). */
  get size(): number {
    return this.kept.size;
  }

  /** Drops the expired records at the front. */
  private sweep(): void {
    const now = performance.now();
    for (const [id, kept] of this.kept) {
      if (kept.expires > now) return;
      this.kept.delete(id);
    }
  }
}

/** A record with one change applied (a new object: records are shared as they are). */
function applyChange(record: SessionRecord, change: SessionChange): SessionRecord {
  if ('logLevel' in change) return { ...record, logLevel: change.logLevel };
  const subscriptions = new Set(record.subscriptions);
  if ('subscribe' in change) subscriptions.add(change.subscribe);
  else subscriptions.delete(change.unsubscribe);
  return { ...record, subscriptions: [...subscriptions] };
}
