/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, as MCP defines it.
 *
 * Lines are split from raw chunks (no readline: fewer copies). A line longer than
 * `maxMessageBytes` is discarded as it streams in and answered with -32600, so one oversized
 * message cannot exhaust memory. Nothing but protocol is ever written to stdout: while it serves
 * `process.stdout`, `console.log` and the other console methods that write there go to stderr.
 *
 * Output is backpressured: while stdout holds more than its high-water mark unwritten, no more
 * input is read (the client's own pipe fills up instead of the server's memory). Past
 * `maxBufferedBytes` unread, notifications are dropped and the request they belonged to is
 * answered with -32011 (client too slow). An answer goes out unless it would leave more than
 * `maxUnreadBytes` unread (then -32011 in its place) or is larger than `maxResultBytes` (-32013).
 */
import type { AuthInfo } from '../context/mcp-context';
import { isAscii } from 'node:buffer';
import * as nodeConsole from 'node:console';
import type { Readable, Writable } from 'node:stream';
import { JsonRpcMessage, McpError, DONE, ParsedFrame, RequestId, SendOptions, Transport, TransportInfo, isResponse, parseFrame } from '@hermes-mcp/protocol';
import { DEFAULT_MAX_RESULT_BYTES } from '../engine/engine';
import { DEFAULT_MAX_UNREAD_BYTES, OutputLimits, Outgoing, clientTooSlow, dropForSlowClient, outgoing } from './backpressure';

/** Options of {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** Where messages are read from; default `process.stdin`. */
  input?: Readable;
  /** Where messages are written to; default `process.stdout`. */
  output?: Writable;
  /** The largest message accepted, in bytes (default 4 MiB). */
  maxMessageBytes?: number;
  /**
   * The most output the client may leave unread, in bytes (default 4 MiB): past it,
   * notifications are dropped and the requests they belong to are answered with -32011. Input is
   * not read while the output is over its high-water mark, whatever this limit.
   */
  maxBufferedBytes?: number;
  /**
   * The most output the client may leave unread before an answer is withheld, in bytes (default
   * 64 MiB): an answer that would pass it is replaced by -32011, so twenty calls for large results
   * from a client that reads nothing cost the server one result, not twenty.
   */
  maxUnreadBytes?: number;
  /**
   * The largest answer sent, in bytes (default: the app's `maxResultBytes`, 16 MiB); larger is
   * answered with -32013.
   */
  maxResultBytes?: number;
  /**
   * While serving `process.stdout`, send what `console.log`, `info`, `debug`, `dir`, `dirxml`,
   * `table`, `count`, `group` and `time*` write to stderr instead, so a stray log line cannot
   * corrupt the protocol stream (default true).
   */
  redirectConsole?: boolean;
  /**
   * `McpApp.listen()` only: end the process once stdin closed and the requests in flight were
   * answered (at most the app's `shutdownGracePeriod` later) if it does not end by itself within a
   * second (default true). Turn it off when the process serves something else too.
   */
  exitOnClose?: boolean;
  /**
   * `McpApp.listen()` only: on SIGTERM or SIGINT, shut down gracefully (requests in flight are
   * answered, within the grace period), then exit (default true).
   */
  handleSignals?: boolean;
  /**
   * Who the client is (`ctx.auth` of every request): MCP's authorization is for HTTP, and a stdio
   * server takes its credentials from the environment instead. Give the identity those stand for
   * (e.g. the scopes of an API key it was started with); without it, components with `scopes` are
   * refused on stdio.
   */
  auth?: AuthInfo;
}

/** Default limit of one message: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Default limit of the output a client may leave unread, per stream: 4 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The console methods that write to stdout. */
const STDOUT_CONSOLE_METHODS = [
  'log',
  'info',
  'debug',
  'dir',
  'dirxml',
  'table',
  'count',
  'countReset',
  'group',
  'groupCollapsed',
  'groupEnd',
  'time',
  'timeLog',
  'timeEnd',
] as const;

type ConsoleMethod = (typeof STDOUT_CONSOLE_METHODS)[number];

/**
 * `Console`, taken when this module loads: a process restored from a V8 startup snapshot has no
 * `console.Console` (nor `require('node:console').Console`), but the class itself survives in
 * the snapshot's heap — read at call time, `listen()` threw there.
 */
const ConsoleClass = nodeConsole.Console;

/**
 * Points the console's stdout methods at stderr until the returned function puts them back (only
 * if nobody replaced them meanwhile).
 */
function redirectConsoleToStderr(): () => void {
  // Made on the first call: a server that never logs does not open process.stderr for it (a
  // stream, and a pipe's socket, of every start).
  let stderrConsole: Console | undefined;
  const saved = new Map<ConsoleMethod, unknown>();
  const target = console as unknown as Record<ConsoleMethod, unknown>;
  for (const method of STDOUT_CONSOLE_METHODS) {
    saved.set(method, target[method]);
    target[method] = (...args: unknown[]): void => {
      stderrConsole ??= new ConsoleClass({ stdout: process.stderr, stderr: process.stderr });
      (stderrConsole[method] as (...args: unknown[]) => void)(...args);
    };
  }
  const installed = new Map(STDOUT_CONSOLE_METHODS.map((m) => [m, target[m]]));
  return () => {
    for (const [method, original] of saved) if (target[method] === installed.get(method)) target[method] = original;
  };
}

const NEWLINE = 0x0a;

/** Newline-delimited JSON over a pair of streams (stdin/stdout by default). */
export class StdioTransport implements Transport {
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame) => void;
  onclose?: () => void;
  oninputend?: () => void;
  onerror?: (error: Error) => void;
  onabort?: (requestId: RequestId, error: McpError) => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxBytes: number;
  private readonly maxBuffered: number;
  private readonly limits: OutputLimits;
  private readonly redirect: boolean;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private closed = false;
  /** True while input is paused until the output drains. */
  private inputPaused = false;
  /** Puts the console back, while it is redirected. */
  private restoreConsole?: () => void;
  /** Notifications dropped because the client did not read. */
  private dropped = 0;

  constructor(options: StdioTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.limits = { maxResultBytes: options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, maxUnreadBytes: options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES };
    this.redirect = options.redirectConsole ?? true;
    this.info = Object.freeze(options.auth === undefined ? { kind: 'stdio', pid: process.pid } : { kind: 'stdio', pid: process.pid, auth: options.auth });
  }

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onError);
    this.output.on('error', this.onError);
    if (this.redirect && this.output === process.stdout) this.restoreConsole = redirectConsoleToStderr();
    return DONE;
  }

  /** Bytes written and not yet taken by the client (queued here or in the output stream). */
  get bufferedBytes(): number {
    return this.outbox.length + this.output.writableLength;
  }

  /** Notifications dropped so far because the client left too much output unread. */
  get droppedCount(): number {
    return this.dropped;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return DONE;
    const unread = this.outbox.length + this.output.writableLength;
    // What a handler sends besides its answer is dropped once the client fell too far behind;
    // answers go out within the client's unread budget (see backpressure.ts).
    if (unread > this.maxBuffered && !Array.isArray(message) && !isResponse(message)) {
      return this.overflow(message, options?.relatedRequestId, clientTooSlow(this.maxBuffered, 'output'));
    }
    let out: Outgoing;
    try {
      out = outgoing(message, unread, this.limits);
    } catch (error) {
      // A notification or request that cannot be turned into JSON: its sender's mistake, told to it.
      return Promise.reject(error);
    }
    if (out.text === undefined) return this.overflow(message as JsonRpcMessage, options?.relatedRequestId, out.refused);
    // The answers to one chunk of input (sent while it is handled, or in the promise callbacks
    // after it) leave together in one or two writes, so pipelined clients get many per syscall; a
    // next tick rather than setImmediate, so a lone answer does not wait for the loop's check phase
    // (about 4 µs of a 75 µs round trip).
    if (this.outbox === '') process.nextTick(this.flush);
    this.outbox += out.text + '\n';
    return DONE;
  }

  private outbox = '';

  private readonly flush = (): void => {
    const text = this.outbox;
    this.outbox = '';
    if (text === '' || this.closed) return;
    // Over the high-water mark: read no more requests until the client has read the answers.
    if (!this.output.write(text) && !this.inputPaused) {
      this.inputPaused = true;
      this.input.pause();
      this.output.once('drain', this.onDrain);
    }
  };

  private readonly onDrain = (): void => {
    this.inputPaused = false;
    if (!this.closed) this.input.resume();
  };

  /** A message the client has no room for: dropped, and its request answered with `error` (-32011). */
  private overflow(message: JsonRpcMessage, relatedRequestId: RequestId | undefined, error: McpError): Promise<void> {
    this.dropped++;
    return dropForSlowClient(message, relatedRequestId, error, this.onabort);
  }

  close(): Promise<void> {
    if (this.closed) return DONE;
    this.flush();
    this.closed = true;
    this.restoreConsole?.();
    this.restoreConsole = undefined;
    this.output.off('drain', this.onDrain);
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    this.output.off('error', this.onError);
    if (this.input === process.stdin) this.input.pause();
    this.onclose?.();
    return DONE;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    // The line a previous chunk left open ends at the first newline (or goes on past this chunk).
    if (this.pending.length > 0 || this.discarding) {
      const nl = data.indexOf(NEWLINE);
      if (nl === -1) return this.take(data, false);
      this.take(data.subarray(0, nl), true);
      if (this.closed) return;
      start = nl + 1;
    }
    const last = data.lastIndexOf(NEWLINE);
    if (last >= start) {
      // The whole lines, usually all of the chunk: ASCII (JSON escapes the rest, so nearly always)
      // is read as one string and cut into lines that share it, as JSON.parse reads fastest; a
      // region that could hold a line over the limit, or other UTF-8, is read line by line.
      if (last - start <= this.maxBytes && isAscii(data.subarray(start, last))) this.deliverLines(data.toString('latin1', start, last));
      else this.deliverEach(data, start, last);
      if (this.closed) return;
      start = last + 1;
    }
    if (start < data.length) this.take(data.subarray(start), false);
  };

  /** Each line of `text`, newline-separated ASCII with no line over the limit. */
  private deliverLines(text: string): void {
    let from = 0;
    for (let nl = text.indexOf('\n'); ; nl = text.indexOf('\n', from)) {
      const end = nl === -1 ? text.length : nl;
      this.deliver(text.charCodeAt(end - 1) === 0x0d ? text.slice(from, end - 1) : text.slice(from, end));
      if (nl === -1 || this.closed) return;
      from = nl + 1;
    }
  }

  /** Each line of `data` from `start` to the newline at `last`, one at a time. */
  private deliverEach(data: Buffer, start: number, last: number): void {
    for (let nl = data.indexOf(NEWLINE, start); nl !== -1 && nl <= last; nl = data.indexOf(NEWLINE, start)) {
      this.take(data.subarray(start, nl), true);
      if (this.closed) return;
      start = nl + 1;
    }
  }

  /** Adds bytes to the current line; `complete` when a newline ended them. */
  private take(bytes: Buffer, complete: boolean): void {
    if (!this.discarding) {
      this.pendingBytes += bytes.length;
      if (this.pendingBytes > this.maxBytes) {
        this.discarding = true;
        this.pending = [];
      } else if (complete && this.pending.length === 0) {
        return this.deliverBytes(bytes);
      } else {
        this.pending.push(bytes);
      }
    } else {
      this.pendingBytes += bytes.length;
    }
    if (!complete) return;
    if (this.discarding) {
      const size = this.pendingBytes;
      this.discarding = false;
      this.pendingBytes = 0;
      // Reported as an invalid frame, so the peer answers it with the id form of the era in use.
      this.onframe?.({ kind: 'invalid', error: McpError.invalidRequest(`the message of ${size} bytes exceeds this server's limit of ${this.maxBytes} bytes (maxMessageBytes)`) });
      return;
    }
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.deliverBytes(line);
  }

  /** {@link deliver} for a line still in bytes (UTF-8). */
  private deliverBytes(line: Buffer): void {
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    this.deliver(line.toString('utf8', 0, end));
  }

  /** Hands on one line (its newline and carriage return removed); blank lines are skipped. */
  private deliver(line: string): void {
    this.pendingBytes = 0;
    if (line === '' || line.trim() === '') return;
    this.onframe?.(parseFrame(line));
  }

  private readonly onEnd = (): void => {
    // A last line without its newline is still a message.
    if (this.pending.length > 0 || this.discarding) this.take(Buffer.alloc(0), true);
    if (this.closed) return;
    if (this.oninputend) this.oninputend();
    else void this.close();
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') void this.close();
  };
}
