/**
 * The plugin's WebSocket endpoint: `GET {path}/ws` with `Upgrade: websocket` and
 * `Sec-WebSocket-Protocol: mcp`. A separate path, because a GET on `{path}` is Streamable HTTP's
 * stream. Served through `@fastify/websocket`, an optional peer dependency loaded only when the
 * `websocket` option is on.
 *
 * Everything that can be refused is refused before the upgrade, as an HTTP answer with a JSON-RPC
 * error body: the Host/Origin check (403, the plugin's hook), no `mcp` subprotocol (400), the
 * session limits (429, 503) and shutting down (503). A plain GET without an upgrade gets 426.
 *
 * Each socket is a session: one engine connection (`initialize`, or 2026-07-28 requests that carry
 * their protocol version), counted toward `maxSessions` and `maxSessionsPerClient`, ended after
 * `sessionIdleTimeout` with no frame from the client (a message or a ping), drained like the
 * others when Fastify closes (then closed with 1001).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthInfo, HermesError, HttpSession, MCP_SUBPROTOCOL, WS_CLOSE, WebSocketLike, WebSocketTransport } from '@hermes-mcp/core';
import { ClientView, OutputLimits, principalOf, sendError } from '@hermes-mcp/core/internal';
import { ErrorCode } from '@hermes-mcp/protocol';
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

/** What the plugin lends its WebSocket endpoint. @internal */
export interface WebSocketServing {
  /** The MCP endpoint's path (`/mcp`). */
  path: string;
  /** The `websocket` option. */
  option: true | WebSocketOptions;
  /** The plugin's `bodyLimit`: the default `maxPayload`. */
  bodyLimit: number;
  maxBufferedBytes: number;
  /** The limits on what goes out to a client (the endpoint's). */
  limits: OutputLimits;
  /** One client's unread output over all its connections (the endpoint's count). */
  output(client: string): ClientView;
  /** The plugin's `redactHeaders`: upgrade headers handlers do not see, besides credentials. */
  redactHeaders?: readonly string[];
  clientKey(request: FastifyRequest): string;
  /** Whether a new session may open for `client`; answers 503 or 429 on `reply` when not. */
  admit(reply: FastifyReply, client: string): boolean;
  /** Who is upgrading (the endpoint's `auth`/`authenticate`): undefined if anonymous, `false` once refused (answered on `reply`). */
  authenticate(reply: FastifyReply): Promise<AuthInfo | undefined | false>;
  /** Opens a session (an engine connection kept by the plugin) over the transport made for its id, for `principal`. */
  openSession(client: string, makeTransport: (id: string) => WebSocketTransport, principal: string | undefined): Promise<HttpSession>;
  /** True once the Fastify app began closing. */
  closing(): boolean;
}

/** Who each upgrade request is, between its authentication and its socket. */
const authenticated = new WeakMap<FastifyRequest, AuthInfo>();

/** A `ws` socket as the route sees it: the transport's part, the negotiated subprotocol, pings. */
type AcceptedSocket = WebSocketLike & {
  readonly protocol: string;
  on(event: 'ping', listener: () => void): unknown;
};

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

/** Answers an upgrade request (or a plain GET) with an HTTP error and a JSON-RPC error body. */
function refuse(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  sendError(new FastifyExchange(reply.request, reply), status, code, message);
  return reply;
}

/** The subprotocols a request offers (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(request: FastifyRequest): string[] {
  const value = request.headers['sec-websocket-protocol'];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * Mounts the WebSocket endpoint in `scope` (the plugin's routes context, so its Origin check and
 * error handler apply). Registers `@fastify/websocket` there unless the app already did (then its
 * `ws` server, and its `maxPayload`, are used).
 * @internal
 */
export async function serveWebSocket(scope: FastifyInstance, serving: WebSocketServing): Promise<void> {
  const fastifyWebsocket = loadFastifyWebsocket();
  const url = websocketPath(serving.path, serving.option);
  const maxPayload = (serving.option === true ? undefined : serving.option.maxPayload) ?? serving.bodyLimit;
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

    /** Refuses, as HTTP, an upgrade that cannot become a session. */
    function beforeUpgrade(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      if (!(request as { ws?: boolean }).ws) return done();
      const offered = offeredProtocols(request);
      if (!offered.includes(MCP_SUBPROTOCOL)) {
        const got = offered.length === 0 ? 'none' : `"${offered.join(', ')}"`;
        refuse(reply, 400, ErrorCode.InvalidRequest, `Bad Request: MCP over WebSocket needs the subprotocol "mcp" (Sec-WebSocket-Protocol: mcp); offered: ${got}`);
        return;
      }
      if (!serving.admit(reply, serving.clientKey(request))) return;
      // Authenticated like every other route, before the upgrade: a refusal is an HTTP answer (401 …).
      serving.authenticate(reply).then(
        (auth) => {
          if (auth === false) return;
          if (auth !== undefined) authenticated.set(request, auth);
          done();
        },
        (error: unknown) => {
          request.log.error({ err: error }, 'could not authenticate a WebSocket upgrade');
          refuse(reply, 500, ErrorCode.InternalError, 'Internal error');
        },
      );
    }

    function notUpgraded(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
      reply.header('upgrade', 'websocket');
      return refuse(
        reply,
        426,
        ErrorCode.InvalidRequest,
        `Upgrade Required: ${url} serves MCP over WebSocket (subprotocol "mcp"); use a WebSocket client, or POST ${serving.path} for Streamable HTTP`,
      );
    }

    async function accept(socket: AcceptedSocket, request: FastifyRequest): Promise<void> {
      // A shared `ws` server may have picked another of the offered subprotocols.
      if (socket.protocol !== MCP_SUBPROTOCOL) return socket.close(WS_CLOSE.protocolError, 'MCP over WebSocket needs the subprotocol "mcp"');
      if (serving.closing()) return socket.close(WS_CLOSE.goingAway, 'server shutting down');
      // The app's own preClose closes every socket of its server at once: these drain instead.
      if (shared) (ws as unknown as { websocketServer: { clients?: Set<unknown> } }).websocketServer.clients?.delete(socket);
      const auth = authenticated.get(request);
      const info = auth === undefined ? { headers: request.headers, ip: request.ip, url: request.url } : { headers: request.headers, ip: request.ip, url: request.url, auth };
      const client = serving.clientKey(request);
      // What the socket holds unsent counts toward its client's unread output, with its other connections.
      const output = serving.output(client);
      output.track(
        {
          get bufferedBytes() {
            return socket.bufferedAmount;
          },
        },
        (listener) => socket.on('close', listener),
      );
      let session: HttpSession;
      try {
        session = await serving.openSession(
          client,
          (sessionId) =>
            new WebSocketTransport(socket, {
              sessionId,
              info,
              maxMessageBytes: maxPayload,
              maxBufferedBytes: serving.maxBufferedBytes,
              maxUnreadBytes: serving.limits.maxUnreadBytes,
              maxResultBytes: serving.limits.maxResultBytes,
              unread: () => output.unread(),
              goingAway: () => serving.closing(),
              redactHeaders: serving.redactHeaders,
            }),
          principalOf(auth),
        );
      } catch (error) {
        request.log.error({ err: error }, 'could not open an MCP session on a WebSocket');
        return socket.close(WS_CLOSE.internalError, 'Internal error');
      }
      // Any frame from the client restarts the session's idle clock.
      const touch = () => session.touch();
      socket.on('message', touch);
      socket.on('ping', touch);
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
