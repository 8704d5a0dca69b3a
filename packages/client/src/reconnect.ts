/**
 * How the client transports reconnect: the options, and the delay before each attempt (an
 * exponential backoff with jitter, so that clients dropped together do not come back together).
 */

/** How a lost connection or stream is reconnected. */
export interface ReconnectOptions {
  /** The first delay, in milliseconds, when the server gave no `retry` (default 1000). */
  initialDelayMs?: number;
  /** The longest delay (default 30 000). */
  maxDelayMs?: number;
  /** Each attempt waits this many times longer than the one before (default 2). */
  factor?: number;
  /** Attempts in a row before giving up (default 5). */
  maxAttempts?: number;
}

/** Attempts in a row before a transport gives up, unless told otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Milliseconds to wait before attempt `attempt` (0-based): the server's `retry` for the first one
 * when it gave one, else between half and all of `initialDelayMs × factor^attempt`, at most
 * `maxDelayMs`.
 */
export function backoffDelay(attempt: number, options: ReconnectOptions = {}, retryMs?: number): number {
  if (retryMs !== undefined && attempt === 0) return retryMs;
  const { initialDelayMs = 1000, maxDelayMs = 30_000, factor = 2 } = options;
  const base = Math.min(maxDelayMs, (retryMs ?? initialDelayMs) * factor ** attempt);
  return base / 2 + Math.random() * (base / 2);
}
