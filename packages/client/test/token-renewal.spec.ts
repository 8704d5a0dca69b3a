/**
 * A 2026-07-28 `subscriptions/listen` stream outlives its token: the server ends it with -32014
 * (TokenExpired) when the token it was opened with expires, and `McpClient.listen` listens again
 * at once, the `OAuthClient` getting a fresh token — the loop over it goes on and hears what the
 * server sends next. Tokens of a few seconds from the tests' real authorization server
 * (oidc-provider), a Hermes server on Fastify at 127.0.0.1.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { McpApp, McpFactory, McpServer, Tool, createLogger, jwtVerifier } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { McpClient, OAuthClient, StreamableHttpClientTransport } from '@hermes-mcp/client';
import type { JsonRpcNotification } from '@hermes-mcp/protocol';
import { AuthorizationServer, startAuthorizationServer } from '../../../test-support/oidc/authorization-server';

@McpServer({ name: 'renewal', version: '1.0.0' })
class RenewalServer {
  @Tool({ description: 'Answers at once' })
  now() {
    return 'served';
  }
}

/** Seconds a token lasts: long enough to open a stream on a busy machine, short enough to wait for. */
const TTL = 4;

let as: AuthorizationServer;
let fastify: FastifyInstance;
let mcp: McpApp;
let url: string;

beforeAll(async () => {
  as = await startAuthorizationServer({
    clients: [{ client_id: 'short-lived-robot', client_secret: 'robot-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read' }],
    shortLivedTtl: TTL,
  });
  fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`;
  await fastify.close();
  // The resource names the port: listen where the probe was.
  fastify = Fastify({ logger: false, forceCloseConnections: true });
  mcp = McpFactory.create(RenewalServer, { logger: createLogger({ level: 'silent' }) });
  await fastify.register(hermesMcp, {
    server: mcp,
    path: '/mcp',
    auth: { resource: url, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: url, clockToleranceSec: 0 }) },
  });
  await fastify.listen({ host: '127.0.0.1', port: Number(new URL(url).port) });
});
afterAll(async () => {
  await fastify?.close();
  await as?.stop();
});

it('listens again when the token expires: a second acknowledgement, then the changes that come after', async () => {
  const auth = new OAuthClient({ grant: 'client_credentials', clientId: 'short-lived-robot', clientSecret: 'robot-secret' });
  const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2026-07-28' });
  await client.connect();
  const heard: string[] = [];
  const acknowledgements: JsonRpcNotification[] = [];
  try {
    for await (const notification of client.listen({ toolsListChanged: true })) {
      heard.push(notification.method);
      if (notification.method === 'notifications/subscriptions/acknowledged') acknowledgements.push(notification);
      // The second acknowledgement is of the listen opened with a fresh token (the first one's
      // token lasted TTL seconds): a change now reaches this loop.
      if (acknowledgements.length === 2 && heard.length === 2) mcp.addTool({ name: 'late', description: 'Added after the renewal' }, () => 'late');
      if (notification.method === 'notifications/tools/list_changed') break;
    }
  } finally {
    await client.close();
  }
  expect(heard).toEqual(['notifications/subscriptions/acknowledged', 'notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
});
