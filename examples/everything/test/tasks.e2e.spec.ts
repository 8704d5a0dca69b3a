/**
 * The tasks extension of MCP 2026-07-28 over stdio, against the built everything server: a tool
 * that runs as a task when the request declares the extension, questions that park the task until
 * tasks/update answers them, cancellation, MRTR before a task (ctx.runAsTask), and the gates.
 */
import * as path from 'node:path';
import { RawMessage, RawStdioClient } from '../../../test-support/raw-stdio-client';

const root = path.join(__dirname, '../../..');
const TASKS = 'io.modelcontextprotocol/tasks';

function envelope(extensions = true): RawMessage {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, ...(extensions && { extensions: { [TASKS]: {} } }) },
  };
}

describe('the tasks extension over stdio (MCP 2026-07-28)', () => {
  let client: RawStdioClient;
  let next = 0;
  const call = async (method: string, params: RawMessage = {}, extensions = true) => client.request(`t${++next}`, method, { ...params, _meta: envelope(extensions) });
  const resultOf = async (method: string, params: RawMessage = {}, extensions = true) => {
    const response = await call(method, params, extensions);
    expect(response.error).toBeUndefined();
    return response.result as RawMessage;
  };
  const poll = async (taskId: string, status: string) => {
    for (let i = 0; i < 200; i++) {
      const task = await resultOf('tasks/get', { taskId });
      if (task.status === status) return task;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`task ${taskId} never reached ${status}`);
  };

  beforeAll(() => {
    client = new RawStdioClient({ command: process.execPath, args: [path.join(root, 'examples/everything/dist/main.js')], cwd: root });
  });

  afterAll(async () => {
    const exit = await client.end();
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('advertises the extension in server/discover, not the legacy tasks capability', async () => {
    const discovered = await resultOf('server/discover');
    const capabilities = discovered.capabilities as RawMessage;
    expect(capabilities.extensions).toEqual({ [TASKS]: {} });
    expect(capabilities.tasks).toBeUndefined();
  });

  it('runs a task: the handle first, input_required while it asks, completed after tasks/update', async () => {
    const handle = await resultOf('tools/call', { name: 'long_job', arguments: { steps: 1, delayMs: 5, label: 'J' } });
    expect(handle).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(handle.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(handle.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    for (const absent of ['result', 'error', 'inputRequests', 'requestState', 'content']) expect(handle[absent]).toBeUndefined();
    // An empty content list keeps the handle a valid CallToolResult for clients that validate it as one.
    const taskId = handle.taskId as string;

    const waiting = await poll(taskId, 'input_required');
    expect(waiting.resultType).toBe('complete');
    expect(Object.keys(waiting.inputRequests as RawMessage)).toEqual(['keep']);
    expect((waiting.inputRequests as Record<string, RawMessage>).keep.method).toBe('elicitation/create');

    const ack = await resultOf('tasks/update', { taskId, inputResponses: { keep: { action: 'accept', content: { name: 'Ann' } }, unknown: { ignored: true } } });
    for (const absent of ['taskId', 'status', 'result', 'error', 'inputRequests']) expect(ack[absent]).toBeUndefined();
    expect(ack.resultType).toBe('complete');

    const done = await poll(taskId, 'completed');
    expect((done.result as RawMessage).content).toEqual([{ type: 'text', text: 'J: kept for Ann' }]);
  });

  it('runs the same tool synchronously when the request does not declare the extension', async () => {
    const first = await resultOf('tools/call', { name: 'long_job', arguments: { steps: 1, delayMs: 1 } }, false);
    expect(first.resultType).toBe('input_required');
    expect(first.taskId).toBeUndefined();
  });

  it('cancels a task, and acknowledges cancelling a finished one', async () => {
    const handle = await resultOf('tools/call', { name: 'long_job', arguments: { steps: 50, delayMs: 1000 } });
    const ack = await resultOf('tasks/cancel', { taskId: handle.taskId });
    expect(ack.resultType).toBe('complete');
    expect((await resultOf('tasks/get', { taskId: handle.taskId })).status).toBe('cancelled');
    expect((await resultOf('tasks/cancel', { taskId: handle.taskId })).resultType).toBe('complete');
  });

  it('asks through MRTR first, then goes on as a task (ctx.runAsTask)', async () => {
    const first = await resultOf('tools/call', { name: 'composed' });
    expect(first.resultType).toBe('input_required');
    expect(first.taskId).toBeUndefined();
    expect(Object.keys(first.inputRequests as RawMessage)).toEqual(['user_name']);
    const second = await resultOf('tools/call', {
      name: 'composed',
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.requestState,
    });
    expect(second.resultType).toBe('task');
    expect(second.requestState).toBeUndefined();
    const done = await poll(second.taskId as string, 'completed');
    expect(JSON.stringify(done.result)).toContain('built for Alice');
  });

  it('gates tasks on the extension (-32021) and refuses unknown task ids (-32602)', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = await call(method, { taskId: 'gate-test', inputResponses: {} }, false);
      expect((refused.error as RawMessage).code).toBe(-32021);
      expect((refused.error as RawMessage).data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    const required = await call('tools/call', { name: 'composed' }, false);
    expect((required.error as RawMessage).code).toBe(-32021);
    const unknown = await call('tasks/get', { taskId: 'no-such-task' });
    expect((unknown.error as RawMessage).code).toBe(-32602);
    for (const method of ['tasks/result', 'tasks/list']) {
      expect(((await call(method, { taskId: 'x' })).error as RawMessage).code).toBe(-32601);
    }
  });
});
