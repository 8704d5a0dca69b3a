/**
 * The client side of stdio: spawns the server, writes newline-delimited JSON to its stdin and reads
 * it from its stdout. Its stderr goes to a callback (or the parent's stderr). Closing ends stdin,
 * then sends SIGTERM, then SIGKILL after a grace period; a server that exits is reported with its
 * exit status, and the peer rejects every pending request. A line longer than `maxMessageBytes` is
 * dropped as it streams in (never held whole), as the server side does with its own limit.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { JsonRpcMessage, McpError, ParsedFrame, Transport, TransportInfo, isResponse, parseFrame, serialize } from '@hermes-mcp/protocol';
import { messageLimit, messageTooLarge } from './limits';

/** Where a client transport is. */
export type TransportState = 'connecting' | 'connected' | 'disconnected' | 'error';

/** Options of a {@link StdioClientTransport}. */
export interface StdioClientOptions {
  /** The program to run (e.g. `process.execPath` or `npx`). */
  command: string;
  args?: readonly string[];
  /** Its environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Each chunk of the server's stderr (default: written to this process's stderr). */
  onStderr?: (chunk: string) => void;
  /** Milliseconds between each step of {@link StdioClientTransport.close}: end stdin, SIGTERM, SIGKILL (default 2000). */
  closeGracePeriod?: number;
  /**
   * The longest line read from the server, in bytes (default 16 MiB): a longer one is dropped as
   * it streams in, and every request pending fails with -32013 naming the limit (which of them it
   * answered cannot be told). The connection goes on.
   */
  maxMessageBytes?: number;
}

/** What {@link StdioClientTransport.info} reports. */
export interface StdioInfo {
  pid?: number;
  state: TransportState;
  /** The exit code or signal, once the server exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  bytesIn: number;
  bytesOut: number;
  lastError?: Error;
}

const LF = 0x0a;

/** Talks to an MCP server it spawns, over the server's stdin and stdout. */
export class StdioClientTransport implements Transport {
  readonly info: TransportInfo = Object.freeze({ kind: 'stdio' });
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  ondiscard?: (error: McpError) => void;
  private child?: ChildProcess = undefined;
  private state: TransportState = 'disconnected';
  private exit?: { code: number | null; signal: NodeJS.Signals | null } = undefined;
  private lastError?: Error = undefined;
  private bytesIn = 0;
  private bytesOut = 0;
  /** The start of a line not yet complete, as it came (a character split between chunks is decoded whole). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The line passed `maxMessageBytes`: its bytes are counted, not kept, up to its newline. */
  private skipping = false;
  private readonly maxBytes: number;
  /** Messages sent in this turn of the event loop, written together at its end ({@link flush}). */
  private outbox = '';
  /** True when the outbox holds an answer to one of the server's requests. */
  private outboxAnswers = false;
  private drained?: Promise<void> = undefined;
  private batch?: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } = undefined;
  private closed = false;
  private exited?: Promise<void> = undefined;

  constructor(private readonly options: StdioClientOptions) {
    this.maxBytes = messageLimit(options);
  }

  /** The process, its state, exit status and traffic. */
  status(): StdioInfo {
    const status: StdioInfo = { state: this.state, bytesIn: this.bytesIn, bytesOut: this.bytesOut };
    if (this.child?.pid !== undefined) status.pid = this.child.pid;
    if (this.exit) status.exit = this.exit;
    if (this.lastError) status.lastError = this.lastError;
    return status;
  }

  /** Spawns the server; resolves once it runs (rejects when it cannot be started). */
  start(): Promise<void> {
    if (this.child) return Promise.resolve();
    this.state = 'connecting';
    const { command, args = [], env, cwd, onStderr } = this.options;
    const child = spawn(command, [...args], { env: env ?? process.env, cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (onStderr ? onStderr(chunk) : process.stderr.write(chunk)));
    // A server that exits while a write is under way: the exit reports it, not an EPIPE.
    child.stdin.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        if (!this.closed && (code !== 0 || signal !== null)) this.fail(new Error(`the server exited with ${signal ?? `code ${code}`}`));
        this.end();
        resolve();
      }),
    );
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        this.state = 'connected';
        resolve();
      });
      child.once('error', (error) => {
        this.fail(error);
        this.end();
        reject(error);
      });
    });
  }

  /**
   * Queues the message; the messages sent in one turn of the event loop reach the pipe in one
   * write, once that turn's I/O callbacks ran (`setImmediate`): a burst of calls made together, and
   * the calls of requests that arrived together on several sockets (a gateway forwarding them) —
   * one write, so the server wakes once. The promise settles once that write was taken (after a
   * `drain` while the pipe is full: backpressure).
   */
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || !stdin.writable) return Promise.reject(new Error('the server is not running'));
    this.outbox += `${serialize(message)}\n`;
    if (!this.outboxAnswers) this.outboxAnswers = Array.isArray(message) ? message.some(isResponse) : isResponse(message);
    if (this.batch === undefined) {
      let settle!: { resolve: () => void; reject: (error: Error) => void };
      const promise = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      this.batch = { promise, ...settle };
      setImmediate(this.flush);
    }
    return this.batch.promise;
  }

  /** Writes the queued messages in one write. */
  private readonly flush = (): void => {
    const batch = this.batch;
    // close() wrote the batch out already (it flushes what was sent before it): nothing is left.
    if (batch === undefined) return;
    const text = this.outbox;
    const answers = this.outboxAnswers;
    this.batch = undefined;
    this.outbox = '';
    this.outboxAnswers = false;
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable) return batch.reject(new Error('the server is not running'));
    this.bytesOut += Buffer.byteLength(text);
    if (stdin.write(text) && this.drained === undefined) return batch.resolve();
    // The pipe is full. Answers to the server's requests wait in it: reading more of them would
    // only add answers, held here without bound, so stdout is read no further until it drained
    // (the server's own output backs up on its side). The client's own requests never stop the reading.
    if (answers) this.readNoFurtherUntil(this.whenDrained(stdin));
    void this.whenDrained(stdin).then(batch.resolve);
  };

  /** Pauses reading the server's stdout until `drained` settles. */
  private readNoFurtherUntil(drained: Promise<void>): void {
    const stdout = this.child?.stdout;
    if (!stdout || stdout.isPaused()) return;
    stdout.pause();
    void drained.then(() => stdout.resume());
  }

  /** Settles when a full stdin pipe drained: one listener, however many batches wait. */
  private whenDrained(stdin: NodeJS.WritableStream): Promise<void> {
    return (this.drained ??= new Promise<void>((resolve) =>
      stdin.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    ));
  }

  /** Ends stdin; after the grace period SIGTERM, then SIGKILL. Resolves once the server exited. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) {
      this.end();
      return;
    }
    this.closed = true;
    const grace = this.options.closeGracePeriod ?? 2000;
    // What was sent before close() still goes out, then the end of input.
    if (this.batch) this.flush();
    child.stdin?.end();
    const steps: Array<NodeJS.Signals> = ['SIGTERM', 'SIGKILL'];
    for (const signal of steps) {
      if (await this.exitedWithin(grace)) return;
      child.kill(signal);
    }
    await this.exited;
  }

  private async exitedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = await Promise.race([this.exited!.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }

  /**
   * Cuts stdout into lines, each one frame. Each byte is looked at once: a line that spans chunks
   * waits as bytes, and only the chunk that came is searched for its end.
   */
  private read(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    let start = 0;
    if (this.held.length > 0 || this.skipping) {
      const newline = chunk.indexOf(LF);
      if (newline === -1) return this.hold(chunk);
      this.hold(chunk.subarray(0, newline));
      this.endLine();
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      // The whole lines decoded at once when none of them can pass the limit (a pipe's chunks are
      // far smaller than the default); else one at a time, each checked.
      if (last - start <= this.maxBytes) this.deliverLines(chunk.toString('utf8', start, last));
      else {
        for (let newline = chunk.indexOf(LF, start); newline !== -1; newline = chunk.indexOf(LF, start)) {
          this.hold(chunk.subarray(start, newline));
          this.endLine();
          start = newline + 1;
        }
      }
      start = last + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
  }

  /** Keeps the bytes of the line under way; once it passes the limit, drops it and fails what is pending. */
  private hold(bytes: Buffer): void {
    this.heldBytes += bytes.length;
    if (this.skipping) return;
    if (this.heldBytes <= this.maxBytes) {
      this.held.push(bytes);
      return;
    }
    this.skipping = true;
    this.held = [];
    const error = messageTooLarge(this.maxBytes, undefined, true);
    this.lastError = error;
    this.onerror?.(error);
    this.ondiscard?.(error);
  }

  /** The line under way ended (its newline came). */
  private endLine(): void {
    if (!this.skipping) this.deliver(this.held.length === 1 ? this.held[0].toString('utf8') : Buffer.concat(this.held, this.heldBytes).toString('utf8'));
    this.held = [];
    this.heldBytes = 0;
    this.skipping = false;
  }

  /** Each of the newline-separated lines of `text`. */
  private deliverLines(text: string): void {
    let from = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
      this.deliver(text.slice(from, newline));
      from = newline + 1;
    }
    this.deliver(from === 0 ? text : text.slice(from));
  }

  /** Hands one line on as a frame, its carriage return removed; blank lines are skipped. */
  private deliver(line: string): void {
    const end = line.charCodeAt(line.length - 1) === 13 ? line.length - 1 : line.length;
    if (end > 0) this.onframe?.(parseFrame(end === line.length ? line : line.slice(0, end)));
  }

  private fail(error: Error): void {
    this.lastError = error;
    this.state = 'error';
    this.onerror?.(error);
  }

  private end(): void {
    if (this.state === 'disconnected' && this.child === undefined) return;
    if (this.state !== 'error') this.state = 'disconnected';
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}
