/**
 * The polling loop behind `McpClient.waitForTask` (the tasks extension): `tasks/get` until the task
 * is over, answering its input requests with the client's handlers, and cancelling it when the
 * caller's signal aborts.
 */
import { ErrorCode, McpError, isRecord } from '@hermes-mcp/protocol';
import type { CallOptions } from './client-api';

/** What the loop asks of the client. */
export interface TaskClient {
  getTask(taskId: string, options: CallOptions): Promise<Record<string, unknown>>;
  cancelTask(taskId: string): Promise<void>;
  /** Answers one of the server's questions with the client's handler (elicitation, sampling, roots). */
  ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends `tasks/update` with the answers. */
  update(params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Follows a task to its end, polling `tasks/get` at its `pollIntervalMs` and answering its
 * questions (`input_required`) with the client's handlers through `tasks/update`. Resolves with
 * the tool's result; rejects with the task's error when it failed, or -32001 when it was
 * cancelled. Aborting `signal` cancels the task.
 */
export async function waitForTask(client: TaskClient, taskId: string, options: CallOptions): Promise<Record<string, unknown>> {
  const signal = options.signal;
  const answered = new Set<string>();
  for (;;) {
    if (signal?.aborted) {
      await client.cancelTask(taskId).catch(() => undefined);
      throw new McpError(ErrorCode.RequestTimeout, 'Task cancelled by the client', { taskId });
    }
    const task = await client.getTask(taskId, { timeout: options.timeout });
    switch (task.status) {
      case 'completed':
        return isRecord(task.result) ? task.result : {};
      case 'failed': {
        const error = isRecord(task.error) ? task.error : {};
        throw new McpError(typeof error.code === 'number' ? error.code : ErrorCode.InternalError, typeof error.message === 'string' ? error.message : 'The task failed', {
          taskId,
          ...(error.data !== undefined && { data: error.data }),
        });
      }
      case 'cancelled':
        throw new McpError(ErrorCode.RequestTimeout, 'The task was cancelled', { taskId });
      case 'input_required': {
        const questions = isRecord(task.inputRequests) ? (task.inputRequests as Record<string, { method: string; params?: Record<string, unknown> }>) : {};
        const inputResponses: Record<string, unknown> = {};
        for (const [key, question] of Object.entries(questions)) {
          if (answered.has(key)) continue;
          inputResponses[key] = await client.ask(question.method, question.params ?? {});
          answered.add(key);
        }
        if (Object.keys(inputResponses).length > 0) {
          await client.update({ taskId, inputResponses });
          continue;
        }
      }
    }
    const interval = typeof task.pollIntervalMs === 'number' && task.pollIntervalMs >= 0 ? task.pollIntervalMs : 1000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, interval);
      signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
