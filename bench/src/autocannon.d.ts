/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    idReplacement?: boolean;
    /** Requests in turn; `setupRequest` changes one before each time it is sent. */
    requests?: Array<{ setupRequest?: (request: { headers?: Record<string, string> }) => { headers?: Record<string, string> } }>;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export = autocannon;
}
