/**
 * The client side of MCP over WebSocket, as the official SDK v1 speaks it and the Hermes Fastify
 * plugin serves it (`websocket: true`): subprotocol `mcp`, one JSON-RPC message (or batch) per
 * text frame. Uses the platform's `WebSocket` (Node 22+, browsers, Deno, Bun) or the class given
 * (e.g. the `ws` package's on Node 20).
 */
import { ErrorCode, JsonRpcMessage, McpError, ParsedFrame, Transport, TransportInfo, parseFrame, serialize } from '@hermes-mcp/protocol';
import type { TransportState } from './stdio';

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
}

const OPEN = 1;

/** Talks to an MCP server over one WebSocket. */
export class WebSocketClientTransport implements Transport {
  readonly info: TransportInfo = Object.freeze({ kind: 'websocket' });
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private socket?: WebSocketLikeClient = undefined;
  private state: TransportState = 'disconnected';
  private lastError?: Error = undefined;
  private closeCode?: number = undefined;

  constructor(private readonly options: WebSocketClientOptions) {}

  /** The transport's state, last error and the close code of the socket, once closed. */
  status(): { state: TransportState; lastError?: Error; closeCode?: number } {
    const status: { state: TransportState; lastError?: Error; closeCode?: number } = { state: this.state };
    if (this.lastError) status.lastError = this.lastError;
    if (this.closeCode !== undefined) status.closeCode = this.closeCode;
    return status;
  }

  /** Opens the socket with the `mcp` subprotocol. */
  start(): Promise<void> {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Socket) {
      return Promise.reject(new Error('No WebSocket class: this runtime has no global WebSocket (Node 20); pass one, e.g. `WebSocket: (await import("ws")).WebSocket`'));
    }
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
        if (typeof event.data === 'string') this.onframe?.(parseFrame(event.data));
        else this.fail(new Error('a binary frame: MCP over WebSocket sends text frames'));
      });
      socket.addEventListener('error', (event) => {
        const error = new Error(`WebSocket error${event.message ? `: ${event.message}` : ''}`);
        this.fail(error);
        if (!opened) reject(error);
      });
      socket.addEventListener('close', (event) => {
        this.closeCode = event.code;
        if (!opened) reject(new McpError(ErrorCode.ConnectionClosed, `The WebSocket closed before it opened (code ${event.code})`));
        this.end();
      });
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    socket.send(serialize(message));
    return Promise.resolve();
  }

  /** Closes the socket (code 1000). */
  close(): Promise<void> {
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
