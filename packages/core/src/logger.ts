/**
 * Server-side logging with pino. In stdio mode stdout belongs to the protocol, so the default
 * logger writes to stderr (fd 2), always.
 */
import pino from 'pino';

/**
 * The logger the framework needs: the part of pino's API it uses, so pino itself, a pino child and
 * Fastify's `request.log` / `app.log` all fit.
 */
export interface Logger {
  level: string;
  fatal: pino.LogFn;
  error: pino.LogFn;
  warn: pino.LogFn;
  info: pino.LogFn;
  debug: pino.LogFn;
  trace: pino.LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

/** Options of the default logger. */
export interface LoggerOptions {
  /** pino level; default `info`, or `HERMES_LOG_LEVEL` from the environment. */
  level?: string;
  /** Logger name; default `hermes-mcp`. */
  name?: string;
}

/** A pino logger that writes JSON lines to stderr. */
export function createLogger(options: LoggerOptions = {}): pino.Logger {
  return pino(
    { name: options.name ?? 'hermes-mcp', level: options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info' },
    pino.destination({ fd: 2, sync: false }),
  );
}
