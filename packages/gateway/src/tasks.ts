/**
 * Following an upstream task (the 2026-07-28 tasks extension) for the gateway's own task: `tasks/get`
 * until it ends, its questions — all those of one `input_required` status at once, under the
 * upstream's keys — asked of the client through the gateway's task, the answers sent with
 * `tasks/update`, and the task cancelled upstream when the client cancels the gateway's.
 */
import type { McpContext } from '@hermes-mcp/core';
import type { CallOptions, McpClient } from '@hermes-mcp/client';
import { ErrorCode, McpError, isRecord } from '@hermes-mcp/protocol';

/** How long to wait between two `tasks/get` when the upstream names no `pollIntervalMs`. */
const DEFAULT_POLL_MS = 1000;

type Question = { method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'; params?: Record<string, unknown> };

/** The upstream task `taskId`'s result, once it completed; its error when it failed or was cancelled. */
export async function followTask(client: McpClient, task: McpContext, taskId: string, options: CallOptions): Promise<Record<string, unknown>> {
  const answered = new Set<string>();
  const signal = task.signal;
  for (;;) {
    if (signal.aborted) {
      await client.cancelTask(taskId).catch(() => undefined);
      throw new McpError(ErrorCode.RequestTimeout, 'Task cancelled by the client', { taskId });
    }
    const state = await client.getTask(taskId, options);
    if (state.status === 'completed') return isRecord(state.result) ? state.result : {};
    if (state.status === 'failed') {
      const error = isRecord(state.error) ? state.error : {};
      throw new McpError(typeof error.code === 'number' ? error.code : ErrorCode.InternalError, typeof error.message === 'string' ? error.message : 'The task failed', error.data);
    }
    if (state.status === 'cancelled') throw new McpError(ErrorCode.RequestTimeout, 'The upstream task was cancelled', { taskId });
    if (state.status === 'input_required' && isRecord(state.inputRequests)) {
      const open = Object.entries(state.inputRequests as Record<string, Question>).filter(([key]) => !answered.has(key));
      if (open.length > 0) {
        // Asked together: the client sees every question of this status at once, under the upstream's keys.
        const answers = await Promise.all(open.map(([key, question]) => task.forwardQuestion(question.method, question.params ?? {}, { key })));
        const inputResponses = Object.fromEntries(open.map(([key], i) => [key, answers[i]]));
        for (const [key] of open) answered.add(key);
        await client.request('tasks/update', { taskId, inputResponses }, options);
        continue;
      }
    }
    const interval = typeof state.pollIntervalMs === 'number' && state.pollIntervalMs >= 0 ? state.pollIntervalMs : DEFAULT_POLL_MS;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, interval);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
