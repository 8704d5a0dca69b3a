/**
 * The cluster bus on Redis pub/sub: one channel for what every instance hears (`{prefix}{bus}`),
 * one per session for the instances that hold it (`{prefix}bus:{{sessionId}}`, in the session's
 * hash slot). Messages are JSON, `{ o: sender, m: message }`; an instance ignores its own. The
 * subscriber connection is its own (Redis gives a subscribed connection to pub/sub only, and
 * Hermes closes what it made); node-redis subscribes it again after a reconnect.
 *
 * On a Redis Cluster the bus uses sharded pub/sub (`SSUBSCRIBE`/`SPUBLISH`): a message goes to the
 * master holding its channel's slot (and its replicas) only, where classic `PUBLISH` is copied to
 * every node of the cluster — and answers with the receivers of one node only, where "did anyone
 * receive it" must count them all. Sessions' channels spread over the masters as their keys do.
 *
 * While that connection is down, joining a session's channel fails at once, as every other Redis
 * call does: node-redis would hold the `SUBSCRIBE` until its next reconnection attempt failed (up to
 * 2 s with the default back-off), and the request that asked would wait for it. What was joined or
 * left meanwhile is put right when the connection is back ({@link RedisBus.rejoin}).
 */
import { randomBytes } from 'node:crypto';
import type { ClusterBus, ClusterMessage, SessionMessage } from '@hermes-mcp/core';
import { HermesError } from '@hermes-mcp/core';
import { AnyRedisClient, RedisClient, RedisClusterClient, RedisConnection, unavailable } from './connection';

interface Envelope<T> {
  /** The sending instance. */
  o: string;
  m: T;
}

type Listener = (message: string, channel: string) => void;

/** How often, while what the bus listens to is not what its sessions need, it tries again (cluster, Sentinel); and broadcasts waiting. */
const RESYNC_MS = 500;

/** How many broadcasts wait at most while their channel cannot be reached (~200 B each). */
export const BROADCAST_QUEUE = 1_000;

/** The cluster bus on Redis pub/sub (sharded pub/sub on a Redis Cluster). */
export class RedisBus implements ClusterBus {
  readonly instanceId = randomBytes(6).toString('hex');
  private readonly sessions = new Map<string, (message: SessionMessage) => void>();
  private receiver?: (message: ClusterMessage) => void = undefined;
  private readonly broadcastChannel: string;
  private readonly sessionPrefix: string;
  /** On a Redis Cluster or Sentinel: the channels subscribed (node-redis's own record is per node there). */
  private readonly subscribed = new Set<string>();
  private resync?: NodeJS.Timeout = undefined;
  /** Broadcasts waiting for their channel to be reachable again, oldest first. */
  private readonly queued: string[] = [];
  private dropped = 0;
  private flushing?: NodeJS.Timeout = undefined;
  private sending = false;
  private readonly sharded: boolean;

  constructor(
    private readonly redis: RedisConnection,
    /** The connection given to pub/sub: a client of the same kind as the one of `redis`. */
    private readonly subscriber: AnyRedisClient,
    /** Reports a message that could not be read. */
    private readonly onBadMessage: (error: unknown) => void,
  ) {
    this.broadcastChannel = `${redis.prefix}{bus}`;
    this.sessionPrefix = `${redis.prefix}bus:`;
    this.sharded = redis.topology === 'cluster';
    const events = redis.topology === 'cluster' ? ['node-ready'] : redis.topology === 'sentinel' ? ['ready', 'topology-change'] : ['ready'];
    for (const event of events) (subscriber as RedisClient).on(event, this.rejoin);
  }

  /** True while the pub/sub connection is up (joining a session's channel fails at once otherwise). */
  get ready(): boolean {
    return this.subscriber.isReady;
  }

  /** Subscribes to the channel every instance hears. */
  async start(): Promise<void> {
    await this.subscribe(this.broadcastChannel, this.onBroadcastMessage);
  }

  /** Stops the retries of what could not be subscribed or broadcast (the instance is closing). */
  stop(): void {
    if (this.resync) clearInterval(this.resync);
    this.resync = undefined;
    if (this.flushing) clearInterval(this.flushing);
    this.flushing = undefined;
  }

  /**
   * Starts receiving a session's messages. Rejects with `HERMES_REDIS_UNAVAILABLE` at once while
   * the pub/sub connection is down; the session stays joined, and its channel is subscribed when
   * the connection is back (unless it was left meanwhile).
   */
  async join(sessionId: string, receive: (message: SessionMessage) => void): Promise<void> {
    const known = this.sessions.has(sessionId);
    this.sessions.set(sessionId, receive);
    if (known) return;
    if (!this.subscriber.isReady) {
      this.schedule();
      throw new HermesError('HERMES_REDIS_UNAVAILABLE', 'Redis could not be reached (the pub/sub connection is down); the instance reconnects by itself');
    }
    try {
      await this.redis.bound(this.subscribe(this.channelOf(sessionId), this.onSessionMessage), 'SUBSCRIBE');
    } catch (error) {
      this.schedule();
      throw unavailable(error);
    }
  }

  /** Stops receiving a session's messages; while the pub/sub connection is down, its channel is left once it is back. */
  async leave(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId) || !this.subscriber.isReady) return void this.schedule();
    try {
      await this.redis.bound(this.unsubscribe(this.channelOf(sessionId), this.onSessionMessage), 'UNSUBSCRIBE');
    } catch (error) {
      this.schedule();
      throw unavailable(error);
    }
  }

  /** A session's channel: in the session's hash slot. */
  private channelOf(sessionId: string): string {
    return `${this.sessionPrefix}{${sessionId}}`;
  }

  /** The session a channel is for, or undefined for another channel. */
  private sessionOf(channel: string): string | undefined {
    return channel.startsWith(this.sessionPrefix) && channel.endsWith('}') ? channel.slice(this.sessionPrefix.length + 1, -1) : undefined;
  }

  private async subscribe(channel: string, listener: Listener): Promise<void> {
    if (this.redis.topology === 'single') return (this.subscriber as RedisClient).subscribe(channel, listener);
    if (this.sharded) await (this.subscriber as RedisClusterClient).sSubscribe(channel, listener);
    else await (this.subscriber as RedisClient).subscribe(channel, listener);
    this.subscribed.add(channel);
  }

  private async unsubscribe(channel: string, listener: Listener): Promise<void> {
    if (this.redis.topology === 'single') return (this.subscriber as RedisClient).unsubscribe(channel, listener);
    if (this.sharded) await (this.subscriber as RedisClusterClient).sUnsubscribe(channel, listener);
    else await (this.subscriber as RedisClient).unsubscribe(channel, listener);
    this.subscribed.delete(channel);
  }

  /** The channels the pub/sub connection listens to. */
  private listening(): Iterable<string> {
    return this.redis.topology === 'single' ? (this.subscriber as RedisClient).getPubSubListeners('CHANNELS').keys() : this.subscribed;
  }

  /** On a Redis Cluster or Sentinel, where no one event says "all back": tries {@link rejoin} again until in step. */
  private schedule(): void {
    if (this.redis.topology === 'single' || this.resync) return;
    this.resync = setInterval(this.rejoin, RESYNC_MS).unref();
  }

  /**
   * On every (re)connection of the pub/sub connection, once node-redis subscribed again to what it
   * had: subscribes the channels of sessions joined while it was down, and leaves those of sessions
   * left meanwhile — this instance's sessions, not node-redis's memory, say what it listens to.
   */
  private readonly rejoin = (): void => {
    const listening = new Set(this.listening());
    const pending: Array<Promise<void>> = [];
    if (!listening.has(this.broadcastChannel)) pending.push(this.subscribe(this.broadcastChannel, this.onBroadcastMessage));
    for (const sessionId of this.sessions.keys()) {
      const channel = this.channelOf(sessionId);
      if (!listening.has(channel)) pending.push(this.subscribe(channel, this.onSessionMessage));
    }
    for (const channel of listening) {
      const sessionId = this.sessionOf(channel);
      if (sessionId !== undefined && !this.sessions.has(sessionId)) pending.push(this.unsubscribe(channel, this.onSessionMessage));
    }
    if (this.redis.topology === 'single') {
      // A failure means the connection dropped again: the next 'ready' puts it right.
      for (const p of pending) p.catch(() => undefined);
      return;
    }
    if (pending.length === 0) return this.stop();
    this.schedule();
    void Promise.allSettled(pending);
  };

  async publish(sessionId: string, message: SessionMessage): Promise<number> {
    return (await this.redis.send([this.sharded ? 'SPUBLISH' : 'PUBLISH', this.channelOf(sessionId), this.envelope(message)])) as number;
  }

  /**
   * Sends a message to every other instance. While its channel cannot be reached (Redis away, or
   * the master of its slot failing over), the message waits in a queue of at most
   * {@link BROADCAST_QUEUE} messages (the oldest dropped past it), sent in order once the channel is
   * back — a list change or a resource update raised meanwhile comes late rather than never.
   */
  async broadcast(message: ClusterMessage): Promise<void> {
    const envelope = this.envelope(message);
    if (this.queued.length > 0) return this.enqueue(envelope);
    try {
      await this.redis.send([this.sharded ? 'SPUBLISH' : 'PUBLISH', this.broadcastChannel, envelope]);
    } catch (error) {
      if (!(error instanceof HermesError)) throw error;
      this.enqueue(envelope);
    }
  }

  /** Broadcasts dropped because the queue was full (Redis away for long). */
  get broadcastsDropped(): number {
    return this.dropped;
  }

  private enqueue(envelope: string): void {
    this.queued.push(envelope);
    if (this.queued.length > BROADCAST_QUEUE) {
      this.queued.shift();
      this.dropped++;
    }
    this.flushing ??= setInterval(() => void this.flush(), RESYNC_MS).unref();
  }

  /** Sends what waits, in order, until one fails (the next tick tries again) or none is left. */
  private async flush(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queued.length > 0) {
        await this.redis.send([this.sharded ? 'SPUBLISH' : 'PUBLISH', this.broadcastChannel, this.queued[0]]);
        this.queued.shift();
      }
      if (this.flushing) clearInterval(this.flushing);
      this.flushing = undefined;
    } catch {
      // Still away: the next tick tries again.
    } finally {
      this.sending = false;
    }
  }

  onBroadcast(receive: (message: ClusterMessage) => void): void {
    this.receiver = receive;
  }

  /** How many sessions this instance receives messages for. */
  get joined(): number {
    return this.sessions.size;
  }

  private envelope(message: SessionMessage | ClusterMessage): string {
    return JSON.stringify({ o: this.instanceId, m: message });
  }

  private readonly onBroadcastMessage = (raw: string): void => {
    const envelope = this.read<ClusterMessage>(raw);
    if (envelope && envelope.o !== this.instanceId) this.receiver?.(envelope.m);
  };

  private readonly onSessionMessage = (raw: string, channel: string): void => {
    const envelope = this.read<SessionMessage>(raw);
    if (!envelope || envelope.o === this.instanceId) return;
    const sessionId = this.sessionOf(channel);
    if (sessionId !== undefined) this.sessions.get(sessionId)?.(envelope.m);
  };

  private read<T>(raw: string): Envelope<T> | undefined {
    try {
      const envelope = JSON.parse(raw) as Envelope<T>;
      if (typeof envelope?.o === 'string' && typeof envelope.m === 'object' && envelope.m !== null) return envelope;
      throw new Error('not a bus message');
    } catch (error) {
      this.onBadMessage(error);
      return undefined;
    }
  }
}
