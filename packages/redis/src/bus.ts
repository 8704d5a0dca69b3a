/**
 * The cluster bus on Redis pub/sub: one channel for what every instance hears (`{prefix}bus`), one
 * per session for the instances that hold it (`{prefix}bus:{sessionId}`). Messages are JSON,
 * `{ o: sender, m: message }`; an instance ignores its own. The subscriber connection is its own
 * (Redis gives a subscribed connection to pub/sub only); node-redis subscribes it again after a
 * reconnect.
 *
 * While that connection is down, joining a session's channel fails at once, as every other Redis
 * call does: node-redis would hold the `SUBSCRIBE` until its next reconnection attempt failed (up to
 * 2 s with the default back-off), and the request that asked would wait for it. What was joined or
 * left meanwhile is put right when the connection is back ({@link RedisBus.rejoin}).
 */
import { randomBytes } from 'node:crypto';
import type { ClusterBus, ClusterMessage, SessionMessage } from '@hermes-mcp/core';
import { HermesError } from '@hermes-mcp/core';
import { RedisClient, RedisConnection, unavailable } from './connection';

interface Envelope<T> {
  /** The sending instance. */
  o: string;
  m: T;
}

/** The cluster bus on Redis pub/sub. */
export class RedisBus implements ClusterBus {
  readonly instanceId = randomBytes(6).toString('hex');
  private readonly sessions = new Map<string, (message: SessionMessage) => void>();
  private receiver?: (message: ClusterMessage) => void = undefined;
  private readonly broadcastChannel: string;
  private readonly sessionPrefix: string;

  constructor(
    private readonly redis: RedisConnection,
    /** The connection given to pub/sub. */
    private readonly subscriber: RedisClient,
    /** Reports a message that could not be read. */
    private readonly onBadMessage: (error: unknown) => void,
  ) {
    this.broadcastChannel = `${redis.prefix}bus`;
    this.sessionPrefix = `${redis.prefix}bus:`;
    subscriber.on('ready', this.rejoin);
  }

  /** True while the pub/sub connection is up (joining a session's channel fails at once otherwise). */
  get ready(): boolean {
    return this.subscriber.isReady;
  }

  /** Subscribes to the channel every instance hears. */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.broadcastChannel, this.onBroadcastMessage);
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
    if (!this.subscriber.isReady)
      throw new HermesError('HERMES_REDIS_UNAVAILABLE', 'Redis could not be reached (the pub/sub connection is down); the instance reconnects by itself');
    try {
      await this.subscriber.subscribe(this.sessionPrefix + sessionId, this.onSessionMessage);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Stops receiving a session's messages; while the pub/sub connection is down, its channel is left once it is back. */
  async leave(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId) || !this.subscriber.isReady) return;
    try {
      await this.subscriber.unsubscribe(this.sessionPrefix + sessionId, this.onSessionMessage);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * On every (re)connection of the pub/sub connection, once node-redis subscribed again to what it
   * had: subscribes the channels of sessions joined while it was down, and leaves those of sessions
   * left meanwhile — this instance's sessions, not node-redis's memory, say what it listens to.
   */
  private readonly rejoin = (): void => {
    const listening = this.subscriber.getPubSubListeners('CHANNELS');
    for (const sessionId of this.sessions.keys()) {
      const channel = this.sessionPrefix + sessionId;
      // A failure means the connection dropped again: the next 'ready' puts it right.
      if (!listening.has(channel)) this.subscriber.subscribe(channel, this.onSessionMessage).catch(() => undefined);
    }
    for (const channel of listening.keys()) {
      if (channel.startsWith(this.sessionPrefix) && !this.sessions.has(channel.slice(this.sessionPrefix.length))) {
        this.subscriber.unsubscribe(channel, this.onSessionMessage).catch(() => undefined);
      }
    }
  };

  async publish(sessionId: string, message: SessionMessage): Promise<number> {
    return (await this.redis.send(['PUBLISH', this.sessionPrefix + sessionId, this.envelope(message)])) as number;
  }

  async broadcast(message: ClusterMessage): Promise<void> {
    await this.redis.send(['PUBLISH', this.broadcastChannel, this.envelope(message)]);
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
    this.sessions.get(channel.slice(this.sessionPrefix.length))?.(envelope.m);
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
