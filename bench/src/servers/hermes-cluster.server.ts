/**
 * One instance of a cluster for the Redis sizing (`--only redis-memory`): Fastify at /mcp, every
 * session, stream and the bus in the Redis at `HERMES_BENCH_REDIS`, and a `touch` tool that raises
 * a resource update on every instance — what fills the subscribers' GET streams. The runner starts
 * three and sends each request of a session to the next one, as a round-robin balancer does.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import Fastify from 'fastify';
import { McpApp, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { redisCluster } from '@hermes-mcp/redis';
import { announce, fail, tieToRunner } from './lifeline';

/** Input of `touch`. */
export class TouchInput {
  @IsString() uri!: string;
}

let app: McpApp | undefined;

/** One tool, `touch(uri)`: tells every instance's subscribers of `uri` that it changed. */
@McpServer({ name: 'bench-cluster', version: '1.0.0' })
export class ClusterBenchServer {
  @Tool({ description: 'Raises notifications/resources/updated for a URI, on every instance' })
  touch(input: TouchInput) {
    app!.notifyResourceUpdated(input.uri);
    return 'ok';
  }
}

async function main(): Promise<void> {
  tieToRunner();
  const url = process.env.HERMES_BENCH_REDIS;
  if (!url) throw new Error('HERMES_BENCH_REDIS is not set');
  const fastify = Fastify({ logger: false });
  const cluster = await redisCluster({ url, logger: { warn: () => undefined } });
  app = McpFactory.create(ClusterBenchServer, { logger: createLogger({ level: 'silent' }), cluster });
  // Every session comes from the runner on 127.0.0.1: one client, as far as the caps can tell.
  await fastify.register(hermesMcp, { server: app, path: '/mcp', maxSessions: Number.MAX_SAFE_INTEGER, maxSessionsPerClient: Number.MAX_SAFE_INTEGER });
  fastify.addHook('onClose', () => cluster.close());
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  announce(fastify.server.address());
}

main().catch(fail);
