/**
 * A DPoP proof is taken once across a cluster (RFC 9449 §11.1): two instances behind one
 * canonical URL share the Redis cluster's replay store, so a proof one instance took is refused by
 * the other. Real parts: a redis-server of the test's own, oidc-provider binding tokens to the
 * client's key, two Fastify instances on 127.0.0.1 reached as a load balancer would reach them.
 */
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { McpFactory, McpServer, Tool, createLogger, jwtVerifier } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { RedisCluster, redisCluster } from '@hermes-mcp/redis';
import { ACCEPT_BOTH, MODERN, MODERN_META, rpc } from '../../../test-support/hardening';
import { AuthorizationServer, TestClient, startAuthorizationServer } from '../../../test-support/oidc/authorization-server';
import { RedisServer, startRedis } from '../../../test-support/redis/redis-server';

@McpServer({ name: 'replay', version: '1.0.0' })
class NotesServer {
  @Tool({ description: 'The secret notes' })
  notes() {
    return 'the secret notes';
  }
}

const CLIENT: TestClient = { client_id: 'dpop-app', client_secret: 'dpop-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read' };
/** The URL clients know, in front of both instances. */
const RESOURCE = 'https://mcp.example.com/mcp';

let redis: RedisServer;
let as: AuthorizationServer;
const clusters: RedisCluster[] = [];
const apps: FastifyInstance[] = [];

async function instance(): Promise<string> {
  const cluster = await redisCluster({ url: redis.url, logger: { warn: () => undefined } });
  clusters.push(cluster);
  const fastify = Fastify({ logger: false });
  apps.push(fastify);
  const app = McpFactory.create(NotesServer, { logger: createLogger({ level: 'silent' }), cluster });
  await fastify.register(hermesMcp, {
    server: app,
    path: '/mcp',
    auth: { resource: RESOURCE, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: RESOURCE }) },
  });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  [redis, as] = await Promise.all([startRedis(), startAuthorizationServer({ clients: [CLIENT] })]);
});
afterAll(async () => {
  await Promise.allSettled(apps.map((app) => app.close()));
  await Promise.allSettled(clusters.map((cluster) => cluster.close()));
  await Promise.allSettled([redis?.stop(), as?.stop()]);
});

it('refuses on one instance a proof another instance took', async () => {
  const jose = await import('jose');
  const [a, b] = await Promise.all([instance(), instance()]);
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = await jose.exportJWK(publicKey);
  const proof = (htu: string, token?: string) =>
    new jose.SignJWT({ htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...(token && { ath: createHash('sha256').update(token).digest('base64url') }) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);
  const token = await as.token(CLIENT, { resource: RESOURCE, scope: 'notes:read', dpop: await proof(`${as.issuer}/token`) });
  const once = await proof(RESOURCE, token);
  const call = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'notes',
        authorization: `DPoP ${token}`,
        dpop: once,
      },
      body: JSON.stringify(rpc(1, 'tools/call', { name: 'notes', arguments: {}, _meta: MODERN_META })),
    });
  const first = await call(a);
  expect({ status: first.status, text: await first.text() }).toMatchObject({ status: 200, text: expect.stringContaining('the secret notes') });
  const again = await call(b);
  expect(again.status).toBe(401);
  expect(await again.text()).not.toContain('the secret notes');
  expect(again.headers.get('www-authenticate')).toMatch(/DPoP [^]*error="invalid_dpop_proof", error_description="the proof was used before \(jti\)"/);
  // One key per proof, gone with the proof's window.
  const keys = await clusters[0].client.keys('hermes:dpop:*');
  expect(keys).toHaveLength(1);
  const ttl = await clusters[0].client.pTTL(keys[0]);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(70_000);
});
