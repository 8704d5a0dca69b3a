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
import { ErrorReply } from 'redis';
import type { RedisClientType, RedisClusterType, RedisSentinelType } from 'redis';
import { HermesError } from '@hermes-mcp/core';

/* eslint-disable @typescript-eslint/no-explicit-any -- any modules, scripts, RESP version and type mapping: Hermes sends raw commands only */
/** A node-redis client, as `createClient()` makes it (whatever its modules, scripts, RESP version and type mapping). */
export type RedisClient = RedisClientType<any, any, any, any, any>;

/** A node-redis Redis Cluster client, as `createCluster()` makes it. */
export type RedisClusterClient = RedisClusterType | RedisClusterType<any, any, any, any, any>;

/** A node-redis Sentinel client, as `createSentinel()` makes it. */
export type RedisSentinelClient = RedisSentinelType | RedisSentinelType<any, any, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

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

/**
 * How far a write goes before the store call that made it resolves. Redis replicates
 * asynchronously: a write its master acknowledged and had not yet sent to a replica is lost when
 * that master dies and the replica takes over. With `replicas`, each write of the stores is
 * followed, in the same round trip, by `WAIT {replicas} {timeoutMs}` on the node that took it.
 */
export interface Durability {
  /** How many replicas must have a write before it counts as done (`WAIT`'s first argument). */
  replicas: number;
  /**
   * How long to wait for them, in milliseconds (default 100): past it the write counts as done
   * anyway (a replica down must not stop the service), writes stop waiting for
   * {@link REPLICA_BACKOFF_MS}, and `HERMES_REDIS_UNREPLICATED` is reported to the logger once per
   * minute at most.
   */
  timeoutMs?: number;
}

/** How long a command may go unanswered by default, in milliseconds (see {@link RedisConnection}). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/** A command sent and not yet answered, while commands have a timeout. */
interface InFlight {
  /** When it was sent (`performance.now()`). */
  readonly at: number;
  readonly command: string;
  readonly reject: (error: Error) => void;
  /** Takes it out of node-redis's queue if it is still there (not written yet). */
  readonly controller?: AbortController;
}

/** What talks to Redis for the stores and the bus. */
export class RedisConnection {
  /** What kind of Redis `client` talks to. */
  readonly topology: RedisTopology;
  private readonly wait?: string[];
  private lastWarned = 0;
  /** Until when writes do not wait for replicas (one did not reach them in time). */
  private waitAgainAt = 0;
  /** The WAIT about to be sent to each node (by its address), shared by the writes of this turn. */
  private readonly waits = new Map<string, Promise<number>>();
  /** How long a command may go unanswered, in milliseconds (0: for ever). */
  private readonly timeoutMs: number;
  /** Commands not answered yet (only with a command timeout). */
  private readonly inFlight = new Set<InFlight>();
  /** What fails the commands past their timeout, every quarter of it, while any is in flight. */
  private sweeper?: NodeJS.Timeout;

  constructor(
    /** Commands (stores, publish). */
    readonly client: AnyRedisClient,
    /** Key names start with it (`hermes:` by default), so one Redis can hold several clusters. */
    readonly prefix: string,
    /** How far a write goes before it counts as done (default: the master took it). */
    durability?: Durability,
    /** Where a write that did not reach its replicas in time is reported. */
    private readonly warn: (bindings: object, message: string) => void = () => undefined,
    /**
     * How long a command may go unanswered, in milliseconds (0: for ever; default
     * {@link DEFAULT_COMMAND_TIMEOUT_MS}, and 0 on Sentinel): past it, the call that sent it fails
     * with `HERMES_REDIS_UNAVAILABLE` (the command may still run on Redis). Bounds what a request
     * waits while a node hangs. Not on Sentinel by default: its client holds commands while it
     * follows a failover, and failing them early sends their retries into its rediscovery, which
     * then takes longer (the failover test served again 25 s after the kill, or not within 60 s,
     * against 13–16 s held).
     */
    timeoutMs?: number,
  ) {
    this.topology = topologyOf(client);
    this.timeoutMs = timeoutMs ?? (this.topology === 'sentinel' ? 0 : DEFAULT_COMMAND_TIMEOUT_MS);
    if (durability && durability.replicas > 0) this.wait = ['WAIT', String(durability.replicas), String(durability.timeoutMs ?? 100)];
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

  /** {@link send} for a write: with {@link Durability}, resolves once the replicas have it too (or the wait timed out). */
  async write(args: string[], firstKey: string | undefined = args[1]): Promise<Reply> {
    try {
      const [reply] = await Promise.all([this.dispatch(args, firstKey), this.replicated(firstKey)]);
      return reply;
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * Runs a Lua script by its digest, loading it first when Redis does not know it (after a restart,
   * or on another node); a script that writes (`write`) waits for the replicas as {@link write} does.
   */
  async run(script: Script, keys: string[], args: string[], write = false): Promise<Reply> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      // The WAIT goes right behind the script, in the same write to the same node.
      const [reply] = await Promise.all([this.dispatch(['EVALSHA', script.sha, ...tail], keys[0]), write ? this.replicated(keys[0]) : undefined]);
      return reply;
    } catch (error) {
      if (!(error instanceof ErrorReply) || !error.message.startsWith('NOSCRIPT')) throw unavailable(error);
    }
    return write ? this.write(['EVAL', script.source, ...tail], keys[0]) : this.send(['EVAL', script.source, ...tail], keys[0]);
  }

  /**
   * `WAIT` on the node holding `firstKey`, right behind the write sent there in the same turn. A
   * `WAIT` that times out holds the connection it came on (Redis answers nothing else on it
   * meanwhile): after one, writes do not wait for `REPLICA_BACKOFF_MS` — a master left without its
   * replica (it took over from a dead master) would otherwise slow every write to `timeoutMs`.
   */
  private async replicated(firstKey: string | undefined): Promise<void> {
    if (!this.wait || Date.now() < this.waitAgainAt) return;
    // One WAIT per node per turn of the event loop: it covers every write sent to that node
    // before it (Redis answers a connection's commands in order), so writes of the same turn share it.
    const node = this.nodeOf(firstKey);
    let pending = this.waits.get(node);
    if (!pending) {
      const wait = this.wait;
      pending = new Promise<number>((resolve, reject) =>
        setImmediate(() => {
          this.waits.delete(node);
          this.dispatch(wait, firstKey).then((reply) => resolve(reply as number), reject);
        }),
      );
      this.waits.set(node, pending);
    }
    const acknowledged = await pending;
    if (acknowledged >= Number(this.wait[1])) return;
    this.waitAgainAt = Date.now() + REPLICA_BACKOFF_MS;
    if (Date.now() - this.lastWarned > 60_000) {
      this.lastWarned = Date.now();
      this.warn(
        { code: 'HERMES_REDIS_UNREPLICATED', acknowledged, wanted: Number(this.wait[1]) },
        `a Redis write reached ${acknowledged} of ${this.wait[1]} replicas within ${this.wait[2]} ms; it counts as done (reported once a minute at most)`,
      );
    }
  }

  /** The node a key's commands go to: its slot's master on a Redis Cluster, the one node otherwise. */
  private nodeOf(firstKey: string | undefined): string {
    if (this.topology !== 'cluster' || firstKey === undefined) return '';
    const slot = hashSlot(firstKey);
    return (this.client as RedisClusterClient).slots[slot]?.master?.address ?? `slot ${slot}`;
  }

  private dispatch(args: string[], firstKey: string | undefined): Promise<Reply> {
    // Not on Sentinel: its client takes an aborted command for a lost primary and rediscovers.
    if (this.timeoutMs <= 0 || this.topology === 'sentinel') return this.bound(this.sendRaw(args, firstKey), args[0]);
    // Aborted at its timeout: one node-redis still holds (not written yet) is never sent.
    const controller = new AbortController();
    return this.bound(this.sendRaw(args, firstKey, controller.signal), args[0], controller);
  }

  /**
   * `sent`, failed with `HERMES_REDIS_UNAVAILABLE` once it has gone unanswered for the command
   * timeout (`command` names it in the message); `sent` itself when there is none.
   */
  bound<T>(sent: Promise<T>, command: string, controller?: AbortController): Promise<T> {
    if (this.timeoutMs <= 0) return sent;
    return new Promise<T>((resolve, reject) => {
      const entry: InFlight = { at: performance.now(), command, reject, controller };
      this.inFlight.add(entry);
      this.sweeper ??= setInterval(this.sweep, Math.max(10, this.timeoutMs / 4)).unref();
      sent.then(
        (reply) => {
          this.inFlight.delete(entry);
          resolve(reply);
        },
        (error: unknown) => {
          this.inFlight.delete(entry);
          reject(error);
        },
      );
    });
  }

  /** Fails the commands past their timeout (oldest first: a Set keeps the order they were sent in). */
  private readonly sweep = (): void => {
    const expired = performance.now() - this.timeoutMs;
    for (const entry of this.inFlight) {
      if (entry.at > expired) break;
      this.inFlight.delete(entry);
      entry.controller?.abort();
      entry.reject(new HermesError('HERMES_REDIS_UNAVAILABLE', `Redis did not answer ${entry.command} within ${this.timeoutMs} ms (commandTimeout); the instance goes on trying`));
    }
    if (this.inFlight.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  };

  /** Sends a command the way the client's topology takes it. */
  private sendRaw(args: string[], firstKey: string | undefined, abortSignal?: AbortSignal): Promise<Reply> {
    const options = abortSignal && { abortSignal };
    switch (this.topology) {
      case 'cluster':
        return (this.client as RedisClusterClient).sendCommand<Reply>(firstKey, false, args, options);
      case 'sentinel':
        return (this.client as RedisSentinelClient).sendCommand<Reply>(false, args, options);
      default:
        return (this.client as RedisClient).sendCommand<Reply>(args, options);
    }
  }
}

/** How long writes do not wait for replicas after one did not reach them in time, in milliseconds. */
export const REPLICA_BACKOFF_MS = 5_000;

/**
 * The Redis Cluster hash slot of a key (CRC16/XMODEM of its hash tag, or of the whole key, modulo
 * 16384), as Redis computes it.
 */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
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
