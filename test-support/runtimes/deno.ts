/**
 * Serves the notes server with `Deno.serve` on 127.0.0.1 and a free port; prints `listening <port>`.
 * HTTP goes to the Web handler; `GET /mcp/ws` is MCP over WebSocket through `Deno.upgradeWebSocket`,
 * built on `@hermes-mcp/core/adapter` (websocket.ts): the endpoint admits the upgrade, Deno
 * upgrades, and the endpoint accepts the socket once it is open.
 */
import { notesHandler } from './notes.server.ts';
import { RuntimeSocket, WEBSOCKET_PATH, admit } from './websocket.ts';

declare const Deno: {
  serve(
    options: { hostname: string; port: number; onListen: (address: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): unknown;
  upgradeWebSocket(request: Request, options: { protocol: string }): { socket: WebSocket; response: Response };
};

const mcp = notesHandler();

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening ${port}`) }, async (request, info) => {
  if (new URL(request.url).pathname !== WEBSOCKET_PATH) return mcp(request);
  const admitted = await admit(mcp.endpoint, request, info.remoteAddr.hostname);
  if (admitted instanceof Response) return admitted;
  const { socket, response } = Deno.upgradeWebSocket(request, { protocol: 'mcp' });
  const accepted = new RuntimeSocket(socket);
  socket.binaryType = 'arraybuffer';
  socket.addEventListener('message', (event) => accepted.message(event.data as string | ArrayBuffer));
  socket.addEventListener('close', () => accepted.closed());
  socket.addEventListener('open', () => void mcp.endpoint.acceptWebSocket(accepted, admitted));
  return response;
});
