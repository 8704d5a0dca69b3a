/**
 * Server CPU per call: what a server process spent (user + system, every thread) while it answered a
 * timed run, read from Linux's `/proc/<pid>/stat`. Requests per second shares two cores with the
 * load generator; CPU per call is what a server costs, whoever else runs.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU seconds `pid` and the processes it started (a proxy's server: `hermes-mcp dev`, the bare
 * pipe) have used so far; undefined where `/proc` is not there (not Linux).
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    let seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    for (const child of childrenOf(pid)) seconds += cpuSeconds(child) ?? 0;
    return seconds;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}

/** Runs `work` and returns its result with the server's CPU µs per call (`calls` of the result), its processes' together. */
export async function withCpu<T extends object>(pid: number | undefined, work: () => Promise<T>, calls: (result: T) => number): Promise<T & { cpuUs?: number }> {
  const before = cpuSeconds(pid);
  const result = await work();
  const after = cpuSeconds(pid);
  const n = calls(result);
  if (before === undefined || after === undefined || n <= 0) return result;
  return { ...result, cpuUs: ((after - before) * 1e6) / n };
}
