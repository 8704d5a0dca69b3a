/**
 * McpClient over Streamable HTTP against a real Fastify server with the Hermes plugin on
 * 127.0.0.1: both eras, JSON and SSE answers, the server's questions, the GET stream of a legacy
 * session, a stream the server closes on purpose (resumed with Last-Event-ID after its `retry`),
 * DELETE on close, a restarted server, and the headers of 2026-07-28 requests; and (node:http) a
 * response stream that ends before its response.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsString } from 'class-validator';
import Fastify, { FastifyInstance } from 'fastify';
import { McpApp, McpContext, McpFactory, McpHandler, McpHeader, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { ConnectionClosedError, McpClient, McpClientOptions, SseClientTransport, StreamableHttpClientTransport, unwrap } from '@hermes-mcp/client';

class NameForm {
  @IsString() name!: string;
}

class NameInput {
  @IsString() name!: string;
}

class RegionInput {
  @McpHeader('Region') @IsString() region!: string;
}

/** How many `wait` calls saw their signal abort. */
const waits = { aborted: 0 };

@McpServer({ name: 'http-client-test', version: '1.0.0' })
class HttpServer {
  @Tool({ description: 'Greets' }) greet(input: NameInput) {
    return `Hello, ${input.name}!`;
  }
  @Tool({ description: 'Sends progress, then answers' }) async steps(ctx: McpContext) {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3);
    return 'stepped';
  }
  @Tool({ description: 'Asks a name' }) async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `you are ${answer.content.name}` : answer.action;
  }
  @Tool({ description: 'Waits until cancelled' }) async wait(ctx: McpContext) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    waits.aborted++;
    return 'stopped';
  }
  @Tool({ description: 'Echoes its region (mirrored in Mcp-Param-Region in 2026-07-28)' }) region(input: RegionInput) {
    return `region ${input.region}`;
  }
  @Tool({ description: 'Closes its stream (SSE polling), then answers with progress after a while' }) async poll(ctx: McpContext) {
    ctx.transport.closeStream?.(30);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ctx.progress(1, 1, 'after the close');
    return 'answered after polling';
  }
  // A resource, so that the server serves subscriptions (a client subscribes to it across a restart).
  @Resource({ uri: 'notes://one', description: 'One note' }) note() {
    return 'note one';
  }
}

interface Running {
  app: FastifyInstance;
  mcp: McpApp;
  url: string;
  /** Every request the server saw: method, path, and the MCP headers. */
  seen: Array<{ method: string; session?: string; version?: string; mcpMethod?: string; mcpName?: string; lastEventId?: string; region?: string }>;
}

async function serve(port = 0, server: Function | McpHandler = HttpServer): Promise<Running> {
  const mcp = McpFactory.create(server as typeof HttpServer, { logger: createLogger({ level: 'silent' }) });
  // Keep-alive sockets of fetch are closed with the server, so a restart on the same port is quick.
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const seen: Running['seen'] = [];
  app.addHook('onRequest', async (request) => {
    const h = request.headers as Record<string, string | undefined>;
    seen.push({
      method: request.method,
      session: h['mcp-session-id'],
      version: h['mcp-protocol-version'],
      mcpMethod: h['mcp-method'],
      mcpName: h['mcp-name'],
      lastEventId: h['last-event-id'],
      region: h['mcp-param-region'],
    });
  });
  await app.register(hermesMcp, { server: mcp, path: '/mcp' });
  await app.listen({ host: '127.0.0.1', port });
  return { app, mcp, seen, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp` };
}

let server: Running;
const clients: McpClient[] = [];

beforeEach(async () => {
  server = await serve();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.app.close();
});

async function connect(options: McpClientOptions = {}, url = server.url): Promise<{ client: McpClient; transport: StreamableHttpClientTransport }> {
  const transport = new StreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 20, maxAttempts: 3 } });
  const client = new McpClient(transport, options);
  clients.push(client);
  await client.connect();
  return { client, transport };
}

describe.each([
  ['legacy', '2025-11-25'],
  ['modern', 'auto'],
] as const)('the %s era over Streamable HTTP', (era, protocolVersion) => {
  it('lists and calls tools, with progress over an SSE answer', async () => {
    const { client } = await connect({ protocolVersion });
    expect(client.era).toBe(era);
    const names: string[] = [];
    for await (const tool of client.listAllTools()) names.push(tool.name);
    expect(names).toEqual(['greet', 'steps', 'who', 'wait', 'region', 'poll']);
    expect(unwrap(await client.callTool('greet', { name: 'Ada' })).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    const progress: number[] = [];
    expect(unwrap(await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })).content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(progress).toEqual([1, 2, 3]);
  });

  it('answers the server’s elicitation with onElicitation', async () => {
    const { client } = await connect({ protocolVersion, onElicitation: () => ({ action: 'accept', content: { name: 'Grace' } }) });
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Grace' }]);
  });

  it('cancels a call that times out: the server’s handler sees its signal abort', async () => {
    const { client } = await connect({ protocolVersion });
    const before = waits.aborted;
    await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001 });
    await waitFor(() => waits.aborted === before + 1);
  });

  it('resumes a stream the server closed (SSE polling) with Last-Event-ID, and gets the response', async () => {
    const { client, transport } = await connect({ protocolVersion });
    const progress: string[] = [];
    const result = await client.callTool('poll', {}, { onProgress: (p) => progress.push(p.message ?? '') });
    expect(unwrap(result).content).toEqual([{ type: 'text', text: 'answered after polling' }]);
    expect(progress).toEqual(['after the close']);
    if (era === 'legacy') {
      expect(server.seen.some((r) => r.method === 'GET' && r.lastEventId !== undefined)).toBe(true);
      expect(transport.status().reconnects).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('a legacy session over HTTP', () => {
  it('keeps its session id and revision in every request, hears list changes on its GET stream, and ends with DELETE', async () => {
    const changed: string[] = [];
    const { client, transport } = await connect({ protocolVersion: '2025-11-25', onListChanged: (list) => changed.push(list) });
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[\x21-\x7e]{32,}$/);
    await client.ping();
    const afterInit = server.seen.filter((r) => r.method === 'POST').slice(1);
    expect(afterInit.every((r) => r.session === sessionId && r.version === '2025-11-25')).toBe(true);
    await waitFor(() => server.seen.some((r) => r.method === 'GET'));
    // The GET stream is open once the server registered it: a change reaches the client.
    await waitFor(async () => {
      server.mcp.addTool({ name: `t${changed.length}-${Date.now()}`, description: 'added' }, () => 'x');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return changed.length > 0;
    });
    expect(changed[0]).toBe('tools');
    await client.close();
    expect(server.seen[server.seen.length - 1]).toMatchObject({ method: 'DELETE', session: sessionId });
    const after = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(after.status).toBe(404);
  });

  it('starts a new session when the server forgot the old one (a restart), with its subscriptions, and the call goes through', async () => {
    const { client, transport } = await connect({ protocolVersion: '2025-11-25', logLevel: 'warning' });
    const before = transport.sessionId;
    await client.subscribe('notes://one');
    const port = Number(new URL(server.url).port);
    await server.app.close();
    server = await serve(port);
    expect(unwrap(await client.callTool('greet', { name: 'again' })).content).toEqual([{ type: 'text', text: 'Hello, again!' }]);
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]{32,}$/);
    expect(transport.sessionId).not.toBe(before);
    const posts = server.seen.filter((r) => r.method === 'POST').map((r) => r.mcpMethod ?? '');
    // The refused call (404), initialize, initialized, the level, the subscription, the call again.
    expect(posts.length).toBe(6);
    const [connection] = [...server.mcp.engine.connections];
    expect(connection.isSubscribed('notes://one')).toBe(true);
    expect(connection.logLevel()).toBe('warning');
  });
});

describe('the 2024-11-05 HTTP+SSE transport of our server', () => {
  it.each(['2024-11-05', '2025-11-25'] as const)(
    'connects to {path}/sse at %s, posts to the endpoint it is given, hears progress and answers elicitation over the stream',
    async (protocolVersion) => {
      const transport = new SseClientTransport({ url: `${server.url}/sse` });
      const client = new McpClient(transport, { protocolVersion, onElicitation: () => ({ action: 'accept', content: { name: 'Old' } }) });
      clients.push(client);
      await client.connect();
      expect({ version: client.protocolVersion, server: client.serverInfo?.name }).toEqual({ version: protocolVersion, server: 'http-client-test' });
      expect(transport.status().endpoint).toMatch(/\/mcp\/messages\?sessionId=/);
      const progress: number[] = [];
      expect(unwrap(await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })).content).toEqual([{ type: 'text', text: 'stepped' }]);
      expect(progress).toEqual([1, 2, 3]);
      expect(unwrap(await client.callTool('greet', { name: 'sse' })).content).toEqual([{ type: 'text', text: 'Hello, sse!' }]);
      if (protocolVersion === '2024-11-05') await expect(client.callTool('who')).rejects.toThrow('elicitation needs MCP 2025-06-18 or newer');
      else expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Old' }]);
      const before = waits.aborted;
      await expect(client.callTool('wait', {}, { timeout: 100 })).rejects.toMatchObject({ code: -32001 });
      await waitFor(() => waits.aborted > before);
    },
  );
});

describe('2026-07-28 over HTTP', () => {
  it('sends MCP-Protocol-Version, Mcp-Method and Mcp-Name with each request, and no session', async () => {
    const { client } = await connect();
    await client.callTool('greet', { name: 'x' });
    await client.listTools();
    const posts = server.seen.filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.mcpMethod, r.mcpName, r.version, r.session])).toEqual([
      ['server/discover', undefined, '2026-07-28', undefined],
      ['tools/call', 'greet', '2026-07-28', undefined],
      ['tools/list', undefined, '2026-07-28', undefined],
    ]);
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers, Base64 where a header cannot carry them', async () => {
    const { client } = await connect();
    for await (const _tool of client.listAllTools()) void _tool;
    for (const region of ['eu-west', 'Hello, 世界', ' padded ']) {
      expect(unwrap(await client.callTool('region', { region })).content).toEqual([{ type: 'text', text: `region ${region}` }]);
    }
    expect(server.seen.filter((r) => r.mcpName === 'region').map((r) => r.region)).toEqual([
      'eu-west',
      `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
      `=?base64?${Buffer.from(' padded ').toString('base64')}?=`,
    ]);
  });

  it('lists the tools and calls again when the server misses a header of a tool not listed yet', async () => {
    const { client } = await connect();
    expect(unwrap(await client.callTool('region', { region: 'us' })).content).toEqual([{ type: 'text', text: 'region us' }]);
    const posts = server.seen.filter((r) => r.method === 'POST').map((r) => [r.mcpMethod, r.region]);
    expect(posts).toEqual([
      ['server/discover', undefined],
      ['tools/call', undefined],
      ['tools/list', undefined],
      ['tools/call', 'us'],
    ]);
  });

  it('leaves out a tool whose x-mcp-header declarations are invalid, and keeps the others', async () => {
    const tool = (name: string, property: Record<string, unknown>) => ({ name, inputSchema: { type: 'object', properties: { p: property } } });
    const tools = [
      tool('valid_tool', { type: 'string', 'x-mcp-header': 'Region' }),
      tool('invalid_empty_header', { type: 'string', 'x-mcp-header': '' }),
      tool('invalid_number_header', { type: 'number', 'x-mcp-header': 'N' }),
      tool('invalid_space_in_name', { type: 'string', 'x-mcp-header': 'My Header' }),
    ];
    const listing: McpHandler = {
      serverInfo: { name: 'listing', version: '1' },
      capabilities: { tools: {} },
      handleRequest: () => ({ tools }),
    };
    await server.app.close();
    server = await serve(0, listing);
    const left: string[] = [];
    const { client } = await connect({ logger: { error: (message) => left.push(message) } });
    expect((await client.listTools()).items.map((t) => t.name)).toEqual(['valid_tool']);
    expect(left).toEqual(
      ['invalid_empty_header', 'invalid_number_header', 'invalid_space_in_name'].map((name) => `the tool "${name}" is left out: its x-mcp-header declarations are invalid`),
    );
  });

  it('listens (subscriptions/listen): the acknowledgement, then list changes; leaving the loop ends the subscription', async () => {
    const { client } = await connect();
    const seen: string[] = [];
    for await (const notification of client.listen({ toolsListChanged: true })) {
      seen.push(notification.method);
      if (notification.method !== 'notifications/subscriptions/acknowledged') break;
      expect(notification.params).toMatchObject({ notifications: { toolsListChanged: true } });
      server.mcp.addTool({ name: 'added', description: 'added while listening' }, () => 'x');
    }
    expect(seen).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    await waitFor(() => server.mcp.engine.listenStreams === 0);
    // The client goes on.
    expect(unwrap(await client.callTool('greet', { name: 'after' })).content).toEqual([{ type: 'text', text: 'Hello, after!' }]);
  });

  it('refuses to listen in a legacy session', async () => {
    const { client } = await connect({ protocolVersion: '2025-11-25' });
    await expect(client.listen({ toolsListChanged: true }).next()).rejects.toMatchObject({ code: -32601 });
  });

  it('goes on after the server restarts (nothing to resume: each request stands alone)', async () => {
    const { client } = await connect();
    const port = Number(new URL(server.url).port);
    await server.app.close();
    server = await serve(port);
    expect(unwrap(await client.callTool('greet', { name: 'again' })).content).toEqual([{ type: 'text', text: 'Hello, again!' }]);
  });

  it('fails a call clearly when the server is down', async () => {
    const { client, transport } = await connect();
    await server.app.close();
    const error = await client.callTool('greet', { name: 'x' }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:\d+\/mcp: fetch failed \(.*ECONNREFUSED.*\)$/);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(transport.status().state).toBe('error');
    server = await serve();
  });
});

describe('a response stream that ends before its response', () => {
  it('fails the request with a ConnectionClosedError (no answer came), not as an error the server sent', async () => {
    // A server (node:http) whose SSE answer to anything but initialize ends at once, without an event id to resume from.
    const raw = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const message = JSON.parse(text) as { id?: number; method: string };
        if (message.id === undefined) return void res.writeHead(202).end();
        if (message.method !== 'initialize') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing to say\n\n');
        const result = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'breaks', version: '1.0.0' } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { client } = await connect({ protocolVersion: '2025-11-25' }, `http://127.0.0.1:${(raw.address() as AddressInfo).port}/mcp`);
      const error = await client.ping().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', message: 'Connection lost: the response stream ended before the response, and had no event id to resume from' });
      expect(client.pendingRequests()).toEqual([]);
    } finally {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
