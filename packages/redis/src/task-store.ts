/**
 * Tasks (MCP 2026-07-28 tasks extension) in Redis: a task started on one instance is read,
 * answered and cancelled from any other. Each task is one key (its record as JSON,
 * `{prefix}task:{{taskId}}`; its lease `{prefix}task-lease:{{taskId}}`, in the same hash slot) that expires
 * `ttlMs` after the task was created. While the task runs, the instance running it renews a lease
 * key; when that instance dies, the lease expires, and the next read marks the task failed — a
 * client polling it learns so instead of waiting forever.
 */
import type { TaskRecord, TaskStore } from '@hermes-mcp/core';
import { RedisConnection, Script } from './connection';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Replaces a task unless it is gone or terminal; a terminal new state ends its lease. */
const UPDATE = new Script(`
local kept = redis.call('GET', KEYS[1])
if not kept then return 0 end
local status = cjson.decode(kept).status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
if ARGV[2] == '1' then redis.call('DEL', KEYS[2]) end
return 1`);

/** Reads a task; one still running whose lease is gone (its instance died) is failed first. */
const GET = new Script(`
local kept = redis.call('GET', KEYS[1])
if not kept then return false end
local task = cjson.decode(kept)
local status = task.status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return kept end
if redis.call('EXISTS', KEYS[2]) == 1 then return kept end
local failed = cjson.encode({
  taskId = task.taskId, status = 'failed', statusMessage = ARGV[2], createdAt = task.createdAt,
  lastUpdatedAt = ARGV[1], ttlMs = task.ttlMs, pollIntervalMs = task.pollIntervalMs,
  error = { code = -32603, message = ARGV[2] } })
redis.call('SET', KEYS[1], failed, 'KEEPTTL')
return failed`);

const LOST = 'The task failed: the server instance running it stopped';

/** Options of a {@link RedisTaskStore}. */
export interface TaskLeaseOptions {
  /**
   * How long a running task survives its instance, in milliseconds (default 30 000): the instance
   * renews the lease every third of it, and a task whose lease ran out reads as failed.
   */
  leaseMs?: number;
}

/** Tasks in Redis, shared by every instance of a cluster. */
export class RedisTaskStore implements TaskStore {
  private readonly leaseMs: number;
  /** Tasks created here and still running: their leases are renewed. */
  private readonly running = new Set<string>();
  private timer?: NodeJS.Timeout = undefined;

  constructor(
    private readonly redis: RedisConnection,
    options: TaskLeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  private key(taskId: string): string {
    return this.redis.key('task', taskId);
  }

  private lease(taskId: string): string {
    return this.redis.key('task-lease', taskId);
  }

  async create(task: TaskRecord): Promise<void> {
    const running = !TERMINAL.has(task.status);
    await Promise.all([
      running ? this.redis.send(['SET', this.lease(task.taskId), '1', 'PX', String(this.leaseMs)]) : undefined,
      // After the lease, on the same node (one hash slot): the replicas have both once it resolves.
      this.redis.write(['SET', this.key(task.taskId), JSON.stringify(task), 'PX', String(task.ttlMs)]),
    ]);
    if (running) this.hold(task.taskId);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const kept = (await this.redis.run(GET, [this.key(taskId), this.lease(taskId)], [new Date().toISOString(), LOST])) as string | null;
    return kept ? (JSON.parse(kept) as TaskRecord) : undefined;
  }

  async update(task: TaskRecord): Promise<boolean> {
    const terminal = TERMINAL.has(task.status);
    const replaced = (await this.redis.run(UPDATE, [this.key(task.taskId), this.lease(task.taskId)], [JSON.stringify(task), terminal ? '1' : '0'], true)) === 1;
    if (terminal || !replaced) this.release(task.taskId);
    return replaced;
  }

  /** Stops renewing every lease (the instance is shutting down); the tasks it ran fail once they run out. */
  close(): void {
    this.running.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private hold(taskId: string): void {
    this.running.add(taskId);
    this.timer ??= setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
  }

  private release(taskId: string): void {
    this.running.delete(taskId);
    if (this.running.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Renews the lease of every task running here: one pipelined `SET … PX` each — a `SET`, not a
   * `PEXPIRE`, so a lease a failed-over master took with it (written, not yet replicated) is there
   * again after the next renewal.
   */
  private renew(): void {
    for (const taskId of this.running) {
      this.redis.send(['SET', this.lease(taskId), '1', 'PX', String(this.leaseMs)]).catch(() => undefined);
    }
  }
}
