/**
 * The Web handler (`createWebHandler`) under the runtimes it promises, installed from npm as
 * devDependencies: `Bun.serve`, `Deno.serve`, and workerd (Cloudflare's Workers runtime) serving an
 * esbuild bundle. Each serves the decorated notes server (../notes.server.ts) on 127.0.0.1, driven
 * by @hermes-mcp/client in both eras: 2025-11-25 (initialize, a session, its GET stream) and
 * 2026-07-28 (stateless, `subscriptions/listen`); a resource update raised by one request reaches
 * the stream opened by another, and a client that leaves its stream leaves no error behind. Under
 * Bun and Deno the same server also speaks MCP over WebSocket through the runtime's own WebSocket
 * server, built on `@hermes-mcp/core/adapter` only (../websocket.ts, ../bun.ts, ../deno.ts).
 */
import { WebSocket } from 'ws';
import { McpClient, StreamableHttpClientTransport, WebSocketClientTransport } from '@hermes-mcp/client';
import { eventually } from '../../e2e';
import { Served, bun, deno, workerd } from './runtimes';

const NOTES = 'notes://all';

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((block) => block.text ?? '').join('');
}

describe.each([
  ['Bun', bun],
  ['Deno', deno],
  ['workerd', workerd],
])('the Web handler under %s', (_name, start) => {
  let served: Served;

  beforeAll(async () => {
    served = await start();
  });

  afterAll(async () => {
    await served?.stop();
  });

  it('serves 2025-11-25: a session; tools, a validated call, a resource, a prompt; an update raised by another request on the GET stream', async () => {
    const updates: string[] = [];
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2025-11-25', onResourceUpdated: (uri) => updates.push(uri) });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe('2025-11-25');
      expect((client.transport as { sessionId?: string }).sessionId).toBeTruthy();
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      const invalid = await client.callTool('add_note', { text: '' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain('text');
      await client.subscribe(NOTES);
      expect(textOf(await client.callTool('add_note', { text: 'legacy note' }))).toMatch(/note\(s\)$/);
      await eventually('the update on the GET stream', () => updates.includes(NOTES), 30_000);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain('legacy note');
      expect(JSON.stringify((await client.getPrompt('review', { focus: 'work' })).messages)).toContain('about work');
    } finally {
      await client.close();
    }
  });

  it('loads one copy of class-validator and class-transformer: Hermes reads the internals of the copy the server uses', () => {
    expect(served.stderr()).not.toMatch(/HERMES_INTEROP_FALLBACK: class-(validator|transformer)/);
  });

  it('keeps a session GET stream that nothing else is happening beside open until another request writes to it', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    const post = (body: unknown, sessionId?: string) =>
      fetch(served.url, { method: 'POST', headers: { ...headers, ...(sessionId && { 'mcp-session-id': sessionId }) }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: NOTES } }, sessionId)).text();
    const get = await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } });
    const reader = get.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The priming event: the stream is open, and no request is in flight beside it.
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
    await (await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add_note', arguments: { text: 'raw note' } } }, sessionId)).text();
    while (!text.includes('notifications/resources/updated')) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the GET stream ended before the update: ${text}`);
      text += decoder.decode(value);
    }
    await reader.cancel();
    await (await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })).text();
  });

  it('serves 2026-07-28: stateless; tools, a validated call, a resource, a prompt; an update raised by another request on a listen stream', async () => {
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2026-07-28' });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      expect((await client.callTool('add_note', { text: 42 })).isError).toBe(true);
      const seen: string[] = [];
      for await (const notification of client.listen({ resourceSubscriptions: [NOTES] })) {
        seen.push(notification.method);
        // Acknowledged: the stream is open. Another request raises the update it waits for.
        if (notification.method === 'notifications/subscriptions/acknowledged') await client.callTool('add_note', { text: 'modern note' });
        if (notification.method === 'notifications/resources/updated') break;
      }
      expect(seen).toEqual(['notifications/subscriptions/acknowledged', 'notifications/resources/updated']);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain('modern note');
      expect(JSON.stringify((await client.getPrompt('review')).messages)).toContain('modern note');
    } finally {
      await client.close();
    }
  });

  it('lets a client leave its listen stream: the stream ends, and the runtime prints nothing about it', async () => {
    const client = new McpClient(new StreamableHttpClientTransport(new URL(served.url)), { protocolVersion: '2026-07-28' });
    await client.connect();
    try {
      const before = served.stderr();
      for await (const notification of client.listen({ toolsListChanged: true })) {
        expect(notification.method).toBe('notifications/subscriptions/acknowledged');
        break;
      }
      await eventually('the server to end the stream', async () => textOf(await client.callTool('open_streams')) === '0', 30_000);
      expect(served.stderr().slice(before.length)).toBe('');
    } finally {
      await client.close();
    }
  });
});

/** What a WebSocket upgrade refused before the upgrade got: its status and body. */
function refusedUpgrade(url: string, protocols: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', (error) => reject(error));
  });
}

describe.each([
  ['Bun', bun],
  ['Deno', deno],
])('MCP over WebSocket under %s, through @hermes-mcp/core/adapter', (_name, start) => {
  let served: Served;
  let wsUrl: string;

  beforeAll(async () => {
    served = await start();
    wsUrl = `${served.url.replace(/^http/, 'ws')}/ws`;
  });

  afterAll(async () => {
    await served?.stop();
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('serves %s to our client: tools/list, a validated call, a call', async (protocolVersion) => {
    const client = new McpClient(new WebSocketClientTransport({ url: wsUrl, WebSocket: WebSocket as never }), { protocolVersion });
    await client.connect();
    try {
      expect(client.protocolVersion).toBe(protocolVersion);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'open_streams']);
      expect((await client.callTool('add_note', { text: '' })).isError).toBe(true);
      expect(textOf(await client.callTool('add_note', { text: `over WebSocket, ${protocolVersion}` }))).toMatch(/note\(s\)$/);
      expect(JSON.stringify((await client.readResource(NOTES)).contents)).toContain(`over WebSocket, ${protocolVersion}`);
    } finally {
      await client.close();
    }
  });

  it('refuses an upgrade without the mcp subprotocol with 400, before upgrading, and a plain GET with 426', async () => {
    const refused = await refusedUpgrade(wsUrl, ['graphql-ws']);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Bad Request: MCP over WebSocket needs the subprotocol "mcp" (Sec-WebSocket-Protocol: mcp); offered: "graphql-ws"' },
    });
    const plain = await fetch(`${served.url}/ws`);
    expect(plain.status).toBe(426);
    expect(plain.headers.get('upgrade')).toBe('websocket');
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/^Upgrade Required: \/mcp\/ws serves MCP over WebSocket/);
  });
});
