/**
 * Deadlines for request bodies (`bodyTimeout`): a client that sends its body a byte a second
 * cannot hold a request, and its connection, for ever. One timer serves every request, on a
 * coarse clock: it ticks every quarter of the timeout while any request waits, and a request is
 * cut on the first tick at least the whole timeout after it began — so between `timeoutMs` and
 * 1.25 × `timeoutMs`. A request whose body arrives in time costs one map entry: no clock read, no
 * closure, no timer (reading the clock per request cost more than the rest of this bookkeeping).
 */

/** Ticks per timeout. */
const TICKS = 4;

/**
 * One deadline per key (a request), between `timeoutMs` and 1.25 × `timeoutMs` after it was
 * added; `expire` is told the keys that pass theirs. For the Hermes packages.
 */
export class Deadlines<K extends object> {
  /** The tick each key was added in, in the order they were added (so, oldest first). */
  private readonly pending = new Map<K, number>();
  /** Ticks so far: advanced by the timer, which runs only while keys are pending. */
  private tick = 0;
  private timer?: ReturnType<typeof setTimeout> = undefined;
  private readonly step: number;

  constructor(
    /** How long each may run at least, in milliseconds (`Infinity` or 0: no deadline). */
    readonly timeoutMs: number,
    private readonly expire: (key: K) => void,
  ) {
    this.step = timeoutMs > 0 && timeoutMs < Infinity ? Math.max(1, Math.ceil(timeoutMs / TICKS)) : 0;
  }

  /** Calls `expire(key)` once `timeoutMs` (up to a quarter more) has passed, unless {@link delete} comes first. */
  add(key: K): void {
    if (this.step === 0) return;
    this.pending.set(key, this.tick);
    if (this.timer === undefined) this.schedule();
  }

  /** The work is done in time: no expiry. */
  delete(key: K): void {
    this.pending.delete(key);
  }

  private schedule(): void {
    this.timer = setTimeout(this.sweep, this.step);
    this.timer.unref?.();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    this.tick++;
    // A key added in tick t has seen at least TICKS whole steps once tick t + TICKS + 1 begins.
    for (const [key, at] of this.pending) {
      if (this.tick - at <= TICKS) break;
      this.pending.delete(key);
      this.expire(key);
    }
    if (this.pending.size > 0) this.schedule();
  };
}
