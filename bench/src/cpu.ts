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
    // One pass over the threads: each one's run time, and the processes it started.
    let ns = 0;
    const children: number[] = [];
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += runTimeNs(pid, tid);
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (child) children.push(Number(child));
    }
    let seconds = Number.isFinite(ns) ? ns / 1e9 : tickSeconds(pid);
    for (const child of children) seconds += cpuSeconds(child) ?? 0;
    return seconds;
  } catch {
    return undefined;
  }
}

/** A thread's run time in nanoseconds; NaN where `schedstat` is missing (or the thread ended while read). */
function runTimeNs(pid: number, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/** The process's user + system time from `stat`, in whole ticks. */
function tickSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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
