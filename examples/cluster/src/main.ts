import 'reflect-metadata';
import Fastify from 'fastify';
import { Container } from 'typedi';
import { McpFactory } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { ClusterServer, Instance } from './cluster.server';

/**
 * One instance of the cluster: Fastify on 127.0.0.1:`PORT`, MCP at /mcp, sessions, streams, tasks
 * and the bus on the Redis at `REDIS_URL`. Start several with different ports behind any load
 * balancer; give them all the same `CURSOR_SECRET` and `REQUEST_STATE_SECRET`.
 */
async function main(): Promise<void> {
  const fastify = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
  const cluster = await redisCluster({
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    logger: fastify.log,
    // How long a task outlives an instance that died running it, before it reads as failed.
    tasks: { leaseMs: Number(process.env.TASK_LEASE_MS ?? 30_000) },
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
  fastify.addHook('onClose', () => cluster.close());
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
