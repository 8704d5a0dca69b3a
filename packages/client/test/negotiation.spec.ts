/**
 * How `protocolVersion: 'auto'` reads what came of `server/discover`, against servers on
 * node:http (127.0.0.1) that answer it as servers met in the wild do. The spec's backward
 * compatibility: a server without 2026-07-28 answers with an error of its own, whatever its code
 * and HTTP status, and `initialize` is next. Not so for the errors only a 2026-07-28 server sends,
 * nor for a server that could not be reached: those end `connect()`.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError, McpClient, McpError, StreamableHttpClientTransport } from '@hermes-mcp/client';

/** How the server answers `server/discover`: an HTTP status and a body, or never. */
type DiscoverAnswer = { status: number; error?: Record<string, unknown>; body?: string } | 'never';

/** A server that answers `server/discover` with `answer`, and `initialize` as a 2025-11-25 server does; it records the methods it was sent. */
async function legacyServer(answer: DiscoverAnswer): Promise<{ url: string; methods: string[] }> {
  const methods: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(text) as { id?: number; method: string };
      methods.push(message.method);
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (message.method === 'server/discover') {
        if (answer === 'never') return; // answered by the client's timeout; the socket closes with the server
        if (answer.body !== undefined) return void res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
        return json(answer.status, { jsonrpc: '2.0', id: message.id, error: answer.error });
      }
      if (message.method === 'initialize') {
        return json(200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1.0.0' } } });
      }
      if (message.id === undefined) return void res.writeHead(202).end();
      json(200, { jsonrpc: '2.0', id: message.id, result: {} });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods };
}

const servers: Server[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function client(url: string, requestTimeout?: number): McpClient {
  const made = new McpClient(new StreamableHttpClientTransport({ url }), requestTimeout === undefined ? {} : { requestTimeout });
  clients.push(made);
  return made;
}

describe("protocolVersion 'auto' falls back to initialize", () => {
  it.each<[string, DiscoverAnswer]>([
    ['-32601 (the SDK v1)', { status: 200, error: { code: -32601, message: 'Method not found' } }],
    ['-32602 with HTTP 400', { status: 400, error: { code: -32602, message: 'Invalid params' } }],
    [
      '-32000 with HTTP 400 (fastmcp 4 over httpStream)',
      { status: 400, error: { code: -32000, message: 'Unsupported protocol version', data: { reason: 'server_missing_modern_protocol_support' } } },
    ],
    ['-32022 naming only earlier revisions', { status: 400, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2025-11-25', '2025-06-18'] } } }],
    ['HTTP 404 with no JSON-RPC body', { status: 404, body: 'Not Found' }],
  ])('when the server answers server/discover with %s', async (_, answer) => {
    const { url, methods } = await legacyServer(answer);
    const connected = client(url);
    await connected.connect();
    expect(connected.era).toBe('legacy');
    expect(connected.protocolVersion).toBe('2025-11-25');
    expect(methods).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  it('when the server does not answer server/discover in time (requestTimeout)', async () => {
    const { url, methods } = await legacyServer('never');
    const connected = client(url, 1000);
    await connected.connect();
    expect(connected.era).toBe('legacy');
    // The cancellation of the probe may come before or after initialize.
    expect(methods.filter((method) => method !== 'notifications/cancelled')).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });
});

describe("protocolVersion 'auto' does not fall back", () => {
  it.each<[string, number, Record<string, unknown>]>([
    ['-32020 (a header mismatch)', -32020, { code: -32020, message: 'Header mismatch' }],
    ['-32021 (a capability the client lacks)', -32021, { code: -32021, message: 'Missing required client capability' }],
    [
      '-32022 naming only revisions of 2026 or later this client does not speak',
      -32022,
      { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2099-01-01'] } },
    ],
  ])('on %s, which only a 2026-07-28 server sends: connect() rejects with it', async (_, code, error) => {
    const { url, methods } = await legacyServer({ status: 400, error });
    const refused = await client(url)
      .connect()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code });
    expect(methods).toEqual(['server/discover']);
  });

  it('when the server cannot be reached: connect() rejects with a ConnectionClosedError', async () => {
    const { url } = await legacyServer({ status: 200, error: {} });
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const refused = await client(url)
      .connect()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectionClosedError);
    expect(refused).toMatchObject({ code: 'CONNECTION_CLOSED', message: expect.stringMatching(/^Could not reach http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED/) });
  });
});
