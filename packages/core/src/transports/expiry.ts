/**
 * The end of a long-lived connection's authorization: a WebSocket, an SSE stream, a listen stream
 * is opened with an access token that expires (`AuthInfo.expiresAt`), and serves no longer than
 * it. One timer per connection, unref'd (it never keeps a process alive) and cleared when the
 * connection ends first.
 */
import { MAX_TIMER_DELAY } from '@hermes-mcp/protocol';

/**
 * Runs `expire` at `expiresAt` (seconds since the epoch, as `AuthInfo.expiresAt`; at once when
 * that has passed) and returns what cancels it. A timer waits ~24.8 days at most: a later expiry
 * is waited for in steps. @internal
 */
export function atExpiry(expiresAt: number, expire: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    // The wall clock, as the token's `exp` is: a timer that fired early by its own clock waits the rest.
    const delay = expiresAt * 1000 - Date.now();
    if (delay <= 0) {
      timer = undefined;
      expire();
      return;
    }
    timer = setTimeout(arm, Math.min(delay, MAX_TIMER_DELAY));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
