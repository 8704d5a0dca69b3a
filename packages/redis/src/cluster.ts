/**
 * `redisCluster()`: everything an instance needs to serve behind a load balancer with others,
 * on Redis — one node, a Redis Cluster or a Sentinel-watched primary — sessions, resumable streams,
 * tasks and the bus.
 */
import { createClient } from 'redis';
import { HermesError } from '@hermes-mcp/core';
import type { Cluster, EventStore } from '@hermes-mcp/core';
import { RedisBus } from './bus';
import { AnyRedisClient, Durability, RedisClient, RedisConnection } from './connection';
import { EventWindow, RedisEventStore } from './event-store';
import { RedisSessionStore } from './session-store';
import { RedisReplayStore } from './replay-store';
import { RedisTaskStore, TaskLeaseOptions } from './task-store';

/** Options of {@link redisCluster}. */
export interface RedisClusterOptions {
  /** Where Redis is, e.g. `redis://:password@redis.internal:6379/0` (default `redis://127.0.0.1:6379`). */
  url?: string;
  /**
   * A node-redis client of your own (not connected yet, or connected) to use instead of `url`: one
   * node (`createClient`), a Redis Cluster (`createCluster`) or a primary watched by Sentinel
   * (`createSentinel`). Its options are yours (TLS, ACL user, reconnection; `disableOfflineQueue:
   * true` makes calls fail at once while a node is away, rather than wait for it). Hermes duplicates
   * it for pub/sub (sharded pub/sub on a Redis Cluster), and does not close it.
   *
   * @example
   * const client = createCluster({ rootNodes: [{ url: 'redis://10.0.0.1:6379' }], defaults: { disableOfflineQueue: true } });
   * const cluster = await redisCluster({ client });
   */
  client?: AnyRedisClient;
  /** What every key and channel name starts with (default `hermes:`): several clusters can share one Redis. */
  prefix?: string;
  /** The replay window of resumable streams. */
  events?: EventWindow;
  /** The leases of running tasks. */
  tasks?: TaskLeaseOptions;
  /** Where connection problems are logged, e.g. the app's pino logger (default: stderr through `console.warn`). */
  logger?: { warn(bindings: object, message: string): void };
  /**
   * How far each write goes before it counts as done (default: the master took it). With
   * `{ replicas: 1 }`, a session, event or task acknowledged to a client is on a replica too, so a
   * master that dies loses none of them (Redis replicates asynchronously otherwise).
   */
  durability?: Durability;
  /**
   * How long to wait for Redis at start, in milliseconds (default 10 000), whether the client is
   * made from `url` or given: past it `redisCluster()` rejects with `HERMES_REDIS_UNAVAILABLE` (a
   * given client is left as it is — still trying, if it retries: close it).
   */
  connectTimeout?: number;
  /**
   * How long one Redis command may go unanswered, in milliseconds (default 5 000, and no bound on
   * Sentinel; 0: no bound): past it the request that needed it gets `HERMES_REDIS_UNAVAILABLE`.
   * Bounds what requests wait while a node hangs. A Sentinel client holds commands while it
   * follows a failover, and failing them early slows it down (docs/scaling.md): set it there only
   * to bound a Sentinel that may never find a primary.
   */
  commandTimeout?: number;
}

/** A {@link Cluster} on Redis, with access to its parts. */
export interface RedisCluster extends Cluster {
  readonly bus: RedisBus;
  readonly sessionStore: RedisSessionStore;
  readonly taskStore: RedisTaskStore;
  readonly replayStore: RedisReplayStore;
  eventStore(sessionId: string): RedisEventStore;
  /** The node-redis client that sends commands (stores, publishes): the one given, or the one made from `url`. */
  readonly client: AnyRedisClient;
}

/**
 * Connects to Redis and returns the cluster of this instance: give it to every instance as
 * `McpAppOptions.cluster`. Rejects with `HERMES_REDIS_UNAVAILABLE` when Redis cannot be reached in
 * `connectTimeout`. Afterwards, a lost connection is retried (backing off to one attempt every 2 s)
 * while requests that need Redis fail at once with a clear error; `close()` ends the connections.
 *
 * @example
 * const cluster = await redisCluster({ url: process.env.REDIS_URL });
 * await app.register(hermesMcp, { server: WeatherServer, appOptions: { cluster, cursorSecret, requestStateSecret } });
 * app.addHook('onClose', () => cluster.close());
 */
export async function redisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const log = options.logger ?? { warn: (bindings: object, message: string) => console.warn(message, bindings) };
  const own = options.client === undefined;
  const connectTimeout = options.connectTimeout ?? 10_000;
  // Until the first connection, attempts go on only until connectTimeout; afterwards, for ever.
  let connectedOnce = false;
  const giveUpAt = Date.now() + connectTimeout;
  const client: AnyRedisClient =
    options.client ??
    createClient({
      url: options.url ?? 'redis://127.0.0.1:6379',
      // While disconnected, commands fail at once (a request answered with an error) instead of queueing unboundedly.
      disableOfflineQueue: true,
      socket: {
        connectTimeout,
        // A new Error, not `cause`: node-redis tells "give up" from a delay by `instanceof Error`,
        // which a socket error made in another realm (a test's sandbox) would not pass.
        reconnectStrategy: (retries: number, cause: Error) => (!connectedOnce && Date.now() >= giveUpAt ? new Error(cause.message, { cause }) : Math.min(50 * 2 ** retries, 2_000)),
      },
    });
  const subscriber = (client as RedisClient).duplicate() as AnyRedisClient;
  // Without a listener node-redis throws its errors; a dropped connection is logged once per outage.
  let down = false;
  const onError = (error: unknown) => {
    if (down) return;
    down = true;
    log.warn({ err: error, code: 'HERMES_REDIS_UNAVAILABLE' }, 'Redis connection lost; reconnecting');
  };
  const onReady = () => {
    down = false;
  };
  for (const c of (own ? [client, subscriber] : [subscriber]) as RedisClient[]) c.on('error', onError).on('node-error', onError).on('ready', onReady).on('node-ready', onReady);
  // `connectTimeout` bounds the start whoever made the client: one given may retry for ever (a
  // failover must not make it give up), and would otherwise hold `redisCluster()` as long.
  let deadline: NodeJS.Timeout | undefined;
  try {
    const connected = Promise.all([client.isOpen ? undefined : client.connect(), subscriber.connect()]);
    connected.catch(() => undefined);
    await Promise.race([
      connected,
      new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`no connection within ${connectTimeout} ms (connectTimeout)`)), connectTimeout);
      }),
    ]);
    connectedOnce = true;
  } catch (error) {
    // destroy() is synchronous: it drops the sockets and the reconnection timers.
    if (own) void client.destroy();
    void subscriber.destroy();
    throw new HermesError('HERMES_REDIS_UNAVAILABLE', `could not connect to Redis at ${options.url ?? 'redis://127.0.0.1:6379'}: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(deadline);
  }
  const redis = new RedisConnection(client, options.prefix ?? 'hermes:', options.durability, (bindings, message) => log.warn(bindings, message), options.commandTimeout);
  const bus = new RedisBus(redis, subscriber, (error) => log.warn({ err: error }, 'a cluster bus message could not be read; ignored'));
  await bus.start();
  const sessionStore = new RedisSessionStore(redis);
  const taskStore = new RedisTaskStore(redis, options.tasks);
  const window = options.events;
  let closed = false;
  return {
    bus,
    sessionStore,
    taskStore,
    replayStore: new RedisReplayStore(redis),
    client,
    eventStore: (sessionId: string): RedisEventStore & EventStore => new RedisEventStore(redis, sessionId, window, bus.instanceId),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      taskStore.close();
      bus.stop();
      await Promise.allSettled([subscriber.close(), own ? client.close() : undefined]);
    },
  };
}
