/**
 * The Fastify plugin: mounts a Hermes MCP server at a path of any Fastify app. Routes, body
 * parsing and Fastify's conventions only — what MCP says about HTTP (the era, headers, sessions,
 * streams, status codes, shutdown) is core's {@link HttpEndpoint}, shared with every adapter.
 *
 * - `POST {path}`, `GET {path}`, `DELETE {path}`: Streamable HTTP (sessions, JSON or SSE answers,
 *   resumable streams; MCP 2026-07-28 stateless requests on the same POST).
 * - `GET {path}/sse` + `POST {path}/messages?sessionId=…`: the HTTP+SSE transport of 2024-11-05.
 * - `GET /.well-known/oauth-protected-resource{resource path}`: with `auth`, its RFC 9728 metadata.
 *
 * The routes live in their own encapsulated context, so the error handler and hooks added here
 * touch nothing else of the app.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Constructor, McpApp, McpAppOptions, McpFactory, McpHandler } from '@hermes-mcp/core';
import { Deadlines, HTTP_REFUSALS, HttpEndpoint, HttpEndpointOptions, HttpRequest, HttpResponse, NodeHttpResponse, refuse, sendError } from '@hermes-mcp/core/adapter';
import { ErrorCode, McpError, parseJson } from '@hermes-mcp/protocol';
import { FastifyExchange, suspectBodies } from './exchange';
import { WebSocketOptions, serveWebSocket } from './websocket-route';

/** Options of the {@link hermesMcp} plugin. */
export interface HermesMcpOptions extends Omit<HttpEndpointOptions, 'clientKey'> {
  /** The server: a `@McpServer` class, an `McpHandler`, or an app made with `McpFactory.create`. */
  server: Constructor | McpHandler | McpApp;
  /** Options for `McpFactory.create` when `server` is not an app yet (the logger defaults to Fastify's). */
  appOptions?: McpAppOptions;
  /**
   * Which client a request comes from, for `maxSessionsPerClient` (default: `request.ip`, which
   * follows Fastify's `trustProxy`). Return a user or tenant id to count per account instead.
   */
  clientKey?: (request: FastifyRequest) => string;
  /**
   * Serve MCP over WebSocket at `{path}/ws` (default false): one JSON-RPC message per text frame,
   * subprotocol `mcp`, as the SDK's `WebSocketClientTransport` speaks it. Needs the optional peer
   * `@fastify/websocket` (`npm install @fastify/websocket`). Each socket is a session: it counts
   * toward `maxSessions` and `maxSessionsPerClient`, ends after `sessionIdleTimeout` without a
   * frame from the client, and drains when Fastify closes (then closes with 1001). Frames are
   * limited to `maxPayload` bytes (default: `bodyLimit`), unread output to `maxBufferedBytes`.
   *
   * @example
   * await app.register(hermesMcp, { server: WeatherServer, websocket: true }); // ws://host/mcp/ws
   */
  websocket?: boolean | WebSocketOptions;
}

async function plugin(fastify: FastifyInstance, options: HermesMcpOptions): Promise<void> {
  const app = options.server instanceof McpApp ? options.server : McpFactory.create(options.server, { logger: fastify.log, ...options.appOptions });
  const clientKey = options.clientKey;
  const endpoint = new HttpEndpoint(app, { ...options, clientKey: clientKey && ((request) => clientKey(request.native as FastifyRequest)) });
  const { path } = endpoint;
  const { bodyLimit } = endpoint.settings;
  /** The body did not arrive in time: 408, and the connection closes (the rest of the body is not waited for). */
  const bodyTooSlow = (reply: FastifyReply): void => {
    const request = reply.request;
    if (reply.sent || request.raw.destroyed) return;
    reply.hijack();
    refuse(new NodeHttpResponse(reply.raw), HTTP_REFUSALS.REQUEST_TIMEOUT, undefined, deadlines.timeoutMs);
    reply.raw.once('finish', () => request.raw.socket.destroy());
  };
  const deadlines = new Deadlines<FastifyReply>(endpoint.settings.bodyTimeout, bodyTooSlow);
  // The endpoint's promise is the handler's: it resolves once the reply was sent or hijacked.
  const route = (serve: (request: HttpRequest, response: HttpResponse) => Promise<void>) => (request: FastifyRequest, reply: FastifyReply) => {
    // The body arrived (or there was none): its deadline is off.
    deadlines.delete(reply);
    const exchange = new FastifyExchange(request, reply);
    return serve(exchange, exchange);
  };

  // Every method of every path Hermes serves reaches core, which answers it as it does for any
  // adapter (405 with Allow, 204 for OPTIONS…); only the parsing of bodies is Fastify's.
  const other = (served: string[]) => fastify.supportedMethods.filter((method) => !served.includes(method));
  const handle = route((request, response) => endpoint.handle(request, response));

  // RFC 9728: the metadata of the `auth` option, at the root of the app, public (no Origin check, no token).
  const metadata = endpoint.resourceServer;
  if (metadata) {
    // eslint-disable-next-line @typescript-eslint/require-await -- Fastify takes an async function as an encapsulated plugin
    await fastify.register(async (scope) => {
      ignoreBodies(scope);
      scope.route({ method: other([]), url: metadata.metadataPath, exposeHeadRoute: false, handler: handle });
    });
  }

  await fastify.register(async (scope) => {
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const response = new FastifyExchange(request, reply);
      // Refused by the body parser (not JSON, or a key that could change prototypes): say why.
      if (error instanceof McpError) return sendError(response, 400, error.code, error.message);
      switch (error.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return refuse(response, HTTP_REFUSALS.PAYLOAD_TOO_LARGE, undefined, bodyLimit);
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return refuse(response, HTTP_REFUSALS.UNSUPPORTED_MEDIA_TYPE, undefined);
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return refuse(response, HTTP_REFUSALS.BODY_EMPTY, undefined);
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
          return refuse(response, HTTP_REFUSALS.PARSE_ERROR, undefined, error.message);
      }
      if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
        return refuse(response, HTTP_REFUSALS.PARSE_ERROR, undefined, error.message);
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return sendError(response, error.statusCode, ErrorCode.InvalidRequest, error.message);
      }
      request.log.error({ err: error }, 'MCP endpoint failed');
      return refuse(response, HTTP_REFUSALS.INTERNAL_ERROR, undefined);
    });
    // JSON bodies are parsed by the protocol's parser: the client learns why a body was refused
    // (Fastify's own parser says only "not valid JSON", even for a refused "__proto__" key).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      if (body === '') return done(Object.assign(new Error('the body is empty'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }), undefined);
      const parsed = parseJson(body as string);
      if (!parsed.ok) return done(parsed.error, undefined);
      if (parsed.suspect) suspectBodies.add(parsed.value as object);
      done(null, parsed.value);
    });
    // Callback hooks, not async ones: they run on every request, and a promise per request costs.
    scope.addHook('onRequest', (request, reply, done) => {
      const problem = endpoint.originProblem(request.headers);
      if (problem) return endpoint.forbid(new FastifyExchange(request, reply), problem);
      // Fastify's own requestTimeout is off by default: a body that trickles in is cut here.
      if (request.method === 'POST') deadlines.add(reply);
      done();
    });
    scope.post(
      path,
      { bodyLimit },
      route((request, response) => endpoint.post(request, response)),
    );
    if (endpoint.servesSse)
      scope.post(
        `${path}/messages`,
        { bodyLimit },
        route((request, response) => endpoint.postMessage(request, response)),
      );
    // GET, DELETE and every other method carry no message: a body, or a Content-Type without one,
    // is not an error (core refuses the methods it does not serve).
    // eslint-disable-next-line @typescript-eslint/require-await -- Fastify takes an async function as an encapsulated plugin
    await scope.register(async (bodiless) => {
      ignoreBodies(bodiless);
      bodiless.get(
        path,
        { exposeHeadRoute: false },
        route((request, response) => endpoint.get(request, response)),
      );
      bodiless.delete(
        path,
        route((request, response) => endpoint.delete(request, response)),
      );
      bodiless.route({ method: other(['GET', 'POST', 'DELETE']), url: path, handler: handle });
      if (endpoint.servesSse) {
        bodiless.get(
          `${path}/sse`,
          { exposeHeadRoute: false },
          route((request, response) => endpoint.openSse(request, response)),
        );
        bodiless.route({ method: other(['GET']), url: `${path}/sse`, handler: handle });
        bodiless.route({ method: other(['POST']), url: `${path}/messages`, handler: handle });
      }
    });
    if (options.websocket) {
      await serveWebSocket(scope, endpoint, options.websocket);
    }
  });

  // preClose, not onClose: Fastify closes the HTTP server (waiting for every open connection) before
  // onClose hooks run, so open SSE streams and pending requests must be ended first.
  fastify.addHook('preClose', () => endpoint.close());
}

/** Bodies of a scope's routes are read and dropped (they carry no message). */
function ignoreBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    done(null, undefined);
  });
}

/**
 * Mounts a Hermes MCP server in a Fastify app.
 *
 * @example
 * const app = Fastify({ logger: true });
 * await app.register(hermesMcp, { server: WeatherServer, path: '/mcp' });
 * await app.listen({ host: '127.0.0.1', port: 3000 });
 */
export const hermesMcp = fp(plugin, { name: '@hermes-mcp/fastify', fastify: '5.x' });
