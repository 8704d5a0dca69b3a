/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): a tool that opts in with
 * `@Tool({ task: 'optional' | 'required' })` runs in the background when the request declares the
 * extension, and the call returns a task handle at once. `tasks/get` reads it, `tasks/update`
 * answers its questions (`ctx.elicit` and friends park the task as `input_required`), `tasks/cancel`
 * stops it. The task store (`McpAppOptions.tasks.store`) keeps what clients read; the work runs in the process
 * that started it. Task ids are unguessable handles.
 */
import { InboundRequest, MAX_ID_LENGTH, McpError, isThenable, nodeCrypto } from '@hermes-mcp/protocol';
import { InMemoryTaskStore, TERMINAL_STATUSES, TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from '../stores/task-store';

import type { AskOptions, InputSource } from '../context/mcp-context';
import type { ClusterMessage } from '../stores/cluster';

/** The extension's id, as declared in capabilities. */
export { TASKS_EXTENSION } from '@hermes-mcp/protocol';

/** Thrown through a handler by `ctx.runAsTask` once the task runs: the engine answers with its handle. @internal */
export class TaskStartedSignal {
  constructor(readonly handle: Promise<Record<string, unknown>>) {}
}

/** Options of the tasks extension. */
export interface TaskOptions {
  /** How long a task stays readable after it was created, in milliseconds (default 1 hour). */
  ttlMs?: number;
  /** How often clients should poll, in milliseconds (default 1000). */
  pollIntervalMs?: number;
  /** Where tasks are kept (default: an {@link InMemoryTaskStore}); a shared store lets any instance answer `tasks/get`. */
  store?: TaskStore;
}

/** A question a running task waits on, and how to answer it. */
interface Question extends TaskInputRequest {
  answer(value: Record<string, unknown>): void;
}

/** A task running in this process: its state, its questions and what aborts it. @internal */
export class LiveTask {
  status: TaskStatus = 'working';
  statusMessage?: string = undefined;
  lastUpdatedAt: string;
  result?: Record<string, unknown> = undefined;
  error?: { code: number; message: string; data?: unknown } = undefined;
  /** Questions waiting for `tasks/update`, by key. */
  readonly outstanding = new Map<string, Question>();
  /** Aborted by `tasks/cancel` and at shutdown. */
  readonly controller = new InboundRequest();
  /** Keys given to questions so far (keys are never reused within a task's life). */
  keys = 0;

  constructor(
    readonly taskId: string,
    readonly createdAt: string,
    readonly ttlMs: number,
    readonly pollIntervalMs: number,
    /** Saves the task's new state in the store; settles (never rejects) once the store has it. */
    readonly save: (task: LiveTask) => Promise<void> | void,
  ) {
    this.lastUpdatedAt = createdAt;
  }

  get terminal(): boolean {
    return TERMINAL_STATUSES.has(this.status);
  }

  /** Moves to `status` and saves: the result settles once the store has the new state. */
  moveTo(status: TaskStatus): Promise<void> | void {
    this.status = status;
    this.lastUpdatedAt = new Date().toISOString();
    return this.save(this);
  }

  /** The task as kept and read (`tasks/get`): only the fields its status calls for. */
  record(): TaskRecord {
    const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = this;
    const record: { -readonly [K in keyof TaskRecord]: TaskRecord[K] } = { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs };
    if (this.statusMessage !== undefined) record.statusMessage = this.statusMessage;
    if (status === 'input_required') {
      record.inputRequests = Object.fromEntries([...this.outstanding].map(([key, q]) => [key, { method: q.method, params: q.params }]));
    }
    if (status === 'completed' && this.result) record.result = this.result;
    if (status === 'failed' && this.error) record.error = this.error;
    return record;
  }
}

/** The questions of a running task: each parks the task until `tasks/update` answers it. @internal */
export class TaskInputs implements InputSource {
  constructor(private readonly task: LiveTask) {}

  ask(kind: string, method: string, params: Record<string, unknown>, options: AskOptions): Promise<Record<string, unknown>> {
    const task = this.task;
    const key = options.key && !task.outstanding.has(options.key) ? options.key : `${kind}:${task.keys++}`;
    return new Promise((resolve, reject) => {
      task.outstanding.set(key, { method, params, answer: resolve });
      void task.moveTo('input_required');
      task.controller.signal.addEventListener('abort', () => reject(task.controller.signal.reason as Error), { once: true });
    });
  }
}

/** -32602 for a task id that names no task (echoed only when it is a string of a sane length). */
function taskNotFound(taskId: unknown): McpError {
  // A client value of any shape, sent back as is, could be too deep to serialise.
  return McpError.invalidParams('Failed to retrieve task: Task not found', typeof taskId === 'string' && taskId.length <= MAX_ID_LENGTH ? { taskId } : undefined);
}

/**
 * The tasks of one engine: starts them, keeps the ones running here, and reads and changes any
 * task through the store. @internal
 */
export class Tasks {
  /** Tasks running in this process, by id. */
  private readonly live = new Map<string, LiveTask>();
  private readonly store: TaskStore;

  constructor(
    private readonly options: TaskOptions = {},
    private readonly log: { warn(bindings: object, message: string): void },
    /** Tells the cluster's other instances (the engine's): what is asked of a task running elsewhere reaches its instance. */
    private readonly tell: (message: ClusterMessage) => void = () => undefined,
  ) {
    this.store = options.store ?? new InMemoryTaskStore();
  }

  /** `tasks/cancel` or `tasks/update` asked on another instance: acted on when the task runs here. */
  clusterMessage(message: ClusterMessage & { kind: 'task' }): void {
    const task = this.live.get(message.taskId);
    if (!task) return;
    if (message.action === 'cancel') void this.stop(task);
    else void this.answer(task, message.responses);
  }

  /**
   * Creates a working task, kept in the store before its handle goes out, and runs `work` as it:
   * its result or protocol error settles the task, unless the task was cancelled. Resolves with the
   * handle (the task as first kept).
   */
  async start(work: (task: LiveTask) => Promise<Record<string, unknown>>): Promise<TaskRecord> {
    const task = new LiveTask(nodeCrypto().randomUUID(), new Date().toISOString(), this.options.ttlMs ?? 3_600_000, this.options.pollIntervalMs ?? 1000, this.save);
    const first = task.record();
    try {
      await this.store.create(first);
    } catch (error) {
      this.log.warn({ err: error }, 'the task store failed to keep a new task');
      throw McpError.internalError('Internal error: the task store failed, so the task could not be started; try again later');
    }
    this.live.set(task.taskId, task);
    const forget = () => this.live.delete(task.taskId);
    work(task)
      .then(
        (result) => {
          if (task.terminal) return;
          task.result = result;
          void task.moveTo('completed');
        },
        (error: unknown) => {
          if (task.terminal) return;
          const failure = error instanceof McpError ? error : McpError.internalError();
          task.error = failure.toJSON();
          task.statusMessage = failure.message;
          void task.moveTo('failed');
        },
      )
      .finally(forget);
    return first;
  }

  /** The task of that id, as kept; -32602 when unknown or expired. */
  async get(taskId: unknown): Promise<TaskRecord> {
    let record: TaskRecord | undefined;
    try {
      record = typeof taskId === 'string' ? await this.store.get(taskId) : undefined;
    } catch (error) {
      this.log.warn({ err: error }, 'the task store failed to read a task');
      throw McpError.internalError('Internal error: the task store could not be read; try again later');
    }
    if (!record) throw taskNotFound(taskId);
    return record;
  }

  /**
   * Answers the outstanding questions of a task running here; answers to other keys are ignored
   * (as are answers to a task that is not waiting here).
   */
  async update(taskId: unknown, responses: Record<string, unknown>): Promise<void> {
    const task = this.live.get(taskId as string);
    if (!task) {
      await this.get(taskId);
      // Not running here: the instance running it answers (a task not running anywhere ignores it).
      this.tell({ kind: 'task', action: 'update', taskId: taskId as string, responses });
      return;
    }
    // Answered once the new state is kept: a tasks/get that follows, on any instance, reads it.
    await this.answer(task, responses);
  }

  /** Answers a task's outstanding questions; settles once the task's new state is kept. */
  private answer(task: LiveTask, responses: Record<string, unknown>): Promise<void> | void {
    let answered = 0;
    for (const [key, value] of Object.entries(responses)) {
      const question = task.outstanding.get(key);
      if (!question) continue;
      task.outstanding.delete(key);
      question.answer(value as Record<string, unknown>);
      answered++;
    }
    if (task.status !== 'input_required' || answered === 0) return;
    // All answered: back to work. Some: still waiting, on the questions left only (kept so).
    return task.moveTo(task.outstanding.size === 0 ? 'working' : 'input_required');
  }

  /** Cancels a task (a terminal one stays as it is); one running here is aborted. */
  async cancel(taskId: unknown): Promise<void> {
    const task = this.live.get(taskId as string);
    if (task) {
      // Answered once `cancelled` is kept: a tasks/get that follows, on any instance, reads it.
      await this.stop(task);
      return;
    }
    const record = await this.get(taskId);
    if (TERMINAL_STATUSES.has(record.status)) return;
    const { inputRequests: _questions, ...rest } = record;
    await this.store.update({ ...rest, status: 'cancelled', lastUpdatedAt: new Date().toISOString() });
    // Kept as cancelled: the instance running it stops it now (or when it next saves, if it missed this).
    this.tell({ kind: 'task', action: 'cancel', taskId: record.taskId });
  }

  /** Cancels a task running here and aborts its work (a terminal one stays as it is); settles once kept. */
  private stop(task: LiveTask): Promise<void> | void {
    if (task.terminal) return;
    task.outstanding.clear();
    const saved = task.moveTo('cancelled');
    task.controller.abort(new McpError(-32001, 'task cancelled'));
    return saved;
  }

  /** Saves a task's new state; a store that fails is logged (the task goes on). Never rejects. */
  private readonly save = (task: LiveTask): Promise<void> | void => {
    const fail = (error: unknown) => this.log.warn({ err: error, taskId: task.taskId }, 'the task store failed to save a task');
    // Not replaced: the kept task was cancelled elsewhere (or expired), so the work here stops.
    const kept = (replaced: boolean) => {
      if (!replaced && !task.terminal) void this.stop(task);
    };
    try {
      const saved = this.store.update(task.record());
      if (isThenable(saved)) return Promise.resolve(saved).then(kept, fail);
      kept(saved);
    } catch (error) {
      fail(error);
    }
  };
}
