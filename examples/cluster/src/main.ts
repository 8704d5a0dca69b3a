import 'reflect-metadata';
import Fastify from 'fastify';
import { Container } from 'typedi';
import { McpFactory } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { ClusterServer, Instance } from './cluster.server';
import { durabilityOf, redisClient } from './redis';

/**
 * One instance of the cluster: Fastify on 127.0.0.1:`PORT`, MCP at /mcp, sessions, streams, tasks
 * and the bus on Redis — one node at `REDIS_URL`, a Redis Cluster (`REDIS_CLUSTER_NODES`) or a
 * Sentinel-watched primary (`REDIS_SENTINELS`, `REDIS_SENTINEL_NAME`), see ./redis.ts. Start several
 * with different ports behind any load balancer; give them all the same `CURSOR_SECRET` and
 * `REQUEST_STATE_SECRET`.
 */
async function main(): Promise<void> {
  const fastify = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
  const client = redisClient(process.env);
  // node-redis throws the errors no one listens to; the cluster logs the first of each outage.
  client.on('error', () => undefined);
  // Rejects with HERMES_REDIS_UNAVAILABLE when Redis cannot be reached in `connectTimeout` (10 s).
  const cluster = await redisCluster({
    client,
    logger: fastify.log,
    // How long a task outlives an instance that died running it, before it reads as failed.
    tasks: { leaseMs: Number(process.env.TASK_LEASE_MS ?? 30_000) },
    ...durabilityOf(process.env),
  });
  const secret = (name: string) => {
    const value = process.env[name];
    if (!value) fastify.log.warn(`${name} is not set: instances will not read each other's ${name === 'CURSOR_SECRET' ? 'cursors' : 'request states'}`);
    return value;
  };
  const app = McpFactory.create(ClusterServer, {
    logger: fastify.log,
    cluster,
    cursorSecret: secret('CURSOR_SECRET'),
    requestStateSecret: secret('REQUEST_STATE_SECRET'),
    tasks: { pollIntervalMs: 200 },
  });
  await fastify.register(hermesMcp, { server: app, path: '/mcp', sessionIdleTimeout: Number(process.env.SESSION_IDLE_MS ?? 30 * 60_000) });
  fastify.addHook('onClose', async () => {
    await cluster.close();
    // The client is ours (given to redisCluster, which closes only what it made).
    await client.close().catch(() => undefined);
  });
  const port = Number(process.env.PORT ?? 3000);
  const address = await fastify.listen({ host: '127.0.0.1', port });
  // The line a supervisor (or the cluster test) waits for.
  process.stdout.write(`listening ${address} instance=${Container.get(Instance).name} bus=${cluster.bus.instanceId}\n`);
  const stop = async () => {
    await fastify.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
