/**
 * The endpoint's live sessions (those this process serves; their records are in the session
 * store): idle expiry with one list ordered by last use and one timer (instead of a timer,
 * closures and a promise per session), how many each client holds, and eviction of the
 * longest-idle session when the server is full.
 */
import type { Connection } from '../../engine/connection';
import { MAX_TIMER_DELAY } from '@hermes-mcp/protocol';
import type { AuthInfo } from '../../context/mcp-context';
import type { WebSocketTransport } from '../websocket';
import type { HttpSseTransport } from './sse-2024';
import type { StreamableHttpTransport } from './streamable';

/** A live session: its transport and its engine connection. */
export interface HttpSession {
  readonly id: string;
  readonly transport: StreamableHttpTransport | HttpSseTransport | WebSocketTransport;
  readonly connection: Connection;
  /** Who opened it (see {@link principalOf}); undefined for anonymous callers. */
  readonly principal?: string;
  /** The client that opened it (`clientKey`): its limits count the session's output. */
  readonly client: string;
  /** Restarts the idle clock (an adapter calls it on activity it carries itself, such as WebSocket frames). */
  touch(): void;
  /** Ends the session: in-flight requests are aborted, streams closed. */
  close(): Promise<void>;
  /**
   * Ends the session gracefully: new requests are refused with -32010, those in flight get
   * `gracePeriod` ms to finish (then -32010), then streams close.
   */
  drain(gracePeriod: number): Promise<void>;
}

/**
 * Who a session belongs to: the issuer and subject of its caller (or the OAuth client, for a token
 * with no subject); undefined for anonymous callers.
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  // Space separates: neither an issuer URL nor the subject's marker holds one.
  return auth.subject !== undefined ? `${auth.issuer ?? ''} sub:${auth.subject}` : `${auth.issuer ?? ''} client:${auth.clientId ?? ''}`;
}

/**
 * One session as the endpoint keeps it. It is also a link of its {@link IdleSessions} list, so an
 * idle session holds no timer, closure or promise of its own: only these fields. @internal
 */
export class LiveSession implements HttpSession {
  /** The session used just before this one, in its idle list. */
  older?: LiveSession = undefined;
  /** The session used just after this one, in its idle list. */
  newer?: LiveSession = undefined;
  /** When it was last used, in whole milliseconds of `performance.now()` (rounded up). */
  lastUsed = 0;
  /** When its record's expiry in the session store was last pushed back (same clock as {@link lastUsed}). */
  storeTouched = 0;

  constructor(
    readonly id: string,
    readonly transport: HttpSession['transport'],
    readonly connection: Connection,
    private readonly idle: IdleSessions,
    /** The client that opened it (`clientKey`), counted toward `maxSessionsPerClient`. */
    readonly client: string,
    /** Who opened it (the caller's issuer and subject), when the endpoint authenticates: only they may use it. */
    readonly principal?: string,
  ) {}

  touch(): void {
    this.idle.touch(this);
  }

  async close(): Promise<void> {
    this.idle.forget(this);
    await this.connection.close();
  }

  async drain(gracePeriod: number): Promise<void> {
    await this.connection.drain(gracePeriod);
    this.idle.forget(this);
  }
}

/**
 * The sessions of one plugin, in a list ordered by last use, and one timer for all of them: a
 * touch moves a session to the end, so the first is always the next to expire, and the timer is
 * set for it. Ending a session after `idleTimeout` ms without a request costs no timer per session.
 * @internal
 */
export class IdleSessions {
  private oldest?: LiveSession = undefined;
  private newest?: LiveSession = undefined;
  private timer?: NodeJS.Timeout = undefined;
  /** Sessions held, by client. */
  private readonly perClient = new Map<string, number>();
  /** The live sessions by id. */
  private readonly byId = new Map<string, LiveSession>();

  constructor(
    private readonly idleTimeout: number,
    private readonly log: { debug(bindings: object, message: string): void },
    /** A session evicted to make room ended (called before its copy closes): its record and events may go too. */
    private readonly evicted: (session: LiveSession) => void,
    /** A session ended here for want of use (the endpoint forgets its events once no process can serve it). */
    private readonly expired: (session: LiveSession) => void = () => undefined,
  ) {}

  /** The live session of that id. */
  get(id: string): LiveSession | undefined {
    return this.byId.get(id);
  }

  /** How many sessions are live. */
  get size(): number {
    return this.byId.size;
  }

  /** Every live session. */
  values(): IterableIterator<LiveSession> {
    return this.byId.values();
  }

  /** How many sessions `client` holds. */
  heldBy(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /**
   * Ends the session idle longest that has no request in flight (looking at the `scan` oldest),
   * to make room for a new one; false when each of them is busy.
   */
  evictIdlest(scan = 64): boolean {
    let candidate = this.oldest;
    for (let i = 0; candidate !== undefined && i < scan; i++, candidate = candidate.newer) {
      if (candidate.connection.peer.inflightCount > 0) continue;
      const evicted = candidate;
      this.forget(evicted);
      this.log.debug({ sessionId: evicted.id }, 'session evicted to make room (maxSessions)');
      this.evicted(evicted);
      void evicted.close();
      return true;
    }
    return false;
  }

  /** Keeps a new session and starts its idle clock. */
  add(session: LiveSession): void {
    this.byId.set(session.id, session);
    this.perClient.set(session.client, this.heldBy(session.client) + 1);
    session.lastUsed = Math.ceil(performance.now());
    this.append(session);
    if (this.timer === undefined) this.arm();
  }

  /** Restarts the idle clock of a session: it becomes the last to expire. */
  touch(session: LiveSession): void {
    if (!this.holds(session)) return;
    session.lastUsed = Math.ceil(performance.now());
    if (session === this.newest) return;
    this.unlink(session);
    this.append(session);
  }

  /** Forgets a session that ends (closed, expired, or its connection gone). */
  forget(session: LiveSession): void {
    if (this.byId.get(session.id) === session) this.byId.delete(session.id);
    if (!this.holds(session)) return;
    this.unlink(session);
    const held = this.heldBy(session.client) - 1;
    if (held > 0) this.perClient.set(session.client, held);
    else this.perClient.delete(session.client);
    if (this.oldest === undefined && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** The connection of a session is gone, however it ended (`ConnectionOptions.onclose`). */
  connectionClosed(connection: Connection): void {
    const session = this.byId.get((connection.transport as HttpSession['transport']).sessionId);
    if (session && session.connection === connection) this.forget(session);
  }

  private holds(session: LiveSession): boolean {
    return session.older !== undefined || this.oldest === session;
  }

  private append(session: LiveSession): void {
    session.older = this.newest;
    session.newer = undefined;
    if (this.newest) this.newest.newer = session;
    else this.oldest = session;
    this.newest = session;
  }

  private unlink(session: LiveSession): void {
    const { older, newer } = session;
    if (older) older.newer = newer;
    else this.oldest = newer;
    if (newer) newer.older = older;
    else this.newest = older;
    session.older = session.newer = undefined;
  }

  /** Sets the timer for when the oldest session expires (a touch since only makes it early). */
  private arm(): void {
    const oldest = this.oldest;
    if (oldest === undefined) return;
    const delay = Math.ceil(oldest.lastUsed + this.idleTimeout - performance.now());
    this.timer = setTimeout(this.sweep, Math.min(Math.max(delay, 1), MAX_TIMER_DELAY));
    this.timer.unref();
  }

  /** Ends every session idle for `idleTimeout` ms or more, then waits for the next one. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (let oldest = this.oldest; oldest !== undefined && oldest.lastUsed + this.idleTimeout <= now; oldest = this.oldest) {
      this.forget(oldest);
      this.log.debug({ sessionId: oldest.id }, 'session expired');
      void oldest.close();
      this.expired(oldest);
    }
    this.arm();
  };
}
