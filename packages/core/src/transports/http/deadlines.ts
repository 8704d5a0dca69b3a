/**
 * Deadlines for request bodies (`bodyTimeout`): a client that sends its body a byte a second
 * cannot hold a request, and its connection, for ever. One timer serves every request: all have
 * the same timeout, so the order they were added in is the order they expire in, and a request
 * whose body arrived in time costs a map entry and nothing else.
 */

/**
 * One deadline per key (a request), each `timeoutMs` after it was added; `expire` is told the keys
 * that pass theirs. A key costs a map entry (no closure, no timer). For the Hermes packages.
 */
export class Deadlines<K extends object> {
  /** When each key expires (`performance.now()`), in the order they were added. */
  private readonly pending = new Map<K, number>();
  private timer?: ReturnType<typeof setTimeout> = undefined;

  constructor(
    /** How long each may run, in milliseconds (`Infinity` or 0: no deadline). */
    readonly timeoutMs: number,
    private readonly expire: (key: K) => void,
  ) {}

  /** Calls `expire(key)` `timeoutMs` from now unless {@link delete} comes first. */
  add(key: K): void {
    if (!(this.timeoutMs > 0 && this.timeoutMs < Infinity)) return;
    this.pending.set(key, performance.now() + this.timeoutMs);
    if (this.timer === undefined) this.schedule(this.timeoutMs);
  }

  /** The work is done in time: no expiry. */
  delete(key: K): void {
    this.pending.delete(key);
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(this.sweep, Math.max(0, Math.ceil(delay)));
    this.timer.unref?.();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const [key, at] of this.pending) {
      // Timers count whole milliseconds: one that fires a fraction early still counts.
      if (at > now + 1) return this.schedule(at - now);
      this.pending.delete(key);
      this.expire(key);
    }
  };
}
