/**
 * JSON-RPC and MCP error codes, and the error type that travels on the wire.
 *
 * Wire errors carry a numeric code and become a JSON-RPC `error` member; they are a different
 * type from the framework's local errors (string codes, see `@hermes-mcp/core`'s catalog).
 */

/** Numeric error codes used on the wire: JSON-RPC 2.0's own, then MCP's. */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters. */
  InvalidParams: -32602,
  /** Internal JSON-RPC error. */
  InternalError: -32603,
  /** MCP (legacy revisions): the resource asked for does not exist. */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: the request needs a URL-mode elicitation first. */
  UrlElicitationRequired: -32042,
  /** MCP 2026-07-28: HTTP headers and the body disagree. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request lacks a client capability the handler needs. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the requested protocol revision is not supported. */
  UnsupportedProtocolVersion: -32022,
  /** Hermes: the request was cancelled or timed out before a response arrived (local only). */
  RequestTimeout: -32001,
  /**
   * Hermes: the server is shutting down; the request was refused, or was still running when the
   * shutdown grace period ended. Send it again to another instance, or later.
   */
  ServerShuttingDown: -32010,
  /**
   * Hermes: the client fell too far behind reading what the server sent for this request (more
   * than the transport's `maxBufferedBytes` unread), so the request was cancelled.
   */
  ClientTooSlow: -32011,
  /**
   * Hermes: the caller's credentials lack scopes the component needs (`data.requiredScopes`). Over
   * HTTP it is answered 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` (step-up).
   */
  InsufficientScope: -32012,
  /**
   * Hermes: the answer to this request is larger than the server sends in one message
   * (`maxResultBytes`, in `data.maxResultBytes`; `data.bytes` when its size was measured). Ask
   * for less (a page, a range), or raise the server's limit.
   */
  ResultTooLarge: -32013,
  /**
   * Hermes: the access token a long-lived connection was opened with expired (a WebSocket, a
   * `subscriptions/listen` stream): what was in flight is answered with it and the connection
   * ends. Get a fresh token (refresh, or sign in again) and reconnect.
   */
  TokenExpired: -32014,
} as const;

/** One of the numeric codes of {@link ErrorCode}, or any other integer a peer sends. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode] | (number & {});

/**
 * A client value as it may appear in an error message: strings as they are, anything else as its
 * JSON, cut to `max` characters. Never throws, however the value is built (an object whose
 * `toString` is not a function, say): what `JSON.stringify` refuses (a BigInt, a cycle, a `toJSON`
 * or a getter that throws) is named instead, as 'an array', 'an object' or its type.
 *
 * Nesting deeper than the stack is named the same way where `JSON.stringify` recurses (Node 20 to
 * 24); Node 26 writes plain objects and arrays at any depth, so there it is described by its cut
 * JSON like any other value.
 *
 * @example
 * throw McpError.invalidParams(`Unknown tool: ${describeValue(params.name)}`);
 */
export function describeValue(value: unknown, max = 200): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? typeof value;
    } catch {
      text = Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : typeof value;
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error that is sent to the peer as a JSON-RPC error response.
 *
 * Throw it from a handler to answer with that code; use the factories for the common cases.
 *
 * @example
 * throw McpError.invalidParams('cursor is not one this server issued');
 */
export class McpError extends Error {
  /** The numeric JSON-RPC code. */
  readonly code: number;
  /** Optional structured detail sent as `error.data`. */
  readonly data?: unknown;
  /**
   * The HTTP status this error is sent with on HTTP, when it is not the default for its code
   * (e.g. 400 for an invalid `_meta` envelope, 404 for a method a revision does not have).
   */
  httpStatus?: number;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }

  /** The JSON-RPC `error` object for this error. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }

  /**
   * True for an error the other side answered with ({@link fromObject}); false for one made here
   * (a local timeout or cancellation, a refusal before sending), where it is absent. Telemetry
   * records a response's code (`rpc.response.status_code`) only when a response came.
   */
  declare received?: true;

  /** Rebuilds an error received from a peer. */
  static fromObject(error: JsonRpcErrorObject): McpError {
    const rebuilt = new McpError(error.code, error.message, error.data);
    rebuilt.received = true;
    return rebuilt;
  }

  /** -32700: the bytes were not JSON. */
  static parseError(detail: string): McpError {
    return new McpError(ErrorCode.ParseError, `Parse error: ${detail}`);
  }

  /** -32600: JSON, but not a valid JSON-RPC request. */
  static invalidRequest(detail: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`, data);
  }

  /** -32601: no such method (or not available in the negotiated revision). */
  static methodNotFound(method: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  /** -32602: the params are wrong. */
  static invalidParams(detail: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
  }

  /** -32603: something failed inside the server; never carries internals. */
  static internalError(detail = 'Internal error'): McpError {
    return new McpError(ErrorCode.InternalError, detail);
  }

  /** -32600: a request reused the id of one still in progress. */
  static requestInProgress(id: string | number): McpError {
    return McpError.invalidRequest(`a request with id ${JSON.stringify(id)} is already in progress`);
  }

  /** -32600: a batch of `count` messages, more than the receiver takes (`maxBatchEntries`, `max`). */
  static batchTooLarge(count: number, max: number): McpError {
    return McpError.invalidRequest(`the batch holds ${count} messages, more than this server's limit of ${max} (maxBatchEntries); send fewer per batch`, {
      maxBatchEntries: max,
    });
  }

  /** -32600: `max` requests of the other side are being handled already (`maxInboundRequests`). */
  static tooManyRequests(max: number): McpError {
    return McpError.invalidRequest(`too many requests at once: at most ${max} of yours are handled here at a time (maxInboundRequests); send it again once one was answered`, {
      maxInboundRequests: max,
    });
  }

  /** -32012: `what` needs scopes the caller's credentials lack (over HTTP: 403, step-up). */
  static insufficientScope(requiredScopes: readonly string[], what: string): McpError {
    const error = new McpError(ErrorCode.InsufficientScope, `Forbidden: ${what} needs the scope${requiredScopes.length === 1 ? '' : 's'} ${requiredScopes.join(' ')}`, {
      requiredScopes: [...requiredScopes],
    });
    error.httpStatus = 403;
    return error;
  }

  /** -32010: the server is shutting down. */
  static shuttingDown(detail = 'the request was not completed'): McpError {
    return new McpError(ErrorCode.ServerShuttingDown, `Server shutting down: ${detail}`);
  }

  /** -32014: the access token the connection was opened with expired; reconnect with a fresh one. */
  static tokenExpired(): McpError {
    return new McpError(ErrorCode.TokenExpired, 'Unauthorized: the access token this connection was opened with expired; reconnect with a fresh one');
  }

  /** -32002: no resource at that URI (legacy revisions). */
  static resourceNotFound(uri: string): McpError {
    return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
  }
}

/**
 * The connection closed, was lost, or never opened before the answer to a request came: a
 * condition of this side, never an answer from the other. It is no {@link McpError}, and its
 * `code` is a string, so it cannot be taken for a JSON-RPC error a peer sent: servers send -32000
 * for conditions of their own (a session they do not know, a revision they cannot serve), and a
 * client must tell "the server said no" from "nothing could be said".
 *
 * @example
 * try {
 *   await client.callTool('report');
 * } catch (error) {
 *   if (error instanceof ConnectionClosedError) await reconnect(); // the server never answered
 *   else throw error; // an McpError: the server's answer
 * }
 */
export class ConnectionClosedError extends Error {
  /** Always `CONNECTION_CLOSED` (see docs/errors.md, "Local errors"). */
  readonly code = 'CONNECTION_CLOSED';

  constructor(
    message: string,
    /** What more is known: `exit` (how a stdio server exited), `status` and `sessionExpired` (HTTP 404 for a session). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ConnectionClosedError';
  }
}
