/**
 * @hermes-mcp/redis — run a Hermes MCP server as several instances behind one endpoint, without
 * sticky sessions: sessions, resumable streams and tasks in Redis, and a bus between the instances.
 *
 * @example
 * const cluster = await redisCluster({ url: 'redis://127.0.0.1:6379' });
 * const app = McpFactory.create(WeatherServer, { cluster, cursorSecret, requestStateSecret });
 */
export { redisCluster } from './cluster';
export type { RedisCluster, RedisClusterOptions } from './cluster';
export { BROADCAST_QUEUE, RedisBus } from './bus';
export { RedisSessionStore } from './session-store';
export { AHEAD_WAIT_MS, EVENT_WINDOW_DEFAULTS, RedisEventStore } from './event-store';
export type { EventWindow } from './event-store';
export { RedisTaskStore } from './task-store';
export { RedisReplayStore } from './replay-store';
export type { TaskLeaseOptions } from './task-store';
export { DEFAULT_COMMAND_TIMEOUT_MS, REPLICA_BACKOFF_MS, RedisConnection, Script, hashSlot, topologyOf, unavailable } from './connection';
export type { AnyRedisClient, Durability, RedisClient, RedisClusterClient, RedisSentinelClient, RedisTopology, Reply } from './connection';
