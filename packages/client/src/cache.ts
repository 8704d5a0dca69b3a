/**
 * The response cache of MCP 2026-07-28: cacheable results (`server/discover`, the lists,
 * `resources/read`) carry `ttlMs` and `cacheScope`; the client answers the same request again from
 * the cache until `ttlMs` passes. `private` entries are this client's only; `public` ones may be
 * shared by every client using the same store.
 */
import type { Awaitable } from '@hermes-mcp/protocol';

/** One kept result. */
export interface CachedResponse {
  result: Record<string, unknown>;
  /** `Date.now()` after which it is stale. */
  expiresAt: number;
}

/** Where responses are kept. Methods may answer at once or with a promise (a shared store). */
export interface ResponseCache {
  get(key: string): Awaitable<CachedResponse | undefined>;
  set(key: string, entry: CachedResponse): Awaitable<void>;
}

/** Responses in a Map, the least recently used dropped past `limit` (default 500). */
export class InMemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();

  constructor(private readonly limit = 500) {}

  get(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= Date.now()) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  /** How many responses are kept. */
  get size(): number {
    return this.entries.size;
  }
}
