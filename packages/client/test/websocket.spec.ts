/**
 * McpClient over WebSocket against the Hermes Fastify plugin (`websocket: true`, subprotocol
 * `mcp`) on 127.0.0.1, with the `ws` package's WebSocket (Node 20 has no global one): both eras,
 * progress, elicitation, cancellation, and a server that goes away.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { IsString } from 'class-validator';
import Fastify, { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import { McpContext, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { ConnectionClosedError, McpClient, McpClientOptions, WebSocketClientTransport, WebSocketConstructor, unwrap } from '@hermes-mcp/client';

class NameForm {
  @IsString() name!: string;
}

let aborted = 0;

@McpServer({ name: 'ws-client-test', version: '1.0.0' })
class SocketServer {
  @Tool({ description: 'Sends progress' }) async steps(ctx: McpContext) {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3);
    return 'stepped';
  }
  @Tool({ description: 'Asks a name' }) async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `you are ${answer.content.name}` : answer.action;
  }
  @Tool({ description: 'Waits until cancelled' }) async wait(ctx: McpContext) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted++;
    return 'stopped';
  }
}

let app: FastifyInstance;
let url: string;
const clients: McpClient[] = [];

beforeEach(async () => {
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(hermesMcp, { server: SocketServer, path: '/mcp', appOptions: { logger: createLogger({ level: 'silent' }) }, websocket: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp/ws`;
  aborted = 0;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await app.close();
});

async function connect(options: McpClientOptions = {}): Promise<{ client: McpClient; transport: WebSocketClientTransport }> {
  const transport = new WebSocketClientTransport({ url, WebSocket: WebSocket as unknown as WebSocketConstructor });
  const client = new McpClient(transport, options);
  clients.push(client);
  await client.connect();
  return { client, transport };
}

describe.each([
  ['legacy', '2025-11-25'],
  ['modern', 'auto'],
] as const)('the %s era over WebSocket', (era, protocolVersion) => {
  it('calls with progress, answers elicitation, and cancels', async () => {
    const { client } = await connect({ protocolVersion, onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) });
    expect(client.era).toBe(era);
    const progress: number[] = [];
    expect(unwrap(await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })).content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Ada' }]);
    await expect(client.callTool('wait', {}, { timeout: 50 })).rejects.toMatchObject({ code: -32001 });
    for (let i = 0; i < 100 && aborted === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toBe(1);
  });
});

it('fails pending calls when the server goes away, and reports the close', async () => {
  const { client, transport } = await connect({ protocolVersion: '2025-11-25' });
  const pending = client.callTool('wait').catch((e: unknown) => e);
  for (let i = 0; i < 100 && client.pendingRequests().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await app.close();
  expect(await pending).toBeInstanceOf(ConnectionClosedError);
  expect(transport.status().state).toBe('disconnected');
  expect(transport.status().closeCode).toEqual(expect.any(Number));
});

describe('with reconnect', () => {
  async function restartOnSamePort(): Promise<void> {
    const port = Number(new URL(url).port);
    await app.close();
    app = Fastify({ logger: false, forceCloseConnections: true });
    await app.register(hermesMcp, { server: SocketServer, path: '/mcp', appOptions: { logger: createLogger({ level: 'silent' }) }, websocket: true });
    await app.listen({ host: '127.0.0.1', port });
  }

  it.each([
    ['legacy', '2025-11-25'],
    ['modern', 'auto'],
  ] as const)('opens the socket again after the server restarts (%s): pending calls fail, later ones go through', async (era, protocolVersion) => {
    const transport = new WebSocketClientTransport({ url, WebSocket: WebSocket as unknown as WebSocketConstructor, reconnect: { initialDelayMs: 20, maxAttempts: 20 } });
    const client = new McpClient(transport, { protocolVersion });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe(era);
    const pending = client.callTool('wait').catch((e: unknown) => e);
    for (let i = 0; i < 100 && client.pendingRequests().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await restartOnSamePort();
    expect(await pending).toMatchObject({ code: 'CONNECTION_CLOSED', message: expect.stringContaining('Connection lost') });
    for (let i = 0; i < 200 && transport.status().state !== 'connected'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(transport.status()).toMatchObject({ state: 'connected', reconnects: 1 });
    // A legacy session starts anew on the new socket (initialize first); a modern client just goes on.
    expect(unwrap(await client.callTool('steps')).content).toEqual([{ type: 'text', text: 'stepped' }]);
  });

  it('gives up after maxAttempts and closes, failing calls clearly', async () => {
    const transport = new WebSocketClientTransport({
      url,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      reconnect: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3 },
    });
    const client = new McpClient(transport, { protocolVersion: '2025-11-25' });
    clients.push(client);
    await client.connect();
    await app.close();
    for (let i = 0; i < 200 && transport.status().state !== 'error'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(transport.status()).toMatchObject({
      state: 'error',
      reconnects: 0,
      lastError: expect.objectContaining({ message: 'the WebSocket could not be opened again after 3 attempts' }),
    });
    await expect(client.callTool('steps')).rejects.toBeInstanceOf(ConnectionClosedError);
    app = Fastify(); // for afterEach
  });
});

it('refuses to start without a WebSocket class on a runtime that has none', async () => {
  const global = globalThis as { WebSocket?: unknown };
  const saved = global.WebSocket;
  delete global.WebSocket;
  try {
    await expect(new WebSocketClientTransport({ url: 'ws://127.0.0.1:1/mcp/ws' }).start()).rejects.toThrow(/No WebSocket class/);
  } finally {
    if (saved !== undefined) global.WebSocket = saved;
  }
});
