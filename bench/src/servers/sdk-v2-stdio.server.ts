/** The official SDK v2 on stdio, as its docs show: `serveStdio(factory)`. */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

process.once('SIGTERM', () => process.exit(0));
serveStdio(() => {
  const server = new McpServer({ name: 'bench-add', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
});
