/**
 * Handlers never read credentials from `ctx.transport.headers`: the bearer token (a real one, from
 * the tests' authorization server), cookies, proxy credentials and the headers an app names
 * (`redactHeaders`) are `[redacted]` there, on every transport that carries headers — Streamable
 * HTTP (both eras), HTTP+SSE and the WebSocket upgrade — on the Fastify plugin and the
 * Web-standard handler; the other headers are as sent, and `ctx.auth` still says who calls.
 */
import 'reflect-metadata';
import { WebSocket } from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpEndpointOptions, McpContext, McpServer, Tool, jwtVerifier } from '@hermes-mcp/core';
import { ACCEPT_BOTH, messagesOf, modernPost } from '../../../../test-support/hardening';
import { AuthorizationServer, TestClient, startAuthorizationServer } from '../../../../test-support/oidc/authorization-server';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

@McpServer({ name: 'headers', version: '1.0.0' })
class HeadersServer {
  @Tool({ description: 'What a handler sees of its request' })
  seen(ctx: McpContext) {
    return { headers: { ...(ctx.transport.headers as Record<string, unknown>) }, caller: ctx.auth?.clientId };
  }
}

const ALICE: TestClient = { client_id: 'alice-app', client_secret: 'alice-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] };
const SECRETS = { cookie: 'session=cookie-secret', 'proxy-authorization': 'Basic cHJveHk6cHJveHktc2VjcmV0', 'x-api-key': 'api-key-secret' };

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({ clients: [ALICE] });
});
afterAll(() => as?.stop());

/** The options both adapters get: the `auth` option with a real verifier, and one header of the app's own hidden. */
function options(url: string): HttpEndpointOptions {
  return {
    path: '/mcp',
    auth: { resource: url, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: url }) },
    redactHeaders: ['X-Api-Key'],
  };
}

interface Seen {
  headers: Record<string, unknown>;
  caller?: string;
}

/** What the tool saw must hold no secret, name each credential header as redacted, and keep the rest. */
function expectRedacted(seen: Seen, token: string): void {
  expect(seen.caller).toBe('alice-app');
  expect(seen.headers).toMatchObject({ authorization: '[redacted]', cookie: '[redacted]', 'proxy-authorization': '[redacted]', 'x-api-key': '[redacted]', 'x-visible': 'yes' });
  const text = JSON.stringify(seen);
  for (const secret of [token, ...Object.values(SECRETS)]) expect(text).not.toContain(secret);
}

describe.each(ADAPTERS)('credentials hidden from handlers (%s)', (adapter) => {
  let running: Serving;
  let token: string;
  let headers: Record<string, string>;
  beforeAll(async () => {
    running = await serveOn(adapter, HeadersServer, options);
    token = await as.token(ALICE, { resource: running.url });
    headers = { authorization: `Bearer ${token}`, ...SECRETS, 'x-visible': 'yes' };
  });
  afterAll(() => running?.close());

  it('over Streamable HTTP, in a session (2025-11-25)', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url), { requestInit: { headers } }));
    try {
      expectRedacted((await client.callTool({ name: 'seen', arguments: {} })).structuredContent as Seen, token);
    } finally {
      await client.close();
    }
  });

  it('over Streamable HTTP, stateless (2026-07-28)', async () => {
    const response = await modernPost(
      running.url,
      1,
      'tools/call',
      { name: 'seen', arguments: {} },
      {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'seen',
          ...headers,
        },
      },
    );
    expect(response.status).toBe(200);
    const [answer] = (await messagesOf(response)) as Array<{ result: { structuredContent: Seen } }>;
    expectRedacted(answer.result.structuredContent, token);
  });

  it('over HTTP+SSE (2024-11-05)', async () => {
    const client = new Client({ name: 'sse', version: '1' });
    await client.connect(
      new SSEClientTransport(new URL(`${running.url}/sse`), {
        requestInit: { headers },
        eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
      }),
    );
    try {
      expectRedacted((await client.callTool({ name: 'seen', arguments: {} })).structuredContent as Seen, token);
    } finally {
      await client.close();
    }
  });
});

// WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
describe('credentials hidden from handlers over WebSocket (fastify)', () => {
  it('hides those of the upgrade request', async () => {
    const running = await serveOn('fastify', HeadersServer, options);
    try {
      const token = await as.token(ALICE, { resource: running.url });
      const socket = new WebSocket(`${running.url.replace('http', 'ws')}/ws`, 'mcp', { headers: { authorization: `Bearer ${token}`, ...SECRETS, 'x-visible': 'yes' } });
      const answers = new Map<unknown, { result: { structuredContent: Seen } }>();
      const answered = (id: number) =>
        new Promise<{ result: { structuredContent: Seen } }>((resolve) => {
          const check = () => (answers.has(id) ? resolve(answers.get(id)!) : socket.once('message', check));
          check();
        });
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { id?: unknown; result: { structuredContent: Seen } };
        answers.set(message.id, message);
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '1' } } }),
      );
      await answered(1);
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'seen', arguments: {} } }));
      expectRedacted((await answered(2)).result.structuredContent, token);
      socket.close();
    } finally {
      await running.close();
    }
  });
});
