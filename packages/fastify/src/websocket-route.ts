/**
 * The plugin's WebSocket endpoint: `GET {path}/ws` with `Upgrade: websocket` and
 * `Sec-WebSocket-Protocol: mcp`. A separate path, because a GET on `{path}` is Streamable HTTP's
 * stream. Served through `@fastify/websocket`, an optional peer dependency loaded only when the
 * `websocket` option is on.
 *
 * What MCP says about the socket is core's, as for every adapter (`@hermes-mcp/core/adapter`):
 * `HttpEndpoint.admitWebSocket` refuses before the upgrade what cannot become a session (403, 400
 * without the `mcp` subprotocol, 401, 429, 503), `refuseNotUpgraded` answers a plain GET (426), and
 * `acceptWebSocket` makes the socket a session. This file registers the route and hands the
 * request and the socket over.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HermesError } from '@hermes-mcp/core';
import { AcceptedWebSocket, HTTP_REFUSALS, HttpEndpoint, MCP_SUBPROTOCOL, WS_CLOSE, WebSocketAdmission, refuse } from '@hermes-mcp/core/adapter';
import { FastifyExchange } from './exchange';

/** The plugin's `websocket` option, when it is an object. */
export interface WebSocketOptions {
  /** Where the WebSocket endpoint is mounted (default `{path}/ws`). */
  path?: string;
  /**
   * Largest frame accepted, in bytes (default: the plugin's `bodyLimit`, 4 MiB). `ws` refuses a
   * larger frame before buffering it and closes the socket with 1009.
   */
  maxPayload?: number;
}

/** What each upgrade request was admitted as, between its admission and its socket. */
const admitted = new WeakMap<FastifyRequest, WebSocketAdmission>();

/** `@fastify/websocket`'s plugin, as much of its shape as is used here. */
type FastifyWebsocketPlugin = Parameters<FastifyInstance['register']>[0];

/** How long a closing socket waits for the client's close frame before it is cut: 2 s. */
const CLOSE_TIMEOUT = 2_000;

/** Loads `@fastify/websocket`, or fails with HERMES_MISSING_PEER saying how to install it. @internal */
export function loadFastifyWebsocket(load: (id: string) => unknown = require): FastifyWebsocketPlugin {
  try {
    // The module itself is the fastify-plugin wrapped one (its `default` is not), so its routes
    // hook reaches the routes registered beside it.
    return load('@fastify/websocket') as FastifyWebsocketPlugin;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes('@fastify/websocket');
    if (!missing) throw error;
    throw new HermesError(
      'HERMES_MISSING_PEER',
      'the websocket option of hermesMcp needs @fastify/websocket, an optional peer dependency that is not installed: run `npm install @fastify/websocket` (a version for Fastify 5, ^11), or turn the option off',
      { cause: error },
    );
  }
}

/** The path of the WebSocket endpoint for the MCP path `path`. @internal */
export function websocketPath(path: string, option: true | WebSocketOptions): string {
  const custom = option === true ? undefined : option.path;
  if (custom !== undefined) return custom;
  return path === '/' ? '/ws' : `${path}/ws`;
}

/**
 * Mounts the WebSocket endpoint in `scope` (the plugin's routes context, so its Origin check and
 * error handler apply). Registers `@fastify/websocket` there unless the app already did (then its
 * `ws` server, and its `maxPayload`, are used).
 * @internal
 */
export async function serveWebSocket(scope: FastifyInstance, endpoint: HttpEndpoint, option: true | WebSocketOptions): Promise<void> {
  const fastifyWebsocket = loadFastifyWebsocket();
  const url = websocketPath(endpoint.path, option);
  const maxPayload = (option === true ? undefined : option.maxPayload) ?? endpoint.settings.bodyLimit;
  await scope.register(async (ws) => {
    // The app registered @fastify/websocket itself (at its root, before hermesMcp): a second one
    // would answer every upgrade twice. Its server is used as it is.
    const shared = ws.hasDecorator('websocketServer');
    if (!shared) {
      await ws.register(fastifyWebsocket, {
        options: {
          maxPayload,
          closeTimeout: CLOSE_TIMEOUT,
          handleProtocols: (protocols: Set<string>) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
        },
        // Its own preClose closes every socket at once; the plugin's drains them first (1001).
        preClose: (done: () => void) => done(),
        // `ws` closes the socket itself after a client's protocol error (1009 too big, 1007 not
        // UTF-8, 1002): a client's mistake, not the server's.
        errorHandler: (error: Error, _socket: unknown, request: FastifyRequest) => request.log.debug({ err: error }, 'MCP WebSocket error'),
      } as Record<string, unknown>);
    }

    /** Refuses, as HTTP, an upgrade that cannot become a session (core decides). */
    function beforeUpgrade(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      if (!(request as { ws?: boolean }).ws) return done();
      const exchange = new FastifyExchange(request, reply);
      endpoint.admitWebSocket(exchange, exchange).then(
        (admission) => {
          if (admission === undefined) return;
          admitted.set(request, admission);
          done();
        },
        (error: unknown) => {
          request.log.error({ err: error }, 'could not admit a WebSocket upgrade');
          if (!reply.sent) refuse(exchange, HTTP_REFUSALS.INTERNAL_ERROR, undefined);
        },
      );
    }

    function notUpgraded(request: FastifyRequest, reply: FastifyReply): FastifyReply {
      endpoint.refuseNotUpgraded(new FastifyExchange(request, reply), url);
      return reply;
    }

    async function accept(socket: AcceptedWebSocket, request: FastifyRequest): Promise<void> {
      const admission = admitted.get(request);
      if (admission === undefined) return socket.close(WS_CLOSE.internalError, 'Internal error');
      // The app's own preClose closes every socket of its server at once: these drain instead.
      if (shared) (ws as unknown as { websocketServer: { clients?: Set<unknown> } }).websocketServer.clients?.delete(socket);
      await endpoint.acceptWebSocket(socket, admission, maxPayload);
    }

    /**
     * An upgrade refused before @fastify/websocket saw it (by the plugin's Origin check) is left
     * open by it: its socket has no HTTP parser any more, so it is ended once the answer is out.
     */
    function afterRefusal(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
      const socket = request.raw.socket;
      if (request.headers.upgrade !== undefined && !socket.destroyed) socket.end(() => socket.destroy());
      done();
    }

    ws.route({ method: 'GET', url, preHandler: beforeUpgrade, onResponse: afterRefusal, handler: notUpgraded, wsHandler: accept } as Parameters<FastifyInstance['route']>[0]);
  });
}
