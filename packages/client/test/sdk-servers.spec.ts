/**
 * McpClient against servers no one here wrote, over HTTP on 127.0.0.1: the official SDK v1 server
 * over Streamable HTTP (stateful, as its docs mount it) and over the 2024-11-05 HTTP+SSE transport,
 * the SDK v2 server (`createMcpHandler`, MCP 2026-07-28) behind Node's HTTP server, and fastmcp 4
 * over its httpStream transport (its own process).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { completable as v1Completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { completable, createMcpHandler, inputRequired, McpServer as V2Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ConnectionClosedError, McpClient, McpError, SseClientTransport, StreamableHttpClientTransport, unwrap } from '@hermes-mcp/client';
import { bodyOf, listen, serveFetch } from './fixtures/http-servers';
import { freePort } from '../../../test-support/redis/redis-server';

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
  server.registerTool('summarise', { description: 'Asks the client’s model' }, async () => {
    const answer = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: `model said: ${answer.content.type === 'text' ? answer.content.text : '?'}` }] };
  });
  server.registerTool('roots', { description: 'Lists the client’s roots' }, async () => {
    const { roots } = await server.server.listRoots();
    return { content: [{ type: 'text', text: roots.map((r) => r.uri).join(',') }] };
  });
  server.registerTool('grow', { description: 'Adds a tool (a list change)' }, async () => {
    server.registerTool('grown', { description: 'Added later' }, () => ({ content: [{ type: 'text', text: 'new' }] }));
    return { content: [{ type: 'text', text: 'grown' }] };
  });
  server.registerResource('note', 'notes://one', { description: 'One note' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'note one' }] }));
  server.registerPrompt(
    'greet',
    { description: 'Greets in a language', argsSchema: { language: v1Completable(z.string(), (value) => ['english', 'esperanto', 'french'].filter((l) => l.startsWith(value))) } },
    ({ language }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Greet me in ${language}` } }] }),
  );
  return server;
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
    expect(names).toEqual(['add', 'steps', 'who', 'wait', 'summarise', 'roots', 'grow']);
    expect(unwrap(await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    const progress: number[] = [];
    await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Ada' }]);
    await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001 });
    for (let i = 0; i < 100 && cancelled === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(1);
  });

  it('reads, gets prompts, completes, and answers sampling and roots; hears a list change on its GET stream', async () => {
    const url = await start();
    const changes: string[] = [];
    const client = keep(
      new McpClient(new StreamableHttpClientTransport({ url }), {
        onSampling: (request) => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: `${request.messages.length} message(s) read` } }),
        onRoots: () => [{ uri: 'file:///work', name: 'work' }],
        onListChanged: (list) => changes.push(list),
      }),
    );
    await client.connect();
    expect((await client.readResource('notes://one')).contents).toEqual([{ uri: 'notes://one', text: 'note one' }]);
    expect((await client.getPrompt('greet', { language: 'french' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet me in french' } }]);
    expect((await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'e' })).values).toEqual(['english', 'esperanto']);
    expect(unwrap(await client.callTool('summarise')).content).toEqual([{ type: 'text', text: 'model said: 1 message(s) read' }]);
    expect(unwrap(await client.callTool('roots')).content).toEqual([{ type: 'text', text: 'file:///work' }]);
    await client.callTool('grow');
    for (let i = 0; i < 100 && changes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(changes).toEqual(['tools']);
    expect((await client.listTools()).items.map((t) => t.name)).toContain('grown');
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
  let v2Cancelled = 0;
  function v2Handler(): McpHttpHandler {
    return createMcpHandler(() => {
      const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' }, { capabilities: { resources: { subscribe: true } } });
      server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }));
      server.registerTool('steps', { description: 'Progress' }, async (ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        for (let i = 1; i <= 3; i++)
          if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
        return { content: [{ type: 'text', text: 'stepped' }] };
      });
      server.registerTool('who', { description: 'Asks a name, then the model' }, (ctx) => {
        const responses = ctx.mcpReq.inputResponses as Record<string, { action?: string; content?: { name?: string }; content_?: unknown }> | undefined;
        const name = responses?.name;
        const model = responses?.model as { content?: { text?: string } } | undefined;
        if (name === undefined || model === undefined)
          return inputRequired({
            inputRequests: {
              name: inputRequired.elicit({ message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
              model: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 }),
            },
          });
        return { content: [{ type: 'text', text: `you are ${String(name.content?.name)}; the model said ${String(model.content?.text)}` }] };
      });
      server.registerTool(
        'wait',
        { description: 'Waits until cancelled' },
        (ctx) =>
          new Promise((resolve) =>
            ctx.mcpReq.signal.addEventListener('abort', () => {
              v2Cancelled++;
              resolve({ content: [{ type: 'text', text: 'stopped' }] });
            }),
          ),
      );
      server.registerResource('note', 'notes://one', { description: 'One note' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'note one' }] }));
      server.registerPrompt(
        'greet',
        {
          description: 'Greets in a language',
          argsSchema: z.object({ language: completable(z.string(), (value) => ['english', 'esperanto', 'french'].filter((l) => l.startsWith(value))) }),
        },
        ({ language }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Greet me in ${language}` } }] }),
      );
      return server;
    });
  }

  async function connected(options: ConstructorParameters<typeof McpClient>[1] = {}): Promise<{ client: McpClient; handler: McpHttpHandler }> {
    const handler = v2Handler();
    const { server, origin } = await serveFetch(handler);
    track(server);
    const client = keep(new McpClient(new StreamableHttpClientTransport({ url: `${origin}/mcp` }), options));
    await client.connect();
    return { client, handler };
  }

  it('is spoken to statelessly: discover, list, call, read, prompts, completions', async () => {
    const { client } = await connected();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toMatchObject({ name: 'sdk-v2' });
    expect((await client.listTools()).items.map((t) => t.name)).toEqual(['add', 'steps', 'who', 'wait']);
    expect(unwrap(await client.callTool('add', { a: 1, b: 2 })).content).toEqual([{ type: 'text', text: '3' }]);
    expect((await client.readResource('notes://one')).contents).toEqual([{ uri: 'notes://one', text: 'note one' }]);
    expect((await client.getPrompt('greet', { language: 'esperanto' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet me in esperanto' } }]);
    expect((await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'e' })).values).toEqual(['english', 'esperanto']);
  });

  it('calls with progress, and cancels a call mid-way: the SDK’s handler sees its signal abort', async () => {
    const { client } = await connected();
    const progress: number[] = [];
    expect(unwrap(await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })).content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(progress).toEqual([1, 2, 3]);
    await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001 });
    for (let i = 0; i < 100 && v2Cancelled === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(v2Cancelled).toBe(1);
  });

  it('fulfils its input requests (elicitation and sampling in one round) with the same handlers as a legacy session', async () => {
    const asked: string[] = [];
    const { client } = await connected({
      onElicitation: (request) => (asked.push(request.message), { action: 'accept', content: { name: 'Ada' } }),
      onSampling: (request) => (
        asked.push(String((request.messages[0]?.content as { text?: string }).text)),
        { role: 'assistant', model: 'm', content: { type: 'text', text: 'hello' } }
      ),
    });
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Ada; the model said hello' }]);
    expect(asked.sort()).toEqual(['Hi', 'Who are you?']);
  });

  it('listens: the acknowledgement, then the list changes and resource updates the server publishes', async () => {
    const { client, handler } = await connected();
    const heard: string[] = [];
    for await (const notification of client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://one'] }, { signal: AbortSignal.timeout(5000) })) {
      heard.push(notification.method);
      if (notification.method === 'notifications/subscriptions/acknowledged') {
        handler.notify.toolsChanged();
        handler.notify.promptsChanged(); // not asked for: not heard
        handler.notify.resourceUpdated('notes://one');
      }
      if (heard.length === 3) break;
    }
    expect(heard).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/resources/updated']);
  });
});

describe('fastmcp 4 over httpStream (the SDK v1 under mcp-proxy)', () => {
  /** Starts the fixture on a free port of 127.0.0.1; resolves with its URL once it listens. */
  async function start(): Promise<string> {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures/fastmcp-server.mjs'), String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    closers.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    });
    return new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => line.startsWith('{') && resolve((JSON.parse(line) as { url: string }).url));
      child.once('exit', (code) => reject(new Error(`the fastmcp server exited (${code}): ${stderr}`)));
    });
  }

  it("is spoken to in a legacy session with protocolVersion 'auto': its answer to server/discover (HTTP 400, -32000) is a legacy server's", async () => {
    const url = await start();
    const discovered: Array<{ status: number; body: string }> = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(init?.body).includes('"server/discover"')) discovered.push({ status: response.status, body: await response.clone().text() });
      return response;
    };
    const client = keep(new McpClient(new StreamableHttpClientTransport({ url, fetch: recording })));
    await client.connect();
    expect(discovered).toEqual([{ status: 400, body: expect.stringContaining('"code":-32000') }]);
    expect(client.era).toBe('legacy');
    expect(client.serverInfo).toMatchObject({ name: 'fastmcp' });
    expect(unwrap(await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('rejects a pinned 2026-07-28 with the server’s own -32000, an McpError, not a ConnectionClosedError', async () => {
    const url = await start();
    const client = keep(new McpClient(new StreamableHttpClientTransport({ url }), { protocolVersion: '2026-07-28' }));
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).not.toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ code: -32000, data: { reason: 'server_missing_modern_protocol_support' } });
  });
});
