/**
 * MCP over HTTP, whatever the HTTP server: one endpoint that answers every route of the
 * transports, for every adapter (the Fastify plugin, the Web-standard handler, a Bun or Deno
 * server through `@hermes-mcp/core/adapter`).
 *
 * - `POST {path}`, `GET {path}`, `DELETE {path}`: Streamable HTTP. MCP 2025-03-26 … 2025-11-25
 *   with sessions, JSON or SSE answers and resumable streams; MCP 2026-07-28 stateless, one POST
 *   per request, decided per POST by the one era rule (era.ts).
 * - `GET {path}/sse` + `POST {path}/messages?sessionId=…`: the HTTP+SSE transport of 2024-11-05.
 * - A WebSocket upgrade on the adapter's route ({@link HttpEndpoint.admitWebSocket}, then
 *   {@link HttpEndpoint.acceptWebSocket}): one session per socket.
 *
 * This file is the routes and their content negotiation. Every route admits a request the same way
 * ({@link HttpEndpoint.admitRequest}); sessions, their limits and the cluster glue are
 * {@link SessionHost}'s (session-host.ts); every refusal is a row of the catalog (refusals.ts);
 * the options and defaults are in options.ts.
 */
import { ErrorCode, McpError, REVISIONS, TransportInfo, classifyValue, errorResponse, isProtocolVersion, isThenable, serialize } from '@hermes-mcp/protocol';
import type { AuthInfo } from '../../context/mcp-context';
import { HermesError } from '../../errors';
import type { ServedApp } from '../../bootstrap/served-app';
import type { Logger } from '../../logger';
import { ResourceServer } from '../../auth/resource-server';
import { AddedHeaders } from './added-headers';
import { OutputLimits } from '../backpressure';
import { ClientOutput } from '../unread';
import { MCP_SUBPROTOCOL, WS_CLOSE, WebSocketLike, WebSocketTransport } from '../websocket';
import { accepts, headerOf, isJsonContentType } from './accept';
import type { HttpRequest, HttpResponse } from './exchange';
import { HeadersRecord, validateHeaderDeclarations } from '../../engine/modern-headers';
import { HttpError } from './http-error';
import { serveModern } from './modern-http';
import { HTTP_DEFAULTS, HttpEndpointOptions, HttpSettings } from './options';
import { checkOrigin } from './origin';
import { eraOfPost, insufficientScopeOf, isError, requestsOf, sessionIdOf } from './post-frame';
import { hiddenHeaderNames, redactHeaders } from './redact';
import { HTTP_REFUSALS, refuse, sendError } from './refusals';
import { SessionHost } from './session-host';
import { HttpSession, principalOf } from './sessions';
import { SseConnection } from './sse';
import { TURN_MAX_CHARS, answerTurn } from './answer-turn';
import { HttpSseTransport } from './sse-2024';
import type { StreamableHttpTransport } from './streamable';
export { HttpError } from './http-error';
export type { HttpEndpointOptions } from './options';
export type { HttpSession } from './sessions';

/** What {@link HttpEndpoint.admitRequest} gives back for a refused request (already answered). */
export const REFUSED: unique symbol = Symbol('refused');

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

/** What an upgrade request was admitted as ({@link HttpEndpoint.admitWebSocket}), for {@link HttpEndpoint.acceptWebSocket}. */
export interface WebSocketAdmission {
  /** The upgrade request. */
  readonly request: HttpRequest;
  /** Its client (`clientKey`). */
  readonly client: string;
  /** Its caller, when the endpoint authenticates and the caller is not anonymous. */
  readonly auth?: AuthInfo;
}

/**
 * A server-side WebSocket as {@link HttpEndpoint.acceptWebSocket} takes it: the transport's part
 * ({@link WebSocketLike}), the subprotocol the server agreed to, and its pings (a runtime without
 * ping events never calls that listener).
 */
export interface AcceptedWebSocket extends WebSocketLike {
  /** The subprotocol agreed on in the handshake (`mcp`). */
  readonly protocol: string;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'ping', listener: () => void): unknown;
}

/** The subprotocols a request offers (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(headers: HeadersRecord): string[] {
  const value = headers['sec-websocket-protocol'];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Serves one MCP app over HTTP, for any adapter. */
export class HttpEndpoint {
  /** The path the endpoint is mounted at, without a trailing slash. */
  readonly path: string;
  /** The settings in force (the options over {@link HTTP_DEFAULTS}). */
  readonly settings: HttpSettings;
  /** The limits on what goes out to a client. */
  readonly limits: OutputLimits;
  /** The OAuth resource server of the `auth` option. */
  readonly resourceServer?: ResourceServer;
  /** The request headers handlers do not see (see {@link HttpEndpointOptions.redactHeaders}). */
  readonly hiddenHeaders: readonly string[];
  /** The sessions served here, their limits, and the cluster glue. */
  private readonly host: SessionHost;
  private readonly log: Logger;
  private readonly clientKey: (request: HttpRequest) => string;
  private readonly gracePeriod: number;
  /** What each client was sent and has not taken, over all its connections. */
  private readonly output = new ClientOutput();
  /** Who is calling: the `authenticate` option, or the resource server's bearer check. */
  private readonly authenticator?: (request: HttpRequest) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** True when the resource server's DPoP nonces roll: an admitted request's answer may give the next one. */
  private readonly rollsNonces: boolean;

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
    this.log = app.logger.child({ mcp: this.path });
    this.clientKey = options.clientKey ?? ((request: HttpRequest) => request.ip ?? 'unknown');
    this.gracePeriod = options.shutdownGracePeriod ?? app.engine.gracePeriod;
    if (options.redactHeaders !== undefined && (!Array.isArray(options.redactHeaders) || !options.redactHeaders.every((name) => typeof name === 'string' && name !== ''))) {
      throw new HermesError('HERMES_INVALID_OPTIONS', 'redactHeaders must be an array of header names, e.g. ["x-api-key"].');
    }
    this.hiddenHeaders = hiddenHeaderNames(options.redactHeaders);
    if (options.auth && options.authenticate)
      throw new HermesError('HERMES_INVALID_OPTIONS', 'Give `auth` (an OAuth resource server) or `authenticate` (your own check), not both.');
    if (options.auth) {
      const server = new ResourceServer(options.auth, app.cluster?.replayStore);
      this.resourceServer = server;
      this.authenticator = (request) => server.authenticate(request);
    } else this.authenticator = options.authenticate;
    this.rollsNonces = this.resourceServer?.rollsNonces === true;
    this.host = new SessionHost({
      app,
      settings,
      log: this.log,
      output: this.output,
      limits: this.limits,
      clientKey: this.clientKey,
      eventStore: options.eventStore,
      sessionStore: options.sessionStore,
    });
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
    if (!this.resourceServer) return refuse(response, HTTP_REFUSALS.NO_RESOURCE_METADATA, undefined);
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
    return this.host.closing;
  }

  /** The sessions this process serves. */
  get sessionCount(): number {
    return this.host.size;
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
    if (route === undefined) return refuse(response, HTTP_REFUSALS.NOT_FOUND, undefined, this.path);
    const allowed = ALLOWED_METHODS[route];
    // OPTIONS says what the route serves (RFC 9110); CORS, if wanted, is the app's (its own middleware answers first).
    if (request.method === 'OPTIONS') return response.send(204, { allow: allowed.join(', ') });
    if (!allowed.includes(request.method)) return this.methodNotAllowed(response, request.method, pathname, allowed.join(', '));
    if (route === 'sse') return this.openSse(request, response);
    if (route === 'messages') return this.postMessage(request, response);
    if (request.method === 'POST') return this.post(request, response);
    if (request.method === 'GET') return this.get(request, response);
    return this.delete(request, response);
  }

  /** 405, with the methods the route serves. */
  private methodNotAllowed(response: HttpResponse, method: string, path: string, allowed: string, headers?: Readonly<Record<string, string>>): void {
    refuse(response, HTTP_REFUSALS.METHOD_NOT_ALLOWED, headers === undefined ? { allow: allowed } : { ...headers, allow: allowed }, method, path, allowed);
  }

  /**
   * The protected-resource metadata's route (RFC 9728, with `auth`): public, from any origin, with
   * no token. `GET` answers the document; `OPTIONS` the CORS preflight a browser sends first (its
   * discovery request carries `MCP-Protocol-Version`, which is not a simple header); anything else 405.
   */
  private metadataRoute(request: HttpRequest, response: HttpResponse): void {
    if (request.method === 'GET') return this.serveResourceMetadata(response);
    if (request.method !== 'OPTIONS') return this.methodNotAllowed(response, request.method, this.resourceServer!.metadataPath, 'GET, OPTIONS', ANY_ORIGIN);
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
   * The admission every route runs once its request is well-formed: who is calling (`auth` or
   * `authenticate`), then, for a request that opens a session (`opening`: its client), the session
   * limits. Returns the caller (undefined when anonymous, or without authentication) or
   * {@link REFUSED} once the request was answered (401, 403, 429, 503, 500). Without an
   * authenticator and without `opening` it returns at once, with no promise. The Host/Origin check
   * comes before it, where the request enters ({@link handle}, or an adapter's first hook), since
   * it precedes reading the body.
   */
  admitRequest(request: HttpRequest, response: HttpResponse, opening?: string): AuthInfo | undefined | typeof REFUSED | Promise<AuthInfo | undefined | typeof REFUSED> {
    if (!this.authenticator) return opening === undefined || this.host.admit(response, opening) ? undefined : REFUSED;
    return this.authenticate(request, response, opening);
  }

  /**
   * What answers an admitted request: `response`, or — when its DPoP proof's nonce is past half its
   * life (`auth.dpop.nonce`) — `response` giving the next nonce in `DPoP-Nonce` with whatever it
   * sends (RFC 9449 §8), the answer's headers or its stream's. Without nonces it looks at nothing;
   * with them, most requests get `response` itself.
   */
  private answering(request: HttpRequest, response: HttpResponse): HttpResponse {
    if (!this.rollsNonces) return response;
    const nonce = this.resourceServer!.nextNonce(request);
    return nonce === undefined ? response : new AddedHeaders(response, { 'dpop-nonce': nonce });
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
    refuse(response, HTTP_REFUSALS.FORBIDDEN_ORIGIN, undefined, problem);
  }

  /** `POST {path}`: a message, a batch (2025-03-26), or a modern request. */
  async post(request: HttpRequest, response: HttpResponse): Promise<void> {
    if (!isJsonContentType(headerOf(request.headers, 'content-type'))) return refuse(response, HTTP_REFUSALS.UNSUPPORTED_MEDIA_TYPE, undefined);
    if (!accepts(request.headers, 'application/json', 'application/*') || !accepts(request.headers, 'text/event-stream', 'text/*')) {
      return refuse(response, HTTP_REFUSALS.NOT_ACCEPTABLE_POST, undefined);
    }
    const admitted = this.admitRequest(request, response);
    const auth = isThenable(admitted) ? await admitted : admitted;
    if (auth === REFUSED) return;
    response = this.answering(request, response);
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
      return;
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
    if (expected.initializeInBatch) return refuse(response, HTTP_REFUSALS.INITIALIZE_IN_BATCH, undefined);
    // An initialize that names a session belongs to that session (which refuses a second one).
    const initialize = expected.initialize && sessionId === undefined;
    let session: HttpSession | undefined;
    if (initialize) {
      const client = this.clientKey(request);
      if (!this.host.admit(response, client)) return;
      session = await this.host.openStreamable(client, undefined, principalOf(auth));
    } else {
      const found = this.host.find(request, response, auth);
      session = isThenable(found) ? await found : found;
      if (!session) return;
    }
    // The engine refuses it with an error that has no id, so no exchange would ever be answered.
    if (frame.kind === 'batch' && !session.connection.acceptBatch()) return refuse(response, HTTP_REFUSALS.BATCH_NOT_SUPPORTED, undefined);
    const transport = session.transport as StreamableHttpTransport;
    const exchange = transport.receive(frame, expected, this.requestInfo(request, session.id, auth), this.priming(session));
    if (!exchange) return response.send(202, NO_HEADERS);
    const decision = await exchange.decision;
    if (decision.kind === 'closed') return refuse(response, HTTP_REFUSALS.SESSION_ENDED, undefined);
    const sessionHeader: Record<string, string> = initialize ? { 'mcp-session-id': session.id } : {};
    if (decision.kind === 'sse') return exchange.respond(response, sessionHeader);
    // A small answer leaves with the others of its turn. A large one goes now: its write costs more
    // than a turn saves, and it counts against its client's unread output from this moment on.
    if (decision.body.length <= TURN_MAX_CHARS) await answerTurn();
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
    if (!accepts(request.headers, 'text/event-stream', 'text/*')) return refuse(response, HTTP_REFUSALS.NOT_ACCEPTABLE_STREAM, undefined);
    const admitted = this.admitRequest(request, response);
    const auth = isThenable(admitted) ? await admitted : admitted;
    if (auth === REFUSED) return;
    response = this.answering(request, response);
    const found = this.host.find(request, response, auth);
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
        return refuse(response, HTTP_REFUSALS.EVENT_STORE_FAILED, undefined);
      }
      if (!resumed) return refuse(response, HTTP_REFUSALS.UNKNOWN_LAST_EVENT_ID, undefined, lastEventId);
      // Open no longer than its token: the client resumes it with a fresh one.
      resumed.endAtExpiry(auth?.expiresAt);
      if (transport.hasStandaloneStream) this.host.holdStandalone(session);
      return;
    }
    if (this.host.closing) return refuse(response, HTTP_REFUSALS.SHUTTING_DOWN, undefined);
    if (transport.hasStandaloneStream) return refuse(response, HTTP_REFUSALS.STREAM_CONFLICT, undefined);
    transport.openStandalone(response, this.priming(session)).endAtExpiry(auth?.expiresAt);
    this.host.holdStandalone(session);
  }

  /** `DELETE {path}`: ends the session. */
  async delete(request: HttpRequest, response: HttpResponse): Promise<void> {
    const admitted = this.admitRequest(request, response);
    const auth = isThenable(admitted) ? await admitted : admitted;
    if (auth === REFUSED) return;
    response = this.answering(request, response);
    const session = await this.host.find(request, response, auth);
    if (!session) return;
    await this.host.endEverywhere(session);
    response.send(200, NO_HEADERS);
  }

  /** `GET {path}/sse`: opens a 2024-11-05 HTTP+SSE session; its first event names where to POST. */
  async openSse(request: HttpRequest, response: HttpResponse): Promise<void> {
    if (!accepts(request.headers, 'text/event-stream', 'text/*')) return refuse(response, HTTP_REFUSALS.NOT_ACCEPTABLE_STREAM, undefined);
    const client = this.clientKey(request);
    const auth = await this.admitRequest(request, response, client);
    if (auth === REFUSED) return;
    response = this.answering(request, response);
    // The stream is the session: it ends when the token it was opened with expires.
    const connection = SseConnection.open(response, {}, this.settings.maxBufferedBytes).endAtExpiry(auth?.expiresAt);
    const view = this.output.of(client);
    view.track(connection, (listener) => connection.onClose(listener));
    const session = await this.host.open(client, (id) => new HttpSseTransport(id, connection, this.limits, view), principalOf(auth));
    // In a cluster, the POSTs of this session reach whichever instance: they come here over the bus.
    await this.host.joinSse(session);
    connection.write(`${this.path}/messages?sessionId=${encodeURIComponent(session.id)}`, undefined, 'endpoint');
  }

  /** `POST {path}/messages?sessionId=…`: a message of a 2024-11-05 HTTP+SSE session. */
  async postMessage(request: HttpRequest, response: HttpResponse): Promise<void> {
    // First, as for every POST (an adapter's body parser may have refused it already).
    if (!isJsonContentType(headerOf(request.headers, 'content-type'))) return refuse(response, HTTP_REFUSALS.UNSUPPORTED_MEDIA_TYPE, undefined);
    const admitted = this.admitRequest(request, response);
    const auth = isThenable(admitted) ? await admitted : admitted;
    if (auth === REFUSED) return;
    response = this.answering(request, response);
    const id = sessionIdOf(request.url);
    const session = id ? this.host.get(id) : undefined;
    if (!session && id) {
      // Held by another instance, perhaps: handed to it over the bus (none received it: unknown).
      const received = await this.host.handOver(id, request.body, auth, response);
      if (received === undefined) return;
      if (received) return response.send(202, NO_HEADERS, 'Accepted');
    }
    if (!session || !(session.transport instanceof HttpSseTransport) || session.principal !== principalOf(auth)) {
      return refuse(response, HTTP_REFUSALS.SSE_SESSION_NOT_FOUND, undefined, this.path);
    }
    session.touch();
    session.transport.onframe?.(classifyValue(request.body, request.bodySuspect === true), this.requestInfo(request, session.id, auth));
    response.send(202, NO_HEADERS, 'Accepted');
  }

  /**
   * A WebSocket upgrade, before the adapter upgrades: everything that can be refused is refused
   * here as an HTTP answer with a JSON-RPC error body — the Host/Origin check (403), no `mcp`
   * subprotocol (400), the caller (401, 403), the session limits (429, 503) and shutting down
   * (503). Returns what {@link acceptWebSocket} takes once the socket is open, or undefined once
   * the request was answered. A request that is no upgrade at all gets {@link refuseNotUpgraded}.
   */
  async admitWebSocket(request: HttpRequest, response: HttpResponse): Promise<WebSocketAdmission | undefined> {
    if (this.refuseOrigin(request, response)) return undefined;
    const offered = offeredProtocols(request.headers);
    if (!offered.includes(MCP_SUBPROTOCOL)) {
      refuse(response, HTTP_REFUSALS.WEBSOCKET_SUBPROTOCOL, undefined, offered.length === 0 ? 'none' : `"${offered.join(', ')}"`);
      return undefined;
    }
    const client = this.clientKey(request);
    const auth = await this.admitRequest(request, response, client);
    if (auth === REFUSED) return undefined;
    return auth === undefined ? { request, client } : { request, client, auth };
  }

  /** 426 for a request to the WebSocket route that asks no upgrade (`url`: that route). */
  refuseNotUpgraded(response: HttpResponse, url: string): void {
    refuse(response, HTTP_REFUSALS.UPGRADE_REQUIRED, undefined, url, this.path);
  }

  /**
   * A socket upgraded after {@link admitWebSocket}: it becomes a session — one engine connection,
   * counted toward `maxSessions` and `maxSessionsPerClient`, ended after `sessionIdleTimeout` with
   * no frame from the client (a message or a ping), drained on {@link close} (then closed with
   * 1001). What the socket holds unsent counts toward its client's unread output. A socket whose
   * subprotocol is not `mcp` closes with 1002; one accepted while shutting down with 1001.
   * `maxMessageBytes`: the largest frame (default `bodyLimit`). Resolves to the session, or
   * undefined when the socket was closed instead.
   */
  async acceptWebSocket(socket: AcceptedWebSocket, admission: WebSocketAdmission, maxMessageBytes = this.settings.bodyLimit): Promise<HttpSession | undefined> {
    // A shared server may have picked another of the offered subprotocols.
    if (socket.protocol !== MCP_SUBPROTOCOL) return void socket.close(WS_CLOSE.protocolError, 'MCP over WebSocket needs the subprotocol "mcp"');
    if (this.host.closing) return void socket.close(WS_CLOSE.goingAway, 'server shutting down');
    const { request, client, auth } = admission;
    const { headers, ip, remotePort: port, url } = request;
    const info = auth === undefined ? { headers, ip, port, url } : { headers, ip, port, url, auth };
    const output = this.output.of(client);
    output.track(
      {
        get bufferedBytes() {
          return socket.bufferedAmount;
        },
      },
      (listener) => socket.on('close', listener),
    );
    let session: HttpSession;
    try {
      session = await this.host.open(
        client,
        (sessionId) =>
          new WebSocketTransport(socket, {
            sessionId,
            info,
            maxMessageBytes,
            maxBufferedBytes: this.settings.maxBufferedBytes,
            maxUnreadBytes: this.limits.maxUnreadBytes,
            maxResultBytes: this.limits.maxResultBytes,
            unread: () => output.unread(),
            goingAway: () => this.host.closing,
            redactHeaders: this.hiddenHeaders,
          }),
        principalOf(auth),
      );
    } catch (error) {
      this.log.error({ err: error }, 'could not open an MCP session on a WebSocket');
      return void socket.close(WS_CLOSE.internalError, 'Internal error');
    }
    // Any frame from the client restarts the session's idle clock.
    const touch = () => session.touch();
    socket.on('message', touch);
    socket.on('ping', touch);
    return session;
  }

  /**
   * Shuts down gracefully: no new sessions or streams (503, -32010); modern requests and listen
   * streams end; requests in flight get the grace period, then every session closes.
   */
  async close(): Promise<void> {
    await Promise.all([this.host.drain(this.gracePeriod), this.app.engine.drainStateless(this.gracePeriod)]);
    // The drain's last answers (-32010) wait for their turn to be written; they have been once this one comes.
    await answerTurn();
  }

  /** What the handlers of a request see of its transport (a new object each: a request's own); credentials hidden. */
  private requestInfo(request: HttpRequest, sessionId: string | undefined, auth: AuthInfo | undefined): TransportInfo {
    const headers = redactHeaders(request.headers, this.hiddenHeaders);
    const { ip, remotePort: port, httpVersion, url } = request;
    // Whole literals, one shape each: no property added to an object made without it.
    if (sessionId === undefined) return auth === undefined ? { kind: 'http', headers, ip, port, httpVersion, url } : { kind: 'http', headers, ip, port, httpVersion, url, auth };
    return auth === undefined ? { kind: 'http', sessionId, headers, ip, port, httpVersion, url } : { kind: 'http', sessionId, headers, ip, port, httpVersion, url, auth };
  }

  /**
   * {@link admitRequest} with an authenticator: the caller's identity, undefined for an anonymous
   * one, or {@link REFUSED} once the request was answered (the hook's {@link HttpError}, 500, or
   * the session limits for an `opening` request).
   */
  private async authenticate(request: HttpRequest, response: HttpResponse, opening: string | undefined): Promise<AuthInfo | undefined | typeof REFUSED> {
    let auth: AuthInfo | undefined;
    try {
      auth = await this.authenticator!(request);
    } catch (error) {
      if (error instanceof HttpError) {
        // A refusal is the client's business (no token, a bad one), not the server's failure.
        this.log.debug({ status: error.status, reason: error.message }, 'request refused by authentication');
        response.send(error.status, { ...error.headers, ...JSON_HEADERS }, serialize(errorResponse(undefined, new McpError(error.code, error.message))));
      } else {
        this.log.error({ err: error }, 'the authenticate hook failed');
        refuse(response, HTTP_REFUSALS.AUTHENTICATION_FAILED, undefined);
      }
      return REFUSED;
    }
    return opening === undefined || this.host.admit(response, opening) ? auth : REFUSED;
  }

  /** Whether the session's streams open with a priming event: its revision says (revisions.ts; version strings are not compared). */
  private priming(session: HttpSession): boolean {
    const version = session.connection.sessionInfo?.protocolVersion;
    return isProtocolVersion(version) && REVISIONS[version].primingEvents;
  }
}
