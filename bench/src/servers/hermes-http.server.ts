/**
 * Hermes over HTTP: the add server mounted with `@hermes-mcp/fastify` at /mcp. The same process
 * serves legacy sessions (JSON or SSE answers) and modern stateless requests; the runner starts one
 * process per configuration. With `HERMES_BENCH_AUTH` it is an OAuth resource server (the `auth` option);
 * with `HERMES_BENCH_OTEL`, instrumented with OpenTelemetry (./telemetry.ts); with `HERMES_BENCH_REDIS`
 * (a Redis URL), one instance of a cluster whose sessions, streams and tasks are in that Redis; with
 * `HERMES_BENCH_REDIS_CLUSTER` (a node's URL), the same on a Redis Cluster; `HERMES_BENCH_REDIS_REPLICAS`
 * sets `durability.replicas`.
 */
import Fastify from 'fastify';
import { McpFactory, createLogger, jwtVerifier } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { createCluster } from 'redis';
import { AddServer } from './add.server';
import { announce, fail, tieToRunner } from './lifeline';
import { MEMORY_PATH, memoryProbeEnabled, settledMemory } from './memory';
import { benchTelemetry } from './telemetry';

async function main(): Promise<void> {
  tieToRunner();
  benchTelemetry();
  const app = Fastify({ logger: false });
  const redis = process.env.HERMES_BENCH_REDIS;
  const clusterRoot = process.env.HERMES_BENCH_REDIS_CLUSTER;
  const replicas = Number(process.env.HERMES_BENCH_REDIS_REPLICAS ?? 0);
  const durability = replicas > 0 ? { durability: { replicas } } : {};
  const cluster = redis
    ? await redisCluster({ url: redis, ...durability })
    : clusterRoot
      ? await redisCluster({ client: createCluster({ rootNodes: [{ url: clusterRoot }], defaults: { disableOfflineQueue: true } }), ...durability })
      : undefined;
  const mcp = McpFactory.create(AddServer, { logger: createLogger({ level: 'silent' }), ...(cluster && { cluster }) });
  // Every session of the run comes from the runner on 127.0.0.1: one client, as far as the per-client cap can tell.
  // The OAuth rows: a resource server verifying the authorization server's JWTs (HERMES_BENCH_AUTH).
  const bench = process.env.HERMES_BENCH_AUTH ? (JSON.parse(process.env.HERMES_BENCH_AUTH) as { issuer: string; resource: string; cacheTtlMs: number }) : undefined;
  const auth = bench && {
    resource: bench.resource,
    authorizationServers: [bench.issuer],
    verifier: jwtVerifier({ issuer: bench.issuer, audience: bench.resource, cacheTtlMs: bench.cacheTtlMs }),
  };
  await app.register(hermesMcp, { server: mcp, path: '/mcp', maxSessionsPerClient: Number.MAX_SAFE_INTEGER, ...(auth && { auth }) });
  if (memoryProbeEnabled) app.get(MEMORY_PATH, () => settledMemory());
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
