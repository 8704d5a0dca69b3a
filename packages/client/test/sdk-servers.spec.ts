/**
 * McpClient against servers no one here wrote, over HTTP on 127.0.0.1: the official SDK v1 server
 * over Streamable HTTP (stateful, as its docs mount it) and over the 2024-11-05 HTTP+SSE transport,
 * and the SDK v2 server (`createMcpHandler`, MCP 2026-07-28) behind Node's HTTP server.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { createMcpHandler, McpServer as V2Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { McpClient, SseClientTransport, StreamableHttpClientTransport, unwrap } from '@hermes-mcp/client';

/** What the v1 `wait` tool saw: its signal aborted. */
let cancelled = 0;

function v1Server(): V1Server {
  const server = new V1Server({ name: 'sdk-v1', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.registerTool('steps', { description: 'Progress' }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= 3; i++)
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
    return { content: [{ type: 'text', text: 'stepped' }] };
  });
  server.registerTool('who', { description: 'Asks a name' }, async () => {
    const answer = await server.server.elicitInput({ message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    return { content: [{ type: 'text', text: answer.action === 'accept' ? `you are ${String(answer.content?.name)}` : answer.action }] };
  });
  server.registerTool(
    'wait',
    { description: 'Waits until cancelled' },
    (extra) =>
      new Promise((resolve) =>
        extra.signal.addEventListener('abort', () => {
          cancelled++;
          resolve({ content: [{ type: 'text', text: 'stopped' }] });
        }),
      ),
  );
  return server;
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? undefined : JSON.parse(text);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  cancelled = 0;
});

function track(server: Server): void {
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

function keep(client: McpClient): McpClient {
  closers.push(() => client.close());
  return client;
}

describe('the official SDK v1 server over Streamable HTTP', () => {
  async function start(): Promise<string> {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const { server, origin } = await listen(async (req, res) => {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      const body = req.method === 'POST' ? await bodyOf(req) : undefined;
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId || req.method !== 'POST' || (body as { method?: string } | undefined)?.method !== 'initialize') {
          res
            .writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session' } }));
          return;
        }
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, created) });
        transport = created;
        await v1Server().connect(created);
      }
      await transport.handleRequest(req, res, body);
    });
    track(server);
    return `${origin}/mcp`;
  }

  it('is spoken to in a legacy session: list, call with progress, elicitation, cancellation', async () => {
    const url = await start();
    const client = keep(new McpClient(new StreamableHttpClientTransport({ url }), { onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) }));
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.serverInfo).toMatchObject({ name: 'sdk-v1' });
    const names: string[] = [];
    for await (const tool of client.listAllTools()) names.push(tool.name);
    expect(names).toEqual(['add', 'steps', 'who', 'wait']);
    expect(unwrap(await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    const progress: number[] = [];
    await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Ada' }]);
    await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001 });
    for (let i = 0; i < 100 && cancelled === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(1);
  });
});

describe('the official SDK v1 server over HTTP+SSE (2024-11-05)', () => {
  it('is spoken to over the stream and its endpoint', async () => {
    const transports = new Map<string, SSEServerTransport>();
    const { server, origin } = await listen(async (req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        res.on('close', () => transports.delete(transport.sessionId));
        await v1Server().connect(transport);
        return;
      }
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && transport) return transport.handlePostMessage(req, res, await bodyOf(req));
      res.writeHead(404).end();
    });
    track(server);
    const transport = new SseClientTransport({ url: `${origin}/sse` });
    const client = keep(new McpClient(transport, { protocolVersion: '2024-11-05' }));
    await client.connect();
    expect(client.protocolVersion).toBe('2024-11-05');
    expect(transport.status()).toMatchObject({ state: 'connected', endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/messages\?sessionId=/) });
    expect(unwrap(await client.callTool('add', { a: 20, b: 22 })).content).toEqual([{ type: 'text', text: '42' }]);
    const progress: number[] = [];
    await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
  });
});

describe('the official SDK v2 server (createMcpHandler, MCP 2026-07-28)', () => {
  it('is spoken to statelessly: discover, list, call', async () => {
    const handler = createMcpHandler(() => {
      const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
      server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }));
      return server;
    });
    const { server, origin } = await listen(async (req, res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = req.method === 'POST' ? JSON.stringify(await bodyOf(req)) : undefined;
      const response = await handler.fetch(new Request(`${origin}${req.url}`, { method: req.method, headers, body }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    track(server);
    const client = keep(new McpClient(new StreamableHttpClientTransport({ url: `${origin}/mcp` })));
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect((await client.listTools()).items.map((t) => t.name)).toEqual(['add']);
    expect(unwrap(await client.callTool('add', { a: 1, b: 2 })).content).toEqual([{ type: 'text', text: '3' }]);
  });
});
