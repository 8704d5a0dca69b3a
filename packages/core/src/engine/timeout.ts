/**
 * Handler time limits: a handler that runs past its limit has its signal aborted and the request
 * is answered at once, whether or not the handler looks at the signal.
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';
import type { McpContext } from '../context/mcp-context';

/**
 * Runs `run`; after `ms` milliseconds aborts `ctx.signal` with a -32001 error and settles with
 * `onTimeout(error)` instead (which may throw). Without `ms`, just runs.
 * @internal
 */
export function withTimeout<T>(ctx: McpContext, ms: number | undefined, run: () => Promise<T> | T, onTimeout: (error: McpError) => T): Promise<T> | T {
  if (!ms || ms <= 0 || !Number.isFinite(ms)) return run();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const error = new McpError(ErrorCode.RequestTimeout, `${ctx.request.method} timed out after ${ms} ms`, { timeout: ms });
      ctx.abort(error);
      try {
        resolve(onTimeout(error));
      } catch (failure) {
        reject(failure);
      }
    }, ms);
    Promise.resolve()
      .then(run)
      .then(
        (value) => {
          if (settled) return;
          clearTimeout(timer);
          resolve(value);
        },
        (error) => {
          if (settled) return;
          clearTimeout(timer);
          reject(error as Error);
        },
      );
  });
}
