/**
 * MCP over HTTP, whatever the HTTP server: one endpoint that answers every route of the
 * transports, for every adapter (the Fastify plugin, the Web-standard handler).
 *
 * - `POST {path}`, `GET {path}`, `DELETE {path}`: Streamable HTTP. MCP 2025-03-26 … 2025-11-25
 *   with sessions, JSON or SSE answers and resumable streams; MCP 2026-07-28 stateless, one POST
 *   per request, decided per POST by the one era rule (era.ts).
 * - `GET {path}/sse` + `POST {path}/messages?sessionId=…`: the HTTP+SSE transport of 2024-11-05.
 *
 * An adapter parses the JSON body with the protocol's `parseJson`, checks its size, and hands
 * core an {@link HttpRequest} and an {@link HttpResponse}; everything else — the Host/Origin
 * check, media types, the era, headers, sessions and their limits, status codes, shutdown — is here.
 */
import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  JsonRpcMessage,
  JsonRpcRequest,
  McpError,
  ParsedFrame,
  RequestId,
  TransportInfo,
  classifyValue,
  errorResponse,
  LEGACY_PROTOCOL_VERSIONS,
  isThenable,
  serialize,
} from '@hermes-mcp/protocol';
import type { AuthInfo } from '../../context/mcp-context';
import type { Connection, ConnectionOptions } from '../../engine/connection';
import { decideEra } from '../../engine/era';
import { HermesError } from '../../errors';
import type { ServedApp } from '../../bootstrap/served-app';
import type { Logger } from '../../logger';
import { ResourceServer, ResourceServerOptions } from '../../auth/resource-server';
import { accepts, headerOf, isJsonContentType } from './accept';
import { HttpError } from './http-error';
export { HttpError } from './http-error';
import { DEFAULT_EVENT_STORE_BYTES, EventStore, InMemoryEventStore } from '../../stores/event-store';
import type { HttpRequest, HttpResponse } from './exchange';
import { HeadersRecord, validateHeaderDeclarations } from '../../engine/modern-headers';
import { serveModern } from './modern-http';
import { OriginPolicy, checkOrigin } from './origin';
import { hiddenHeaderNames, redactHeaders } from './redact';
import { InMemorySessionStore, SessionRecord, SessionStore } from '../../stores/session-store';
import type { Cluster, SessionMessage } from '../../stores/cluster';
import { HttpSession, IdleSessions, LiveSession } from './sessions';
import { DEFAULT_MAX_BUFFERED_BYTES, SseConnection } from './sse';
import { DEFAULT_MAX_UNREAD_BYTES, OutputLimits } from '../backpressure';
import { ClientOutput, ClientView } from '../unread';
import { HttpSseTransport } from './sse-2024';
import { Expected, StreamableHttpTransport } from './streamable';

/** Options of an {@link HttpEndpoint}: what MCP over HTTP lets an operator tune. */
export interface HttpEndpointOptions extends OriginPolicy {
  /** Where the MCP endpoint is mounted (default `/mcp`). */
  path?: string;
  /** A session with no request for this many milliseconds is ended (default 30 minutes). */
  sessionIdleTimeout?: number;
  /**
   * Most sessions at once (default 10 000). At the limit, a new session replaces the one idle
   * longest (that has no request in flight); only when every session is busy does it get 503.
   */
  maxSessions?: number;
  /**
   * Most sessions one client may hold at once (default 1 000); one more gets 429. Clients are told
   * apart by {@link clientKey}.
   */
  maxSessionsPerClient?: number;
  /**
   * Which client a request comes from, for `maxSessionsPerClient` (default: its `ip`, as the
   * adapter trusts it). Return a user or tenant id to count per account instead.
   */
  clientKey?: (request: HttpRequest) => string;
  /**
   * Most bytes one SSE stream may hold unread before it is closed (default 4 MiB). A request's
   * stream that falls that far behind ends and its request is cancelled (answered with -32011
   * for a client that resumes); the session stays. A 2024-11-05 HTTP+SSE session has one stream,
   * so it ends.
   */
  maxBufferedBytes?: number;
  /**
   * Most bytes one client (by {@link clientKey}) may leave unread over all its connections — the
   * answers still being written, its SSE streams, its WebSockets (default 64 MiB, and at least the
   * app's `maxResultBytes`). An answer that would pass it is replaced by -32011 (ClientTooSlow);
   * a notification is dropped and its request answered with -32011. The sessions stay.
   */
  maxUnreadBytes?: number;
  /**
   * On close, how long requests in flight may take to finish before they are answered with
   * -32010, in milliseconds (default: the app's `shutdownGracePeriod`, 5 000).
   */
  shutdownGracePeriod?: number;
  /** Largest request body in bytes; larger gets 413 (default 4 MiB). Enforced by the adapter. */
  bodyLimit?: number;
  /**
   * Most milliseconds a POST's body may take to arrive once its headers did (default 60 000; 0:
   * no limit). Past it: 408 and the connection is closed, so a client that sends a byte a second
   * cannot hold a request for ever. Enforced by the adapter.
   */
  bodyTimeout?: number;
  /** Milliseconds a client waits before reconnecting a closed SSE stream (`retry`, default 1000). */
  retryMs?: number;
  /** Events kept per session for resumption by the default event store (default 1000). */
  eventStoreLimit?: number;
  /**
   * Characters of JSON the default event store keeps per session for resumption (default 16 MiB;
   * the newest event is kept whatever its size). Past it the oldest events go, and a resumption
   * from before them gets 400.
   */
  eventStoreBytes?: number;
  /**
   * The event store of a new Streamable HTTP session, where its SSE events are kept for
   * resumption (default: an {@link InMemoryEventStore} of `eventStoreLimit` events).
   */
  eventStore?: (sessionId: string) => EventStore;
  /**
   * Where the records of Streamable HTTP sessions are kept (default: an
   * {@link InMemorySessionStore}); records expire `sessionIdleTimeout` after their session's last use. With a store shared by
   * several instances, a request for a session this instance does not serve takes it up from its
   * record. Sessions of the 2024-11-05 HTTP+SSE transport and WebSocket live with their connection
   * and are not kept there.
   */
  sessionStore?: SessionStore;
  /** Serve the 2024-11-05 HTTP+SSE transport at `{path}/sse` and `{path}/messages` (default true). */
  legacySse?: boolean;
  /**
   * Who is calling, checked on every request of every route before anything else but the
   * Host/Origin check. Return the caller's {@link AuthInfo} (handlers see it as `ctx.auth`), or
   * undefined for an anonymous caller; throw an {@link HttpError} to refuse the request with its
   * status and headers (401 with `WWW-Authenticate`, say). Any other error answers 500.
   */
  authenticate?: (request: HttpRequest) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * This server as an OAuth 2.1 resource server: every request needs a bearer token the
   * `verifier` accepts (401 otherwise, with the challenge that tells a client where to sign in),
   * `ctx.auth` is what it verified, components with `scopes` are hidden from callers without them
   * and refused with 403 (step-up), a legacy session serves only the principal that opened it, and
   * the protected-resource metadata is served at `/.well-known/oauth-protected-resource{path}`.
   * Instead of `authenticate`. See docs/auth.md.
   */
  auth?: ResourceServerOptions;
  /**
   * Request headers handlers must not read, besides those that always carry credentials
   * (`authorization`, `proxy-authorization`, `cookie`): in `ctx.transport.headers` their value is
   * `[redacted]`, on every transport (Streamable HTTP, HTTP+SSE, the WebSocket upgrade). Name
   * your own credential headers here (`x-api-key`, say); the `authenticate` hook still sees them.
   */
  redactHeaders?: string[];
}

/** What {@link HttpEndpoint.authenticate} gives back for a refused request. */
const REFUSED = Symbol('refused');
/** A session that could not be taken up here (the limits): the request that asked was answered. */
const REFUSED_SESSION = Symbol('refused session');

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

const MINUTE = 60_000;
/** The defaults of {@link HttpEndpointOptions}. */
export const HTTP_DEFAULTS = Object.freeze({
  path: '/mcp',
  sessionIdleTimeout: 30 * MINUTE,
  maxSessions: 10_000,
  maxSessionsPerClient: 1_000,
  bodyLimit: 4 * 1024 * 1024,
  bodyTimeout: 60_000,
  retryMs: 1000,
  eventStoreLimit: 1000,
  eventStoreBytes: DEFAULT_EVENT_STORE_BYTES,
  maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
  maxUnreadBytes: DEFAULT_MAX_UNREAD_BYTES,
});
const SUPPORTED_HEADER_VERSIONS: readonly string[] = LEGACY_PROTOCOL_VERSIONS;
/** The shape of the session ids this endpoint makes (`randomBytes(24)` in base64url). */
const SESSION_ID = /^[A-Za-z0-9_-]{32}$/;
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** What each route serves (its `Allow` header). */
const ALLOWED_METHODS: Readonly<Record<'mcp' | 'sse' | 'messages', readonly string[]>> = Object.freeze({
  mcp: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  sse: ['GET', 'OPTIONS'],
  messages: ['POST', 'OPTIONS'],
});
/** A public document's CORS header: any origin may read it. */
const ANY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ 'access-control-allow-origin': '*' });
/** A list of header names (`Access-Control-Request-Headers`), and nothing else. */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/** 405, with the methods the route serves. */
function methodNotAllowed(response: HttpResponse, method: string, path: string, allowed: string, headers: Readonly<Record<string, string>> = NO_HEADERS): void {
  const error = McpError.invalidRequest(`Method Not Allowed: ${method} ${path} (allowed: ${allowed})`);
  response.send(405, { ...JSON_HEADERS, ...headers, allow: allowed }, serialize(errorResponse(undefined, error)));
}

/** Answers with a JSON-RPC error: with the request's id when it is known, without one otherwise (HTTP-level errors). */
export function sendError(response: HttpResponse, status: number, code: number, message: string, data?: unknown, id?: RequestId): void {
  response.send(status, JSON_HEADERS, serialize(errorResponse(id, new McpError(code, message, data))));
}

/** 408: the body did not arrive within `bodyTimeout`. For adapters. */
export function bodyTimedOut(response: HttpResponse, timeoutMs: number): void {
  const error = McpError.invalidRequest(`Request Timeout: the body did not arrive within ${timeoutMs} ms (bodyTimeout)`);
  // The rest of the body is not waited for: the connection closes after the answer.
  response.send(408, { ...JSON_HEADERS, connection: 'close' }, serialize(errorResponse(undefined, error)));
}

/** 415: the body is not declared `application/json`. */
function unsupportedMediaType(response: HttpResponse): void {
  sendError(response, 415, ErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json');
}

/** What a frame needs answered (request ids, batch members without one), and whether it is an `initialize`. */
function requestsOf(frame: ParsedFrame): Expected & { initialize: boolean; invalid?: string } {
  if (frame.kind === 'single') {
    const m = frame.message;
    if (m.kind === 'request') return { ids: [m.message.id], anonymous: 0, initialize: m.message.method === 'initialize' };
    if (m.kind === 'invalid' && m.id !== null && !m.noReply) return { ids: [m.id], anonymous: 0, initialize: false };
    return { ids: [], anonymous: 0, initialize: false };
  }
  if (frame.kind === 'batch') {
    const ids: RequestId[] = [];
    let anonymous = 0;
    for (const m of frame.messages) {
      if (m.kind === 'request') {
        if (m.message.method === 'initialize') return { ids: [], anonymous: 0, initialize: false, invalid: '"initialize" must not be part of a batch' };
        ids.push(m.message.id);
      } else if (m.kind === 'invalid' && !m.noReply) {
        // Answered with its own id when it had a readable one, with id null otherwise.
        if (m.id !== null) ids.push(m.id);
        else anonymous++;
      }
    }
    return { ids, anonymous, initialize: false };
  }
  return { ids: [], anonymous: 0, initialize: false };
}

/** Which era a POST belongs to: decided by the body and the version header, before any session. */
type PostEra = { kind: 'legacy' } | { kind: 'modern'; request: JsonRpcRequest } | { kind: 'modern-notification' } | { kind: 'refuse'; error: McpError; id?: RequestId };

function eraOfPost(request: HttpRequest, frame: ParsedFrame): PostEra {
  const header = headerOf(request.headers, 'mcp-protocol-version');
  if (frame.kind === 'batch') {
    const claimed = frame.messages.some((m) => (m.kind === 'request' || m.kind === 'notification') && decideEra(m.message.method, m.message.params, {}) === 'modern');
    if (claimed) return { kind: 'refuse', error: McpError.invalidRequest('JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later') };
    return { kind: 'legacy' };
  }
  if (frame.kind !== 'single') return { kind: 'legacy' };
  const m = frame.message;
  if (m.kind === 'request' || m.kind === 'notification') {
    const era = decideEra(m.message.method, m.message.params, { header });
    if (era instanceof McpError) return { kind: 'refuse', error: era, id: m.kind === 'request' ? m.message.id : undefined };
    if (era === 'legacy') return { kind: 'legacy' };
    return m.kind === 'request' ? { kind: 'modern', request: m.message } : { kind: 'modern-notification' };
  }
  // Not JSON-RPC, but meant for the modern era: answer with what is wrong (and its id), not with a session error.
  if (m.kind === 'invalid' && decideEra('', (request.body as { params?: unknown } | null)?.params, { header }) === 'modern') {
    // A malformed response is never answered with its id: the client would take it for our answer.
    return { kind: 'refuse', error: m.error, id: m.noReply ? undefined : (m.id ?? undefined) };
  }
  return { kind: 'legacy' };
}

/**
 * Who a session belongs to: the issuer and subject of its caller (or the OAuth client, for a token
 * with no subject); undefined for anonymous callers. For adapters (`@hermes-mcp/core/internal`).
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  // Space separates: neither an issuer URL nor the subject's marker holds one.
  return auth.subject !== undefined ? `${auth.issuer ?? ''} sub:${auth.subject}` : `${auth.issuer ?? ''} client:${auth.clientId ?? ''}`;
}

/** The -32012 error a single response carries, as an McpError; undefined for anything else. */
function insufficientScopeOf(message: JsonRpcMessage | JsonRpcMessage[]): McpError | undefined {
  if (Array.isArray(message) || !('error' in message) || message.error.code !== ErrorCode.InsufficientScope) return undefined;
  return McpError.fromObject(message.error);
}

function isError(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && 'error' in message;
}

/** Serves one MCP app over HTTP, for any adapter. */
export class HttpEndpoint {
  /** The path the endpoint is mounted at, without a trailing slash. */
  readonly path: string;
  /** The settings in force (the options over {@link HTTP_DEFAULTS}). */
  readonly settings: Required<Pick<HttpEndpointOptions, keyof typeof HTTP_DEFAULTS>>;
  private readonly store: SessionStore;
  /** The cluster this instance belongs to (the app's), if any. */
  private readonly cluster?: Cluster;
  /** The sessions this process serves. */
  private readonly sessions: IdleSessions;
  /** Sessions being taken up from their records, so that concurrent requests take each up once. */
  private readonly restoring = new Map<string, Promise<HttpSession | typeof REFUSED_SESSION | undefined>>();
  private readonly log: Logger;
  private readonly clientKey: (request: HttpRequest) => string;
  private readonly gracePeriod: number;
  /** What each client was sent and has not taken, over all its connections. */
  private readonly output = new ClientOutput();
  /** The limits on what goes out to a client. */
  readonly limits: OutputLimits;
  /** Clients told about once that they reached `maxSessionsPerClient` (bounded: cleared when it grows large). */
  private readonly capped = new Set<string>();
  /** True once closing began: no new sessions or streams. */
  private closing = false;
  /** One function for every connection: the session is found again by its id. */
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
  /** The OAuth resource server of the `auth` option. */
  readonly resourceServer?: ResourceServer;
  /** The request headers handlers do not see (see {@link HttpEndpointOptions.redactHeaders}). */
  readonly hiddenHeaders: readonly string[];
  /** Who is calling: the `authenticate` option, or the resource server's bearer check. */
  private readonly authenticator?: (request: HttpRequest) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

  constructor(
    /** The app served. */
    readonly app: ServedApp,
    private readonly options: HttpEndpointOptions = {},
  ) {
    const settings = { ...HTTP_DEFAULTS };
    for (const key of Object.keys(HTTP_DEFAULTS) as Array<keyof typeof HTTP_DEFAULTS>) {
      const value = options[key];
      if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    }
    this.settings = settings;
    this.limits = { maxResultBytes: app.engine.maxResultBytes, maxUnreadBytes: settings.maxUnreadBytes };
    if (settings.maxUnreadBytes < app.engine.maxResultBytes) {
      throw new HermesError(
        'HERMES_INVALID_OPTIONS',
        `maxUnreadBytes (${settings.maxUnreadBytes}) is smaller than the app's maxResultBytes (${app.engine.maxResultBytes}): an answer of the largest size could never be sent; raise maxUnreadBytes or lower maxResultBytes`,
      );
    }
    this.path = settings.path.endsWith('/') && settings.path.length > 1 ? settings.path.slice(0, -1) : settings.path;
    // Clients drop tools whose `x-mcp-header` declarations are malformed: refuse to start instead.
    for (const tool of app.registry?.allTools() ?? []) {
      const problems = validateHeaderDeclarations(tool.descriptor.inputSchema);
      if (problems.length > 0) {
        throw new HermesError('HERMES_INVALID_OPTIONS', `${tool.owner}: the x-mcp-header declarations of "${tool.name}" are invalid: ${problems.join('; ')}`);
      }
    }
    this.cluster = app.cluster;
    this.store = options.sessionStore ?? this.cluster?.sessionStore ?? new InMemorySessionStore();
    this.log = app.logger.child({ mcp: this.path });
    // In a cluster, a session evicted here to make room may live on elsewhere: its record and events stay.
    const evicted = this.cluster ? () => undefined : (session: LiveSession) => this.evicted(session);
    this.sessions = new IdleSessions(settings.sessionIdleTimeout, this.log, evicted, (session) => this.expired(session));
    this.clientKey = options.clientKey ?? ((request: HttpRequest) => request.ip ?? 'unknown');
    this.gracePeriod = options.shutdownGracePeriod ?? app.engine.gracePeriod;
    if (options.redactHeaders !== undefined && (!Array.isArray(options.redactHeaders) || !options.redactHeaders.every((name) => typeof name === 'string' && name !== ''))) {
      throw new HermesError('HERMES_INVALID_OPTIONS', 'redactHeaders must be an array of header names, e.g. ["x-api-key"].');
    }
    this.hiddenHeaders = hiddenHeaderNames(options.redactHeaders);
    if (options.auth && options.authenticate)
      throw new HermesError('HERMES_INVALID_OPTIONS', 'Give `auth` (an OAuth resource server) or `authenticate` (your own check), not both.');
    if (options.auth) {
      const server = new ResourceServer(options.auth, this.cluster?.replayStore);
      this.resourceServer = server;
      this.authenticator = (request) => server.authenticate(request);
    } else this.authenticator = options.authenticate;
  }

  /** The `WWW-Authenticate` of a 403 for missing scopes (with the `auth` option); nothing for other errors. */
  private readonly challenge = (error: McpError): Readonly<Record<string, string>> | undefined => {
    if (error.code !== ErrorCode.InsufficientScope || !this.resourceServer) return undefined;
    const required = (error.data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
    return this.resourceServer.insufficientScopeHeaders(Array.isArray(required) ? (required as string[]) : []);
  };

  /**
   * `GET /.well-known/oauth-protected-resource{path}` (RFC 9728): the metadata document of the
   * `auth` option, public (no token, any origin). Adapters route its path ({@link ResourceServer.metadataPath}).
   */
  serveResourceMetadata(response: HttpResponse): void {
    if (!this.resourceServer) return sendError(response, 404, ErrorCode.InvalidRequest, 'Not Found: this server has no OAuth metadata');
    response.send(200, { ...JSON_HEADERS, ...ANY_ORIGIN, 'cache-control': 'max-age=3600' }, JSON.stringify(this.resourceServer.metadata));
  }

  /** Whether the 2024-11-05 HTTP+SSE routes are served (`legacySse`). */
  get servesSse(): boolean {
    return this.options.legacySse !== false;
  }

  /** How long requests in flight may take to finish on {@link close}, in milliseconds. */
  get gracePeriodMs(): number {
    return this.gracePeriod;
  }

  /** True once {@link close} began: no new sessions or streams. */
  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * One client's unread output, over all its connections: for adapters with transports of their
   * own (WebSocket), which count their sockets there and ask it before an answer goes out.
   */
  outputOf(client: string): ClientView {
    return this.output.of(client);
  }

  /** Which client a request comes from (`clientKey`, default its `ip`). */
  clientOf(request: HttpRequest): string {
    return this.clientKey(request);
  }

  /** The sessions this process serves. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serves any request: the Host/Origin check, then the route by method and path (`{path}`,
   * `{path}/sse`, `{path}/messages`). 404 off the endpoint's paths, 405 for other methods.
   */
  async handle(request: HttpRequest, response: HttpResponse): Promise<void> {
    const query = request.url.indexOf('?');
    const pathname = query === -1 ? request.url : request.url.slice(0, query);
    if (this.resourceServer && pathname === this.resourceServer.metadataPath) return this.metadataRoute(request, response);
    if (this.refuseOrigin(request, response)) return;
    const route =
      pathname === this.path ? 'mcp' : this.servesSse && pathname === `${this.path}/sse` ? 'sse' : this.servesSse && pathname === `${this.path}/messages` ? 'messages' : undefined;
    if (route === undefined) return sendError(response, 404, ErrorCode.InvalidRequest, `Not Found: MCP is served at ${this.path}`);
    const allowed = ALLOWED_METHODS[route];
    // OPTIONS says what the route serves (RFC 9110); CORS, if wanted, is the app's (its own middleware answers first).
    if (request.method === 'OPTIONS') return response.send(204, { allow: allowed.join(', ') });
    if (!allowed.includes(request.method)) return methodNotAllowed(response, request.method, pathname, allowed.join(', '));
    if (route === 'sse') return this.openSse(request, response);
    if (route === 'messages') return this.postMessage(request, response);
    if (request.method === 'POST') return this.post(request, response);
    if (request.method === 'GET') return this.get(request, response);
    return this.delete(request, response);
  }

  /**
   * The protected-resource metadata's route (RFC 9728, with `auth`): public, from any origin, with
   * no token. `GET` answers the document; `OPTIONS` the CORS preflight a browser sends first (its
   * discovery request carries `MCP-Protocol-Version`, which is not a simple header); anything else 405.
   */
  private metadataRoute(request: HttpRequest, response: HttpResponse): void {
    if (request.method === 'GET') return this.serveResourceMetadata(response);
    if (request.method !== 'OPTIONS') return methodNotAllowed(response, request.method, this.resourceServer!.metadataPath, 'GET, OPTIONS', ANY_ORIGIN);
    const asked = headerOf(request.headers, 'access-control-request-headers');
    response.send(204, {
      ...ANY_ORIGIN,
      allow: 'GET, OPTIONS',
      'access-control-allow-methods': 'GET, OPTIONS',
      // The headers the browser asks for, when they are header names; none are credentials here.
      'access-control-allow-headers': asked !== undefined && HEADER_LIST.test(asked) ? asked : 'mcp-protocol-version',
      'access-control-max-age': '86400',
    });
  }

  /**
   * The authentication every route runs, for an adapter's own route (the WebSocket upgrade): the
   * caller, undefined for an anonymous one (or without `auth`/`authenticate`), or `false` once the
   * request was refused (answered: 401, 403 or 500).
   */
  async authenticateRequest(request: HttpRequest, response: HttpResponse): Promise<AuthInfo | undefined | false> {
    if (!this.authenticator) return undefined;
    const auth = await this.authenticate(request, response);
    return auth === REFUSED ? false : auth;
  }

  /** The Host/Origin check (DNS rebinding): answers 403 and returns true when the request is refused. */
  refuseOrigin(request: HttpRequest, response: HttpResponse): boolean {
    const problem = this.originProblem(request.headers);
    if (problem) this.forbid(response, problem);
    return problem !== undefined;
  }

  /** Why the Host or Origin header is refused (see {@link OriginPolicy}), or undefined. */
  originProblem(headers: HeadersRecord): string | undefined {
    return checkOrigin(headers, this.options);
  }

  /** Answers 403 for an {@link originProblem}. */
  forbid(response: HttpResponse, problem: string): void {
    sendError(response, 403, ErrorCode.InvalidRequest, `Forbidden: ${problem}`);
  }

  /** `POST {path}`: a message, a batch (2025-03-26), or a modern request. */
  async post(request: HttpRequest, response: HttpResponse): Promise<void> {
    if (!isJsonContentType(headerOf(request.headers, 'content-type'))) return unsupportedMediaType(response);
    if (!accepts(request.headers, 'application/json', 'application/*') || !accepts(request.headers, 'text/event-stream', 'text/*')) {
      return sendError(response, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
    }
    const auth = this.authenticator ? await this.authenticate(request, response) : undefined;
    if (auth === REFUSED) return;
    const frame = classifyValue(request.body, request.bodySuspect === true);
    if (frame.kind === 'invalid') return sendError(response, 400, frame.error.code, frame.error.message);
    const era = eraOfPost(request, frame);
    if (era.kind === 'refuse') return sendError(response, 400, era.error.code, era.error.message, era.error.data, era.id);
    if (era.kind === 'modern') {
      const client = this.clientKey(request);
      const info = this.requestInfo(request, undefined, auth);
      await serveModern(
        this.app.engine,
        this.app.logger,
        request,
        response,
        era.request,
        this.settings.maxBufferedBytes,
        this.limits,
        this.output.of(client),
        info,
        this.challenge,
      );
      return this.counted(client, response);
    }
    if (era.kind === 'modern-notification') return response.send(202, NO_HEADERS);
    const sessionId = headerOf(request.headers, 'mcp-session-id');
    // Not JSON-RPC, and no id to answer to or no session to answer in: the engine's error would
    // have nowhere to go. Answered here, with its id when it has one (never a response's).
    if (frame.kind === 'single' && frame.message.kind === 'invalid' && (frame.message.id === null || sessionId === undefined)) {
      const m = frame.message;
      return sendError(response, 400, m.error.code, m.error.message, undefined, m.noReply || m.id === null ? undefined : m.id);
    }
    if (frame.kind === 'batch' && frame.messages.length > this.app.engine.maxBatchEntries) {
      const error = McpError.batchTooLarge(frame.messages.length, this.app.engine.maxBatchEntries);
      return sendError(response, 400, error.code, error.message, error.data);
    }
    const expected = requestsOf(frame);
    if (expected.invalid) return sendError(response, 400, ErrorCode.InvalidRequest, `Invalid request: ${expected.invalid}`);
    // An initialize that names a session belongs to that session (which refuses a second one).
    const initialize = expected.initialize && sessionId === undefined;
    let session: HttpSession | undefined;
    if (initialize) {
      const client = this.clientKey(request);
      if (!this.admit(response, client)) return;
      session = await this.openStreamable(client, undefined, principalOf(auth));
    } else {
      const found = this.sessionOf(request, response, auth);
      session = isThenable(found) ? await found : found;
      if (!session) return;
    }
    if (frame.kind === 'batch' && !session.connection.acceptBatch()) {
      // The engine refuses it with an error that has no id, so no exchange would ever be answered.
      return sendError(
        response,
        400,
        ErrorCode.InvalidRequest,
        'Invalid request: JSON-RPC batches are not supported by the negotiated protocol revision (only 2025-03-26 has them)',
      );
    }
    const transport = session.transport as StreamableHttpTransport;
    const exchange = transport.receive(frame, expected, this.requestInfo(request, session.id, auth), this.priming(session));
    if (!exchange) return response.send(202, NO_HEADERS);
    const decision = await exchange.decision;
    if (decision.kind === 'closed') return sendError(response, 404, ErrorCode.InvalidRequest, 'Session ended before the request was answered');
    const sessionHeader: Record<string, string> = initialize ? { 'mcp-session-id': session.id } : {};
    if (decision.kind === 'sse') return exchange.respond(response, sessionHeader);
    if (initialize && isError(decision.message)) {
      void session.close();
      return response.send(200, JSON_HEADERS, decision.body);
    }
    // A component the token lacks scopes for: 403 and the step-up challenge, as MCP authorization says.
    const refusal = insufficientScopeOf(decision.message);
    if (refusal) return response.send(403, { ...JSON_HEADERS, ...this.challenge(refusal), ...sessionHeader }, decision.body);
    response.send(200, initialize ? { ...sessionHeader, ...JSON_HEADERS } : JSON_HEADERS, decision.body);
    this.counted(session.client, response);
  }

  /** What the client has not taken yet of a whole answer counts as its unread output until it has. */
  private counted(client: string, response: HttpResponse): void {
    if (response.bufferedBytes > 0) this.output.track(client, response, (listener) => response.onClose(listener));
  }

  /** `GET {path}`: the session's standalone SSE stream, or a stream resumed with `Last-Event-ID`. */
  async get(request: HttpRequest, response: HttpResponse): Promise<void> {
    if (!accepts(request.headers, 'text/event-stream', 'text/*')) {
      return sendError(response, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list text/event-stream');
    }
    const auth = this.authenticator ? await this.authenticate(request, response) : undefined;
    if (auth === REFUSED) return;
    const found = this.sessionOf(request, response, auth);
    const session = isThenable(found) ? await found : found;
    if (!session) return;
    const transport = session.transport as StreamableHttpTransport;
    const lastEventId = headerOf(request.headers, 'last-event-id');
    if (lastEventId !== undefined) {
      let resumed: SseConnection | undefined;
      try {
        resumed = await transport.resume(response, lastEventId);
      } catch (error) {
        this.log.warn({ sessionId: session.id, err: error }, 'the event store failed to replay a stream');
        return sendError(response, 503, ErrorCode.InternalError, 'Service Unavailable: the event store could not replay the stream; retry later');
      }
      if (!resumed) return sendError(response, 400, ErrorCode.InvalidRequest, `Bad Request: Last-Event-ID "${lastEventId}" is unknown here (evicted, or from another session)`);
      // Open no longer than its token: the client resumes it with a fresh one.
      resumed.endAtExpiry(auth?.expiresAt);
      if (transport.hasStandaloneStream) this.holdStandalone(session);
      return;
    }
    if (this.closing) return sendError(response, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
    if (transport.hasStandaloneStream) {
      return sendError(response, 409, ErrorCode.InvalidRequest, 'Conflict: this session already has a GET stream open');
    }
    transport.openStandalone(response, this.priming(session)).endAtExpiry(auth?.expiresAt);
    this.holdStandalone(session);
  }

  /** In a cluster, the other instances serving the session stop writing its GET stream: this one holds it now. */
  private holdStandalone(session: HttpSession): void {
    if (this.cluster) this.settle(this.cluster.bus.publish(session.id, { kind: 'stream' }));
  }

  /** `DELETE {path}`: ends the session. */
  async delete(request: HttpRequest, response: HttpResponse): Promise<void> {
    const auth = this.authenticator ? await this.authenticate(request, response) : undefined;
    if (auth === REFUSED) return;
    const session = await this.sessionOf(request, response, auth);
    if (!session) return;
    await Promise.all([this.end(session), this.store.delete(session.id), this.cluster?.bus.publish(session.id, { kind: 'ended' })]);
    response.send(200, NO_HEADERS);
  }

  /** `GET {path}/sse`: opens a 2024-11-05 HTTP+SSE session; its first event names where to POST. */
  async openSse(request: HttpRequest, response: HttpResponse): Promise<void> {
    if (!accepts(request.headers, 'text/event-stream', 'text/*'))
      return sendError(response, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list text/event-stream');
    const auth = this.authenticator ? await this.authenticate(request, response) : undefined;
    if (auth === REFUSED) return;
    const client = this.clientKey(request);
    if (!this.admit(response, client)) return;
    // The stream is the session: it ends when the token it was opened with expires.
    const connection = SseConnection.open(response, {}, this.settings.maxBufferedBytes).endAtExpiry(auth?.expiresAt);
    const view = this.output.of(client);
    view.track(connection, (listener) => connection.onClose(listener));
    const session = await this.openSession(client, (id) => new HttpSseTransport(id, connection, this.limits, view), principalOf(auth));
    // In a cluster, the POSTs of this session reach whichever instance: they come here over the bus.
    if (this.cluster && !session.connection.isClosed) await this.joinSse(this.cluster, session);
    connection.write(`${this.path}/messages?sessionId=${encodeURIComponent(session.id)}`, undefined, 'endpoint');
  }

  /** Receives the messages of an HTTP+SSE session POSTed to other instances of the cluster. */
  private async joinSse(cluster: Cluster, session: HttpSession): Promise<void> {
    await this.joinBus(cluster, session.id, (message) => {
      if (message.kind !== 'post' || principalOf(message.auth) !== session.principal) return;
      session.touch();
      const info: TransportInfo = message.auth ? { kind: 'http+sse', sessionId: session.id, auth: message.auth } : { kind: 'http+sse', sessionId: session.id };
      session.transport.onframe?.(classifyValue(message.body, false), info);
    });
  }

  /** `POST {path}/messages?sessionId=…`: a message of a 2024-11-05 HTTP+SSE session. */
  async postMessage(request: HttpRequest, response: HttpResponse): Promise<void> {
    // First, as for every POST (an adapter's body parser may have refused it already).
    if (!isJsonContentType(headerOf(request.headers, 'content-type'))) return unsupportedMediaType(response);
    const auth = this.authenticator ? await this.authenticate(request, response) : undefined;
    if (auth === REFUSED) return;
    const id = sessionIdOf(request.url);
    const session = id ? this.sessions.get(id) : undefined;
    if (!session && id && this.cluster) {
      // Held by another instance, perhaps: handed to it over the bus (none received it: unknown).
      let received: number;
      try {
        received = await this.cluster.bus.publish(id, auth === undefined ? { kind: 'post', body: request.body } : { kind: 'post', body: request.body, auth });
      } catch (error) {
        this.log.warn({ sessionId: id, err: error }, 'the cluster bus failed to hand a message over');
        return sendError(response, 503, ErrorCode.InternalError, 'Service Unavailable: the message could not be handed to the instance holding the session; retry later');
      }
      if (received > 0) return response.send(202, NO_HEADERS, 'Accepted');
    }
    if (!session || !(session.transport instanceof HttpSseTransport) || session.principal !== principalOf(auth)) {
      return sendError(response, 404, ErrorCode.InvalidRequest, 'Session not found: open a stream with GET {path}/sse first');
    }
    session.touch();
    session.transport.onframe?.(classifyValue(request.body, request.bodySuspect === true), this.requestInfo(request, session.id, auth));
    response.send(202, NO_HEADERS, 'Accepted');
  }

  /**
   * Shuts down gracefully: no new sessions or streams (503, -32010); modern requests and listen
   * streams end; requests in flight get the grace period, then every session closes.
   */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([this.app.engine.drainStateless(this.gracePeriod), ...[...this.sessions.values()].map((s) => s.drain(this.gracePeriod))]);
  }

  /**
   * Whether a new session may open for this request's client; answers 503 (shutting down, or
   * full of busy sessions) or 429 (this client holds its maximum) when not. At `maxSessions`, the
   * session idle longest makes room. Public for adapters with transports of their own (WebSocket).
   */
  admit(response: HttpResponse, client: string): boolean {
    if (this.closing) {
      sendError(response, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
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
      sendError(
        response,
        429,
        ErrorCode.InvalidRequest,
        `Too Many Requests: this client holds its maximum of ${maxSessionsPerClient} sessions (maxSessionsPerClient); end one with DELETE first`,
      );
      return false;
    }
    if (this.sessions.size >= maxSessions && !this.sessions.evictIdlest()) {
      sendError(response, 503, ErrorCode.InternalError, `Service Unavailable: this server holds its maximum of ${maxSessions} sessions (maxSessions), all busy; try again later`);
      return false;
    }
    return true;
  }

  /**
   * Opens a session for `client` over the transport made for its new id: an engine connection,
   * kept with the others (idle expiry, limits, graceful close). Public for adapters with
   * transports of their own (WebSocket); call {@link admit} first.
   */
  async openSession(client: string, makeTransport: (id: string) => HttpSession['transport'], principal?: string): Promise<HttpSession> {
    const id = randomBytes(24).toString('base64url');
    return this.startSession(id, client, makeTransport(id), {}, principal);
  }

  /** Opens a Streamable HTTP session: a new one (`initialize`), or one taken up from its record. */
  private async openStreamable(client: string, restore?: SessionRecord, principal = restore?.principal, joined = false): Promise<HttpSession> {
    const id = restore?.id ?? randomBytes(24).toString('base64url');
    const { eventStoreLimit, eventStoreBytes, retryMs, maxBufferedBytes } = this.settings;
    const cluster = this.cluster;
    const events = this.options.eventStore ?? (cluster && ((sessionId: string) => cluster.eventStore(sessionId)));
    const transport = new StreamableHttpTransport(
      new SessionTransportOptions(
        id,
        events ? events(id) : new InMemoryEventStore(eventStoreLimit, eventStoreBytes),
        retryMs,
        maxBufferedBytes,
        this.log,
        this.limits,
        this.output.of(client),
        cluster?.bus.instanceId,
      ),
    );
    const session = await this.startSession(
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

  private async startSession(
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

  /** What the handlers of a request see of its transport (a new object each: a request's own); credentials hidden. */
  private requestInfo(request: HttpRequest, sessionId: string | undefined, auth: AuthInfo | undefined): TransportInfo {
    const headers = redactHeaders(request.headers, this.hiddenHeaders);
    const { ip, url } = request;
    // Whole literals, one shape each: no property added to an object made without it.
    if (sessionId === undefined) return auth === undefined ? { kind: 'http', headers, ip, url } : { kind: 'http', headers, ip, url, auth };
    return auth === undefined ? { kind: 'http', sessionId, headers, ip, url } : { kind: 'http', sessionId, headers, ip, url, auth };
  }

  /**
   * Runs the `authenticate` hook: the caller's identity, undefined for an anonymous one, or
   * {@link REFUSED} once the request was answered (the hook's {@link HttpError}, or 500).
   */
  private async authenticate(request: HttpRequest, response: HttpResponse): Promise<AuthInfo | undefined | typeof REFUSED> {
    try {
      return await this.authenticator!(request);
    } catch (error) {
      if (error instanceof HttpError) {
        // A refusal is the client's business (no token, a bad one), not the server's failure.
        this.log.debug({ status: error.status, reason: error.message }, 'request refused by authentication');
        response.send(error.status, { ...error.headers, ...JSON_HEADERS }, serialize(errorResponse(undefined, new McpError(error.code, error.message))));
      } else {
        this.log.error({ err: error }, 'the authenticate hook failed');
        sendError(response, 500, ErrorCode.InternalError, 'Internal error: the request could not be authenticated');
      }
      return REFUSED;
    }
  }

  /**
   * The session named by the request's header: 400 without one, 404 for an unknown one. A session
   * this process does not serve is taken up from its record in the session store, if it has one.
   */
  private sessionOf(request: HttpRequest, response: HttpResponse, auth: AuthInfo | undefined): HttpSession | undefined | Promise<HttpSession | undefined> {
    const id = headerOf(request.headers, 'mcp-session-id');
    if (!id) {
      sendError(response, 400, ErrorCode.InvalidRequest, 'Bad Request: the Mcp-Session-Id header is required (send "initialize" first to get one)');
      return undefined;
    }
    const version = headerOf(request.headers, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_HEADER_VERSIONS.includes(version)) {
      sendError(response, 400, ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version "${version}" (supported: ${SUPPORTED_HEADER_VERSIONS.join(', ')})`);
      return undefined;
    }
    const session = this.sessions.get(id);
    // A session serves the principal that opened it only; to anyone else it does not exist.
    if (session && session.principal !== principalOf(auth)) return this.sessionNotFound(response);
    if (session && session.transport instanceof StreamableHttpTransport) {
      session.touch();
      this.touchRecord(session);
      return session;
    }
    // Not an id this endpoint makes (24 random bytes, base64url): no store or bus is asked about it.
    if (session || this.closing || !SESSION_ID.test(id)) return this.sessionNotFound(response);
    return this.takeUp(id, request, response, principalOf(auth));
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
      sendError(response, 503, ErrorCode.InternalError, 'Service Unavailable: the session store could not be read; retry later');
      return undefined;
    }
    if (session === REFUSED_SESSION) {
      // The request that asked first got the refusal (429 or 503); the others wait with it.
      if (!own) sendError(response, 503, ErrorCode.InternalError, 'Service Unavailable: the session could not be taken up here; try again later');
      return undefined;
    }
    if (!session || session.principal !== principal) return this.sessionNotFound(response);
    session.touch();
    return session;
  }

  private sessionNotFound(response: HttpResponse): undefined {
    // While shutting down, a session that ended for it is not "not found": the client should go
    // elsewhere or come back later, not re-initialize here.
    if (this.closing) sendError(response, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
    else sendError(response, 404, ErrorCode.InvalidRequest, 'Session not found: it expired or was ended; send "initialize" to start a new one');
    return undefined;
  }

  /** A store call not waited for: its failure is logged, never unhandled. */
  private settle(pending: unknown): void {
    if (pending !== undefined && isThenable(pending)) pending.then(undefined, this.storeFailed);
  }

  private priming(session: HttpSession): boolean {
    const version = session.connection.sessionInfo?.protocolVersion;
    return version !== undefined && version >= '2025-11-25';
  }
}

/** The `sessionId` query parameter of a URL. */
function sessionIdOf(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query === -1) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('sessionId') ?? undefined;
}
