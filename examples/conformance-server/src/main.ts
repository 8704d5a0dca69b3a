import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Container } from 'typedi';
import { McpApp, McpFactory, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { ConformanceServer, WATCHED_URI, Watched } from './conformance.server';

/** How often the watched resource changes (subscribers are told each time). */
const WATCH_INTERVAL_MS = 3_000;

/**
 * Starts the conformance server on 127.0.0.1 (port from `PORT`, default 3001; `PORT=0` picks a
 * free one) with MCP at /mcp, and prints the endpoint's URL on stderr. `ADAPTER=web` serves it
 * through the Web-standard handler behind Node's HTTP server; `ADAPTER=bun` through the same
 * handler with `Bun.serve` (run this file with `bun`); otherwise through the Fastify plugin.
 * With `REDIS_URL`, the app keeps its sessions, streams and tasks in that Redis and joins its bus
 * (`@hermes-mcp/redis`), as one instance of a cluster would.
 */
async function main(): Promise<void> {
  // ADAPTER=stdio: the same server on stdin and stdout, for `hermes-mcp proxy` to put behind HTTP
  // (the conformance script's `proxy` adapter).
  if (process.env.ADAPTER === 'stdio') return serveStdio(process.env.LOG_LEVEL ?? 'warn');
  const port = Number(process.env.PORT ?? 3001);
  const level = process.env.LOG_LEVEL ?? 'warn';
  const adapters: Record<string, (port: number, level: string) => Promise<Served>> = { web: serveWeb, bun: serveBun };
  const served = await (adapters[process.env.ADAPTER ?? ''] ?? serveFastify)(port, level);

  const watched = Container.get(Watched);
  const timer = setInterval(() => {
    watched.revision++;
    served.app.notifyResourceUpdated(WATCHED_URI);
  }, WATCH_INTERVAL_MS);
  timer.unref();

  process.stderr.write(`Hermes conformance server (${served.adapter}): MCP over Streamable HTTP at ${served.address}/mcp\n`);
  const stop = async () => {
    clearInterval(timer);
    await served.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/** On stdio: the watched resource changes as over HTTP; the process ends when stdin closes. */
async function serveStdio(level: string): Promise<void> {
  const app = McpFactory.create(ConformanceServer, { logger: createLogger({ level }) });
  const watched = Container.get(Watched);
  const timer = setInterval(() => {
    watched.revision++;
    app.notifyResourceUpdated(WATCHED_URI);
  }, WATCH_INTERVAL_MS);
  timer.unref();
  await app.listen();
}

/** What a running adapter gives back. */
interface Served {
  adapter: string;
  app: McpApp;
  address: string;
  close(): Promise<void>;
}

/** The Fastify plugin. */
async function serveFastify(port: number, level: string): Promise<Served> {
  const fastify = Fastify({ logger: { level } });
  const redis = process.env.REDIS_URL;
  const cluster = redis ? await redisCluster({ url: redis, logger: fastify.log }) : undefined;
  const app = McpFactory.create(ConformanceServer, { logger: fastify.log, ...(cluster && { cluster }) });
  await fastify.register(hermesMcp, { server: app, path: '/mcp' });
  if (cluster) fastify.addHook('onClose', () => cluster.close());
  const address = await fastify.listen({ host: '127.0.0.1', port });
  return { adapter: cluster ? `fastify, sessions in Redis at ${redis}` : 'fastify', app, address, close: () => fastify.close() };
}

/** The Web-standard handler behind Node's HTTP server. */
async function serveWeb(port: number, level: string): Promise<Served> {
  const app = McpFactory.create(ConformanceServer, { logger: createLogger({ level }) });
  const handler = createWebHandler(app, { path: '/mcp' });
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    adapter: 'web',
    app,
    address,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Bun's server, as far as this file uses it (the `Bun` global exists only when Bun runs the file). */
declare const Bun: {
  serve(options: { hostname: string; port: number; idleTimeout: number; fetch: (request: Request) => Promise<Response> }): {
    port: number;
    stop(closeActive?: boolean): Promise<void>;
  };
};

/** The Web-standard handler served by `Bun.serve`, which runs the compiled file with its decorator metadata. */
function serveBun(port: number, level: string): Promise<Served> {
  if (typeof Bun === 'undefined') return Promise.reject(new Error('ADAPTER=bun needs the Bun runtime: run this file with `bun`, not `node`'));
  const app = McpFactory.create(ConformanceServer, { logger: createLogger({ level }) });
  const handler = createWebHandler(app, { path: '/mcp' });
  // idleTimeout 0: Bun closes a connection idle for 10 s by default, an open SSE stream too.
  const server = Bun.serve({ hostname: '127.0.0.1', port, idleTimeout: 0, fetch: handler });
  return Promise.resolve({
    adapter: 'bun',
    app,
    address: `http://127.0.0.1:${server.port}`,
    close: async () => {
      await handler.close();
      await server.stop(true);
    },
  });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
