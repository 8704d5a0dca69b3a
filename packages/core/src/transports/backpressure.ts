/**
 * What every transport does with a client that reads too slowly: past its `maxBufferedBytes`, a
 * message is dropped and the request it belongs to is cancelled with -32011 (ClientTooSlow).
 */
import { ErrorCode, JsonRpcMessage, McpError, RequestId } from '@hermes-mcp/protocol';

const RESOLVED = Promise.resolve();

/** -32011: the client left more than `maxBufferedBytes` of `what` unread. */
export function clientTooSlow(maxBufferedBytes: number, what: string): McpError {
  return new McpError(ErrorCode.ClientTooSlow, `Request cancelled: the client left more than ${maxBufferedBytes} bytes of ${what} unread (maxBufferedBytes)`, { maxBufferedBytes });
}

/**
 * Drops a message the client has no room for: the request it relates to is answered with -32011
 * through `onabort`; a request of ours fails rather than wait for an answer to something never
 * sent (the promise rejects); anything else resolves.
 */
export function dropForSlowClient(
  message: JsonRpcMessage,
  relatedRequestId: RequestId | undefined,
  maxBufferedBytes: number,
  onabort: ((requestId: RequestId, error: McpError) => void) | undefined,
): Promise<void> {
  const error = clientTooSlow(maxBufferedBytes, 'output');
  if (relatedRequestId !== undefined) onabort?.(relatedRequestId, error);
  return 'id' in message && 'method' in message ? Promise.reject(error) : RESOLVED;
}
