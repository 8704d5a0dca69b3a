/**
 * Server CPU per call: what a server process spent (user + system, every thread) while it answered a
 * timed run, read from Linux's `/proc`: each thread's run time in nanoseconds
 * (`/proc/<pid>/task/<tid>/schedstat`, what the scheduler counted it on a CPU), summed. The
 * process's `stat` gives the same total in 10 ms ticks, user and system each cut down to a tick:
 * up to 20 ms off, which for a 150 ms start is more than the differences measured. Requests per
 * second shares two cores with the load generator; CPU per call is what a server costs, whoever
 * else runs.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU seconds `pid` and the processes it started (a proxy's server: `hermes-mcp dev`, the bare
 * pipe) have used so far; undefined where `/proc` is not there (not Linux). Threads that ended
 * are not counted by `schedstat`: Node's threads (V8's workers, libuv's pool) live as long as the
 * process. Where `schedstat` is missing (a kernel without scheduler statistics), `stat`'s ticks.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let seconds = threadSeconds(pid);
    for (const child of childrenOf(pid)) seconds += cpuSeconds(child) ?? 0;
    return seconds;
  } catch {
    return undefined;
  }
}

/** The run time of every thread of `pid`, in seconds. */
function threadSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns)) return ns / 1e9;
  } catch {
    // no schedstat here (or a thread ended while read): the process's ticks
  }
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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
