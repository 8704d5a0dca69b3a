/**
 * What every transport does before a message goes out, so that no client can make the server
 * hold more than a bounded amount of memory for it:
 *
 * - An answer (a response, or a 2025-03-26 batch's whole answer) larger than `maxResultBytes` is
 *   not sent: its request is answered with -32013 (ResultTooLarge) instead.
 * - Anything that would leave the client more than `maxUnreadBytes` unread, over all its
 *   connections: an answer is replaced by -32011 (ClientTooSlow); a notification or a request of
 *   the server is dropped, and the request it belongs to answered with -32011.
 * - Past a stream's own `maxBufferedBytes` (the backlog of one stream), a transport drops what a
 *   handler sends besides its answer (see {@link dropForSlowClient}).
 *
 * Errors are small and always go out: a client is never left without an answer.
 */
import { ErrorCode, JsonRpcMessage, JsonRpcResponse, McpError, DONE, RequestId, errorResponse, isResponse, serialize } from '@hermes-mcp/protocol';

const MiB = 1024 * 1024;

/** Default of `maxUnreadBytes`: what one client may leave unread over all its connections, 64 MiB. */
export const DEFAULT_MAX_UNREAD_BYTES = 64 * MiB;

/** The limits on what goes out to one client. */
export interface OutputLimits {
  /** Largest answer to one request (or one batch) in bytes; larger gets -32013. */
  readonly maxResultBytes: number;
  /** Most bytes one client may leave unread over all its connections; past it, -32011. */
  readonly maxUnreadBytes: number;
}

/** -32011: the client left more than `maxBufferedBytes` of `what` unread. */
export function clientTooSlow(maxBufferedBytes: number, what: string): McpError {
  return new McpError(ErrorCode.ClientTooSlow, `Request cancelled: the client left more than ${maxBufferedBytes} bytes of ${what} unread (maxBufferedBytes)`, { maxBufferedBytes });
}

/** -32011: the answer would leave the client more than `maxUnreadBytes` unread over its connections. */
function unreadTooLarge(unread: number, bytes: number, maxUnreadBytes: number): McpError {
  return new McpError(
    ErrorCode.ClientTooSlow,
    `Request cancelled: this client already leaves ${unread} bytes unread, and ${bytes} more would pass its limit of ${maxUnreadBytes} bytes (maxUnreadBytes); read what the server sent, then retry`,
    { maxUnreadBytes, unreadBytes: unread },
  );
}

/** -32013: the answer is larger than `maxResultBytes` (`bytes` of it, when known). */
function resultTooLarge(bytes: number | undefined, maxResultBytes: number): McpError {
  const size = bytes === undefined ? 'more than' : `${bytes} bytes, more than`;
  return new McpError(ErrorCode.ResultTooLarge, `The result is too large to send: ${size} this server's limit of ${maxResultBytes} bytes (maxResultBytes)`, {
    maxResultBytes,
    ...(bytes !== undefined && { bytes }),
  });
}

/** -32013 for a member of a batch whose answer would pass `maxResultBytes` with it. */
function batchTooLarge(maxResultBytes: number): McpError {
  return new McpError(
    ErrorCode.ResultTooLarge,
    `The answer to this batch would pass this server's limit of ${maxResultBytes} bytes (maxResultBytes) with this result; send fewer requests per batch`,
    { maxResultBytes },
  );
}

/** What goes out for a message: its text (perhaps an error in its place), or why it must be dropped. */
export type Outgoing = Sendable | { readonly text?: undefined; readonly refused: McpError };

/** A message's text, and what it says: the message, or the error that replaced it. */
export interface Sendable {
  readonly text: string;
  readonly sent: JsonRpcMessage | JsonRpcMessage[];
}

/**
 * The text that goes out for `message` to a client that leaves `unread` bytes unread now: see the
 * module's rules. Never throws for an answer (one that cannot be serialized becomes -32603); a
 * notification or request that cannot be throws, its sender's mistake. `sent` is what the text
 * says: the message, or the error that replaced it (what an event store keeps).
 */
export function outgoing(message: JsonRpcResponse, unread: number, limits: OutputLimits): Sendable;
export function outgoing(message: JsonRpcMessage | JsonRpcMessage[], unread: number, limits: OutputLimits): Outgoing;
export function outgoing(message: JsonRpcMessage | JsonRpcMessage[], unread: number, limits: OutputLimits): Outgoing {
  if (Array.isArray(message)) return batchAnswer(message, unread, limits);
  const room = limits.maxUnreadBytes - unread;
  if (!isResponse(message)) {
    const text = serialize(message);
    return fits(text, room) ? { text, sent: message } : { refused: unreadTooLarge(unread, utf8Length(text), limits.maxUnreadBytes) };
  }
  const id = message.id as RequestId;
  const max = limits.maxResultBytes;
  // Known too large before it is serialized: no copy of it is made.
  if ('result' in message) {
    const least = leastLength(message.result, max);
    if (least > max) return replaced(id, resultTooLarge(undefined, max));
    if (least > room) return replaced(id, unreadTooLarge(unread, least, limits.maxUnreadBytes));
  }
  const text = serialize(message);
  if (fits(text, Math.min(max, room))) return { text, sent: message };
  const bytes = utf8Length(text);
  if (bytes > max) return replaced(id, resultTooLarge(bytes, max));
  return replaced(id, unreadTooLarge(unread, bytes, limits.maxUnreadBytes));
}

/** A batch's answer: members in turn, while the whole stays within `maxResultBytes`; then the client's room. */
function batchAnswer(messages: JsonRpcMessage[], unread: number, limits: OutputLimits): Outgoing {
  const max = limits.maxResultBytes;
  const parts: string[] = [];
  const sent: JsonRpcMessage[] = [];
  let total = 2;
  for (const member of messages) {
    let text: string | undefined;
    if (!('result' in member) || leastLength(member.result, max) <= max - total) {
      text = serialize(member);
      if (!fits(text, max - total - 1)) text = undefined;
    }
    let kept = member;
    if (text === undefined) {
      // Past what the batch may take: this member is answered with -32013, at its own size.
      kept = errorResponse((member as JsonRpcResponse).id, batchTooLarge(max));
      text = serialize(kept);
    }
    parts.push(text);
    sent.push(kept);
    total += utf8Length(text) + 1;
  }
  if (total > limits.maxUnreadBytes - unread) {
    const error = unreadTooLarge(unread, total, limits.maxUnreadBytes);
    const refused = sent.map((m) => errorResponse((m as JsonRpcResponse).id, error));
    return { text: `[${refused.map((m) => serialize(m)).join(',')}]`, sent: refused };
  }
  return { text: `[${parts.join(',')}]`, sent };
}

function replaced(id: RequestId, error: McpError): Outgoing {
  const sent = errorResponse(id, error);
  return { text: serialize(sent), sent };
}

/**
 * Whether `text` takes at most `room` bytes in UTF-8. A character takes one to three bytes (a
 * surrogate pair four, for two characters), so most texts are decided by their length alone.
 */
function fits(text: string, room: number): boolean {
  if (text.length > room) return false;
  if (text.length * 3 <= room) return true;
  return utf8Length(text) <= room;
}

/** The length of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return typeof Buffer === 'function' ? Buffer.byteLength(text, 'utf8') : new TextEncoder().encode(text).byteLength;
}

/** Items of a list looked at, at most, to find a result too large before serializing it. */
const LOOK = 64;

/**
 * A length a result's JSON has at least: the strings where MCP results carry their bulk — the text,
 * blob and data of a tool's `content`, a resource's `contents`, a prompt's `messages`. A few
 * property reads, no walk of the whole result (which would cost every answer more than the rest
 * of a small call); enough to refuse a result made of large texts without copying them. The
 * serialized text decides the rest.
 */
function leastLength(result: unknown, cap: number): number {
  if (typeof result !== 'object' || result === null) return 0;
  const { content, contents, messages } = result as { content?: unknown; contents?: unknown; messages?: unknown };
  let length = itemsLength(content, cap) + itemsLength(contents, cap);
  if (Array.isArray(messages)) {
    for (let i = 0; i < messages.length && i < LOOK && length <= cap; i++) length += itemLength((messages[i] as { content?: unknown } | null)?.content);
  }
  return length;
}

function itemsLength(items: unknown, cap: number): number {
  if (!Array.isArray(items)) return 0;
  let length = 0;
  for (let i = 0; i < items.length && i < LOOK && length <= cap; i++) length += itemLength(items[i]);
  return length;
}

/** The text, blob or data of one content item (an embedded resource's too). */
function itemLength(item: unknown): number {
  if (typeof item !== 'object' || item === null) return 0;
  const { text, blob, data, resource } = item as { text?: unknown; blob?: unknown; data?: unknown; resource?: unknown };
  let length = 0;
  if (typeof text === 'string') length += text.length;
  if (typeof blob === 'string') length += blob.length;
  if (typeof data === 'string') length += data.length;
  if (typeof resource === 'object' && resource !== null) length += itemLength(resource);
  return length;
}

/**
 * Drops a message the client has no room for: the request it relates to is answered with `error`
 * (-32011) through `onabort`; a request of ours fails rather than wait for an answer to something
 * never sent (the promise rejects); anything else resolves.
 */
export function dropForSlowClient(
  message: JsonRpcMessage,
  relatedRequestId: RequestId | undefined,
  error: McpError,
  onabort: ((requestId: RequestId, error: McpError) => void) | undefined,
): Promise<void> {
  if (relatedRequestId !== undefined) onabort?.(relatedRequestId, error);
  return 'id' in message && 'method' in message ? Promise.reject(error) : DONE;
}
