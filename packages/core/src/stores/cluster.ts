/**
 * Several instances of one server behind a load balancer, without sticky sessions. A session's
 * record is in the shared {@link SessionStore}, its streams' events in a shared {@link EventStore},
 * tasks in a shared {@link TaskStore}; what cannot wait for a store — an answer to an elicitation
 * that arrived at the wrong instance, a list change, a cancelled task — crosses on the
 * {@link ClusterBus}. `@hermes-mcp/redis` implements all four on Redis; the in-memory defaults serve
 * one process.
 */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import type { Awaitable } from './awaitable';
import type { EventStore } from './event-store';
import type { SessionChange, SessionStore } from './session-store';
import type { ReplayStore } from './replay-store';
import type { TaskStore } from './task-store';
import type { AuthInfo } from '../context/mcp-context';

/**
 * What one instance tells the others that hold the same legacy session (each instance a request
 * of it reaches takes it up, and keeps it until it idles out):
 *
 * - `inbound`: a message from the client that this instance could not place — a response to a
 *   server→client request another instance made (elicitation, sampling, roots), or a
 *   `notifications/cancelled` for a request running elsewhere;
 * - `change`: the record changed (logging level, a subscription);
 * - `stream`: the sender now holds the session's GET stream (the others stop writing theirs);
 * - `ended`: the session was deleted (`DELETE`);
 * - `post`: the body of a `POST {path}/messages` of a 2024-11-05 HTTP+SSE session, whose one
 *   stream is held by another instance (`auth`: who sent it, checked there).
 */
export type SessionMessage =
  | { readonly kind: 'inbound'; readonly message: JsonRpcMessage }
  | { readonly kind: 'post'; readonly body: unknown; readonly auth?: AuthInfo }
  | { readonly kind: 'change'; readonly change: SessionChange }
  | { readonly kind: 'stream' }
  | { readonly kind: 'ended' };

/**
 * What one instance tells every other:
 *
 * - `notify`: a list change or resource update raised here, for every instance's sessions and
 *   listen streams (`uri` set: only those subscribed to it); `key` names it the same everywhere
 *   (see `SendOptions.eventKey`);
 * - `task`: `tasks/cancel` or `tasks/update` for a task that runs on another instance.
 */
export type ClusterMessage =
  | { readonly kind: 'notify'; readonly method: string; readonly params?: Record<string, unknown>; readonly uri?: string; readonly key: string }
  | { readonly kind: 'task'; readonly action: 'cancel'; readonly taskId: string }
  | { readonly kind: 'task'; readonly action: 'update'; readonly taskId: string; readonly responses: Record<string, unknown> };

/**
 * Messages between the instances of one server. An instance never receives what it sent itself.
 * Delivery is at most once and in order per sender (pub/sub): what must survive an instance lives
 * in the stores, the bus only saves waiting for them.
 */
export interface ClusterBus {
  /** This instance's id: unique in the cluster, made of `[0-9a-z]` only (it prefixes ids this instance makes). */
  readonly instanceId: string;
  /**
   * Starts receiving what other instances publish for a session held here. When the bus cannot be
   * reached it rejects at once (a request waits on it) and joins the channel once it is back,
   * unless the session was left meanwhile.
   */
  join(sessionId: string, receive: (message: SessionMessage) => void): Awaitable<void>;
  /** Stops receiving a session's messages (it ended here); while the bus cannot be reached, once it is back. */
  leave(sessionId: string): Awaitable<void>;
  /** Sends a message to the other instances that hold a session; resolves with how many received it (0: none holds it). */
  publish(sessionId: string, message: SessionMessage): Awaitable<number>;
  /** Sends a message to every other instance. */
  broadcast(message: ClusterMessage): Awaitable<void>;
  /** Where messages broadcast by other instances go (one receiver: the app's engine). */
  onBroadcast(receive: (message: ClusterMessage) => void): void;
}

/**
 * Everything an app needs to run as one of several instances: give it as `McpAppOptions.cluster`
 * (the HTTP endpoint takes its session and event stores from it). `redisCluster()` of
 * `@hermes-mcp/redis` makes one.
 */
export interface Cluster {
  readonly bus: ClusterBus;
  readonly sessionStore: SessionStore;
  /** The event store of one session's streams. */
  eventStore(sessionId: string): EventStore;
  readonly taskStore: TaskStore;
  /**
   * Where DPoP proofs are remembered (their `jti`), shared by every instance, so that a proof
   * used on one is refused on the others. Without it, each instance remembers its own.
   */
  readonly replayStore?: ReplayStore;
  /** Releases what the cluster holds (connections); the app calls it when it closes. */
  close(): Promise<void>;
}
