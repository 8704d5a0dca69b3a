/** autocannon, reduced to what the bench records of one timed run. */
import autocannon from 'autocannon';
import { withCpu } from './cpu';
import type { RequestTemplate } from './mcp';

/** One timed run against one server. */
export interface HttpRun {
  /** Completed requests per second. */
  rps: number;
  /** Completed requests. */
  total: number;
  /** Latency percentiles, ms (2xx answers only, as autocannon records them). */
  p50: number;
  p99: number;
  /** Answers that were not 2xx, and connection errors or timeouts: a run with any is not valid. */
  non2xx: number;
  errors: number;
  /** The server's CPU µs per completed request (bench/src/cpu.ts); absent where it cannot be read. */
  cpuUs?: number;
}

/** How long a run lasts: seconds, or a number of requests. */
export type Extent = { seconds: number } | { requests: number };

/**
 * Replays `template` (a fresh id, and its `fresh` headers, in every request) over `connections`
 * connections; with the server's `pid`, also what the server spent per request.
 */
export function load(url: string, template: RequestTemplate, connections: number, extent: Extent, pid?: number): Promise<HttpRun> {
  return withCpu(
    pid,
    () => replay(url, template, connections, extent),
    (run) => run.total,
  );
}

async function replay(url: string, template: RequestTemplate, connections: number, extent: Extent): Promise<HttpRun> {
  const fresh = template.fresh;
  const result = await autocannon({
    url,
    method: 'POST',
    headers: template.headers,
    body: template.body,
    ...(fresh && { requests: [{ setupRequest: (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, ...fresh() } }) }] }),
    connections,
    idReplacement: true,
    timeout: 10,
    ...('seconds' in extent ? { duration: extent.seconds } : { amount: extent.requests }),
  });
  return {
    rps: result.requests.total / result.duration,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
