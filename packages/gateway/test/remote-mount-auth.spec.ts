/**
 * Who may call a remote mount is the mounting app's decision: an app that is an OAuth resource
 * server (core's `auth`, tokens of a local issuer checked against its JWKS) with
 * `@McpServer({ scopes })` shows and serves the tools it mounts only to callers with those scopes,
 * as it does its own; and the upstream — an official SDK v2 server over Streamable HTTP on
 * 127.0.0.1 — never receives the caller's token, only the gateway's own header. Driven by the
 * official SDK v1 client; the call's own `_meta` reaches the upstream with the tool's own name.
 */
import 'reflect-metadata';
import { createServer, Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { McpApp, McpFactory, McpServer, Tool, createLogger, createWebHandler, jwtVerifier, toNodeListener } from '@hermes-mcp/core';
import { RemoteMount, mountRemote } from '@hermes-mcp/gateway';
import { createMcpHandler, McpServer as V2Server } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { serveFetch } from '../../client/test/fixtures/http-servers';
import { textOf, listen } from './support';

@McpServer({ name: 'gateway', version: '1.0.0', scopes: ['shop:use'] })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

let jwks: Server;
let upstream: Server;
let gateway: Server;
let app: McpApp;
let mount: RemoteMount;
let url: URL;
let sign: (scope: string) => Promise<string>;
/** The headers of every request the upstream received. */
const reachedUpstream: Headers[] = [];
/** The JSON-RPC messages the upstream received. */
const bodiesUpstream: Array<{ method?: string; params?: { name?: string; _meta?: Record<string, unknown> } }> = [];

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  const issuer = await listen(jwks);

  const handler = createMcpHandler(() => {
    const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
    server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    return server;
  });
  const served = await serveFetch({
    fetch: (request: Request) => {
      reachedUpstream.push(request.headers);
      if (request.method !== 'POST') return handler.fetch(request);
      return request
        .clone()
        .text()
        .then((body) => {
          bodiesUpstream.push(JSON.parse(body) as (typeof bodiesUpstream)[number]);
          return handler.fetch(request);
        });
    },
  });
  upstream = served.server;

  app = McpFactory.create(GatewayServer, { logger: createLogger({ level: 'silent' }) });
  mount = await mountRemote(app, 'sdk', { url: `${served.origin}/mcp`, headers: { 'x-gateway': 'its-own' } });
  gateway = createServer();
  const origin = await listen(gateway);
  url = new URL(`${origin}/mcp`);
  gateway.on(
    'request',
    toNodeListener(
      createWebHandler(app, { auth: { resource: url.href, authorizationServers: [issuer], verifier: jwtVerifier({ issuer, audience: url.href, jwksUri: `${issuer}/jwks` }) } }),
    ),
  );
  sign = (scope) =>
    new SignJWT({ scope })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(url.href)
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
});

afterAll(async () => {
  gateway?.closeAllConnections();
  if (gateway) await new Promise((resolve) => gateway.close(resolve));
  await app?.close();
  await mount?.close();
  upstream?.closeAllConnections();
  upstream?.close();
  jwks?.close();
});

async function clientWith(token: string): Promise<Client> {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

it('lists and serves the mounted tools to a caller with the app’s scopes; the upstream gets the gateway’s header, never the token', async () => {
  const token = await sign('shop:use');
  const client = await clientWith(token);
  reachedUpstream.length = 0;
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hello', 'sdk_add']);
    expect(textOf(await client.callTool({ name: 'sdk_add', arguments: { a: 40, b: 2 }, _meta: { 'example.com/trace': 'abc' } }))).toBe('42');
  } finally {
    await client.close();
  }
  expect(reachedUpstream.length).toBeGreaterThan(0);
  expect(reachedUpstream.filter((headers) => headers.get('authorization') !== null)).toEqual([]);
  expect(reachedUpstream.filter((headers) => JSON.stringify([...headers]).includes(token))).toEqual([]);
  expect(new Set(reachedUpstream.map((headers) => headers.get('x-gateway')))).toEqual(new Set(['its-own']));
  // The call's own _meta went on, under the upstream's own name for the tool.
  const call = bodiesUpstream.find((message) => message.method === 'tools/call' && message.params?.name === 'add');
  expect(call?.params?._meta).toMatchObject({ 'example.com/trace': 'abc' });
});

it('neither lists nor runs them for a caller without the scopes, as for the app’s own tools', async () => {
  const client = await clientWith(await sign('other'));
  reachedUpstream.length = 0;
  try {
    expect((await client.listTools()).tools).toEqual([]);
    await expect(client.callTool({ name: 'sdk_add', arguments: { a: 1, b: 1 } })).rejects.toThrow();
  } finally {
    await client.close();
  }
  // Refused before anything was forwarded.
  expect(reachedUpstream).toEqual([]);
});
