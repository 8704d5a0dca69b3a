/**
 * The HTTP refusal catalog: every answer an MCP endpoint gives a request it will not serve, with
 * its status, its JSON-RPC code and a message that says what was wrong and how to fix it — one
 * table for core and every adapter, as Fastify's `lib/errors.js` is for Fastify. docs/errors.md
 * ("HTTP refusals") lists the same names; `refusals.spec.ts` keeps the two in sync.
 *
 * The entries are constants: a refusal costs nothing until one is sent.
 */
import { ErrorCode, McpError, RequestId, errorResponse, serialize } from '@hermes-mcp/protocol';
import type { HttpResponse } from './exchange';

/** One refusal: its status, its JSON-RPC code, and the message made of what the request did. */
export interface HttpRefusal<Args extends readonly unknown[] = readonly unknown[]> {
  /** The HTTP status. */
  readonly status: number;
  /** The JSON-RPC error code of the body. */
  readonly code: number;
  /** The message: what was wrong, and how to fix it. */
  readonly message: (...args: Args) => string;
  /** Headers every answer of this refusal carries (`connection: close` after a body cut short, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One catalog entry (the arguments its message takes are inferred). */
function refusal<Args extends readonly unknown[]>(status: number, code: number, message: (...args: Args) => string, headers?: Readonly<Record<string, string>>): HttpRefusal<Args> {
  return headers === undefined ? { status, code, message } : { status, code, message, headers };
}

const INVALID = ErrorCode.InvalidRequest;
const SHUTTING_DOWN = 'Service Unavailable: the server is shutting down; retry on another instance or once it is back';

/**
 * Every refusal of MCP over HTTP, by a stable name (listed in docs/errors.md, "HTTP refusals").
 * Send one with {@link refuse}.
 */
export const HTTP_REFUSALS = Object.freeze({
  /** 400: the body was empty. */
  BODY_EMPTY: refusal(400, INVALID, () => 'Bad Request: the body is empty; POST one JSON-RPC message (or a batch) as application/json'),
  /** 400: the body is not JSON (the parser's reason). */
  PARSE_ERROR: refusal(400, ErrorCode.ParseError, (reason: string) => `Parse error: ${reason}; send one JSON-RPC message (or a batch) as JSON`),
  /** 400: a request of a session without its `Mcp-Session-Id`. */
  SESSION_ID_REQUIRED: refusal(400, INVALID, () => 'Bad Request: the Mcp-Session-Id header is required (send "initialize" first to get one)'),
  /** 400: an `MCP-Protocol-Version` header naming no revision of a session. */
  UNSUPPORTED_VERSION_HEADER: refusal(
    400,
    INVALID,
    (version: string, supported: readonly string[]) =>
      `Bad Request: unsupported MCP-Protocol-Version "${version}" (supported: ${supported.join(', ')}); send the version "initialize" negotiated`,
  ),
  /** 400: `Last-Event-ID` names no event this session kept. */
  UNKNOWN_LAST_EVENT_ID: refusal(
    400,
    INVALID,
    (id: string) => `Bad Request: Last-Event-ID "${id}" is unknown here (evicted, or from another session); open a new stream with a GET without it`,
  ),
  /** 400: `initialize` inside a batch. */
  INITIALIZE_IN_BATCH: refusal(400, INVALID, () => 'Invalid request: "initialize" must not be part of a batch; send it alone'),
  /** 400: a batch on a revision without batches. */
  BATCH_NOT_SUPPORTED: refusal(
    400,
    INVALID,
    () => 'Invalid request: JSON-RPC batches are not supported by the negotiated protocol revision (only 2025-03-26 has them); send the messages one by one',
  ),
  /** 400: a WebSocket upgrade without the `mcp` subprotocol. */
  WEBSOCKET_SUBPROTOCOL: refusal(
    400,
    INVALID,
    (offered: string) => `Bad Request: MCP over WebSocket needs the subprotocol "mcp" (Sec-WebSocket-Protocol: mcp); offered: ${offered}`,
  ),
  /** 400: a request the Fetch API cannot hold (a header value it refuses, say), to a Node listener without an endpoint. */
  UNREPRESENTABLE_REQUEST: refusal(400, INVALID, (reason: string) => `Bad Request: ${reason} (the Fetch API cannot hold this request; send standard header values)`),
  /** 403: the Host or Origin is not allowed (DNS rebinding); the problem names the option. */
  FORBIDDEN_ORIGIN: refusal(403, INVALID, (problem: string) => `Forbidden: ${problem}`),
  /** 404: a path the endpoint does not serve. */
  NOT_FOUND: refusal(404, INVALID, (path: string) => `Not Found: MCP is served at ${path}`),
  /** 404: the protected-resource metadata of a server without `auth`. */
  NO_RESOURCE_METADATA: refusal(404, INVALID, () => 'Not Found: this server has no OAuth metadata (it is served with the auth option)'),
  /** 404: a session that expired, was ended, or belongs to another caller. */
  SESSION_NOT_FOUND: refusal(404, INVALID, () => 'Session not found: it expired or was ended; send "initialize" to start a new one'),
  /** 404: an HTTP+SSE session that is not open here. */
  SSE_SESSION_NOT_FOUND: refusal(404, INVALID, (path: string) => `Session not found: open a stream with GET ${path}/sse first`),
  /** 404: the session ended while the request was in flight. */
  SESSION_ENDED: refusal(404, INVALID, () => 'Session ended before the request was answered; send "initialize" to start a new one'),
  /** 405: a method the route does not serve (the answer carries `Allow`). */
  METHOD_NOT_ALLOWED: refusal(405, INVALID, (method: string, path: string, allowed: string) => `Method Not Allowed: ${method} ${path} (allowed: ${allowed})`),
  /** 405: a method the Fetch API cannot hold (`CONNECT`, `TRACE`, `TRACK`), to a Node listener without an endpoint. */
  UNREPRESENTABLE_METHOD: refusal(405, INVALID, (method: string) => `Method Not Allowed: ${method} (the Fetch API cannot hold it); use GET, POST or DELETE`),
  /** 406: a POST whose Accept lacks one of the two media types of Streamable HTTP. */
  NOT_ACCEPTABLE_POST: refusal(406, INVALID, () => 'Not Acceptable: the Accept header must list both application/json and text/event-stream'),
  /** 406: a stream request whose Accept lacks `text/event-stream`. */
  NOT_ACCEPTABLE_STREAM: refusal(406, INVALID, () => 'Not Acceptable: the Accept header must list text/event-stream'),
  /** 408: the body did not arrive within `bodyTimeout`; the connection closes after the answer. */
  REQUEST_TIMEOUT: refusal(
    408,
    INVALID,
    (timeoutMs: number) => `Request Timeout: the body did not arrive within ${timeoutMs} ms (bodyTimeout)`,
    Object.freeze({ connection: 'close' }),
  ),
  /** 409: a second GET stream for a session. */
  STREAM_CONFLICT: refusal(409, INVALID, () => 'Conflict: this session already has a GET stream open; resume it with Last-Event-ID, or close it first'),
  /** 413: the body is larger than `bodyLimit`. */
  PAYLOAD_TOO_LARGE: refusal(413, INVALID, (limit: number) => `Payload Too Large: the body exceeds ${limit} bytes (bodyLimit)`),
  /** 415: a body not declared `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: refusal(415, INVALID, () => 'Unsupported Media Type: the body must be application/json (Content-Type: application/json)'),
  /** 426: a plain GET on the WebSocket endpoint. */
  UPGRADE_REQUIRED: refusal(
    426,
    INVALID,
    (url: string, path: string) => `Upgrade Required: ${url} serves MCP over WebSocket (subprotocol "mcp"); use a WebSocket client, or POST ${path} for Streamable HTTP`,
    Object.freeze({ upgrade: 'websocket' }),
  ),
  /** 429: the client holds `maxSessionsPerClient` sessions. */
  TOO_MANY_SESSIONS: refusal(
    429,
    INVALID,
    (max: number) => `Too Many Requests: this client holds its maximum of ${max} sessions (maxSessionsPerClient); end one with DELETE first`,
  ),
  /** 500: the `authenticate` hook threw something other than an `HttpError`. */
  AUTHENTICATION_FAILED: refusal(
    500,
    ErrorCode.InternalError,
    () => 'Internal error: the request could not be authenticated (the authenticate hook failed; the server log says why); retry, or tell its operator',
  ),
  /** 500: the server failed; the cause is logged, never sent. */
  INTERNAL_ERROR: refusal(500, ErrorCode.InternalError, () => 'Internal error: the server failed to answer (its log says why); retry, or tell its operator'),
  /** 503: the server is shutting down. */
  SHUTTING_DOWN: refusal(503, ErrorCode.ServerShuttingDown, () => SHUTTING_DOWN),
  /** 503: `maxSessions` sessions, all busy. */
  SERVER_FULL: refusal(
    503,
    ErrorCode.InternalError,
    (max: number) => `Service Unavailable: this server holds its maximum of ${max} sessions (maxSessions), all busy; try again later`,
  ),
  /** 503: the session store failed. */
  SESSION_STORE_FAILED: refusal(503, ErrorCode.InternalError, () => 'Service Unavailable: the session store could not be read; retry later'),
  /** 503: the session could not be taken up here (another request taking it up was refused by the limits). */
  TAKE_UP_REFUSED: refusal(503, ErrorCode.InternalError, () => 'Service Unavailable: the session could not be taken up here; try again later'),
  /** 503: the event store failed to replay a stream. */
  EVENT_STORE_FAILED: refusal(503, ErrorCode.InternalError, () => 'Service Unavailable: the event store could not replay the stream; retry later'),
  /** 503: the cluster bus failed to hand an HTTP+SSE message to the instance holding its session. */
  BUS_FAILED: refusal(503, ErrorCode.InternalError, () => 'Service Unavailable: the message could not be handed to the instance holding the session; retry later'),
});

/** A name of the catalog. */
export type HttpRefusalName = keyof typeof HTTP_REFUSALS;

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/**
 * Answers with a refusal of the catalog: its status, its headers (and `headers`, such as a 405's
 * `Allow`), and a JSON-RPC error without an id.
 *
 * @example
 * refuse(response, HTTP_REFUSALS.PAYLOAD_TOO_LARGE, undefined, bodyLimit);
 */
export function refuse<Args extends readonly unknown[]>(
  response: HttpResponse,
  refusal: HttpRefusal<Args>,
  headers: Readonly<Record<string, string>> | undefined,
  ...args: Args
): void {
  const head = refusal.headers === undefined && headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...refusal.headers, ...headers };
  response.send(refusal.status, head, serialize(errorResponse(undefined, new McpError(refusal.code, refusal.message(...args)))));
}

/**
 * Answers with a JSON-RPC error that is not the endpoint's own (the parser's, the era's, the
 * engine's): with the request's id when it is known, without one otherwise.
 */
export function sendError(response: HttpResponse, status: number, code: number, message: string, data?: unknown, id?: RequestId): void {
  response.send(status, JSON_HEADERS, serialize(errorResponse(id, new McpError(code, message, data))));
}
