/**
 * The cluster bus on Redis pub/sub: one channel for what every instance hears (`{prefix}bus`), one
 * per session for the instances that hold it (`{prefix}bus:{sessionId}`). Messages are JSON,
 * `{ o: sender, m: message }`; an instance ignores its own. The subscriber connection is its own
 * (Redis gives a subscribed connection to pub/sub only); node-redis subscribes it again after a
 * reconnect.
 */
import { randomBytes } from 'node:crypto';
import type { ClusterBus, ClusterMessage, SessionMessage } from '@hermes-mcp/core';
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
  }

  /** Subscribes to the channel every instance hears. */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.broadcastChannel, this.onBroadcastMessage);
  }

  async join(sessionId: string, receive: (message: SessionMessage) => void): Promise<void> {
    const known = this.sessions.has(sessionId);
    this.sessions.set(sessionId, receive);
    if (known) return;
    try {
      await this.subscriber.subscribe(this.sessionPrefix + sessionId, this.onSessionMessage);
    } catch (error) {
      this.sessions.delete(sessionId);
      throw unavailable(error);
    }
  }

  async leave(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId)) return;
    try {
      await this.subscriber.unsubscribe(this.sessionPrefix + sessionId, this.onSessionMessage);
    } catch (error) {
      throw unavailable(error);
    }
  }

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
