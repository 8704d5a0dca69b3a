// One instance of examples/cluster (its built server class) on the Redis a test names: one node, a
// Redis Cluster or a Sentinel-watched primary, over TLS with an ACL user if asked. examples/cluster's
// own main.js takes one REDIS_URL; the topology tests start this instead, with:
//   REDIS_TOPOLOGY  single | cluster | sentinel
//   REDIS_URLS      comma-separated node URLs (cluster: root nodes; single: the one node)
//   REDIS_SENTINELS comma-separated host:port of the sentinels; REDIS_SENTINEL_NAME the master's name
//   REDIS_USERNAME, REDIS_PASSWORD  an ACL user (also for the nodes behind a Sentinel)
//   REDIS_TLS_CA, REDIS_TLS_CERT, REDIS_TLS_KEY  PEM files: TLS with a client certificate
//   REDIS_WAIT_REPLICAS  durability: WAIT for that many replicas after each write
// and PORT, INSTANCE, CURSOR_SECRET, REQUEST_STATE_SECRET, TASK_LEASE_MS as examples/cluster.
// It prints `listening …` once up, and `redis-error <code>` lines for what the cluster logs.
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry, run by node as it is */
require('reflect-metadata');
const { readFileSync } = require('node:fs');
const Fastify = require('fastify');
const { createClient, createCluster, createSentinel } = require('redis');
const { McpFactory, createLogger } = require('@hermes-mcp/core');
const { hermesMcp } = require('@hermes-mcp/fastify');
const { redisCluster } = require('@hermes-mcp/redis');
const { ClusterServer } = require('../../examples/cluster/dist/cluster.server.js');

const env = process.env;

/** What every node connection takes: fail at once while away, back off to 500 ms, TLS and the ACL user if asked. */
function nodeOptions() {
  const options = {
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500) },
  };
  if (env.REDIS_USERNAME) options.username = env.REDIS_USERNAME;
  if (env.REDIS_PASSWORD) options.password = env.REDIS_PASSWORD;
  if (env.REDIS_TLS_CA) {
    Object.assign(options.socket, {
      tls: true,
      ca: readFileSync(env.REDIS_TLS_CA),
      cert: readFileSync(env.REDIS_TLS_CERT),
      key: readFileSync(env.REDIS_TLS_KEY),
    });
  }
  return options;
}

function client() {
  const urls = (env.REDIS_URLS ?? '').split(',').filter(Boolean);
  switch (env.REDIS_TOPOLOGY) {
    case 'cluster':
      return createCluster({ rootNodes: urls.map((url) => ({ url })), defaults: nodeOptions() });
    case 'sentinel':
      return createSentinel({
        name: env.REDIS_SENTINEL_NAME,
        sentinelRootNodes: env.REDIS_SENTINELS.split(',').map((s) => ({ host: s.split(':')[0], port: Number(s.split(':')[1]) })),
        nodeClientOptions: nodeOptions(),
        sentinelClientOptions: { socket: { connectTimeout: 2_000 } },
      });
    default:
      return createClient({ url: urls[0], ...nodeOptions() });
  }
}

async function main() {
  const fastify = Fastify({ logger: false });
  const redis = client();
  // node-redis throws errors nobody listens to; the cluster logs the first of each outage below.
  redis.on('error', () => undefined);
  const logger = { warn: (bindings) => process.stdout.write(`redis-error ${bindings.code ?? 'unknown'}\n`) };
  const cluster = await redisCluster({
    client: redis,
    logger,
    tasks: { leaseMs: Number(env.TASK_LEASE_MS ?? 30_000) },
    ...(env.REDIS_WAIT_REPLICAS && { durability: { replicas: Number(env.REDIS_WAIT_REPLICAS) } }),
  });
  const app = McpFactory.create(ClusterServer, {
    logger: createLogger({ level: 'silent' }),
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
