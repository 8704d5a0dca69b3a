import 'reflect-metadata';
import Fastify from 'fastify';
import { Container } from 'typedi';
import { McpFactory } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { ConformanceServer, Running, WATCHED_URI, Watched } from './conformance.server';

/** How often the watched resource changes (subscribers are told each time). */
const WATCH_INTERVAL_MS = 3_000;

/**
 * Starts Fastify on 127.0.0.1 (port from `PORT`, default 3001; `PORT=0` picks a free one) with the
 * conformance server mounted at /mcp, and prints the endpoint's URL on stderr.
 */
async function main(): Promise<void> {
  const fastify = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
  const mcp = McpFactory.create(ConformanceServer, { logger: fastify.log });
  Container.get(Running).app = mcp;
  await fastify.register(hermesMcp, { server: mcp, path: '/mcp' });
  const address = await fastify.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3001) });

  const watched = Container.get(Watched);
  const timer = setInterval(() => {
    watched.revision++;
    mcp.notifyResourceUpdated(WATCHED_URI);
  }, WATCH_INTERVAL_MS);
  timer.unref();

  process.stderr.write(`Hermes conformance server: MCP over Streamable HTTP at ${address}/mcp\n`);
  const stop = async () => {
    clearInterval(timer);
    await fastify.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
