/**
 * The one connection of a cluster instance to Redis (and its twin for pub/sub, which Redis takes
 * over once it subscribes), and how commands go on it: raw, pipelined by node-redis (commands sent
 * in the same turn of the event loop share a write), failures turned into one stable error.
 *
 * Redis may be one node (`createClient`), a Redis Cluster (`createCluster`: keys sharded across
 * masters by hash slot) or a Sentinel-watched primary (`createSentinel`). Every key of one session,
 * stream or task carries the same hash tag (`{id}`), so on a Redis Cluster each command and each
 * Lua script touches one slot, on the master that holds it.
 */
import { createHash } from 'node:crypto';
import { createClient, ErrorReply } from 'redis';
import type { RedisClusterType, RedisSentinelType } from 'redis';
import { HermesError } from '@hermes-mcp/core';

/** A node-redis client, as `createClient()` makes it. */
export type RedisClient = ReturnType<typeof createClient>;

/** A node-redis Redis Cluster client, as `createCluster()` makes it. */
export type RedisClusterClient = RedisClusterType;

/** A node-redis Sentinel client, as `createSentinel()` makes it. */
export type RedisSentinelClient = RedisSentinelType;

/** Any client Hermes runs on: one node, a Redis Cluster, or a primary Sentinel watches. */
export type AnyRedisClient = RedisClient | RedisClusterClient | RedisSentinelClient;

/** What kind of Redis a client talks to. */
export type RedisTopology = 'single' | 'cluster' | 'sentinel';

/** A Redis reply, as the raw protocol gives it (RESP2: strings, numbers, arrays, null). */
export type Reply = string | number | null | Reply[];

/** What kind of Redis `client` talks to, told by what the client has (node-redis exports no classes to test against). */
export function topologyOf(client: AnyRedisClient): RedisTopology {
  if ('masters' in client && 'slots' in client) return 'cluster';
  if ('acquire' in client && typeof (client as { acquire?: unknown }).acquire === 'function') return 'sentinel';
  return 'single';
}

/** What talks to Redis for the stores and the bus. */
export class RedisConnection {
  /** What kind of Redis `client` talks to. */
  readonly topology: RedisTopology;

  constructor(
    /** Commands (stores, publish). */
    readonly client: AnyRedisClient,
    /** Key names start with it (`hermes:` by default), so one Redis can hold several clusters. */
    readonly prefix: string,
  ) {
    this.topology = topologyOf(client);
  }

  /**
   * A key's name: `{prefix}{kind}:{id}`, the id in braces — the hash tag that puts every key of one
   * session (or task) in one slot of a Redis Cluster; `suffix` names a key of its own under it.
   */
  key(kind: string, id: string, suffix?: string): string {
    return `${this.prefix}${kind}:{${id}}${suffix === undefined ? '' : `:${suffix}`}`;
  }

  /**
   * Sends one command (pipelined with the others of the same turn) to the node holding `firstKey`
   * (the command's first argument by default); a lost connection is a `HERMES_REDIS_UNAVAILABLE`.
   */
  async send(args: string[], firstKey: string | undefined = args[1]): Promise<Reply> {
    try {
      return await this.dispatch(args, firstKey);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Runs a Lua script by its digest, loading it first when Redis does not know it (after a restart, or on another node). */
  async run(script: Script, keys: string[], args: string[]): Promise<Reply> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.dispatch(['EVALSHA', script.sha, ...tail], keys[0]);
    } catch (error) {
      if (!(error instanceof ErrorReply) || !error.message.startsWith('NOSCRIPT')) throw unavailable(error);
    }
    return this.send(['EVAL', script.source, ...tail], keys[0]);
  }

  private dispatch(args: string[], firstKey: string | undefined): Promise<Reply> {
    switch (this.topology) {
      case 'cluster':
        return (this.client as RedisClusterClient).sendCommand<Reply>(firstKey, false, args);
      case 'sentinel':
        return (this.client as RedisSentinelClient).sendCommand<Reply>(false, args);
      default:
        return (this.client as RedisClient).sendCommand<Reply>(args);
    }
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
 * wrong type) stays as it is — except the ones a Redis Cluster or Sentinel answers while a master
 * fails over (`CLUSTERDOWN`, `TRYAGAIN`, `READONLY`, `LOADING`, `MASTERDOWN`), which mean Redis
 * cannot serve that key for now; anything else means Redis could not be reached.
 */
export function unavailable(error: unknown): Error {
  if (error instanceof HermesError) return error;
  if (error instanceof ErrorReply && !TRANSIENT.test(error.message)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new HermesError('HERMES_REDIS_UNAVAILABLE', `Redis could not be reached (${reason}); the instance reconnects by itself`, { cause: error });
}

/** Errors Redis answers while it fails over: the key's master is not there (yet). */
const TRANSIENT = /^(CLUSTERDOWN|TRYAGAIN|READONLY|LOADING|MASTERDOWN|MOVED|ASK)\b/;
