/**
 * The loop behind `McpClient.listen` (MCP 2026-07-28 `subscriptions/listen`): the notifications
 * tagged with the listen request's id, as they come, until the server ends it, the client breaks
 * out or aborts — and, when the token the stream was opened with expires (-32014), listening again.
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';
import type { JsonRpcNotification, RequestId } from '@hermes-mcp/protocol';
import type { CallOptions, ListenFilter } from './client-api';

/** Sends one `subscriptions/listen` request with `params` (the client's `request`). */
export type ListenRequest = (params: Record<string, unknown>, options: CallOptions) => Promise<Record<string, unknown>>;

/**
 * The notifications of a listen `ask` opens; `listens` is where the client routes the
 * notifications tagged with a request id (the id is registered while the request is open).
 */
export async function* listenStream(
  ask: ListenRequest,
  listens: Map<RequestId, (notification: JsonRpcNotification) => void>,
  filter: ListenFilter,
  options: { signal?: AbortSignal },
): AsyncGenerator<JsonRpcNotification> {
  const queue: JsonRpcNotification[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: Error | undefined;
  const controller = new AbortController();
  const stop = () => controller.abort(new McpError(ErrorCode.RequestTimeout, 'Listening ended by the client'));
  options.signal?.addEventListener('abort', stop, { once: true });
  let id: RequestId | undefined;
  /** True once the server acknowledged the listen under way: a token that expires after that is renewed once. */
  let acknowledged = false;
  const subscribe = (): void => {
    acknowledged = false;
    void ask(
      { notifications: filter },
      {
        signal: controller.signal,
        timeout: Infinity,
        onId: (sent) => {
          if (id !== undefined) listens.delete(id);
          id = sent;
          listens.set(sent, (notification) => {
            if (notification.method === 'notifications/subscriptions/acknowledged') acknowledged = true;
            queue.push(notification);
            wake?.();
          });
        },
      },
    )
      .then(
        () => (ended = true),
        (error: unknown) => {
          // The token the stream was opened with expired (-32014): listened to again, the
          // transport's auth gets a fresh one. Once an acknowledgement came, so never in a loop.
          if (error instanceof McpError && error.code === ErrorCode.TokenExpired && acknowledged && !controller.signal.aborted) return subscribe();
          ended = true;
          if (!controller.signal.aborted) failure = error instanceof Error ? error : new Error(String(error));
        },
      )
      .finally(() => wake?.());
  };
  subscribe();
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    if (failure !== undefined) throw failure;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    if (!ended) stop();
    if (id !== undefined) listens.delete(id);
  }
}
