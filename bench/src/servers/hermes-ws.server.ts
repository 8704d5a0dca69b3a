/**
 * Hermes over WebSocket: the add server mounted with `@hermes-mcp/fastify` and `websocket: true`,
 * at /mcp/ws.
 */
import Fastify from 'fastify';
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { AddServer } from './add.server';
import { announce, fail, tieToRunner } from './lifeline';

async function main(): Promise<void> {
  tieToRunner();
  const app = Fastify({ logger: false });
  const mcp = McpFactory.create(AddServer, { logger: createLogger({ level: 'silent' }) });
  await app.register(hermesMcp, { server: mcp, path: '/mcp', websocket: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
