/**
 * The official SDK v2 (`@modelcontextprotocol/server` 2.4.0) as its docs recommend for Fastify:
 * `createMcpHandler(factory)` (a fresh `McpServer` per request), mounted with `app.all('/mcp')`
 * and Fastify's parsed body. The docs adapt the handler with `toNodeHandler` from
 * `@modelcontextprotocol/node`, which the bench does not install: `nodeAdapter` below does the
 * same conversion (a web `Request` from the Node request and the parsed body, the `Response`
 * written back, streamed bodies included). The docs' `createMcpFastifyApp` adds Host/Origin checks,
 * which our plugin also does.
 */
import Fastify from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { announce, fail, tieToRunner } from './lifeline';
import { MEMORY_PATH, memoryProbeEnabled, settledMemory } from './memory';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-add', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
});

/** Serves one Fastify request with a web-standard MCP handler. */
function nodeAdapter(mcp: McpHttpHandler) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.hijack();
    const raw = reply.raw;
    const abort = new AbortController();
    let done = false;
    raw.on('close', () => {
      if (!done) abort.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    }
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined;
    const body = hasBody ? JSON.stringify(request.body) : undefined;
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    const webRequest = new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, { method: request.method, headers, body, signal: abort.signal });
    const response = await mcp.fetch(webRequest, hasBody ? { parsedBody: request.body } : undefined);
    raw.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) {
        if (abort.signal.aborted) break;
        if (!raw.write(chunk))
          await new Promise((resolve) => {
            raw.once('drain', resolve);
            raw.once('close', resolve);
          });
      }
    }
    done = true;
    raw.end();
  };
}

async function main(): Promise<void> {
  tieToRunner();
  const app = Fastify({ logger: false });
  app.all('/mcp', nodeAdapter(handler));
  if (memoryProbeEnabled) app.get(MEMORY_PATH, () => settledMemory());
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
