/**
 * Server-side logging with pino. In stdio mode stdout belongs to the protocol, so the default
 * logger writes to stderr (fd 2), always.
 */
import { merge } from '@hermes-mcp/protocol';
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
  /** Where the lines go; default stderr (fd 2: in stdio mode stdout is the protocol's). */
  destination?: pino.DestinationStream;
}

/**
 * What the default logger never writes out (pino's `redact` paths; `[redacted]` instead): the
 * Authorization and Cookie headers wherever a headers object is logged, bearer and OAuth tokens
 * and secrets, and the `requestState` of 2026-07-28 input rounds (it carries what a server sealed
 * for itself). Use them on a logger of your own: `pino({ redact: REDACTED_LOG_PATHS })`, or
 * Fastify's `logger: { redact: REDACTED_LOG_PATHS }`.
 */
export const REDACTED_LOG_PATHS: readonly string[] = Object.freeze(
  ['authorization', 'cookie', 'token', 'accessToken', 'access_token', 'refreshToken', 'refresh_token', 'id_token', 'client_secret', 'clientSecret', 'requestState'].flatMap(
    (key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`],
  ),
);

/**
 * A pino logger that writes JSON lines to stderr, secrets redacted ({@link REDACTED_LOG_PATHS}).
 * Where pino is its browser build (what bundlers for workers pick: no `pino.destination`, no file
 * descriptors), it writes to the console, which is where a worker's logs go.
 */
export function createLogger(options: LoggerOptions = {}): pino.Logger {
  return pino(
    { name: options.name ?? 'hermes-mcp', level: options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info', redact: { paths: [...REDACTED_LOG_PATHS], censor: '[redacted]' } },
    options.destination ?? stderr(),
  );
}

/** pino's asynchronous stderr stream; undefined in its browser build, which has no destinations. */
function stderr(): pino.DestinationStream | undefined {
  return typeof pino.destination === 'function' ? pino.destination({ fd: 2, sync: false }) : undefined;
}

/** The pino levels a {@link Logger} logs at. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** A logger that may say whether a level is on (pino does). */
type LevelAware = Logger & { isLevelEnabled?(level: string): boolean };

/**
 * A child logger made on first use: `parent.child(bindings)` runs the first time something is
 * logged at a level that is on (or when `level` is set). A long-lived owner that seldom logs (an
 * idle HTTP session) then keeps this small object instead of a pino child (about 200 bytes more).
 * Logs carry the bindings exactly as the child would have.
 */
export class LazyChildLogger implements Logger {
  /** The parent until the child is made, then the child. */
  private target: Logger;
  /** The child's bindings, until it is made. */
  private bindings?: Record<string, unknown>;

  constructor(parent: Logger, bindings: Record<string, unknown>) {
    // A lazy parent is never the target: its own child() would be lazy again, and the first log
    // line would make children of children until the stack overflowed. Its real logger (or, while
    // it has none, its parent and bindings) stands in for it.
    if (parent instanceof LazyChildLogger) {
      const pending = parent.bindings;
      this.target = parent.target;
      this.bindings = pending === undefined ? bindings : merge(pending, bindings);
    } else {
      this.target = parent;
      this.bindings = bindings;
    }
  }

  /** The child's level; before the child exists, the parent's (which the child will start with). */
  get level(): string {
    return this.target.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  /** Whether a message at `level` would be written (true when the logger cannot tell). */
  isLevelEnabled(level: string): boolean {
    const target = this.target as LevelAware;
    return typeof target.isLevelEnabled === 'function' ? target.isLevelEnabled(level) : true;
  }

  /** Logs at `fatal`. */
  declare fatal: pino.LogFn;
  /** Logs at `error`. */
  declare error: pino.LogFn;
  /** Logs at `warn`. */
  declare warn: pino.LogFn;
  /** Logs at `info`. */
  declare info: pino.LogFn;
  /** Logs at `debug`. */
  declare debug: pino.LogFn;
  /** Logs at `trace`. */
  declare trace: pino.LogFn;

  /** A child of this logger, itself made on first use. */
  child(bindings: Record<string, unknown>): Logger {
    return new LazyChildLogger(this, bindings);
  }

  /** The real child, made now if it was not yet. */
  private get logger(): Logger {
    const bindings = this.bindings;
    if (bindings !== undefined) {
      this.bindings = undefined;
      this.target = this.target.child(bindings);
    }
    return this.target;
  }

  /** Writes at `level` through the child (made now if this level is on). @internal */
  write(level: LogLevel, args: unknown[]): void {
    if (this.bindings !== undefined && !this.isLevelEnabled(level)) return;
    const logger = this.logger;
    Reflect.apply(logger[level], logger, args);
  }
}

// One method per level on the prototype (shared by every instance), each writing at its level.
for (const level of LOG_LEVELS) {
  Object.defineProperty(LazyChildLogger.prototype, level, {
    value: function (this: LazyChildLogger, ...args: unknown[]): void {
      this.write(level, args);
    },
    writable: true,
    configurable: true,
  });
}
