/**
 * Deadlines for request bodies (`bodyTimeout`): a client that sends its body a byte a second
 * cannot hold a request, and its connection, for ever. One timer serves every request: all have
 * the same timeout, so the order they were added in is the order they expire in, and a request
 * whose body arrived in time costs a map entry and nothing else.
 */

/** One deadline per key (a request), each `timeoutMs` after it was added. For the Hermes packages. */
export class Deadlines<K extends object> {
  private readonly pending = new Map<K, { at: number; expire: () => void }>();
  private timer?: ReturnType<typeof setTimeout> = undefined;

  constructor(
    /** How long each may run, in milliseconds (`Infinity` or 0: no deadline). */
    readonly timeoutMs: number,
  ) {}

  /** Calls `expire` `timeoutMs` from now unless {@link delete} comes first. */
  add(key: K, expire: () => void): void {
    if (!(this.timeoutMs > 0 && this.timeoutMs < Infinity)) return;
    this.pending.set(key, { at: performance.now() + this.timeoutMs, expire });
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
    for (const [key, entry] of this.pending) {
      // Timers count whole milliseconds: one that fires a fraction early still counts.
      if (entry.at > now + 1) return this.schedule(entry.at - now);
      this.pending.delete(key);
      entry.expire();
    }
  };
}
