/**
 * The types of the Peer's contract (peer.ts): what handlers receive and implement, and the options
 * of requests and of the Peer itself.
 */
import type { McpError } from './errors';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId } from './jsonrpc';
import type { TransportInfo } from './transport';

/** What an inbound request handler receives besides the request. */
export interface InboundRequestExtra {
  /** Aborted by `notifications/cancelled`, by the peer closing, or through {@link abort}. */
  readonly signal: AbortSignal;
  /** Whether it was aborted: `signal.aborted`, without making the signal. */
  readonly aborted: boolean;
  /**
   * Aborts the signal from the receiving side (a timeout, say). Unlike a cancellation by the
   * other side, the request still gets the response its handler settles with.
   */
  abort(reason: unknown): void;
  /** What the transport knows of this one request (HTTP headers, address…), when it differs per request. */
  readonly transportInfo?: TransportInfo;
  /**
   * Answers the request with `error` now, ahead of its handler, whose result is then dropped (a
   * shutdown's grace period ended). Present where the transport can do that by itself (a
   * stateless HTTP response); a peer's requests are failed through the peer instead.
   */
  fail?(error: McpError): void;
}

/** Decides how the peer treats what comes in. */
export interface PeerHandlers {
  /** Answers a request; throw an {@link McpError} to answer with that error. */
  onRequest(request: JsonRpcRequest, extra: InboundRequestExtra): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Receives notifications other than cancellation and progress of our own requests. */
  onNotification?(notification: JsonRpcNotification): void | Promise<void>;
  /**
   * Sees every notification received, before the peer acts on it — cancellations and progress,
   * which it handles itself, included: for observers (telemetry), never to act on.
   */
  onNotificationReceived?(notification: JsonRpcNotification): void;
  /** Sees every notification sent (those the peer sends itself, cancellations, included): for observers. */
  onNotificationSent?(method: string, params: Record<string, unknown> | undefined): void;
  /** Whether a batch array is acceptable now (e.g. only on revision 2025-03-26). Default: never. */
  acceptBatch?(): boolean;
  /**
   * Reports an error that was answered with a generic message, or could not be answered.
   * `context.origin` is `peer` when the other side sent something wrong (a malformed response, an
   * error answering nothing): its mistake, not a failure here, so log it quietly.
   */
  onError?(error: unknown, context: ErrorContext): void;
  /**
   * The transport closed (its `onclose`), after pending requests were rejected and in-flight
   * handlers aborted. Saves the owner wrapping `transport.onclose` in a closure of its own.
   */
  onTransportClose?(): void;
  /**
   * The transport is connected again after it lost the connection (its `onreconnected`); the
   * requests pending then were rejected when it was lost. The owner starts over (a new session).
   */
  onTransportReconnect?(): void;
  /**
   * A message that answers or cancels nothing here: a response to no pending request, or a
   * `notifications/cancelled` for no running one. Without this handler it is dropped; an owner
   * that shares the session with other processes hands it to the one it belongs to (see
   * {@link Peer.receiveForwarded}).
   */
  onUnmatched?(message: JsonRpcMessage): void;
}

/** Where an error reported through {@link PeerHandlers.onError} happened. */
export interface ErrorContext {
  /** The method of the message it concerns, when known. */
  method?: string;
  /** The id of the message it concerns, when known. */
  id?: RequestId | null;
  /** `peer`: the other side sent something wrong; `local`: something failed here. */
  origin: 'peer' | 'local';
}

/** Options of one outgoing request. */
export interface RequestOptions {
  /** Milliseconds before the request is cancelled and rejected (`Infinity`: never); default: the peer's `requestTimeout`. */
  timeout?: number;
  /** Aborting it cancels the request (a `notifications/cancelled` is sent). */
  signal?: AbortSignal;
  /** Asks the receiver for progress and receives it. */
  onprogress?: (progress: ProgressUpdate) => void;
  /** Progress notifications restart the timeout. Default true. */
  resetTimeoutOnProgress?: boolean;
  /** The inbound request this request is made for (routing hint for the transport). */
  relatedRequestId?: RequestId;
  /** Extra HTTP headers for this request (HTTP client transports send them; others ignore them). */
  headers?: Readonly<Record<string, string>>;
  /** Told the request's id before it is sent (to route what the other side tags with it). */
  onid?: (id: RequestId) => void;
}

/** An outgoing request awaiting its response (see {@link Peer.pendingRequests}). */
export interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
  /** Milliseconds since it was sent. */
  readonly elapsedMs: number;
}

/** One `notifications/progress` update. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of a {@link Peer}. */
export interface PeerOptions {
  /** Default timeout of outgoing requests in milliseconds (default 60 000; `Infinity`: never). */
  requestTimeout?: number;
  /**
   * When the peer drains (the other side stopped sending, or the server shuts down), how long
   * requests still running may take to answer before they are answered with a -32010 error and
   * the peer closes, in milliseconds (default 10 000).
   */
  drainTimeout?: number;
  /**
   * Makes the ids of outgoing requests strings, `${idPrefix}${n}`, instead of numbers from 0: for
   * a session that several processes serve, so that their requests to one client never share an
   * id and an answer finds the process that asked.
   */
  idPrefix?: string;
  /**
   * Most messages a batch may hold (default: no limit); a larger one is refused whole with -32600,
   * none of it run. Every member runs at once and the answer waits for all of them.
   */
  maxBatchEntries?: number;
  /**
   * Most inbound requests whose handlers run at once (default: no limit); one more is refused at
   * once with -32600 naming the limit (`data.maxInboundRequests`), its handler not called. The
   * client bounds the requests of a server with it.
   */
  maxInboundRequests?: number;
}
