/**
 * Where the tasks of the tasks extension (MCP 2026-07-28) are kept. The store holds what a client
 * can read of a task (`tasks/get`); the work itself runs in the process that started it. The
 * in-memory store is the default; a shared store (Redis, in `@hermes-mcp/redis`) implements the
 * same interface so that any instance can answer `tasks/get` and `tasks/cancel`.
 */
import type { Awaitable } from './awaitable';

/** A task's status. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task does not leave. */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** One question a task waits on, as a client sees it in `inputRequests`. */
export interface TaskInputRequest {
  method: string;
  params: Record<string, unknown>;
}

/**
 * A task as kept and as a client reads it (`tasks/get`). `inputRequests` is present while the task
 * is `input_required`, `result` once `completed`, `error` once `failed`. Plain JSON: a shared store
 * keeps it serialised.
 */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly lastUpdatedAt: string;
  /** How long the task stays readable after it was created, in milliseconds. */
  readonly ttlMs: number;
  /** How often clients should poll, in milliseconds. */
  readonly pollIntervalMs: number;
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

/**
 * A place to keep tasks by id. Each method may answer at once or with a promise: the in-memory
 * store answers at once, a networked one with a promise.
 */
export interface TaskStore {
  /** Keeps a new task, readable for its `ttlMs` from now. */
  create(task: TaskRecord): Awaitable<void>;
  /** The task of that id; undefined when unknown or expired. */
  get(taskId: string): Awaitable<TaskRecord | undefined>;
  /**
   * Replaces a kept task with its new state, unless the kept one is already terminal (a task
   * cancelled by another instance stays cancelled) or gone. True when it was replaced.
   */
  update(task: TaskRecord): Awaitable<boolean>;
}

/** Tasks in a Map, in this process; each is forgotten `ttlMs` after it was created. */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();

  create(task: TaskRecord): void {
    this.tasks.set(task.taskId, task);
    setTimeout(() => this.tasks.delete(task.taskId), task.ttlMs).unref();
  }

  get(taskId: string): TaskRecord | undefined {
    return this.tasks.get(taskId);
  }

  update(task: TaskRecord): boolean {
    const kept = this.tasks.get(task.taskId);
    if (!kept || TERMINAL_STATUSES.has(kept.status)) return false;
    this.tasks.set(task.taskId, task);
    return true;
  }

  /** How many tasks are kept. */
  get size(): number {
    return this.tasks.size;
  }
}
