// One instance of examples/cluster (its built server class) on the Redis a test names, with the
// example's own client from the environment (examples/cluster/src/redis.ts: REDIS_URL,
// REDIS_CLUSTER_NODES, REDIS_SENTINELS + REDIS_SENTINEL_NAME, REDIS_USERNAME/PASSWORD,
// REDIS_TLS_CA/CERT/KEY, REDIS_WAIT_REPLICAS) and PORT, INSTANCE, CURSOR_SECRET,
// REQUEST_STATE_SECRET, TASK_LEASE_MS as examples/cluster. Unlike the example's main.js, its node
// connections back off to 500 ms (failovers are timed), and it prints `listening …` once up and
// `redis-error <code>` lines for what the cluster logs. TOPOLOGY_LOG_LEVEL (e.g. `debug`) turns its
// own log on, to stderr (silent otherwise).
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry, run by node as it is */
require('reflect-metadata');
const Fastify = require('fastify');
const { McpFactory, createLogger } = require('@hermes-mcp/core');
const { hermesMcp } = require('@hermes-mcp/fastify');
const { redisCluster } = require('@hermes-mcp/redis');
const { ClusterServer } = require('../../examples/cluster/dist/cluster.server.js');
const { durabilityOf, redisClient } = require('../../examples/cluster/dist/redis.js');

const env = process.env;

async function main() {
  const fastify = Fastify({ logger: false });
  const redis = redisClient(env, { maxDelayMs: 500, connectTimeoutMs: 2_000 });
  // node-redis throws errors nobody listens to; the cluster logs the first of each outage below.
  redis.on('error', () => undefined);
  const logger = { warn: (bindings) => process.stdout.write(`redis-error ${bindings.code ?? 'unknown'}\n`) };
  const cluster = await redisCluster({
    client: redis,
    logger,
    tasks: { leaseMs: Number(env.TASK_LEASE_MS ?? 30_000) },
    ...durabilityOf(env),
  });
  const app = McpFactory.create(ClusterServer, {
    logger: createLogger({ level: env.TOPOLOGY_LOG_LEVEL ?? 'silent', name: env.INSTANCE }),
    cluster,
    cursorSecret: env.CURSOR_SECRET,
    requestStateSecret: env.REQUEST_STATE_SECRET,
    tasks: { pollIntervalMs: 200 },
  });
  await fastify.register(hermesMcp, { server: app, path: '/mcp' });
  fastify.addHook('onClose', () => cluster.close());
  const address = await fastify.listen({ host: '127.0.0.1', port: Number(env.PORT) });
  process.stdout.write(`listening ${address} instance=${env.INSTANCE}\n`);
  const stop = async () => {
    await fastify.close();
    await redis.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
