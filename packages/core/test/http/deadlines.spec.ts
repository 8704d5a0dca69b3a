/**
 * `bodyTimeout`'s bookkeeping: one coarse timer for every request. A key never expires before its
 * whole timeout (timers never fire early, so this holds on any machine), a key deleted in time
 * never expires, and keys expire oldest first, each once.
 */
import { Deadlines } from '../../src/transports/http/deadlines';

/** Resolves once `deadlines` expired `count` keys: each key and how long after its add it expired. */
function expiries<K extends object>(timeoutMs: number, count: number): { deadlines: Deadlines<K>; added: Map<K, number>; done: Promise<Array<[K, number]>> } {
  const added = new Map<K, number>();
  const seen: Array<[K, number]> = [];
  let resolve!: (value: Array<[K, number]>) => void;
  const done = new Promise<Array<[K, number]>>((r) => (resolve = r));
  const deadlines = new Deadlines<K>(timeoutMs, (key) => {
    seen.push([key, performance.now() - added.get(key)!]);
    if (seen.length === count) resolve(seen);
  });
  return { deadlines, added, done };
}

describe('Deadlines', () => {
  it('expires a key no sooner than its timeout, oldest first, each once; a key deleted in time never', async () => {
    const { deadlines, added, done } = expiries<object>(200, 2);
    const first = {};
    const kept = {};
    const second = {};
    for (const key of [first, kept]) {
      added.set(key, performance.now());
      deadlines.add(key);
    }
    await new Promise((r) => setTimeout(r, 70));
    added.set(second, performance.now());
    deadlines.add(second);
    deadlines.delete(kept);
    const seen = await done;
    expect(seen.map(([key]) => key)).toEqual([first, second]);
    for (const [, after] of seen) expect(after).toBeGreaterThanOrEqual(200 - 1);
    // Nothing else comes: the deleted key never expires, and the timer stops with no key left.
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(2);
  });

  it('does nothing with no timeout (0 or Infinity)', async () => {
    for (const timeout of [0, Infinity]) {
      let expired = 0;
      const deadlines = new Deadlines<object>(timeout, () => expired++);
      deadlines.add({});
      await new Promise((r) => setTimeout(r, 20));
      expect(expired).toBe(0);
    }
  });
});
