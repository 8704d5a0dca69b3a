/**
 * The gateway's errors: what a downstream client receives when the upstream server could not
 * answer. Each is a JSON-RPC error -32603 (InternalError) whose message starts with its code and
 * whose `data.code` is that code, so a client (or a test) can tell "the upstream is gone" from an
 * error the upstream sent itself, which passes through unchanged. docs/errors.md lists them; a test
 * keeps the two in sync.
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';

/** The codes of the gateway's errors, with what each means. */
export const GATEWAY_ERRORS = Object.freeze({
  /** The upstream's connection closed (a stdio server exited, a remote server dropped) while the request was in flight. */
  GATEWAY_UPSTREAM_CLOSED: 'the upstream server closed while the request was in flight',
  /** The upstream could not be started or reached (again) for this request. */
  GATEWAY_UPSTREAM_UNAVAILABLE: 'the upstream server could not be started or reached',
  /** A server→client question of the upstream could not be told which downstream request it belongs to. */
  GATEWAY_QUESTION_UNROUTABLE: 'the upstream asked a question no downstream request can be found for',
  /** A remote mount's upstream did not answer within its `timeout` (`mountRemote`); the request was cancelled upstream. */
  GATEWAY_UPSTREAM_TIMEOUT: "the upstream server did not answer within the remote mount's timeout",
  /** A client subscribed to a resource while the upstream connection holds as many subscriptions as it makes (`maxSubscriptions`). */
  GATEWAY_SUBSCRIPTIONS_FULL: 'the upstream connection holds as many resource subscriptions as it makes',
});

/** One of {@link GATEWAY_ERRORS}' codes. */
export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** The downstream error for `code`: -32603, the message prefixed with the code, `data.code` and `data.upstream` set. */
export function gatewayError(code: GatewayErrorCode, upstream: string, detail: string): McpError {
  return new McpError(ErrorCode.InternalError, `${code}: ${detail}`, { code, upstream });
}
