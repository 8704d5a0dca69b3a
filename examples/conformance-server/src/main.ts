import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Container } from 'typedi';
import { McpApp, McpFactory, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { ConformanceServer, Running, WATCHED_URI, Watched } from './conformance.server';

/** How often the watched resource changes (subscribers are told each time). */
const WATCH_INTERVAL_MS = 3_000;

/**
 * Starts the conformance server on 127.0.0.1 (port from `PORT`, default 3001; `PORT=0` picks a
 * free one) with MCP at /mcp, and prints the endpoint's URL on stderr. `ADAPTER=web` serves it
 * through the Web-standard handler behind Node's HTTP server; otherwise through the Fastify plugin.
 * With `REDIS_URL`, the app keeps its sessions, streams and tasks in that Redis and joins its bus
 * (`@hermes-mcp/redis`), as one instance of a cluster would.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3001);
  const level = process.env.LOG_LEVEL ?? 'warn';
  const served = process.env.ADAPTER === 'web' ? await serveWeb(port, level) : await serveFastify(port, level);
  Container.get(Running).app = served.app;

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

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
