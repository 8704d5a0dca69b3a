/**
 * The contract between a transport (bytes) and a peer (messages).
 *
 * A transport frames bytes into JSON-RPC messages and back; it knows nothing of MCP methods.
 */
import type { McpError } from './errors';
import type { JsonRpcMessage, ParsedFrame, RequestId } from './jsonrpc';

/** What a transport knows about where a message came from; the engine puts it in the request context. */
export interface TransportInfo {
  /** `stdio`, `http`, `memory`, … */
  kind: string;
  /**
   * Streamable HTTP only (MCP 2025-11-25, "SSE polling"): ends the connection of this request's
   * SSE stream without ending the stream; the client reconnects after `retryMs` and resumes from
   * its last event id, and the response still comes. Absent on other transports.
   */
  closeStream?: (retryMs?: number) => void;
  /** Anything transport-specific (headers, remote address, pid, …). */
  [key: string]: unknown;
}

/**
 * The answer of a transport operation done at once ({@link Transport.send}, `start`, `close`): one
 * settled promise shared by all, so a transport makes none per message, and a caller that gets it
 * back has nothing to wait on or catch.
 */
export const DONE: Promise<void> = Promise.resolve();

/** Routing hints for {@link Transport.send}. */
export interface SendOptions {
  /** The inbound request this message is related to. */
  relatedRequestId?: RequestId;
  /**
   * For the answer to a batch: the `messages` array of the batch frame it answers. Routes the
   * answer even when no member had a readable id (a batch of invalid messages).
   */
  batch?: readonly unknown[];
  /** Extra HTTP headers for this message (HTTP client transports; others ignore them). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Names a notification sent to many sessions at once (a list change, a resource update), the
   * same on every instance of a cluster that sends it: a transport that keeps events can tell
   * whether one it missed was kept by another.
   */
  eventKey?: string;
}

/**
 * A bidirectional message channel. Small on purpose: start, send, close, and three callbacks.
 *
 * Frames arrive already parsed and classified (`ParsedFrame`), so a transport reports bytes that
 * were not JSON-RPC without throwing, and the peer answers them.
 */
export interface Transport {
  /** Describes this transport for request contexts. */
  readonly info: TransportInfo;
  /** Begins reading; resolves once the transport can send. */
  start(): Promise<void>;
  /**
   * Sends one message, or a batch array as one frame. `options.relatedRequestId` names the inbound
   * request a message belongs to (progress, logs, server→client requests made while handling it),
   * so transports with a stream per request (HTTP) can route it there. A send done at once may
   * return {@link DONE}, which callers need not wait on.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void>;
  /** Stops reading and writing; calls `onclose` once. */
  close(): Promise<void>;
  /** Called with each frame received; `info` when this frame's origin differs from `info` above (HTTP). */
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  /**
   * Called when the other side will send nothing more but the channel can still carry answers
   * (stdin ended). Without a listener the transport closes itself.
   */
  oninputend?: () => void;
  /** Called once when the channel is gone, from either side. */
  onclose?: () => void;
  /**
   * Called when the connection was lost and the transport is opening it again (a WebSocket with
   * `reconnect`): nothing sent before will be answered, so the peer fails what is pending.
   */
  onreset?: (reason: string) => void;
  /**
   * Called when the transport can no longer carry the answer to one outgoing request (its response
   * stream broke and could not be resumed): the peer fails that request with `error`, a local
   * error (a `ConnectionClosedError`), never mistaken for an answer of the other side.
   */
  onlost?: (requestId: RequestId, error: Error) => void;
  /** Called when the transport is connected again after {@link onreset}. */
  onreconnected?: () => void;
  /**
   * Called when the transport dropped a message too large to read (its limit) and cannot tell
   * which request it answered: the peer fails every request pending with `error`, so none waits
   * for an answer that will not come. The connection goes on.
   */
  ondiscard?: (error: McpError) => void;
  /** Called on an error that does not close the channel by itself. */
  onerror?: (error: Error) => void;
  /**
   * Called when the transport can no longer carry what belongs to one inbound request (its client
   * left more than the transport's buffer limit unread): the peer aborts the request's handler and
   * answers it with `error` at once.
   */
  onabort?: (requestId: RequestId, error: McpError) => void;
  /**
   * Called when the credentials the channel was opened with are no longer good (its access token
   * expired): the peer aborts the handler of every inbound request in flight and answers each
   * with `error` at once. The transport closes next.
   */
  onrevoked?: (error: McpError) => void;
  /**
   * Told by the peer that an inbound request will get no response (the other side cancelled it), so
   * a transport holding something open for that response (an HTTP stream) can end it.
   */
  requestCancelled?(requestId: RequestId): void;
}
