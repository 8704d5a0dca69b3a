/**
 * The response cache of MCP 2026-07-28: cacheable results (`server/discover`, the lists,
 * `resources/read`) carry `ttlMs` and `cacheScope`; the client answers the same request again from
 * the cache until `ttlMs` passes. `private` entries are this client's only; `public` ones may be
 * shared by every client using the same store.
 */
import { randomUUID } from 'node:crypto';
import type { Awaitable, Implementation } from '@hermes-mcp/protocol';

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

/** The lists a list_changed notification is about, and whose cached pages it makes stale. */
export type ListName = 'tools' | 'resources' | 'prompts';

/**
 * One client's use of a {@link ResponseCache}: the key of each request (the server, the revision,
 * the method, its params, and the generation of the list it depends on), and its `private`
 * entries kept apart from other clients' in a shared store.
 */
export class ClientResponseCache {
  /** Tells this client's private entries from other clients' in a shared store. */
  private readonly id = randomUUID();
  /** Bumped by each list_changed: cached answers that depend on that list are not read again. */
  private readonly generations: Record<ListName, number> = { tools: 0, resources: 0, prompts: 0 };

  constructor(private readonly store: ResponseCache) {}

  /** The key of a request to `server` at `version`. */
  key(server: Implementation | undefined, version: string | undefined, method: string, params: Record<string, unknown>): string {
    const list = listOf(method);
    const generation = list ? this.generations[list] : 0;
    const { _meta: _ignored, ...rest } = params;
    return `${server?.name ?? ''}@${server?.version ?? ''}\u0000${version}\u0000${method}\u0000${generation}\u0000${JSON.stringify(rest)}`;
  }

  /** The result kept under `key` while fresh: this client's own, else a shared one. */
  async get(key: string): Promise<Record<string, unknown> | undefined> {
    const kept = (await this.store.get(`private\u0000${this.id}\u0000${key}`)) ?? (await this.store.get(`public\u0000${key}`));
    return kept && kept.expiresAt > Date.now() ? kept.result : undefined;
  }

  /** Keeps `result` under `key` for its `ttlMs` (none, or 0: not kept), shared when its `cacheScope` is `public`. */
  async keep(key: string, result: Record<string, unknown>): Promise<void> {
    if (typeof result.ttlMs !== 'number' || result.ttlMs <= 0) return;
    const scoped = result.cacheScope === 'public' ? `public\u0000${key}` : `private\u0000${this.id}\u0000${key}`;
    await this.store.set(scoped, { result, expiresAt: Date.now() + result.ttlMs });
  }

  /** A list changed: the cached answers that depend on it are not read again. */
  listChanged(list: ListName): void {
    this.generations[list]++;
  }
}

/**
 * The list a method's answers depend on: its own, by prefix; `skills/*` depend on the resources
 * list, since a skill's files are resources and a server whose skills change says so with
 * `notifications/resources/list_changed` (the Skills extension has no notification of its own).
 */
function listOf(method: string): ListName | undefined {
  if (method.startsWith('skills/')) return 'resources';
  const prefix = method.slice(0, method.indexOf('/'));
  return prefix === 'tools' || prefix === 'resources' || prefix === 'prompts' ? prefix : undefined;
}
