/**
 * The one connection of a cluster instance to Redis (and its twin for pub/sub, which Redis takes
 * over once it subscribes), and how commands go on it: raw, pipelined by node-redis (commands sent
 * in the same turn of the event loop share a write), failures turned into one stable error.
 */
import { createHash } from 'node:crypto';
import { createClient, ErrorReply } from 'redis';
import { HermesError } from '@hermes-mcp/core';

/** A node-redis client, as `createClient()` makes it. */
export type RedisClient = ReturnType<typeof createClient>;

/** A Redis reply, as the raw protocol gives it (RESP2: strings, numbers, arrays, null). */
export type Reply = string | number | null | Reply[];

/** What talks to Redis for the stores and the bus. */
export class RedisConnection {
  constructor(
    /** Commands (stores, publish). */
    readonly client: RedisClient,
    /** Key names start with it (`hermes:` by default), so one Redis can hold several clusters. */
    readonly prefix: string,
  ) {}

  /** Sends one command (pipelined with the others of the same turn); a lost connection is a `HERMES_REDIS_UNAVAILABLE`. */
  async send(args: string[]): Promise<Reply> {
    try {
      return await this.client.sendCommand<Reply>(args);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Runs a Lua script by its digest, loading it first when Redis does not know it (after a restart, say). */
  async run(script: Script, keys: string[], args: string[]): Promise<Reply> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.client.sendCommand<Reply>(['EVALSHA', script.sha, ...tail]);
    } catch (error) {
      if (!(error instanceof ErrorReply) || !error.message.startsWith('NOSCRIPT')) throw unavailable(error);
    }
    return this.send(['EVAL', script.source, ...tail]);
  }
}

/** A Lua script and its SHA-1, for `EVALSHA`. */
export class Script {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

/**
 * A failed Redis call as Hermes reports it: an error Redis answered (a bug here, or a key of the
 * wrong type) stays as it is; anything else means Redis could not be reached.
 */
export function unavailable(error: unknown): Error {
  if (error instanceof ErrorReply || error instanceof HermesError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new HermesError('HERMES_REDIS_UNAVAILABLE', `Redis could not be reached (${reason}); the instance reconnects by itself`, { cause: error });
}
