/**
 * What a resource server remembers of the DPoP proofs it took (their `jti`), for as long as a proof
 * could be taken, so that none is taken twice (RFC 9449 §11.1). In memory by default; a cluster
 * shares one (Redis: `SET NX PX`).
 */

/**
 * Remembers proofs already used. Give one shared by every instance of a cluster (the Redis
 * cluster's `replayStore`), or a proof refused by one instance is taken by the next.
 */
export interface ReplayStore {
  /** `true` the first time `key` is seen within `ttlMs`, `false` for every later time (a replay). */
  firstSeen(key: string, ttlMs: number): boolean | Promise<boolean>;
}

/** The remembered proofs of one process: a map in insertion order, which is expiry order. */
export class InMemoryReplayStore implements ReplayStore {
  /** Key → until when, in ms since `epoch`: a small integer, kept in the entry without a box. */
  private readonly seen = new Map<string, number>();
  private readonly epoch = Date.now();

  /** `maxEntries`: the most proofs remembered; past it, the oldest is forgotten first. */
  constructor(private readonly maxEntries = 200_000) {}

  firstSeen(key: string, ttlMs: number): boolean {
    const now = Date.now() - this.epoch;
    // Every entry lives as long (one ttl): the first ones are the first to expire.
    for (const [old, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(old);
    }
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.maxEntries) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, now + ttlMs);
    return true;
  }

  /** How many proofs are remembered. */
  get size(): number {
    return this.seen.size;
  }
}
