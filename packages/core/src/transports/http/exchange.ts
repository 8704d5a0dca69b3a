/**
 * What an HTTP adapter hands core, and what core answers through: a request (method, URL, headers,
 * the parsed body) and a response that can be sent whole or streamed. Fastify, the Web-standard
 * handler and any other server implement {@link HttpResponse}; everything MCP says about HTTP is
 * core's ({@link HttpEndpoint}).
 */
import type { HeadersRecord } from '../../engine/modern-headers';

/** One HTTP request, as an adapter hands it to core. */
export interface HttpRequest {
  /** `GET`, `POST`, `DELETE`, … */
  readonly method: string;
  /** The path and query, as received (`/mcp/messages?sessionId=…`). */
  readonly url: string;
  /** The headers, names lower-cased. */
  readonly headers: HeadersRecord;
  /** The client's address, as the adapter sees it (behind a proxy: as it trusts it). */
  readonly ip?: string;
  /** The client's port (the socket's remote port), when the adapter knows it: `client.port` in telemetry. */
  readonly remotePort?: number;
  /** The HTTP version spoken (`1.1`, `2`), when the adapter knows it: `network.protocol.version` in telemetry. */
  readonly httpVersion?: string;
  /** The JSON body, parsed with the protocol's `parseJson` (POST only). */
  readonly body?: unknown;
  /** `parseJson`'s `suspect`: the body's text could hold a key that changes prototypes. */
  readonly bodySuspect?: boolean;
  /** The adapter's own request object (a `FastifyRequest`, a `Request`), for hooks such as `clientKey`. */
  readonly native?: unknown;
}

/** The response to one {@link HttpRequest}. */
export interface HttpResponse {
  /** Sends the whole response and ends it. */
  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void;
  /**
   * Starts a streaming response, status 200 with these headers, sent at once. With `whole`, the
   * stream's every byte is known: it goes out in one write with a Content-Length, and ends.
   */
  stream(headers: Readonly<Record<string, string>>, whole?: string): HttpStream;
  /** True once the client closed the connection before the response was complete. */
  readonly aborted: boolean;
  /**
   * Bytes of a whole response ({@link send}) not yet taken by the client's connection: 0 once
   * they were (a stream counts its own: {@link HttpStream.bufferedBytes}).
   */
  readonly bufferedBytes: number;
  /** Runs `listener` once when the response is over, complete or cut (at once if it is). */
  onClose(listener: () => void): void;
}

/** The body of a streaming response. */
export interface HttpStream {
  /** Writes a chunk (ignored once closed). */
  write(chunk: string): void;
  /** Ends the response normally. */
  end(): void;
  /** Cuts the connection (a client that left too much unread). */
  destroy(): void;
  /** Bytes written and not yet taken by the client's connection. */
  readonly bufferedBytes: number;
  /** True once the response ended, from either side. */
  readonly closed: boolean;
  /**
   * True once everything written was handed on and the response finished normally. Read it once
   * the stream closed ({@link onClose}): a stream ended here may still be handing its bytes on.
   */
  readonly delivered: boolean;
  /**
   * Runs `listener` once when the stream closes, from either side (at once if it did): cut, or
   * ended and done with (everything written handed on, or given up).
   */
  onClose(listener: () => void): void;
}

/**
 * Where a listener that turns a Node request into a Fetch `Request` (`toNodeListener`) leaves the
 * Node response, so that the Web handler counts what that response still holds for the client as
 * unread — the bytes a stream's reader handed on leave the stream's queue, not the server. For the
 * Hermes packages.
 */
export const NODE_RESPONSE: unique symbol = Symbol.for('hermes-mcp.node-response');

/**
 * What {@link NODE_RESPONSE} gives: the Node response (a `ServerResponse`) — its bytes not yet
 * taken by the socket, and whether it finished normally once it closed.
 */
export interface NodeOutput {
  readonly writableLength: number;
  readonly writableFinished: boolean;
  readonly closed: boolean;
  readonly destroyed: boolean;
  readonly req: { readonly socket?: { readonly errored?: unknown } | null };
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Whether a Node response that closed had finished normally: ended, and its last bytes handed to
 * the operating system on a connection that no error cut. Asked as it closes, not as it is ended:
 * Node 24 and later set `writableFinished` only as `'finish'` fires, so it is false in the tick of
 * `end` however much the socket took at once (Node 20 and 22 set it as soon as nothing was left to
 * write). Node 20 and 22 also emit `'finish'` when a cut connection failed the last write: the
 * connection's error tells that apart, as Node 24 checks it before `'finish'`.
 */
export function finishedNormally(raw: NodeOutput): boolean {
  return raw.writableFinished && !raw.req.socket?.errored;
}

/** Runs `listener` with {@link finishedNormally} once the Node response closed (at once, if it did). */
export function whenNodeResponseOver(raw: NodeOutput, listener: (finished: boolean) => void): void {
  if (raw.closed || raw.destroyed) listener(finishedNormally(raw));
  else raw.once('close', () => listener(finishedNormally(raw)));
}
