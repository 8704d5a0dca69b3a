/**
 * The DPoP proofs every instance of a cluster has taken (RFC 9449 §11.1): one key per proof, set
 * only if absent, expiring with the proof's window — so a proof taken by one instance is refused by
 * all the others, and Redis holds no more than the proofs of one window.
 */
import type { ReplayStore } from '@hermes-mcp/core';
import { RedisConnection } from './connection';

/** A {@link ReplayStore} on Redis: `SET {prefix}dpop:{key} 1 NX PX {ttl}`. */
export class RedisReplayStore implements ReplayStore {
  constructor(private readonly redis: RedisConnection) {}

  async firstSeen(key: string, ttlMs: number): Promise<boolean> {
    const set = await this.redis.write(['SET', `${this.redis.prefix}dpop:${key}`, '1', 'NX', 'PX', String(Math.max(1, Math.round(ttlMs)))]);
    return set === 'OK';
  }
}
