/**
 * The Fastify plugin: mounts a Hermes MCP server at a path of any Fastify app.
 *
 * - `POST {path}`, `GET {path}`, `DELETE {path}`: Streamable HTTP (MCP 2025-03-26 … 2025-11-25),
 *   with sessions, JSON or SSE answers, resumable streams.
 * - `GET {path}/sse` + `POST {path}/messages?sessionId=…`: the HTTP+SSE transport of 2024-11-05.
 *
 * The routes live in their own encapsulated context, so the error handler and hooks added here
 * touch nothing else of the app.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  Connection,
  Constructor,
  McpApp,
  McpAppOptions,
  McpFactory,
  McpHandler,
} from '@hermes-mcp/core';
import { HermesError, hasModernClaim, readEnvelope } from '@hermes-mcp/core';
import {
  ErrorCode,
  JsonRpcMessage,
  JsonRpcRequest,
  McpError,
  META_KEYS,
  errorResponse,
  isModernProtocolVersion,
  LEGACY_PROTOCOL_VERSIONS,
  ParsedFrame,
  RequestId,
  TransportInfo,
  classifyValue,
  parseJson,
  serialize,
} from '@hermes-mcp/protocol';
import { InMemoryEventStore } from './event-store';
import { Expected, HttpSessionTransport } from './http-session';
import { LegacySseTransport } from './legacy-sse';
import { OriginPolicy, checkOrigin } from './security';
import { InMemorySessionStore, SessionStore } from './session-store';
import { IdleSessions, LiveSession } from './idle-sessions';
import { HeaderParam, HeaderProblem, checkParamHeaders, checkStandardHeaders, headerParamsOf, validateHeaderDeclarations } from './modern-headers';
import { headerMismatch, serveModern } from './modern-http';
import { DEFAULT_MAX_BUFFERED_BYTES, SseConnection } from './sse';
import type { WebSocketTransport } from './websocket';
import { WebSocketOptions, serveWebSocket } from './websocket-route';

/** Options of the {@link hermesMcp} plugin. */
export interface HermesMcpOptions extends OriginPolicy {
  /** The server: a `@McpServer` class, an `McpHandler`, or an app made with `McpFactory.create`. */
  server: Constructor | McpHandler | McpApp;
  /** Options for `McpFactory.create` when `server` is not an app yet (the logger defaults to Fastify's). */
  appOptions?: McpAppOptions;
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
   * Which client a request comes from, for `maxSessionsPerClient` (default: `request.ip`, which
   * follows Fastify's `trustProxy`). Return a user or tenant id to count per account instead.
   */
  clientKey?: (request: FastifyRequest) => string;
  /**
   * Most bytes one SSE stream may hold unread before it is closed (default 4 MiB). A request's
   * stream that falls that far behind ends and its request is cancelled (answered with -32011
   * for a client that resumes); the session stays. A 2024-11-05 HTTP+SSE session has one stream,
   * so it ends.
   */
  maxBufferedBytes?: number;
  /**
   * When the Fastify app closes, how long requests in flight may take to finish before they are
   * answered with -32010, in milliseconds (default: the app's `shutdownGracePeriod`, 5 000).
   */
  shutdownGracePeriod?: number;
  /** Largest request body in bytes; larger gets 413 (default 4 MiB). */
  bodyLimit?: number;
  /** Milliseconds a client waits before reconnecting a closed SSE stream (`retry`, default 1000). */
  retryMs?: number;
  /** Events kept per session for resumption (default 1000). */
  eventStoreLimit?: number;
  /** Where sessions are kept (default: in memory). */
  sessionStore?: SessionStore<HttpSession>;
  /** Serve the 2024-11-05 HTTP+SSE transport at `{path}/sse` and `{path}/messages` (default true). */
  legacySse?: boolean;
  /**
   * Serve MCP over WebSocket at `{path}/ws` (default false): one JSON-RPC message per text frame,
   * subprotocol `mcp`, as the SDK's `WebSocketClientTransport` speaks it. Needs the optional peer
   * `@fastify/websocket` (`npm install @fastify/websocket`). Each socket is a session: it counts
   * toward `maxSessions` and `maxSessionsPerClient`, ends after `sessionIdleTimeout` without a
   * frame from the client, and drains when Fastify closes (then closes with 1001). Frames are
   * limited to `maxPayload` bytes (default: `bodyLimit`), unread output to `maxBufferedBytes`.
   *
   * @example
   * await app.register(hermesMcp, { server: WeatherServer, websocket: true }); // ws://host/mcp/ws
   */
  websocket?: boolean | WebSocketOptions;
}

/** A live session: its transport and its engine connection. */
export interface HttpSession {
  readonly id: string;
  readonly transport: HttpSessionTransport | LegacySseTransport | WebSocketTransport;
  readonly connection: Connection;
  /** Restarts the idle clock. @internal */
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
 * The options of a Streamable HTTP session's transport. `onDropped` is a method, not a closure per
 * session: the transport calls it on these options, so the session id comes from `this`.
 */
class SessionTransportOptions {
  /** The session's events, kept for resumption (its store allocates nothing before the first). */
  readonly eventStore: InMemoryEventStore;

  constructor(
    readonly sessionId: string,
    eventStoreLimit: number,
    readonly retryMs: number,
    readonly maxBufferedBytes: number,
    private readonly log: { debug(bindings: object, message: string): void },
  ) {
    this.eventStore = new InMemoryEventStore(eventStoreLimit);
  }

  /** Logs a message that had no stream to go to. */
  onDropped(message: JsonRpcMessage | JsonRpcMessage[]): void {
    this.log.debug({ sessionId: this.sessionId, message }, 'no stream for a message; dropped');
  }
}

const MINUTE = 60_000;
const DEFAULTS = {
  path: '/mcp',
  sessionIdleTimeout: 30 * MINUTE,
  maxSessions: 10_000,
  maxSessionsPerClient: 1_000,
  bodyLimit: 4 * 1024 * 1024,
  retryMs: 1000,
  eventStoreLimit: 1000,
  maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
};
const SUPPORTED_HEADER_VERSIONS: readonly string[] = LEGACY_PROTOCOL_VERSIONS;

/** Answers with a JSON-RPC error: with the request's id when it is known, without one otherwise (HTTP-level errors). */
function fail(reply: FastifyReply, status: number, code: number, message: string, data?: unknown, id?: RequestId): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(serialize(errorResponse(id, new McpError(code, message, data))));
}

/** Which era a POST belongs to (MCP 2026-07-28 §transports): decided by the body, before any session. */
type EraDecision =
  | { kind: 'legacy' }
  | { kind: 'modern'; request: JsonRpcRequest }
  | { kind: 'modern-notification' }
  | { kind: 'refuse'; error: McpError; id?: RequestId };

function eraOf(request: FastifyRequest, frame: ParsedFrame): EraDecision {
  const headerVersion = header(request, 'mcp-protocol-version');
  const modernHeader = headerVersion !== undefined && isModernProtocolVersion(headerVersion.trim());
  if (frame.kind === 'batch') {
    const claimed = frame.messages.some((m) => (m.kind === 'request' || m.kind === 'notification') && hasModernClaim(m.message.params));
    if (claimed) return { kind: 'refuse', error: McpError.invalidRequest('JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later') };
    return { kind: 'legacy' };
  }
  if (frame.kind !== 'single') return { kind: 'legacy' };
  const m = frame.message;
  if (m.kind === 'request') {
    if (hasModernClaim(m.message.params)) return { kind: 'modern', request: m.message };
    if (m.message.method === 'initialize') {
      if (modernHeader) {
        return { kind: 'refuse', id: m.message.id, error: new McpError(ErrorCode.HeaderMismatch, 'Bad Request: an initialize request cannot name MCP-Protocol-Version 2026-07-28 (send server/discover with _meta instead)', { mismatch: { header: headerVersion, body: m.message.method } }) };
      }
      return { kind: 'legacy' };
    }
    if (modernHeader) {
      try {
        readEnvelope(m.message.params);
      } catch (error) {
        return { kind: 'refuse', id: m.message.id, error: error as McpError };
      }
    }
    return { kind: 'legacy' };
  }
  if (m.kind === 'notification' && (hasModernClaim(m.message.params) || modernHeader)) return { kind: 'modern-notification' };
  // Not JSON-RPC, but meant for the modern era: answer with what is wrong (and its id), not with a session error.
  if (m.kind === 'invalid' && (modernHeader || hasModernClaim((request.body as { params?: unknown } | null)?.params))) {
    // A malformed response is never answered with its id: the client would take it for our answer.
    return { kind: 'refuse', error: m.error, id: m.noReply ? undefined : (m.id ?? undefined) };
  }
  return { kind: 'legacy' };
}

/**
 * Whether the Accept header admits `type` (`application/json`, say): a media range that names it,
 * its `type/*` (`family`), or `*\/*`, with a weight above zero. Ranges are compared whole, not as
 * substrings, and the header is scanned in place (it is read on every POST).
 */
function accepts(request: FastifyRequest, type: string, family: string): boolean {
  const accept = request.headers.accept;
  if (accept === undefined) return false;
  for (let start = 0; start < accept.length; ) {
    let end = accept.indexOf(',', start);
    if (end === -1) end = accept.length;
    let from = start;
    while (from < end && isSpace(accept.charCodeAt(from))) from++;
    let semi = accept.indexOf(';', from);
    if (semi === -1 || semi > end) semi = end;
    let to = semi;
    while (to > from && isSpace(accept.charCodeAt(to - 1))) to--;
    if ((rangeIs(accept, from, to, type) || rangeIs(accept, from, to, family) || rangeIs(accept, from, to, '*/*')) && !(semi < end && ZERO_WEIGHT.test(accept.slice(semi, end)))) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

const ZERO_WEIGHT = /;\s*q\s*=\s*0(\.0{0,3})?\s*(;|$)/i;

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

/** Whether `text[from, to)` is `range` (media types compare case-insensitively). */
function rangeIs(text: string, from: number, to: number, range: string): boolean {
  if (to - from !== range.length) return false;
  return text.startsWith(range, from) || text.slice(from, to).toLowerCase() === range;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
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

/** Parsed bodies whose text could spell a key that is refused (see `parseJson`'s `suspect`). */
const suspectBodies = new WeakSet<object>();

/** The frame of a parsed body; keys that could change prototypes are looked for only where the text could hold them. */
function classifyBody(body: unknown): ParsedFrame {
  return classifyValue(body, typeof body === 'object' && body !== null && suspectBodies.has(body));
}

async function plugin(fastify: FastifyInstance, options: HermesMcpOptions): Promise<void> {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  const path = settings.path.endsWith('/') && settings.path.length > 1 ? settings.path.slice(0, -1) : settings.path;
  const app = options.server instanceof McpApp ? options.server : McpFactory.create(options.server, { logger: fastify.log, ...options.appOptions });
  // Clients drop tools whose `x-mcp-header` declarations are malformed: refuse to start instead.
  for (const tool of app.registry?.allTools() ?? []) {
    const problems = validateHeaderDeclarations(tool.descriptor.inputSchema);
    if (problems.length > 0) {
      throw new HermesError('HERMES_INVALID_OPTIONS', `${tool.owner}: the x-mcp-header declarations of "${tool.name}" are invalid: ${problems.join('; ')}`);
    }
  }
  const sessions: SessionStore<HttpSession> = options.sessionStore ?? new InMemorySessionStore<HttpSession>();
  const log = fastify.log.child({ mcp: path });

  const idle = new IdleSessions(sessions, settings.sessionIdleTimeout, log);
  // One function for every connection: the session is found again by its id.
  const connectionClosed = (connection: Connection) => idle.connectionClosed(connection);
  const clientKey = options.clientKey ?? ((request: FastifyRequest) => request.ip);
  const gracePeriod = options.shutdownGracePeriod ?? app.engine.gracePeriod;
  /** Clients told about once that they reached `maxSessionsPerClient` (bounded: cleared when it grows large). */
  const capped = new Set<string>();
  /** True once the Fastify app began closing: no new sessions or streams. */
  let closing = false;

  /**
   * Whether a new session may open for this request's client; answers 503 (shutting down, or
   * full of busy sessions) or 429 (this client holds its maximum) when not. At `maxSessions`, the
   * session idle longest makes room.
   */
  function admit(reply: FastifyReply, client: string): boolean {
    if (closing) {
      fail(reply, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
      return false;
    }
    if (idle.heldBy(client) >= settings.maxSessionsPerClient) {
      // Once per client, for the operator: behind a proxy every client may look like one.
      if (!capped.has(client)) {
        if (capped.size >= 1024) capped.clear();
        capped.add(client);
        log.warn({ client, maxSessionsPerClient: settings.maxSessionsPerClient }, 'a client reached maxSessionsPerClient; behind a proxy, set Fastify\'s trustProxy (or clientKey) so clients are told apart');
      }
      fail(reply, 429, ErrorCode.InvalidRequest, `Too Many Requests: this client holds its maximum of ${settings.maxSessionsPerClient} sessions (maxSessionsPerClient); end one with DELETE first`);
      return false;
    }
    if (sessions.size >= settings.maxSessions && !idle.evictIdlest()) {
      fail(reply, 503, ErrorCode.InternalError, `Service Unavailable: this server holds its maximum of ${settings.maxSessions} sessions (maxSessions), all busy; try again later`);
      return false;
    }
    return true;
  }

  async function openSession(client: string, makeTransport: (id: string) => HttpSession['transport']): Promise<HttpSession> {
    const id = randomBytes(24).toString('base64url');
    const transport = makeTransport(id);
    // The session's child logger (bound to its id) is made when the session first logs.
    const connection = await app.connect(transport, { sessionId: id, logger: log, loggerBindings: { sessionId: id }, onclose: connectionClosed });
    const session = new LiveSession(id, transport, connection, idle, client);
    // Closed while connecting (a legacy SSE stream cut at once): nothing to keep.
    if (!connection.isClosed) idle.add(session);
    return session;
  }

  function requestInfo(request: FastifyRequest, sessionId: string): TransportInfo {
    return { kind: 'http', sessionId, headers: request.headers, ip: request.ip, url: request.url };
  }

  /** The session named by the request's header: 400 without one, 404 for an unknown one. */
  function sessionOf(request: FastifyRequest, reply: FastifyReply): HttpSession | undefined {
    const id = header(request, 'mcp-session-id');
    if (!id) {
      fail(reply, 400, ErrorCode.InvalidRequest, 'Bad Request: the Mcp-Session-Id header is required (send "initialize" first to get one)');
      return undefined;
    }
    const session = sessions.get(id);
    if (!session || !(session.transport instanceof HttpSessionTransport)) {
      // While shutting down, a session that ended for it is not "not found": the client should go
      // elsewhere or come back later, not re-initialize here.
      if (closing) fail(reply, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
      else fail(reply, 404, ErrorCode.InvalidRequest, 'Session not found: it expired or was ended; send "initialize" to start a new one');
      return undefined;
    }
    const version = header(request, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_HEADER_VERSIONS.includes(version)) {
      fail(reply, 400, ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version "${version}" (supported: ${SUPPORTED_HEADER_VERSIONS.join(', ')})`);
      return undefined;
    }
    session.touch();
    return session;
  }

  function priming(session: HttpSession): boolean {
    const version = session.connection.sessionInfo?.protocolVersion;
    return version !== undefined && version >= '2025-11-25';
  }

  /** The `x-mcp-header` declarations of each tool, read once per tool descriptor. */
  const paramHeaders = new WeakMap<object, HeaderParam[]>();

  /**
   * The MCP 2026-07-28 headers agree with the body (SEP-2243): the standard ones (MCP-Protocol-Version,
   * Mcp-Method, Mcp-Name), then for `tools/call` the `Mcp-Param-*` headers the tool declares. An
   * unknown tool is not checked here: it gets its -32602 in-band.
   */
  function checkModernHeaders(request: FastifyRequest, message: JsonRpcRequest, version: string): McpError | undefined {
    const problem = checkStandardHeaders(request.headers, message, version) ?? checkToolParamHeaders(request, message);
    return problem && headerMismatch(problem);
  }

  function checkToolParamHeaders(request: FastifyRequest, message: JsonRpcRequest): HeaderProblem | undefined {
    const params = message.params;
    if (message.method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
    const tool = app.registry?.tool(params.name);
    if (!tool) return undefined;
    let declared = paramHeaders.get(tool.descriptor);
    if (!declared) paramHeaders.set(tool.descriptor, (declared = headerParamsOf(tool.descriptor.inputSchema)));
    if (declared.length === 0) return undefined;
    const args = params.arguments;
    return checkParamHeaders(request.headers, declared, typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {});
  }

  async function post(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const contentType = header(request, 'content-type') ?? '';
    if (!contentType.toLowerCase().startsWith('application/json')) {
      return fail(reply, 415, ErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json');
    }
    if (!accepts(request, 'application/json', 'application/*') || !accepts(request, 'text/event-stream', 'text/*')) {
      return fail(reply, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
    }
    const frame = classifyBody(request.body);
    if (frame.kind === 'invalid') return fail(reply, 400, frame.error.code, frame.error.message);
    const era = eraOf(request, frame);
    if (era.kind === 'refuse') return fail(reply, 400, era.error.code, era.error.message, era.error.data, era.id);
    if (era.kind === 'modern') return serveModern(app, request, reply, era.request, checkModernHeaders, settings.maxBufferedBytes);
    if (era.kind === 'modern-notification') return reply.code(202).send();
    // Not JSON-RPC, and no id to answer to or no session to answer in: the engine's error would
    // have nowhere to go. Answered here, with its id when it has one (never a response's).
    if (frame.kind === 'single' && frame.message.kind === 'invalid' && (frame.message.id === null || header(request, 'mcp-session-id') === undefined)) {
      const m = frame.message;
      return fail(reply, 400, m.error.code, m.error.message, undefined, m.noReply || m.id === null ? undefined : m.id);
    }
    const expected = requestsOf(frame);
    if (expected.invalid) return fail(reply, 400, ErrorCode.InvalidRequest, `Invalid request: ${expected.invalid}`);
    // An initialize that names a session belongs to that session (which refuses a second one).
    const initialize = expected.initialize && header(request, 'mcp-session-id') === undefined;
    let session: HttpSession | undefined;
    if (initialize) {
      const client = clientKey(request);
      if (!admit(reply, client)) return reply;
      session = await openSession(client, (id) => new HttpSessionTransport(new SessionTransportOptions(id, settings.eventStoreLimit, settings.retryMs, settings.maxBufferedBytes, log)));
    } else {
      session = sessionOf(request, reply);
      if (!session) return reply;
    }
    if (frame.kind === 'batch' && !session.connection.acceptBatch()) {
      // The engine refuses it with an error that has no id, so no exchange would ever be answered.
      return fail(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: JSON-RPC batches are not supported by the negotiated protocol revision (only 2025-03-26 has them)');
    }
    const transport = session.transport as HttpSessionTransport;
    const exchange = transport.receive(frame, expected, requestInfo(request, session.id), priming(session));
    if (!exchange) return reply.code(202).send();
    const decision = await exchange.decision;
    if (decision.kind === 'closed') return fail(reply, 404, ErrorCode.InvalidRequest, 'Session ended before the request was answered');
    const sessionHeader: Record<string, string> = initialize ? { 'mcp-session-id': session.id } : {};
    if (decision.kind === 'sse') {
      exchange.respond(reply, sessionHeader);
      return reply;
    }
    if (initialize && isError(decision.message)) {
      void session.close();
      return reply.code(200).header('content-type', 'application/json').send(decision.body);
    }
    return reply.code(200).headers(sessionHeader).header('content-type', 'application/json').send(decision.body);
  }

  async function get(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (!accepts(request, 'text/event-stream', 'text/*')) {
      return fail(reply, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list text/event-stream');
    }
    const session = sessionOf(request, reply);
    if (!session) return reply;
    const transport = session.transport as HttpSessionTransport;
    const lastEventId = header(request, 'last-event-id');
    if (lastEventId !== undefined) {
      if (!transport.resume(reply, lastEventId)) {
        return fail(reply, 400, ErrorCode.InvalidRequest, `Bad Request: Last-Event-ID "${lastEventId}" is unknown here (evicted, or from another session)`);
      }
      return reply;
    }
    if (closing) return fail(reply, 503, ErrorCode.ServerShuttingDown, 'Service Unavailable: the server is shutting down');
    if (transport.hasStandaloneStream) {
      return fail(reply, 409, ErrorCode.InvalidRequest, 'Conflict: this session already has a GET stream open');
    }
    transport.openStandalone(reply, priming(session));
    return reply;
  }

  async function remove(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const session = sessionOf(request, reply);
    if (!session) return reply;
    await session.close();
    return reply.code(200).send();
  }

  async function legacyOpen(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (!accepts(request, 'text/event-stream', 'text/*')) return fail(reply, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the Accept header must list text/event-stream');
    const client = clientKey(request);
    if (!admit(reply, client)) return reply;
    const connection = SseConnection.open(reply, {}, settings.maxBufferedBytes);
    const session = await openSession(client, (id) => new LegacySseTransport(id, connection));
    connection.write(`${path}/messages?sessionId=${encodeURIComponent(session.id)}`, undefined, 'endpoint');
    return reply;
  }

  async function legacyPost(request: FastifyRequest<{ Querystring: { sessionId?: string } }>, reply: FastifyReply): Promise<FastifyReply> {
    const id = request.query.sessionId;
    const session = id ? sessions.get(id) : undefined;
    if (!session || !(session.transport instanceof LegacySseTransport)) {
      return fail(reply, 404, ErrorCode.InvalidRequest, 'Session not found: open a stream with GET {path}/sse first');
    }
    const contentType = header(request, 'content-type') ?? '';
    if (!contentType.toLowerCase().startsWith('application/json')) {
      return fail(reply, 415, ErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json');
    }
    session.touch();
    session.transport.onframe?.(classifyBody(request.body), requestInfo(request, session.id));
    return reply.code(202).send('Accepted');
  }

  await fastify.register(async (scope) => {
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      // Refused by the body parser (not JSON, or a key that could change prototypes): say why.
      if (error instanceof McpError) return fail(reply, 400, error.code, error.message);
      switch (error.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return fail(reply, 413, ErrorCode.InvalidRequest, `Payload Too Large: the body exceeds ${settings.bodyLimit} bytes (bodyLimit)`);
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return fail(reply, 415, ErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json');
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return fail(reply, 400, ErrorCode.InvalidRequest, 'Bad Request: the body is empty');
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
          return fail(reply, 400, ErrorCode.ParseError, `Parse error: ${error.message}`);
      }
      if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
        return fail(reply, 400, ErrorCode.ParseError, `Parse error: ${error.message}`);
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return fail(reply, error.statusCode, ErrorCode.InvalidRequest, error.message);
      }
      request.log.error({ err: error }, 'MCP endpoint failed');
      return fail(reply, 500, ErrorCode.InternalError, 'Internal error');
    });
    // JSON bodies are parsed by the protocol's parser: the client learns why a body was refused
    // (Fastify's own parser says only "not valid JSON", even for a refused "__proto__" key).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      if (body === '') return done(Object.assign(new Error('the body is empty'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }), undefined);
      const parsed = parseJson(body as string);
      if (!parsed.ok) return done(parsed.error, undefined);
      if (parsed.suspect) suspectBodies.add(parsed.value as object);
      done(null, parsed.value);
    });
    // A callback hook, not an async one: it runs on every request, and a promise per request costs.
    scope.addHook('onRequest', (request, reply, done) => {
      const refused = checkOrigin(request, options);
      if (refused) fail(reply, 403, ErrorCode.InvalidRequest, `Forbidden: ${refused}`);
      else done();
    });
    scope.post(path, { bodyLimit: settings.bodyLimit }, post);
    if (settings.legacySse !== false) scope.post(`${path}/messages`, { bodyLimit: settings.bodyLimit }, legacyPost);
    // GET and DELETE carry no message: a body, or a Content-Type without one, is not an error.
    await scope.register(async (bodiless) => {
      bodiless.removeAllContentTypeParsers();
      bodiless.addContentTypeParser('*', (_request, payload, done) => {
        payload.resume();
        done(null, undefined);
      });
      bodiless.get(path, get);
      bodiless.delete(path, remove);
      if (settings.legacySse !== false) bodiless.get(`${path}/sse`, legacyOpen);
    });
    if (options.websocket) {
      const { bodyLimit, maxBufferedBytes } = settings;
      await serveWebSocket(scope, { path, option: options.websocket, bodyLimit, maxBufferedBytes, clientKey, admit, openSession, closing: () => closing });
    }
  });

  // preClose, not onClose: Fastify closes the HTTP server (waiting for every open connection) before
  // onClose hooks run, so open SSE streams and pending requests must be ended first.
  fastify.addHook('preClose', async () => {
    closing = true;
    // New requests are refused (-32010), listen streams end, requests in flight get the grace
    // period; then each session closes, its streams with it.
    await Promise.all([app.engine.modern.drain(gracePeriod), ...[...sessions.values()].map((s) => s.drain(gracePeriod))]);
  });
}

function isError(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && 'error' in message;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Mounts a Hermes MCP server in a Fastify app.
 *
 * @example
 * const app = Fastify({ logger: true });
 * await app.register(hermesMcp, { server: WeatherServer, path: '/mcp' });
 * await app.listen({ host: '127.0.0.1', port: 3000 });
 */
export const hermesMcp = fp(plugin, { name: '@hermes-mcp/fastify', fastify: '5.x' });
