/**
 * The HTTP adapters every HTTP behaviour suite runs against (`describe.each(ADAPTERS)`): the
 * Fastify plugin and the Web-standard handler behind Node's HTTP server (`toNodeListener`), each on
 * 127.0.0.1 at a free port, MCP at `/mcp`. HTTP is core's (`HttpEndpoint`): both must answer alike.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import Fastify, { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Constructor, HttpEndpointOptions, Logger, McpApp, McpAppOptions, McpHandler, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { FIXTURE } from './hardening';
import { freePort } from './redis/redis-server';

/** The two HTTP adapters. */
export type Adapter = 'fastify' | 'web';

/** Every HTTP adapter, for `describe.each(ADAPTERS)('%s: …', (adapter) => …)`. */
export const ADAPTERS: readonly Adapter[] = ['fastify', 'web'];

/** The built hardening fixture main (test-support/fixtures) that serves on each adapter, for suites that spawn it. */
export const FIXTURE_OF: Record<Adapter, string> = { fastify: FIXTURE.http, web: FIXTURE.web };

/** A server listening on an adapter. */
export interface Serving {
  adapter: Adapter;
  /** The MCP endpoint (`http://127.0.0.1:{port}/mcp`), which is also its OAuth resource URI. */
  url: string;
  /** `http://127.0.0.1:{port}`. */
  origin: string;
  port: number;
  /** The Fastify app, on that adapter. */
  app?: FastifyInstance;
  /** Closes the adapter as a deployment does (Fastify's `app.close()`; the Web handler's `close()`, then the HTTP server). */
  close(): Promise<void>;
}

/** How {@link serveOn} serves, beyond the endpoint's options. */
export interface ServeKnobs {
  /** The app's logger (`appOptions.logger` on both adapters); silent by default. */
  logger?: Logger;
  /** The app's other options, when `server` is not an app yet. */
  appOptions?: McpAppOptions;
  /**
   * Fastify only: `logger` is Fastify's (`loggerInstance`), and the app logs through Fastify's
   * logger, its default there — the integration a Fastify user gets. The Web handler has no logger
   * of its own: there `logger` is the app's, as without this knob.
   */
  throughFastifyLogger?: boolean;
  /**
   * Whether `close()` drops the connections left open (default true): after a test aborts a fetch,
   * undici may leave a fresh connection with no request on it, which a plain close waits for until
   * the client's keep-alive timeout (about 4 s). Off, only idle connections are closed (Fastify's
   * default `'idle'`, what Node's `server.close()` does): the adapter itself must end its streams.
   */
  forceCloseConnections?: boolean;
}

/**
 * Serves `server` on `adapter`. `options(url)` gives the endpoint's options knowing its own URL
 * (an OAuth resource names it). On Fastify, WebSocket is on at `/mcp/ws` (the Web handler has none).
 */
export async function serveOn(
  adapter: Adapter,
  server: Constructor | McpHandler | McpApp,
  options: (url: string) => HttpEndpointOptions = () => ({}),
  { logger = createLogger({ level: 'silent' }), appOptions, forceCloseConnections = true, throughFastifyLogger = false }: ServeKnobs = {},
): Promise<Serving> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/mcp`;
  if (adapter === 'fastify') {
    // return503OnClosing off: while closing, requests get core's answer (as on the Web handler), not Fastify's 503.
    // throughFastifyLogger: a pino logger, what Fastify's `loggerInstance` takes.
    const fastifyLogger = throughFastifyLogger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: false };
    const app: FastifyInstance = Fastify({ ...fastifyLogger, forceCloseConnections: forceCloseConnections || 'idle', return503OnClosing: false });
    const appLogger = throughFastifyLogger ? {} : { logger };
    await app.register(hermesMcp, { server, path: '/mcp', ...options(url), websocket: true, appOptions: { ...appLogger, ...appOptions } });
    await app.listen({ host: '127.0.0.1', port });
    return { adapter, url, origin, port, app, close: () => app.close() };
  }
  const handler = createWebHandler(server, { path: '/mcp', ...options(url), appOptions: { logger, ...appOptions } });
  const http: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    adapter,
    url,
    origin,
    port,
    close: async () => {
      await handler.close();
      if (forceCloseConnections) http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
