/**
 * Serves the notes server with `Bun.serve` on 127.0.0.1 and a free port; prints `listening <port>`.
 * HTTP goes to the Web handler; `GET /mcp/ws` is MCP over WebSocket through Bun's own WebSocket
 * server, built on `@hermes-mcp/core/adapter` (websocket.ts): the endpoint admits the upgrade,
 * Bun upgrades, and the endpoint accepts the socket.
 */
import type { WebSocketAdmission } from '@hermes-mcp/core/adapter';
import { notesHandler } from './notes.server';
import { RuntimeSocket, WEBSOCKET_PATH, admit } from './websocket';

/** What a socket carries from its upgrade to its handlers. */
interface SocketData {
  admission: WebSocketAdmission;
  socket?: RuntimeSocket;
}

/** Bun's server-side WebSocket, as much of it as is used here. */
interface BunSocket {
  readonly readyState: number;
  readonly data: SocketData;
  getBufferedAmount(): number;
  send(data: string): number;
  close(code?: number, reason?: string): void;
}

interface BunServer {
  readonly port: number;
  upgrade(request: Request, options: { headers: Record<string, string>; data: SocketData }): boolean;
  requestIP(request: Request): { address: string } | null;
}

declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch: (request: Request, server: BunServer) => Promise<Response | undefined>;
    websocket: {
      open(ws: BunSocket): void;
      message(ws: BunSocket, message: string | Uint8Array): void;
      close(ws: BunSocket): void;
      ping(ws: BunSocket): void;
    };
  }): { port: number };
};

const mcp = notesHandler();

// idleTimeout 0: Bun closes a connection idle for 10 s by default, a listen stream too.
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  idleTimeout: 0,
  async fetch(request, bun) {
    if (new URL(request.url).pathname !== WEBSOCKET_PATH) return mcp(request);
    const admitted = await admit(mcp.endpoint, request, bun.requestIP(request)?.address);
    if (admitted instanceof Response) return admitted;
    if (bun.upgrade(request, { headers: { 'sec-websocket-protocol': 'mcp' }, data: { admission: admitted } })) return undefined;
    return new Response('the upgrade failed', { status: 500 });
  },
  websocket: {
    open(ws) {
      const socket = new RuntimeSocket({
        get readyState() {
          return ws.readyState;
        },
        get bufferedAmount() {
          return ws.getBufferedAmount();
        },
        send: (data) => void ws.send(data),
        close: (code, reason) => ws.close(code, reason),
      });
      ws.data.socket = socket;
      void mcp.endpoint.acceptWebSocket(socket, ws.data.admission);
    },
    message(ws, message) {
      ws.data.socket?.message(typeof message === 'string' ? message : new Uint8Array(message).buffer);
    },
    close(ws) {
      ws.data.socket?.closed();
    },
    ping(ws) {
      ws.data.socket?.pinged();
    },
  },
});
console.log(`listening ${server.port}`);
