import { readFileSync } from 'node:fs';
import { createClient, createCluster, createSentinel } from 'redis';
import type { AnyRedisClient, Durability } from '@hermes-mcp/redis';

/** How the node connections reconnect and time out. */
export interface Reconnection {
  /** The longest wait between two attempts, in milliseconds (default 2 000). */
  maxDelayMs?: number;
  /** How long one attempt may take, in milliseconds (default 10 000). */
  connectTimeoutMs?: number;
}

/**
 * The node-redis client an instance runs on, from its environment:
 *
 * - `REDIS_CLUSTER_NODES`: comma-separated URLs of some nodes of a Redis Cluster (`createCluster`);
 * - else `REDIS_SENTINELS` (comma-separated `host:port`) and `REDIS_SENTINEL_NAME` (the primary
 *   they watch): a Sentinel-watched primary (`createSentinel`);
 * - else `REDIS_URL` (default `redis://127.0.0.1:6379`): one node (`createClient`);
 * - with `REDIS_USERNAME` and `REDIS_PASSWORD`, an ACL user (also on the nodes behind a Sentinel);
 *   with `REDIS_TLS_CA`, `REDIS_TLS_CERT` and `REDIS_TLS_KEY` (PEM files), TLS with a client
 *   certificate.
 *
 * Every node connection fails commands at once while it is down (no unbounded offline queue) and
 * reconnects backing off to `maxDelayMs`.
 */
export function redisClient(env: NodeJS.ProcessEnv, reconnection: Reconnection = {}): AnyRedisClient {
  const maxDelayMs = reconnection.maxDelayMs ?? 2_000;
  const connectTimeout = reconnection.connectTimeoutMs ?? 10_000;
  const tls = env.REDIS_TLS_CA
    ? { tls: true as const, ca: readFileSync(env.REDIS_TLS_CA), cert: readFileSync(env.REDIS_TLS_CERT ?? ''), key: readFileSync(env.REDIS_TLS_KEY ?? '') }
    : {};
  const node = {
    disableOfflineQueue: true,
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, maxDelayMs), ...tls },
    ...(env.REDIS_USERNAME && { username: env.REDIS_USERNAME }),
    ...(env.REDIS_PASSWORD && { password: env.REDIS_PASSWORD }),
  };
  const list = (value: string | undefined) => (value ?? '').split(',').filter(Boolean);
  if (env.REDIS_CLUSTER_NODES) return createCluster({ rootNodes: list(env.REDIS_CLUSTER_NODES).map((url) => ({ url })), defaults: node });
  if (env.REDIS_SENTINELS) {
    return createSentinel({
      name: env.REDIS_SENTINEL_NAME ?? 'mymaster',
      sentinelRootNodes: list(env.REDIS_SENTINELS).map((address) => ({
        host: address.slice(0, address.lastIndexOf(':')),
        port: Number(address.slice(address.lastIndexOf(':') + 1)),
      })),
      nodeClientOptions: node,
      sentinelClientOptions: { socket: { connectTimeout } },
    });
  }
  return createClient({ url: env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...node });
}

/** `durability` from `REDIS_WAIT_REPLICAS`: each write waits for that many replicas (none by default). */
export function durabilityOf(env: NodeJS.ProcessEnv): { durability?: Durability } {
  const replicas = Number(env.REDIS_WAIT_REPLICAS ?? 0);
  return replicas > 0 ? { durability: { replicas } } : {};
}
