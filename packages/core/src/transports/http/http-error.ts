/** The error that refuses an HTTP request with a status of its own (401, 403 …). */
import { ErrorCode } from '@hermes-mcp/protocol';

/**
 * Refuses an HTTP request with a status, headers and a message (sent as a JSON-RPC error with
 * `code`, default -32600): what an `authenticate` hook (or the `auth` option) throws to say no.
 */
export class HttpError extends Error {
  constructor(
    /** The HTTP status (401, 403, …). */
    readonly status: number,
    message: string,
    /** Response headers (`WWW-Authenticate`, …). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** The JSON-RPC error code of the body. */
    readonly code: number = ErrorCode.InvalidRequest,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
