/**
 * One server on each HTTP adapter, for suites that check both behave alike: the Fastify plugin
 * (with WebSocket on) and the Web-standard handler behind Node's HTTP server (`toNodeListener`),
 * each on 127.0.0.1 at a free port, MCP at `/mcp`.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import Fastify, { FastifyInstance } from 'fastify';
import { Constructor, HttpEndpointOptions, Logger, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { freePort } from './redis/redis-server';

/** The two HTTP adapters. */
export type Adapter = 'fastify' | 'web';

/** A server listening on an adapter. */
export interface Serving {
  /** The MCP endpoint (`http://127.0.0.1:{port}/mcp`), which is also its OAuth resource URI. */
  url: string;
  /** `http://127.0.0.1:{port}`. */
  origin: string;
  port: number;
  /** The Fastify app, on that adapter. */
  app?: FastifyInstance;
  close(): Promise<void>;
}

/**
 * Serves `server` on `adapter`. `options(url)` gives the endpoint's options knowing its own URL
 * (an OAuth resource names it); the app logs to `logger` (silent by default).
 */
export async function serveOn(
  adapter: Adapter,
  server: Constructor,
  options: (url: string) => HttpEndpointOptions = () => ({}),
  logger: Logger = createLogger({ level: 'silent' }),
): Promise<Serving> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/mcp`;
  if (adapter === 'fastify') {
    const app = Fastify({ logger: false, forceCloseConnections: true });
    await app.register(hermesMcp, { server, path: '/mcp', ...options(url), websocket: true, appOptions: { logger } });
    await app.listen({ host: '127.0.0.1', port });
    return { url, origin, port, app, close: () => app.close() };
  }
  const handler = createWebHandler(server, { path: '/mcp', ...options(url), appOptions: { logger } });
  const http: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    url,
    origin,
    port,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
