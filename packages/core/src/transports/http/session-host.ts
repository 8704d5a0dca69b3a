/**
 * The sessions an endpoint serves, from opening to end: the limits a new one must pass, opening
 * one over any transport, finding the one a request names (taken up from the session store when
 * another instance opened it), the cluster glue that carries what other instances send it, idle
 * expiry, eviction and graceful close. The endpoint's routes ask it; they never touch its state.
 */
import { JsonRpcMessage, LEGACY_PROTOCOL_VERSIONS, TransportInfo, classifyValue, isThenable, nodeCrypto } from '@hermes-mcp/protocol';
import type { AuthInfo } from '../../context/mcp-context';
import type { Connection, ConnectionOptions } from '../../engine/connection';
import type { ServedApp } from '../../bootstrap/served-app';
import type { Logger } from '../../logger';
import { EventStore, InMemoryEventStore } from '../../stores/event-store';
import { InMemorySessionStore, SessionRecord, SessionStore } from '../../stores/session-store';
import type { Cluster, SessionMessage } from '../../stores/cluster';
import type { OutputLimits } from '../backpressure';
import type { ClientOutput, ClientView } from '../unread';
import { headerOf } from './accept';
import type { HttpRequest, HttpResponse } from './exchange';
import type { HttpSettings } from './options';
import { HTTP_REFUSALS, refuse } from './refusals';
import { HttpSession, IdleSessions, LiveSession, principalOf } from './sessions';
import { HttpSseTransport } from './sse-2024';
import { StreamableHttpTransport } from './streamable';

/** A session that could not be taken up here (the limits): the request that asked was answered. */
const REFUSED_SESSION = Symbol('refused session');
const SUPPORTED_HEADER_VERSIONS: readonly string[] = LEGACY_PROTOCOL_VERSIONS;
/** The shape of the session ids this endpoint makes (`randomBytes(24)` in base64url). */
const SESSION_ID = /^[A-Za-z0-9_-]{32}$/;

/**
 * The options of a Streamable HTTP session's transport. `onDropped` is a method, not a closure per
 * session: the transport calls it on these options, so the session id comes from `this`.
 */
class SessionTransportOptions {
  constructor(
    readonly sessionId: string,
    /** The session's events, kept for resumption (the in-memory store allocates nothing before the first). */
    readonly eventStore: EventStore,
    readonly retryMs: number,
    readonly maxBufferedBytes: number,
    private readonly log: Logger,
    /** The limits on what goes out to the session's client. */
    readonly limits: OutputLimits,
    /** The session's client, whose unread output counts over all its connections. */
    readonly client: ClientView,
    /** The cluster instance's id, when there is a cluster: its stream ids are its own. */
    readonly streamPrefix?: string,
  ) {}

  /** Logs a message that had no stream to go to. */
  onDropped(message: JsonRpcMessage | JsonRpcMessage[]): void {
    this.log.debug({ sessionId: this.sessionId, message }, 'no stream for a message; dropped');
  }

  /** Logs a failed event store call. */
  onStoreError(error: unknown): void {
    this.log.warn({ sessionId: this.sessionId, err: error }, 'the event store failed; resuming this stream may fail');
  }
}

/** What a {@link SessionHost} is made of: the endpoint's settings, limits and stores. */
export interface SessionHostOptions {
  readonly app: ServedApp;
  readonly settings: HttpSettings;
  readonly log: Logger;
  /** What each client was sent and has not taken, over all its connections. */
  readonly output: ClientOutput;
  readonly limits: OutputLimits;
  /** Which client a request comes from (`clientKey`). */
  readonly clientKey: (request: HttpRequest) => string;
  /** The event store of a new Streamable HTTP session (the `eventStore` option). */
  readonly eventStore?: (sessionId: string) => EventStore;
  /** The `sessionStore` option. */
  readonly sessionStore?: SessionStore;
}

/** The sessions one endpoint serves, and their life. */
export class SessionHost {
  /** True once closing began: no new sessions or streams. */
  closing = false;
  /** The cluster this instance belongs to (the app's), if any. */
  readonly cluster?: Cluster;
  private readonly store: SessionStore;
  /** The sessions this process serves. */
  private readonly sessions: IdleSessions;
  /** Sessions being taken up from their records, so that concurrent requests take each up once. */
  private readonly restoring = new Map<string, Promise<HttpSession | typeof REFUSED_SESSION | undefined>>();
  /** Clients told about once that they reached `maxSessionsPerClient` (bounded: cleared when it grows large). */
  private readonly capped = new Set<string>();
  private readonly app: ServedApp;
  private readonly settings: HttpSettings;
  private readonly log: Logger;
  private readonly output: ClientOutput;
  private readonly limits: OutputLimits;
  private readonly clientKey: (request: HttpRequest) => string;
  private readonly eventStore?: (sessionId: string) => EventStore;
  private readonly connectionClosed = (connection: Connection): void => {
    this.sessions.connectionClosed(connection);
    // A session of a cluster joined the bus (see join, joinSse): it leaves it.
    const transport = connection.transport;
    if (this.cluster && (transport instanceof StreamableHttpTransport || transport instanceof HttpSseTransport)) this.settle(this.cluster.bus.leave(transport.sessionId));
  };
  /** Reports a session store call not waited for that failed. */
  private readonly storeFailed = (error: unknown): void => this.log.warn({ err: error }, 'the session store failed');
  /** Reports an ended session whose events could not be forgotten. */
  private readonly eventsKept = (error: unknown): void => this.log.warn({ err: error }, "the stores failed: an ended session's events stay in the event store until they expire");

  constructor(options: SessionHostOptions) {
    ({ app: this.app, settings: this.settings, log: this.log, output: this.output, limits: this.limits, clientKey: this.clientKey } = options);
    this.cluster = this.app.cluster;
    this.store = options.sessionStore ?? this.cluster?.sessionStore ?? new InMemorySessionStore();
    const cluster = this.cluster;
    this.eventStore = options.eventStore ?? (cluster && ((sessionId: string) => cluster.eventStore(sessionId)));
    // In a cluster, a session evicted here to make room may live on elsewhere: its record and events stay.
    const evicted = cluster ? () => undefined : (session: LiveSession) => this.evicted(session);
    this.sessions = new IdleSessions(this.settings.sessionIdleTimeout, this.log, evicted, (session) => this.expired(session));
  }

  /** The sessions this process serves. */
  get size(): number {
    return this.sessions.size;
  }

  /** The session with this id that this process serves, if any. */
  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Whether a new session may open for `client`; answers 503 (shutting down, or full of busy
   * sessions) or 429 (this client holds its maximum) when not. At `maxSessions`, the session idle
   * longest makes room.
   */
  admit(response: HttpResponse, client: string): boolean {
    if (this.closing) {
      refuse(response, HTTP_REFUSALS.SHUTTING_DOWN, undefined);
      return false;
    }
    const { maxSessions, maxSessionsPerClient } = this.settings;
    if (this.sessions.heldBy(client) >= maxSessionsPerClient) {
      // Once per client, for the operator: behind a proxy every client may look like one.
      if (!this.capped.has(client)) {
        if (this.capped.size >= 1024) this.capped.clear();
        this.capped.add(client);
        this.log.warn(
          { client, maxSessionsPerClient },
          "a client reached maxSessionsPerClient; behind a proxy, set your server's trust of proxies (Fastify's trustProxy) or clientKey so clients are told apart",
        );
      }
      refuse(response, HTTP_REFUSALS.TOO_MANY_SESSIONS, undefined, maxSessionsPerClient);
      return false;
    }
    if (this.sessions.size >= maxSessions && !this.sessions.evictIdlest()) {
      refuse(response, HTTP_REFUSALS.SERVER_FULL, undefined, maxSessions);
      return false;
    }
    return true;
  }

  /**
   * Opens a session for `client` over the transport made for its new id: an engine connection,
   * kept with the others (idle expiry, limits, graceful close). Call {@link admit} first.
   */
  async open(client: string, makeTransport: (id: string) => HttpSession['transport'], principal?: string): Promise<HttpSession> {
    const id = nodeCrypto().randomBytes(24).toString('base64url');
    return this.start(id, client, makeTransport(id), {}, principal);
  }

  /** Opens a Streamable HTTP session: a new one (`initialize`), or one taken up from its record. */
  async openStreamable(client: string, restore?: SessionRecord, principal = restore?.principal, joined = false): Promise<HttpSession> {
    const id = restore?.id ?? nodeCrypto().randomBytes(24).toString('base64url');
    const { eventStoreLimit, eventStoreBytes, retryMs, maxBufferedBytes } = this.settings;
    const cluster = this.cluster;
    const transport = new StreamableHttpTransport(
      new SessionTransportOptions(
        id,
        this.eventStore ? this.eventStore(id) : new InMemoryEventStore(eventStoreLimit, eventStoreBytes),
        retryMs,
        maxBufferedBytes,
        this.log,
        this.limits,
        this.output.of(client),
        cluster?.bus.instanceId,
      ),
    );
    const session = await this.start(
      id,
      client,
      transport,
      { sessionStore: this.store, sessionIdleMs: this.settings.sessionIdleTimeout, restore, principal, bus: cluster?.bus },
      principal,
    );
    // Joined before the session serves anything here (a session taken up joined before its record was read).
    if (cluster && !joined && !session.connection.isClosed) await this.joinBus(cluster, id, this.receiverOf(session));
    return session;
  }

  private async start(
    id: string,
    client: string,
    transport: HttpSession['transport'],
    options: Pick<ConnectionOptions, 'sessionStore' | 'sessionIdleMs' | 'restore' | 'principal' | 'bus'>,
    principal: string | undefined,
  ): Promise<HttpSession> {
    // The session's child logger (bound to its id) is made when the session first logs.
    const connection = await this.app.connect(transport, { ...options, sessionId: id, logger: this.log, loggerBindings: { sessionId: id }, onclose: this.connectionClosed });
    const session = new LiveSession(id, transport, connection, this.sessions, client, principal);
    // Closed while connecting (a legacy SSE stream cut at once): nothing to keep.
    if (!connection.isClosed) this.sessions.add(session);
    return session;
  }

  /**
   * The Streamable HTTP session named by the request's header: 400 without one, 404 for an
   * unknown one. A session this process does not serve is taken up from its record in the session
   * store, if it has one.
   */
  find(request: HttpRequest, response: HttpResponse, auth: AuthInfo | undefined): HttpSession | undefined | Promise<HttpSession | undefined> {
    const id = headerOf(request.headers, 'mcp-session-id');
    if (!id) {
      refuse(response, HTTP_REFUSALS.SESSION_ID_REQUIRED, undefined);
      return undefined;
    }
    const version = headerOf(request.headers, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_HEADER_VERSIONS.includes(version)) {
      refuse(response, HTTP_REFUSALS.UNSUPPORTED_VERSION_HEADER, undefined, version, SUPPORTED_HEADER_VERSIONS);
      return undefined;
    }
    const session = this.sessions.get(id);
    // A session serves the principal that opened it only; to anyone else it does not exist.
    if (session && session.principal !== principalOf(auth)) return this.notFound(response);
    if (session && session.transport instanceof StreamableHttpTransport) {
      session.touch();
      this.touchRecord(session);
      return session;
    }
    // Not an id this endpoint makes (24 random bytes, base64url): no store or bus is asked about it.
    if (session || this.closing || !SESSION_ID.test(id)) return this.notFound(response);
    return this.takeUp(id, request, response, principalOf(auth));
  }

  /** 404 for a session that is not (or no longer) here; 503 while shutting down. */
  notFound(response: HttpResponse): undefined {
    // While shutting down, a session that ended for it is not "not found": the client should go
    // elsewhere or come back later, not re-initialize here.
    refuse(response, this.closing ? HTTP_REFUSALS.SHUTTING_DOWN : HTTP_REFUSALS.SESSION_NOT_FOUND, undefined);
    return undefined;
  }

  /**
   * Pushes back the expiry of a session's record, at most once per tenth of the idle timeout (and
   * per 10 s): a networked store then costs a busy session one command every few seconds, not one
   * per request; the record may expire that much before the last request. The live session's own
   * idle clock is exact.
   */
  private touchRecord(session: LiveSession): void {
    const idle = this.settings.sessionIdleTimeout;
    if (session.lastUsed - session.storeTouched < Math.min(idle / 10, 10_000)) return;
    session.storeTouched = session.lastUsed;
    this.settle(this.store.touch(session.id, idle));
  }

  /** Takes up a session this process does not serve from its record (once, however many requests ask). */
  private async takeUp(id: string, request: HttpRequest, response: HttpResponse, principal: string | undefined): Promise<HttpSession | undefined> {
    let pending = this.restoring.get(id);
    const own = pending === undefined;
    if (!pending) {
      pending = (async () => {
        // In a cluster, the session's channel is joined before its record is read: a change
        // published meanwhile waits here and is applied after it (changes are idempotent).
        const cluster = this.cluster;
        const early: SessionMessage[] = [];
        let deliver: (message: SessionMessage) => void = (message) => void early.push(message);
        if (cluster) await this.joinBus(cluster, id, (message) => deliver(message));
        let session: HttpSession | undefined;
        try {
          const record = await this.store.get(id);
          if (!record || this.closing) return undefined;
          const client = this.clientKey(request);
          // The limits hold for sessions taken up as for new ones (the answer, if refused, goes to this request).
          if (!this.admit(response, client)) return REFUSED_SESSION;
          session = await this.openStreamable(client, record, undefined, true);
        } finally {
          if (cluster && (!session || session.connection.isClosed)) this.settle(cluster.bus.leave(id));
        }
        if (cluster) {
          deliver = this.receiverOf(session);
          for (const message of early.splice(0)) deliver(message);
        }
        this.log.debug({ sessionId: id }, 'session taken up from the session store');
        session.touch();
        this.touchRecord(session as LiveSession);
        return session;
      })().finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    let session: HttpSession | typeof REFUSED_SESSION | undefined;
    try {
      session = await pending;
    } catch (error) {
      this.log.warn({ sessionId: id, err: error }, 'the session store failed to find a session');
      refuse(response, HTTP_REFUSALS.SESSION_STORE_FAILED, undefined);
      return undefined;
    }
    if (session === REFUSED_SESSION) {
      // The request that asked first got the refusal (429 or 503); the others wait with it.
      if (!own) refuse(response, HTTP_REFUSALS.TAKE_UP_REFUSED, undefined);
      return undefined;
    }
    if (!session || session.principal !== principal) return this.notFound(response);
    session.touch();
    return session;
  }

  /**
   * What a Streamable HTTP session does with the other instances' messages for it: answers to
   * requests made here and record changes go to its connection, the GET stream moving elsewhere
   * releases this one's, the session's end closes it. Its channel is left when the session ends
   * here ({@link connectionClosed}).
   */
  private receiverOf(session: HttpSession): (message: SessionMessage) => void {
    const transport = session.transport as StreamableHttpTransport;
    const connection = session.connection;
    return (message) => {
      if (message.kind === 'stream') transport.releaseStandalone();
      else if (message.kind === 'ended') this.end(session).catch(this.eventsKept);
      else connection.clusterMessage(message);
    };
  }

  /** `DELETE`: ends a session everywhere — here, its record, and its copies on other instances. */
  async endEverywhere(session: HttpSession): Promise<void> {
    await Promise.all([this.end(session), this.store.delete(session.id), this.cluster?.bus.publish(session.id, { kind: 'ended' })]);
  }

  /**
   * Ends a session for good (`DELETE`, here or on another instance): its copy here closes, then its
   * events are forgotten — every stream the event store holds for it, whoever wrote them. Each
   * instance that held the session clears after closing its copy, so nothing it was still storing
   * outlives the session.
   */
  private async end(session: HttpSession): Promise<void> {
    await session.close();
    const events = (session.transport as StreamableHttpTransport).eventStore;
    await events.clear?.();
  }

  /**
   * A session evicted to make room, without a cluster: it ends, its record and its events go (the
   * copy closes right after this, and stores nothing more).
   */
  private evicted(session: LiveSession): void {
    this.settle(this.store.delete(session.id));
    const events = session.transport instanceof StreamableHttpTransport ? session.transport.eventStore : undefined;
    if (events?.clear === undefined) return;
    const clear = async () => events.clear?.();
    clear().catch(this.eventsKept);
  }

  /**
   * A session idled out here: once the session store has no record of it either, no process can
   * serve it again, and its events are forgotten. In a cluster each instance's copy idles out on
   * its own clock; the record expires with the last use anywhere, so the instance that served the
   * last request finds it gone (and the others find it kept, and leave the streams alone). The
   * store is asked a moment later: the record's expiry may lag this copy's by the time its last
   * touch took to reach the store.
   */
  private expired(session: LiveSession): void {
    const transport = session.transport;
    const events = transport instanceof StreamableHttpTransport ? transport.eventStore : undefined;
    if (events?.clear === undefined) return;
    const id = session.id;
    const check = async () => {
      if ((await this.store.get(id)) !== undefined) {
        this.log.debug({ sessionId: id }, 'session expired here, its record lives on (another instance serves it): its events stay');
        return;
      }
      await events.clear?.();
      this.log.debug({ sessionId: id }, 'session expired everywhere: its events were forgotten');
    };
    setTimeout(() => void check().catch(this.eventsKept), Math.min(this.settings.sessionIdleTimeout, 1_000)).unref();
  }

  /** Joins a session's bus channel; a bus that fails is logged, and the session serves what it can here. */
  private async joinBus(cluster: Cluster, sessionId: string, receive: (message: SessionMessage) => void): Promise<void> {
    try {
      await cluster.bus.join(sessionId, receive);
    } catch (error) {
      this.log.warn({ sessionId, err: error }, 'the cluster bus failed: messages other instances publish for this session do not reach it here until the bus is back');
    }
  }

  /** In a cluster: receives the messages of an HTTP+SSE session POSTed to other instances. */
  async joinSse(session: HttpSession): Promise<void> {
    if (!this.cluster || session.connection.isClosed) return;
    await this.joinBus(this.cluster, session.id, (message) => {
      if (message.kind !== 'post' || principalOf(message.auth) !== session.principal) return;
      session.touch();
      const info: TransportInfo = message.auth ? { kind: 'http+sse', sessionId: session.id, auth: message.auth } : { kind: 'http+sse', sessionId: session.id };
      session.transport.onframe?.(classifyValue(message.body, false), info);
    });
  }

  /**
   * In a cluster: hands an HTTP+SSE message to the instance holding its session. True when one
   * received it; false when none did (or there is no cluster); answers 503 and returns undefined
   * when the bus failed.
   */
  async handOver(id: string, body: unknown, auth: AuthInfo | undefined, response: HttpResponse): Promise<boolean | undefined> {
    if (!this.cluster) return false;
    try {
      return (await this.cluster.bus.publish(id, auth === undefined ? { kind: 'post', body } : { kind: 'post', body, auth })) > 0;
    } catch (error) {
      this.log.warn({ sessionId: id, err: error }, 'the cluster bus failed to hand a message over');
      refuse(response, HTTP_REFUSALS.BUS_FAILED, undefined);
      return undefined;
    }
  }

  /** In a cluster, the other instances serving the session stop writing its GET stream: this one holds it now. */
  holdStandalone(session: HttpSession): void {
    if (this.cluster) this.settle(this.cluster.bus.publish(session.id, { kind: 'stream' }));
  }

  /** Closes every session gracefully: requests in flight get `gracePeriod` ms (see {@link HttpSession.drain}). */
  drain(gracePeriod: number): Promise<unknown> {
    this.closing = true;
    return Promise.all([...this.sessions.values()].map((s) => s.drain(gracePeriod)));
  }

  /** A store call not waited for: its failure is logged, never unhandled. */
  private settle(pending: unknown): void {
    if (pending !== undefined && isThenable(pending)) pending.then(undefined, this.storeFailed);
  }
}
