/**
 * What every bench server shares: it ends when the runner says so (SIGTERM), when the runner goes
 * away (its IPC channel closes), and tells the runner where it listens. Ending through
 * `process.exit` (not a signal's default action) lets `--cpu-prof` write its profile.
 */
import type { AddressInfo } from 'node:net';

/** What an HTTP bench server sends the runner once it listens. */
export interface ReadyMessage {
  ready: true;
  port: number;
  /** Extra figures a server measured about itself (bootstrap timings). */
  timings?: Record<string, number>;
}

/** Ends the process with the runner: on SIGTERM/SIGINT, and when the IPC channel closes. */
export function tieToRunner(): void {
  const stop = () => process.exit(0);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (process.send) process.once('disconnect', stop);
}

/** Tells the runner the server listens (over IPC). */
export function announce(address: AddressInfo | string | null, timings?: Record<string, number>): void {
  if (!address || typeof address === 'string') throw new Error(`expected a TCP address, got ${String(address)}`);
  const message: ReadyMessage = { ready: true, port: address.port, ...(timings && { timings }) };
  process.send?.(message);
}

/** Reports a failed start on stderr and ends the process (the runner shows stderr). */
export function fail(error: unknown): never {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
}
