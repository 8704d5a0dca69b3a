/**
 * MCP over WebSocket: one JSON-RPC message (or a batch array) per text frame, the `mcp`
 * subprotocol, as the official SDK's `WebSocketClientTransport` speaks it. The endpoint admits an
 * upgrade and makes its socket a session (`HttpEndpoint.admitWebSocket`, `acceptWebSocket`), for
 * any adapter (the Fastify plugin serves it at `{path}/ws`); this file is the transport over one
 * accepted socket.
 *
 * Frames are parsed by the protocol's parser, so a frame that is not JSON-RPC is answered (-32700,
 * -32600) and the socket stays usable. A binary frame closes the socket with 1003 (MCP messages
 * are text); a frame over the size limit is refused by `ws` before it is buffered (1009).
 *
 * Output is backpressured as on stdio: while the socket holds more than {@link HIGH_WATER_BYTES}
 * unsent, no more input is read (the client's own sends back up instead of the server's memory).
 * Past `maxBufferedBytes` unsent, notifications are dropped and the request they belong to is
 * answered with -32011 (client too slow). An answer goes out unless it would leave the client more
 * than `maxUnreadBytes` unread over all its connections (then -32011 in its place) or is larger
 * than `maxResultBytes` (-32013).
 *
 * A socket opened with an access token (`info.auth.expiresAt`) serves no longer than it: at its
 * expiry the requests in flight are answered with -32014 (TokenExpired) and the socket closes
 * with 4401; a message that arrives after it is answered the same way.
 */
import type { AuthInfo } from '../context/mcp-context';
import {
  JsonRpcMessage,
  McpError,
  DONE,
  ParsedFrame,
  RequestId,
  SendOptions,
  Transport,
  TransportInfo,
  errorResponse,
  isResponse,
  parseFrame,
  serialize,
} from '@hermes-mcp/protocol';
import { DEFAULT_MAX_RESULT_BYTES } from '../engine/engine';
import { DEFAULT_MAX_BUFFERED_BYTES } from './http/sse';
import { DEFAULT_MAX_UNREAD_BYTES, OutputLimits, Outgoing, clientTooSlow, dropForSlowClient, outgoing } from './backpressure';
import { atExpiry } from './expiry';
import type { HeadersRecord } from '../engine/modern-headers';
import { hiddenHeaderNames, redactHeaders } from './http/redact';

/** The WebSocket subprotocol of MCP (`Sec-WebSocket-Protocol: mcp`). */
export const MCP_SUBPROTOCOL = 'mcp';

/** Close codes the transport uses (RFC 6455 §7.4.1). */
export const WS_CLOSE = {
  /** The session ended (closed by the server, idle, or evicted). */
  normal: 1000,
  /** The server is shutting down; requests in flight were answered first. */
  goingAway: 1001,
  /** A protocol error, such as a subprotocol other than `mcp`. */
  protocolError: 1002,
  /** A binary frame: MCP messages travel as text frames. */
  unsupportedData: 1003,
  /** A frame larger than the limit. */
  messageTooBig: 1009,
  /** The server failed to set the session up. */
  internalError: 1011,
  /**
   * The access token the socket was opened with expired (a private-use code, 4000–4999, mirroring
   * HTTP 401): reconnect with a fresh token.
   */
  tokenExpired: 4401,
} as const;

/** Output unsent past which no more input is read until it drains: 64 KiB. */
export const HIGH_WATER_BYTES = 64 * 1024;

/** `WebSocket.OPEN` of `ws` (and of the WHATWG WebSocket). */
const OPEN = 1;

/**
 * The parts of a `ws` WebSocket (server side) the transport uses, so this package's types do not
 * depend on `ws`.
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued and not yet handed to the operating system. */
  readonly bufferedAmount: number;
  send(data: string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  pause(): void;
  resume(): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** Options of {@link WebSocketTransport}. */
export interface WebSocketTransportOptions {
  /** The session this socket is (the endpoint's id for it), in `info.sessionId`. */
  sessionId?: string;
  /** Where the socket came from, for request contexts: the upgrade request's headers (credentials hidden), ip and url. */
  info?: { headers?: unknown; ip?: string; port?: number; url?: string; auth?: AuthInfo };
  /**
   * The largest frame accepted, in bytes (default 4 MiB). The plugin also gives it to `ws` as
   * `maxPayload`, which refuses a larger frame before buffering it; this check covers a socket
   * from a `ws` server with a larger limit. Either way the socket closes with 1009.
   */
  maxMessageBytes?: number;
  /**
   * The most output the client may leave unread, in bytes (default 4 MiB): past it, notifications
   * are dropped and the requests they belong to are answered with -32011.
   */
  maxBufferedBytes?: number;
  /** Most output the client may leave unread before an answer is withheld (-32011 in its place), in bytes (default 64 MiB). */
  maxUnreadBytes?: number;
  /** The largest answer sent, in bytes (default 16 MiB); larger is answered with -32013. */
  maxResultBytes?: number;
  /**
   * What the client leaves unread now over all its connections, this socket's included (the
   * plugin counts per client); default: what this socket holds.
   */
  unread?: () => number;
  /** True when the server is shutting down: the socket then closes with 1001 rather than 1000. */
  goingAway?: () => boolean;
  /**
   * Upgrade request headers handlers must not read, besides `authorization`,
   * `proxy-authorization` and `cookie` (always hidden): their value in `info.headers` is
   * `[redacted]`. The plugin passes its `redactHeaders`.
   */
  redactHeaders?: readonly string[];
}

/** Default limit of one frame: 4 MiB, as the HTTP `bodyLimit`. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * One WebSocket connection as a {@link Transport}: a text frame per message.
 *
 * @example
 * // With a `ws` server of your own:
 * wss.on('connection', (socket, request) => void app.connect(new WebSocketTransport(socket, { info: { headers: request.headers } })));
 */
export class WebSocketTransport implements Transport {
  readonly info: TransportInfo;
  readonly sessionId: string;
  onframe?: (frame: ParsedFrame) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onabort?: (requestId: RequestId, error: McpError) => void;
  onrevoked?: (error: McpError) => void;

  private readonly maxBytes: number;
  private readonly maxBuffered: number;
  private readonly limits: OutputLimits;
  private readonly unread: () => number;
  private readonly goingAway: () => boolean;
  private closed = false;
  /** True while input is paused until the output drains. */
  private inputPaused = false;
  /** Notifications dropped because the client did not read. */
  private dropped = 0;
  /** When the caller's access token expires, in milliseconds since the epoch (Infinity: never). */
  private readonly expiresAtMs: number;
  /** Cancels the timer that ends the socket at that time. */
  private cancelExpiry?: () => void = undefined;

  constructor(
    private readonly socket: WebSocketLike,
    options: WebSocketTransportOptions = {},
  ) {
    this.sessionId = options.sessionId ?? '';
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.limits = { maxResultBytes: options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, maxUnreadBytes: options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES };
    this.unread = options.unread ?? (() => this.socket.bufferedAmount);
    this.goingAway = options.goingAway ?? (() => false);
    const { ip, port, url, auth } = options.info ?? {};
    // What handlers see of the upgrade request: never its credentials.
    const given = options.info?.headers;
    const headers = typeof given === 'object' && given !== null ? redactHeaders(given as HeadersRecord, hiddenHeaderNames(options.redactHeaders)) : given;
    this.expiresAtMs = auth?.expiresAt === undefined ? Infinity : auth.expiresAt * 1000;
    // Who upgraded (the endpoint's authentication) is the caller of every request on the socket.
    this.info = Object.freeze(
      auth === undefined
        ? { kind: 'websocket', sessionId: options.sessionId, headers, ip, port, url }
        : { kind: 'websocket', sessionId: options.sessionId, headers, ip, port, url, auth },
    );
  }

  start(): Promise<void> {
    this.socket.on('message', this.onMessage);
    this.socket.on('close', this.onSocketClose);
    // Gone before anyone listened: nothing will ever say so again.
    if (this.socket.readyState > OPEN) this.onSocketClose();
    // The socket serves no longer than the token it was opened with: at its expiry it ends, and
    // what the server would still send (notifications, requests to the client) goes nowhere.
    else if (this.expiresAtMs !== Infinity) this.cancelExpiry = atExpiry(this.expiresAtMs / 1000, this.expire);
    return DONE;
  }

  /** Bytes sent and not yet taken by the operating system. */
  get bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  /** Notifications dropped so far because the client left too much output unread. */
  get droppedCount(): number {
    return this.dropped;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed || this.socket.readyState !== OPEN) return DONE;
    // What a handler sends besides its answer is dropped once the client fell too far behind;
    // answers go out within the client's unread budget (see backpressure.ts).
    if (this.socket.bufferedAmount > this.maxBuffered && !Array.isArray(message) && !isResponse(message)) {
      return this.overflow(message, options?.relatedRequestId, clientTooSlow(this.maxBuffered, 'output'));
    }
    let out: Outgoing;
    try {
      out = outgoing(message, this.unread(), this.limits);
    } catch (error) {
      // A notification or request that cannot be turned into JSON: its sender's mistake, told to it.
      return Promise.reject(error);
    }
    if (out.text === undefined) return this.overflow(message as JsonRpcMessage, options?.relatedRequestId, out.refused);
    this.socket.send(out.text, this.afterSend);
    // Over the high-water mark: read no more requests until the client has read the answers.
    if (!this.inputPaused && this.socket.bufferedAmount > HIGH_WATER_BYTES) {
      this.inputPaused = true;
      this.socket.pause();
    }
    return DONE;
  }

  /** Called by `ws` once a frame was handed to the operating system (or failed): resumes input once drained. */
  private readonly afterSend = (): void => {
    if (!this.inputPaused || this.closed || this.socket.bufferedAmount > HIGH_WATER_BYTES) return;
    this.inputPaused = false;
    this.socket.resume();
  };

  /** A message the client has no room for: dropped, and its request answered with `error` (-32011). */
  private overflow(message: JsonRpcMessage, relatedRequestId: RequestId | undefined, error: McpError): Promise<void> {
    this.dropped++;
    return dropForSlowClient(message, relatedRequestId, error, this.onabort);
  }

  /** Closes the socket: 1001 while the server shuts down, 1000 otherwise. */
  close(): Promise<void> {
    if (this.goingAway()) return this.closeWith(WS_CLOSE.goingAway, 'server shutting down');
    return this.closeWith(WS_CLOSE.normal, 'session ended');
  }

  /** Closes the socket with `code` and `reason` (at most 123 bytes); calls `onclose` once. */
  closeWith(code: number, reason: string): Promise<void> {
    if (this.closed) return DONE;
    this.closed = true;
    this.cancelExpiry?.();
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onSocketClose);
    if (this.socket.readyState <= OPEN) this.socket.close(code, reason);
    this.onclose?.();
    return DONE;
  }

  /**
   * The caller's token expired: each request in flight is answered with -32014 (the client learns
   * why, not just that the socket closed), then the socket closes with 4401.
   */
  private readonly expire = (): void => {
    if (this.closed) return;
    this.onrevoked?.(McpError.tokenExpired());
    void this.closeWith(WS_CLOSE.tokenExpired, 'the access token expired: reconnect with a fresh one');
  };

  /** Answers the requests of a frame that came after the token expired with -32014. */
  private refuseExpired(frame: ParsedFrame): void {
    const error = McpError.tokenExpired();
    const messages = frame.kind === 'single' ? [frame.message] : frame.kind === 'batch' ? frame.messages : [];
    const answers = messages.filter((m) => m.kind === 'request').map((m) => errorResponse(m.message.id, error));
    if (answers.length > 0) this.socket.send(serialize(frame.kind === 'batch' ? answers : answers[0]));
  }

  private readonly onMessage = (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void => {
    if (this.closed) return;
    if (isBinary) {
      void this.closeWith(WS_CLOSE.unsupportedData, 'binary frames are not accepted: send each JSON-RPC message as a text frame');
      return;
    }
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (bytes.length > this.maxBytes) {
      void this.closeWith(WS_CLOSE.messageTooBig, `the frame of ${bytes.length} bytes exceeds this server's limit of ${this.maxBytes} bytes`);
      return;
    }
    // `ws` checked the frame is UTF-8 (1007 otherwise).
    const frame = parseFrame(bytes.toString('utf8'));
    // Every message is checked against the token's expiry, not only the timer: one that comes
    // first (a busy event loop) is answered, not served.
    if (this.expiresAtMs !== Infinity && Date.now() >= this.expiresAtMs) {
      this.refuseExpired(frame);
      return this.expire();
    }
    this.onframe?.(frame);
  };

  private readonly onSocketClose = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.cancelExpiry?.();
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onSocketClose);
    this.onclose?.();
  };
}
