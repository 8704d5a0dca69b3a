/** The official SDK v1 on stdio, as its README shows: `McpServer` + `StdioServerTransport`. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { fail } from './lifeline';

process.once('SIGTERM', () => process.exit(0));
const server = new McpServer({ name: 'bench-add', version: '1.0.0' });
server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
}));
server.connect(new StdioServerTransport()).catch(fail);
