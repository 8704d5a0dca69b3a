/**
 * Server-side logging with pino. In stdio mode stdout belongs to the protocol, so the default
 * logger writes to stderr (fd 2), always.
 */
import pino from 'pino';

/** The logger type used across the framework (pino's). */
export type Logger = pino.Logger;

/** Options of the default logger. */
export interface LoggerOptions {
  /** pino level; default `info`, or `HERMES_LOG_LEVEL` from the environment. */
  level?: string;
  /** Logger name; default `hermes-mcp`. */
  name?: string;
}

/** A pino logger that writes JSON lines to stderr. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { name: options.name ?? 'hermes-mcp', level: options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info' },
    pino.destination({ fd: 2, sync: false }),
  );
}
