/**
 * The official SDK v1 (`@modelcontextprotocol/sdk` 1.32.2), stateful, mounted as its docs show
 * (`simpleStreamableHttp` example): `createMcpExpressApp()`, one `McpServer` and one
 * `StreamableHTTPServerTransport` per session, kept in a map by session id, answers as SSE (the
 * transport's default). Only the example's logging, event store and extra tools are left out.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { announce, fail, tieToRunner } from './lifeline';
import { MEMORY_PATH, memoryProbeEnabled, settledMemory } from './memory';

/** What the handlers use of Express's request and response (the bench installs no @types/express). */
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { status(code: number): Response; json(body: unknown): void };

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-add', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}

function main(): void {
  tieToRunner();
  const app = createMcpExpressApp();
  const transports = new Map<string, StreamableHTTPServerTransport>();

  app.post('/mcp', async (req: Request, res: Response) => {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    const existing = sessionId ? transports.get(sessionId) : undefined;
    if (existing) {
      await existing.handleRequest(req, res, req.body);
      return;
    }
    if (!sessionId && isInitializeRequest(req.body)) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await getServer().connect(transport);
      await transport.handleRequest(req, res, req.body);
      return;
    }
    res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
  });
  if (memoryProbeEnabled) app.get(MEMORY_PATH, async (_req: Request, res: Response) => void res.json(await settledMemory()));

  const server = app.listen(0, '127.0.0.1', () => announce(server.address()));
  server.on('error', fail);
}

try {
  main();
} catch (error) {
  fail(error);
}
