import 'reflect-metadata';
import Fastify from 'fastify';
import { McpFactory } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { TasksServer } from './tasks.server';

/** Starts Fastify on 127.0.0.1 with the task board mounted at /mcp. */
async function main(): Promise<void> {
  const fastify = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });
  const mcp = McpFactory.create(TasksServer, { logger: fastify.log });
  await fastify.register(hermesMcp, { server: mcp, path: '/mcp' });
  fastify.get('/health', (_request, reply) => reply.send({ ok: true }));
  const port = Number(process.env.PORT ?? 3000);
  const address = await fastify.listen({ host: '127.0.0.1', port });
  const tools = mcp.registry ? [...mcp.registry.allTools()].map((t) => t.name).join(', ') : '';
  process.stderr.write(
    [
      '',
      `Hermes task board: MCP over Streamable HTTP at ${address}/mcp`,
      `  (2024-11-05 clients: HTTP+SSE at ${address}/mcp/sse)`,
      `Tools: ${tools}`,
      `Try it: npx @modelcontextprotocol/inspector --transport http --server-url ${address}/mcp`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await fastify.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
