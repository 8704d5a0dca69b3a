/**
 * The memory probe of the bench servers, served at `GET /__bench/memory` when `BENCH_MEMORY=1`
 * (and the process runs with `--expose-gc`): collects garbage until the heap stops shrinking, then
 * answers `process.memoryUsage()`.
 */

/** Path of the probe on every bench HTTP server. */
export const MEMORY_PATH = '/__bench/memory';

/** Whether this process serves the probe. */
export const memoryProbeEnabled = process.env.BENCH_MEMORY === '1';

/** Full GCs, with a turn of the event loop between them so finalizers and weak callbacks run. */
export async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the memory probe needs node --expose-gc');
  let previous = Infinity;
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.memoryUsage().heapUsed;
    if (used >= previous) break;
    previous = used;
  }
  return process.memoryUsage();
}
