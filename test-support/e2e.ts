/**
 * Small helpers shared by the end-to-end suites that drive a server through the official SDK client.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { RecordingStdioTransport } from './recording-transport';

/** A JSON object as it came off the wire. */
export type Raw = Record<string, unknown>;

/** The `notifications/progress` params the server sent for `token`, and whether all came before the response. */
export function wireProgress(transport: Pick<RecordingStdioTransport, 'received'>, token: string | number): { updates: Raw[]; beforeResponse: boolean } {
  const updates: Raw[] = [];
  let answered = false;
  let beforeResponse = true;
  for (const m of transport.received as Raw[]) {
    if (m.method === 'notifications/progress' && (m.params as Raw).progressToken === token) {
      updates.push(m.params as Raw);
      if (answered) beforeResponse = false;
    }
    if (m.id === token && ('result' in m || 'error' in m)) answered = true;
  }
  return { updates, beforeResponse };
}

/** The text of a result holding exactly one text block. */
export function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  return content[0].text!;
}

/** The McpError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** Polls `check` every 10 ms until it holds; fails after `ms` (default 5 s) saying what never happened. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves with the signal's abort reason once it aborts (at once if it already did). */
export function untilAborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}
