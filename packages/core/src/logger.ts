/**
 * Server-side logging with pino. In stdio mode stdout belongs to the protocol, so the default
 * logger writes to stderr (fd 2), always. An app's default logger is made the first time it writes
 * a line ({@link deferredLogger}): a server that has nothing to say starts without loading pino.
 */
import { merge } from '@hermes-mcp/protocol';
import type pino from 'pino';

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
  // Loaded here, the first time a logger is made (its module and sonic-boom's, thread-stream's).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pino = require('pino') as typeof import('pino');
  return pino(
    { name: options.name ?? 'hermes-mcp', level: options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info', redact: { paths: [...REDACTED_LOG_PATHS], censor: '[redacted]' } },
    options.destination ?? stderr(pino),
  );
}

/** pino's asynchronous stderr stream; undefined in its browser build, which has no destinations. */
function stderr(pino: typeof import('pino')): pino.DestinationStream | undefined {
  return typeof pino.destination === 'function' ? pino.destination({ fd: 2, sync: false }) : undefined;
}

/** The pino levels a {@link Logger} logs at. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** A logger that may say whether a level is on (pino does). */
type LevelAware = Logger & { isLevelEnabled?(level: string): boolean };

/**
 * What the two lazy loggers share: one method per level, on this prototype (set below), each
 * handing its arguments to `write`, which decides whether a line is written and makes the logger
 * that writes it.
 */
abstract class LazyLevels {
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

  /** Writes at `level` (making the real logger if this level is on). @internal */
  abstract write(level: LogLevel, args: unknown[]): void;
}

/**
 * A child logger made on first use: `parent.child(bindings)` runs the first time something is
 * logged at a level that is on (or when `level` is set). A long-lived owner that seldom logs (an
 * idle HTTP session) then keeps this small object instead of a pino child (about 200 bytes more).
 * Logs carry the bindings exactly as the child would have.
 */
export class LazyChildLogger extends LazyLevels implements Logger {
  /** The parent until the child is made, then the child. */
  private target: Logger;
  /** The child's bindings, until it is made. */
  private bindings?: Record<string, unknown>;

  constructor(parent: Logger, bindings: Record<string, unknown>) {
    super();
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

  /** A child of this logger, itself made on first use. */
  child(bindings: Record<string, unknown>): Logger {
    return new LazyChildLogger(this, bindings);
  }

  /** The real child, made now if it was not yet. */
  private get logger(): Logger {
    const bindings = this.bindings;
    if (bindings !== undefined) {
      this.bindings = undefined;
      // A deferred logger's child() is lazy too: the child is made of the pino logger under it.
      const parent = this.target instanceof DeferredLogger ? this.target.pino : this.target;
      this.target = parent.child(bindings);
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

/** pino's levels by name, as numbers (a line is written when its level's is at least the logger's). */
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/** `level` if pino knows it; else the error pino would throw, at once rather than at the first line. */
function knownLevel(level: string): string {
  if (!(level in LEVEL_VALUES)) throw new Error(`unknown level ${level}`);
  return level;
}

/**
 * The logger {@link createLogger} would make, made the first time a line is written at a level that
 * is on (or something asks for pino itself): until then it knows its level, says which levels are
 * on, and hands out {@link LazyChildLogger} children. An app's default logger (`McpFactory.create`
 * without `logger`); a stdio server that writes no line never loads pino.
 *
 * @internal
 */
export class DeferredLogger extends LazyLevels implements Logger {
  private made?: pino.Logger;
  private wanted: string;

  constructor(private readonly options: LoggerOptions = {}) {
    super();
    this.wanted = knownLevel(options.level ?? process.env.HERMES_LOG_LEVEL ?? 'info');
  }

  /** The pino logger, made now if it was not yet. */
  get pino(): pino.Logger {
    return (this.made ??= createLogger({ ...this.options, level: this.wanted }));
  }

  /** The level; setting it before the logger is made only remembers it. */
  get level(): string {
    return this.made ? this.made.level : this.wanted;
  }

  set level(level: string) {
    if (this.made) this.made.level = level;
    else this.wanted = knownLevel(level);
  }

  /** Whether a line at `level` would be written. */
  isLevelEnabled(level: string): boolean {
    return this.made ? this.made.isLevelEnabled(level) : (LEVEL_VALUES[level] ?? 0) >= LEVEL_VALUES[this.wanted];
  }

  /** A child with `bindings`, itself made on first use. */
  child(bindings: Record<string, unknown>): Logger {
    return new LazyChildLogger(this, bindings);
  }

  /** Writes at `level` (making the pino logger if this level is on). @internal */
  write(level: LogLevel, args: unknown[]): void {
    if (!this.made && !this.isLevelEnabled(level)) return;
    const logger = this.pino;
    Reflect.apply(logger[level], logger, args);
  }
}

/** The default logger of an app: {@link createLogger}'s, made when it first writes a line. @internal */
export function deferredLogger(options: LoggerOptions = {}): Logger {
  return new DeferredLogger(options);
}

// One method per level on the lazy loggers' shared prototype, each writing at its level.
for (const level of LOG_LEVELS) {
  Object.defineProperty(LazyLevels.prototype, level, {
    value: function (this: LazyLevels, ...args: unknown[]): void {
      this.write(level, args);
    },
    writable: true,
    configurable: true,
  });
}
