/**
 * Remote mounts over the other URL transports: one upstream Hermes server served over the 2024-11-05
 * HTTP+SSE transport (core's `/mcp/sse`) and over WebSocket (core's `WebSocketTransport` on a `ws`
 * server, the `mcp` subprotocol), mounted twice in a gateway app (`sse`, `ws`), which the official
 * SDK v1 client reaches over Streamable HTTP: tools called with their progress, a template read and
 * a prompt through each.
 */
import 'reflect-metadata';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { WebSocket as WsWebSocket, WebSocketServer } from 'ws';
import { McpApp, McpContext, McpFactory, McpServer, Prompt, Resource, Tool, WebSocketTransport, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { RemoteMount, mountRemote } from '@hermes-mcp/gateway';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { closeServer, serveApp, textOf } from './support';

class CountInput {
  @IsInt() @Min(1) @Max(10) to!: number;
}

class NoteParams {
  @IsString() id!: string;
}

class TopicArgs {
  @IsString() topic!: string;
}

@McpServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  @Tool({ description: 'Counts, reporting progress' })
  async count(input: CountInput, ctx: McpContext) {
    for (let step = 1; step <= input.to; step++) await ctx.progress(step, input.to);
    return `counted to ${input.to}`;
  }

  @Resource({ uri: 'notes://note/{id}', mimeType: 'text/plain' })
  note(params: NoteParams) {
    return `note ${params.id}`;
  }

  @Prompt({ description: 'Writes about a topic' })
  write(args: TopicArgs) {
    return `Write about ${args.topic}.`;
  }
}

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

const silent = () => createLogger({ level: 'silent' });
let notes: McpApp;
let notesHttp: Server;
let notesWs: WebSocketServer;
let app: McpApp;
let gateway: Server;
let mounts: RemoteMount[] = [];
let client: Client;

beforeAll(async () => {
  // The gateway's WebSocket client uses the runtime's WebSocket (Node 22+, which the packages
  // require); on an older Node running the tests, the `ws` package's stands in for it.
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WsWebSocket;
  notes = McpFactory.create(NotesServer, { logger: silent() });
  notesHttp = createServer(toNodeListener(createWebHandler(notes)));
  await new Promise<void>((resolve) => notesHttp.listen(0, '127.0.0.1', resolve));
  notesWs = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
  await once(notesWs, 'listening');
  notesWs.on('connection', (socket) => void notes.connect(new WebSocketTransport(socket)));

  app = McpFactory.create(GatewayServer, { logger: silent() });
  mounts.push(await mountRemote(app, 'sse', { url: `http://127.0.0.1:${(notesHttp.address() as AddressInfo).port}/mcp/sse`, transport: 'sse' }));
  mounts.push(await mountRemote(app, 'ws', { url: `ws://127.0.0.1:${(notesWs.address() as AddressInfo).port}` }));
  const served = await serveApp(app);
  gateway = served.server;
  client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(served.url));
});

afterAll(async () => {
  await client?.close();
  await closeServer(gateway);
  await app?.close();
  await Promise.all(mounts.map((mount) => mount.close()));
  mounts = [];
  for (const socket of notesWs?.clients ?? []) socket.terminate();
  if (notesWs) await new Promise((resolve) => notesWs.close(resolve));
  notesHttp?.closeAllConnections();
  if (notesHttp) await new Promise((resolve) => notesHttp.close(resolve));
  await notes?.close();
});

it('lists both mounts of the upstream under their namespaces', async () => {
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hello', 'sse_count', 'ws_count']);
  expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual(['notes://sse/note/{id}', 'notes://ws/note/{id}']);
});

it.each(['sse', 'ws'])('calls, reads and gets a prompt through the upstream reached over %s', async (ns) => {
  const seen: number[] = [];
  expect(textOf(await client.callTool({ name: `${ns}_count`, arguments: { to: 3 } }, undefined, { onprogress: (update) => void seen.push(update.progress) }))).toBe('counted to 3');
  expect(seen).toEqual([1, 2, 3]);
  const read = await client.readResource({ uri: `notes://${ns}/note/7` });
  expect(read.contents).toEqual([expect.objectContaining({ uri: `notes://${ns}/note/7`, text: 'note 7' })]);
  const prompt = await client.getPrompt({ name: `${ns}_write`, arguments: { topic: 'bees' } });
  expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write about bees.' } }]);
});
