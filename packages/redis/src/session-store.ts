/**
 * Session records in Redis: one hash per session (`{prefix}session:{{id}}`), expiring `idleMs` after its last use, so any
 * instance can take up any session, and `DELETE` or expiry ends it for all of them.
 *
 * The hash's fields: `r` the record's fixed part (JSON), `l` the logging level, `s:{uri}` one per
 * subscription — a change sets or clears one field, so instances serving the same session never
 * overwrite each other's changes.
 */
import type { LoggingLevel } from '@hermes-mcp/protocol';
import type { SessionChange, SessionRecord, SessionStore } from '@hermes-mcp/core';
import { RedisConnection, Script } from './connection';

/** Sets or clears one field of a hash that still exists (a change to an ended session is dropped). */
const CHANGE = new Script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == 'set' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) else redis.call('HDEL', KEYS[1], ARGV[2]) end
return 1`);

/** Writes a new record and its expiry at once: ARGV[1] the expiry in ms, then field, value pairs. */
const CREATE = new Script(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`);

const SUBSCRIPTION = 's:';

/** Session records in Redis, shared by every instance of a cluster. */
export class RedisSessionStore implements SessionStore {
  constructor(private readonly redis: RedisConnection) {}

  private key(id: string): string {
    return this.redis.key('session', id);
  }

  async create(record: SessionRecord, idleMs: number): Promise<void> {
    const { logLevel, subscriptions, ...fixed } = record;
    const key = this.key(record.id);
    const fields = ['r', JSON.stringify(fixed)];
    if (logLevel !== undefined) fields.push('l', logLevel);
    for (const uri of subscriptions ?? []) fields.push(SUBSCRIPTION + uri, '1');
    // One transaction, one round trip: the record never exists without its expiry.
    await this.redis.run(CREATE, [key], [String(Math.max(1, Math.round(idleMs))), ...fields], true);
  }

  async update(id: string, change: SessionChange): Promise<void> {
    const key = this.key(id);
    if ('logLevel' in change) await this.redis.run(CHANGE, [key], ['set', 'l', change.logLevel], true);
    else if ('subscribe' in change) await this.redis.run(CHANGE, [key], ['set', SUBSCRIPTION + change.subscribe, '1'], true);
    else await this.redis.run(CHANGE, [key], ['del', SUBSCRIPTION + change.unsubscribe], true);
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const reply = (await this.redis.send(['HGETALL', this.key(id)])) as unknown;
    let fixed: Omit<SessionRecord, 'logLevel' | 'subscriptions'> | undefined;
    let logLevel: LoggingLevel | undefined;
    const subscriptions: string[] = [];
    for (const [field, value] of fieldsOf(reply)) {
      if (field === 'r') fixed = JSON.parse(value) as typeof fixed;
      else if (field === 'l') logLevel = value as LoggingLevel;
      else if (field.startsWith(SUBSCRIPTION)) subscriptions.push(field.slice(SUBSCRIPTION.length));
    }
    // A hash left with changes only (its record expired between a check and a change): no session.
    if (!fixed || fixed.id !== id) return undefined;
    return { ...fixed, ...(logLevel !== undefined && { logLevel }), ...(subscriptions.length > 0 && { subscriptions }) };
  }

  async touch(id: string, idleMs: number): Promise<void> {
    await this.redis.send(['PEXPIRE', this.key(id), String(Math.max(1, Math.round(idleMs)))]);
  }

  async delete(id: string): Promise<void> {
    await this.redis.send(['DEL', this.key(id)]);
  }
}

/** A hash's fields and values, however the client decoded `HGETALL` (pairs in an array, an object, a Map). */
function fieldsOf(reply: unknown): Iterable<[string, string]> {
  if (reply === null || reply === undefined) return [];
  if (reply instanceof Map) return reply as Map<string, string>;
  if (Array.isArray(reply)) {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([String(reply[i]), String(reply[i + 1])]);
    return pairs;
  }
  return Object.entries(reply as Record<string, string>);
}
