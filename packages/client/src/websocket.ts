/**
 * The client side of MCP over WebSocket, as the official SDK v1 speaks it and the Hermes Fastify
 * plugin serves it (`websocket: true`): subprotocol `mcp`, one JSON-RPC message (or batch) per
 * text frame. Uses the platform's `WebSocket` (Node 22+, browsers, Deno, Bun) or the class given
 * (e.g. the `ws` package's on Node 20).
 */
import { ConnectionClosedError, JsonRpcMessage, ParsedFrame, Transport, TransportInfo, parseFrame, serialize } from '@hermes-mcp/protocol';
import { DEFAULT_MAX_ATTEMPTS, ReconnectOptions, backoffDelay } from './reconnect';
import type { TransportState } from './stdio';
import { transportOptions } from './transport-url';

/** What the transport uses of a WebSocket (the WHATWG API; the `ws` package has it too). */
export interface WebSocketLikeClient {
  readonly readyState: number;
  readonly protocol: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: { data?: unknown; code?: number; reason?: string; message?: string }) => void): void;
}

/** A WebSocket class: `new WebSocket(url, protocols)`. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLikeClient;

/** Options of a {@link WebSocketClientTransport}. */
export interface WebSocketClientOptions {
  /** The socket's URL, e.g. `ws://127.0.0.1:3000/mcp/ws`. */
  url: string | URL;
  /** The WebSocket class (default the global one; on Node 20 pass the `ws` package's). */
  WebSocket?: WebSocketConstructor;
  /**
   * Opens the socket again when it closes without the client asking, with a backoff (off by
   * default: the first close ends the transport). Calls pending then fail with "Connection lost";
   * once connected again, a legacy client starts a new session (initialize, its log level and
   * subscriptions); calls made meanwhile fail fast. After `maxAttempts` failed attempts in a row
   * the transport closes.
   */
  reconnect?: ReconnectOptions;
}

/** What {@link WebSocketClientTransport.status} tells. */
export interface WebSocketStatus {
  state: TransportState;
  lastError?: Error;
  /** The close code of the last socket that closed. */
  closeCode?: number;
  /** How many times the socket was opened again after it was lost. */
  reconnects: number;
}

const OPEN = 1;

/** Talks to an MCP server over one WebSocket (opened again when lost, with `reconnect`). */
export class WebSocketClientTransport implements Transport {
  /** `kind` and the server's `url` (for telemetry: `server.address`). */
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onreset?: (reason: string) => void;
  onreconnected?: () => void;
  private socket?: WebSocketLikeClient = undefined;
  private state: TransportState = 'disconnected';
  private lastError?: Error = undefined;
  private closeCode?: number = undefined;
  private reconnects = 0;
  /** True once close() was called: a close is then no loss. */
  private closing = false;
  /** Ends the wait before the next attempt (close() during a backoff). */
  private wakeUp?: () => void = undefined;

  private readonly options: WebSocketClientOptions;

  /**
   * `new WebSocketClientTransport(url, options?)` — the official SDK's way, e.g. with a
   * `new URL(…)` — or `new WebSocketClientTransport({ url, …options })`.
   */
  constructor(url: string | URL, options?: Omit<WebSocketClientOptions, 'url'>);
  constructor(options: WebSocketClientOptions);
  constructor(first: string | URL | WebSocketClientOptions, rest?: Omit<WebSocketClientOptions, 'url'>) {
    const options = (this.options = transportOptions('WebSocketClientTransport', first, rest));
    this.info = Object.freeze({ kind: 'websocket', url: String(options.url) });
  }

  /** The transport's state, last error, the close code of the last socket, and its reconnections. */
  status(): WebSocketStatus {
    const status: WebSocketStatus = { state: this.state, reconnects: this.reconnects };
    if (this.lastError) status.lastError = this.lastError;
    if (this.closeCode !== undefined) status.closeCode = this.closeCode;
    return status;
  }

  /** Opens the socket with the `mcp` subprotocol (a first socket that fails is not retried). */
  start(): Promise<void> {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Socket) {
      return Promise.reject(new Error('No WebSocket class: this runtime has no global WebSocket (Node 20); pass one, e.g. `WebSocket: (await import("ws")).WebSocket`'));
    }
    return this.open(Socket).catch((error: unknown) => {
      this.state = 'error';
      throw error;
    });
  }

  /** Opens one socket; resolves once it is open. Its events count only while it is the current one. */
  private open(Socket: WebSocketConstructor): Promise<void> {
    this.state = 'connecting';
    const socket = new Socket(String(this.options.url), 'mcp');
    this.socket = socket;
    return new Promise((resolve, reject) => {
      let opened = false;
      socket.addEventListener('open', () => {
        opened = true;
        this.state = 'connected';
        resolve();
      });
      socket.addEventListener('message', (event) => {
        if (socket !== this.socket) return;
        if (typeof event.data === 'string') this.onframe?.(parseFrame(event.data));
        else this.fail(new Error('a binary frame: MCP over WebSocket sends text frames'));
      });
      socket.addEventListener('error', (event) => {
        const error = new Error(`WebSocket error${event.message ? `: ${event.message}` : ''}`);
        // Before it opened, the attempt failed (start() or the reconnect loop says what follows).
        if (!opened) {
          this.lastError = error;
          reject(error);
        } else if (socket === this.socket) this.fail(error);
      });
      socket.addEventListener('close', (event) => {
        this.closeCode = event.code;
        if (!opened) return reject(new ConnectionClosedError(`The WebSocket closed before it opened (code ${event.code})`));
        if (socket !== this.socket) return;
        if (this.closing || !this.options.reconnect) return this.end();
        this.onreset?.(`the WebSocket closed (code ${event.code}); reconnecting`);
        void this.reconnect(Socket);
      });
    });
  }

  /** Opens a socket again, with a backoff; closes the transport after `maxAttempts` failures. */
  private async reconnect(Socket: WebSocketConstructor): Promise<void> {
    this.state = 'connecting';
    const maxAttempts = this.options.reconnect?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    for (let attempt = 0; attempt < maxAttempts && !this.closing; attempt++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoffDelay(attempt, this.options.reconnect));
        this.wakeUp = () => (clearTimeout(timer), resolve());
      });
      this.wakeUp = undefined;
      if (this.closing) return;
      try {
        await this.open(Socket);
        this.reconnects++;
        this.onreconnected?.();
        return;
      } catch (error) {
        this.lastError = error instanceof Error ? error : new Error(String(error));
      }
    }
    if (!this.closing) this.fail(new Error(`the WebSocket could not be opened again after ${maxAttempts} attempts`));
    this.end();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) {
      return Promise.reject(new ConnectionClosedError(this.state === 'connecting' ? 'Connection lost: reconnecting' : 'Connection closed'));
    }
    socket.send(serialize(message));
    return Promise.resolve();
  }

  /** Closes the socket (code 1000); stops reconnecting. */
  close(): Promise<void> {
    this.closing = true;
    this.wakeUp?.();
    const socket = this.socket;
    if (socket && socket.readyState <= OPEN) socket.close(1000, 'client closed');
    this.end();
    return Promise.resolve();
  }

  private fail(error: Error): void {
    this.lastError = error;
    this.state = 'error';
    this.onerror?.(error);
  }

  private end(): void {
    if (this.state !== 'error') this.state = 'disconnected';
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}
