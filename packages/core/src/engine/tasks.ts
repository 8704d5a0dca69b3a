/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): a tool that opts in with
 * `@Tool({ task: 'optional' | 'required' })` runs in the background when the request declares the
 * extension, and the call returns a task handle at once. `tasks/get` reads it, `tasks/update`
 * answers its questions (`ctx.elicit` and friends park the task as `input_required`), `tasks/cancel`
 * stops it. Tasks live in this process; their ids are unguessable handles.
 */
import { randomUUID } from 'node:crypto';
import { InboundRequest, MAX_ID_LENGTH, McpError } from '@hermes-mcp/protocol';
import type { AskOptions, InputSource } from './context';

/** The extension's id, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a tool runs as a task: `optional` (when the client declares the extension) or `required`. */
export type TaskSupport = 'optional' | 'required';

/** How a task-capable tool becomes a task: at once (`auto`), or when the handler calls `ctx.runAsTask` (`manual`, after asking its questions through MRTR). */
export type TaskStart = 'auto' | 'manual';

/** Thrown through a handler by `ctx.runAsTask` once the task runs: the engine answers with its handle. @internal */
export class TaskStartedSignal {
  constructor(readonly handle: Record<string, unknown>) {}
}

/** A task's status. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** One task. @internal */
export interface Task {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  /** Questions waiting for `tasks/update`, by key. */
  readonly outstanding: Map<string, { method: string; params: Record<string, unknown>; answer(value: Record<string, unknown>): void }>;
  readonly controller: InboundRequest;
  keys: number;
}

/** The questions of a running task: each parks the task until `tasks/update` answers it. @internal */
export class TaskInputs implements InputSource {
  constructor(private readonly task: Task) {}

  ask(kind: string, method: string, params: Record<string, unknown>, options: AskOptions): Promise<Record<string, unknown>> {
    const task = this.task;
    // Keys are never reused within a task's life.
    const key = options.key && !task.outstanding.has(options.key) ? options.key : `${kind}:${task.keys++}`;
    return new Promise((resolve, reject) => {
      task.outstanding.set(key, { method, params, answer: resolve });
      touch(task, 'input_required');
      task.controller.signal.addEventListener('abort', () => reject(task.controller.signal.reason as Error), { once: true });
    });
  }
}

function touch(task: Task, status: TaskStatus): void {
  task.status = status;
  task.lastUpdatedAt = new Date().toISOString();
}

/** Options of the task store. */
export interface TaskOptions {
  /** How long a task stays readable after it was created, in milliseconds (default 1 hour). */
  ttlMs?: number;
  /** How often clients should poll, in milliseconds (default 1000). */
  pollIntervalMs?: number;
}

/** The tasks of this process. @internal */
export class TaskStore {
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly options: TaskOptions = {}) {}

  /** Creates a working task, readable at once (before its handle is sent). */
  create(): Task {
    const now = new Date().toISOString();
    const task: Task = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.options.ttlMs ?? 3_600_000,
      pollIntervalMs: this.options.pollIntervalMs ?? 1000,
      outstanding: new Map(),
      controller: new InboundRequest(),
      keys: 0,
    };
    this.tasks.set(task.taskId, task);
    setTimeout(() => this.tasks.delete(task.taskId), task.ttlMs).unref();
    return task;
  }

  /** Runs `work` as the task: its result or protocol error settles the task, unless it was cancelled. */
  run(task: Task, work: () => Promise<Record<string, unknown>>): void {
    work().then(
      (result) => {
        if (TERMINAL.has(task.status)) return;
        task.result = result;
        touch(task, 'completed');
      },
      (error: unknown) => {
        if (TERMINAL.has(task.status)) return;
        const failure = error instanceof McpError ? error : McpError.internalError();
        task.error = failure.toJSON();
        task.statusMessage = failure.message;
        touch(task, 'failed');
      },
    );
  }

  /** The task of that id; -32602 when unknown or expired. */
  get(taskId: unknown): Task {
    const task = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    // Echoed only when it is a string (ids are capped like request ids): a client value of any
    // shape, sent back as is, could be too deep to serialise.
    if (!task) throw McpError.invalidParams('Failed to retrieve task: Task not found', typeof taskId === 'string' && taskId.length <= MAX_ID_LENGTH ? { taskId } : undefined);
    return task;
  }

  /** Answers outstanding questions; answers to other keys are ignored. */
  update(task: Task, responses: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(responses)) {
      const question = task.outstanding.get(key);
      if (!question) continue;
      task.outstanding.delete(key);
      question.answer(value as Record<string, unknown>);
    }
    if (task.status === 'input_required' && task.outstanding.size === 0) touch(task, 'working');
  }

  /** Cancels a task (terminal tasks stay as they are). */
  cancel(task: Task): void {
    if (TERMINAL.has(task.status)) return;
    task.outstanding.clear();
    touch(task, 'cancelled');
    task.controller.abort(new McpError(-32001, 'task cancelled'));
  }

  /** What a client sees of a task (`tasks/get`, the handle). */
  view(task: Task): Record<string, unknown> {
    const view: Record<string, unknown> = {
      taskId: task.taskId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    };
    if (task.statusMessage !== undefined) view.statusMessage = task.statusMessage;
    if (task.status === 'input_required') {
      view.inputRequests = Object.fromEntries([...task.outstanding].map(([key, q]) => [key, { method: q.method, params: q.params }]));
    }
    if (task.status === 'completed' && task.result) view.result = task.result;
    if (task.status === 'failed' && task.error) view.error = task.error;
    return view;
  }
}
