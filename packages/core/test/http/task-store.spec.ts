/**
 * The task store contract (tasks extension, MCP 2026-07-28): two instances (on the same HTTP
 * adapter, each adapter in turn) share one store that
 * answers later (promises), as a networked store does. A task started on one is read and cancelled
 * on the other; a task cancelled elsewhere stays cancelled when its work finishes; a store that
 * fails gives clear errors.
 */
import 'reflect-metadata';
import { InMemoryTaskStore, McpApp, McpContext, McpFactory, McpServer, TaskRecord, TaskStore, Tool, createLogger } from '@hermes-mcp/core';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

/** Jobs the test lets finish. */
const gates = new Map<string, () => void>();

@McpServer({ name: 'tasks', version: '1.0.0' })
class TaskServer {
  @Tool({ description: 'Runs as a task until the test releases it', task: 'required' })
  async job(ctx: McpContext) {
    await new Promise<void>((resolve) => {
      gates.set(String(ctx.request.id), resolve);
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return ctx.signal.aborted ? 'stopped' : 'done';
  }
}

/** Calls `f` `ms` later; rejects with what it throws. */
function later<T>(f: () => T, ms = 1): Promise<T> {
  return new Promise((resolve, reject) =>
    setTimeout(() => {
      try {
        resolve(f());
      } catch (error) {
        reject(error);
      }
    }, ms),
  );
}

/** A task store whose every answer is a promise, and which can be made to fail. */
class LaterTaskStore implements TaskStore {
  readonly inner = new InMemoryTaskStore();
  failing = false;
  /** How long an update takes to land, in milliseconds (a slow network). */
  updateMs = 1;

  private run<T>(f: () => T, ms = 1): Promise<T> {
    return later(() => {
      if (this.failing) throw new Error('the store is down');
      return f();
    }, ms);
  }

  create(task: TaskRecord): Promise<void> {
    return this.run(() => this.inner.create(task));
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.run(() => this.inner.get(taskId));
  }

  update(task: TaskRecord): Promise<boolean> {
    return this.run(() => this.inner.update(task), this.updateMs);
  }
}

const TASKS = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

type Raw = Record<string, any>;

interface Instance {
  serving: Serving;
  mcp: McpApp;
  url: string;
}

async function instance(adapter: Adapter, store: TaskStore): Promise<Instance> {
  const mcp = McpFactory.create(TaskServer, { logger: createLogger({ level: 'silent' }), tasks: { store, pollIntervalMs: 50 } });
  const serving = await serveOn(adapter, mcp);
  return { serving, mcp, url: serving.url };
}

let next = 0;

async function call(url: string, method: string, params: Raw, name: string): Promise<{ status: number; body: Raw }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: `r${++next}`, method, params: { ...params, _meta: META } }),
  });
  return { status: response.status, body: (await response.json()) as Raw };
}

const startJob = (url: string) => call(url, 'tools/call', { name: 'job', arguments: {} }, 'job');
const taskGet = (url: string, taskId: string) => call(url, 'tasks/get', { taskId }, taskId);

async function until(url: string, taskId: string, status: string): Promise<Raw> {
  for (let i = 0; i < 300; i++) {
    const { body } = await taskGet(url, taskId);
    if (body.result?.status === status) return body.result as Raw;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

describe.each(ADAPTERS)('%s', (adapter) => {
  let store: LaterTaskStore;
  let a: Instance;
  let b: Instance;

  beforeEach(async () => {
    store = new LaterTaskStore();
    a = await instance(adapter, store);
    b = await instance(adapter, store);
  });

  afterEach(async () => {
    for (const release of gates.values()) release();
    gates.clear();
    await Promise.all([a.serving.close(), b.serving.close()]);
  });

  describe('two instances sharing a task store', () => {
    it('start a task on one and read it, working then completed, on the other', async () => {
      const started = await startJob(a.url);
      expect(started.status).toBe(200);
      const handle = started.body.result as Raw;
      expect(handle).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
      const taskId = handle.taskId as string;
      expect((await taskGet(b.url, taskId)).body.result).toMatchObject({ taskId, status: 'working' });
      gates.get(`r${next - 1}`)!();
      const done = await until(b.url, taskId, 'completed');
      expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
      expect(await store.get(taskId)).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
    });

    it('cancel a task on the instance that does not run it; its work finishing later does not undo that', async () => {
      const started = await startJob(a.url);
      const requestId = `r${next}`;
      const taskId = (started.body.result as Raw).taskId as string;
      const cancelled = await call(b.url, 'tasks/cancel', { taskId }, taskId);
      expect(cancelled.body.error).toBeUndefined();
      expect((await taskGet(a.url, taskId)).body.result).toMatchObject({ status: 'cancelled' });
      // The work on A ends normally; the store keeps the cancellation.
      gates.get(requestId)!();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect((await taskGet(a.url, taskId)).body.result).toMatchObject({ status: 'cancelled' });
      expect((await taskGet(a.url, taskId)).body.result.result).toBeUndefined();
    });

    it('cancel a task where it runs: answered once the store keeps it cancelled, so the next read anywhere says so', async () => {
      const started = await startJob(a.url);
      const taskId = (started.body.result as Raw).taskId as string;
      const requestId = `r${next}`;
      store.updateMs = 60;
      await call(a.url, 'tasks/cancel', { taskId }, taskId);
      expect((await taskGet(b.url, taskId)).body.result).toMatchObject({ taskId, status: 'cancelled' });
      expect(gates.has(requestId)).toBe(true);
      // Its signal aborted: the work ended, and the task stays cancelled.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await taskGet(b.url, taskId)).body.result).toMatchObject({ taskId, status: 'cancelled' });
    });
  });

  describe('a task store that fails', () => {
    it('refuses to start a task it cannot keep, and cannot read, with a clear error', async () => {
      store.failing = true;
      const refused = await startJob(a.url);
      expect(refused.body.error).toEqual({ code: -32603, message: 'Internal error: the task store failed, so the task could not be started; try again later' });
      const unread = await taskGet(a.url, '00000000-0000-4000-8000-000000000000');
      expect(unread.body.error).toEqual({ code: -32603, message: 'Internal error: the task store could not be read; try again later' });
      store.failing = false;
      expect((await startJob(a.url)).body.result).toMatchObject({ resultType: 'task', status: 'working' });
    });

    it('answers -32602 for a task no instance knows', async () => {
      const unknown = await taskGet(b.url, 'no-such-task');
      expect(unknown.body.error).toMatchObject({ code: -32602, message: 'Invalid params: Failed to retrieve task: Task not found', data: { taskId: 'no-such-task' } });
    });
  });
});
