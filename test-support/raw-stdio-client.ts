/**
 * A server process spoken to in raw JSON lines, without any SDK: the test chooses every id,
 * progress token and batch itself, and sees the wire exactly as the server wrote it.
 *
 * - {@link RawStdioClient.wire} holds both directions in one order, so a test can tell whether it
 *   sent something before or after something else arrived.
 * - {@link RawStdioClient.onmessage} sees each server message as it is read, before any waiter,
 *   so a test can react to one message (send a cancellation on a given progress, say) at once.
 * - Waits are bounded: one that is not satisfied in time rejects and says what it waited for,
 *   instead of hanging until the test runner's own timeout.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { MessageId } from './mcp-schema';
import type { ProcessExit } from './recording-transport';

/** A JSON object as it came off (or went onto) the wire. */
export type RawMessage = Record<string, unknown>;

/** One message on the wire, in the order of {@link RawStdioClient.wire}. */
export interface WireEntry {
  /** Position on the wire, both directions counted together. */
  readonly seq: number;
  readonly from: 'client' | 'server';
  /** The parsed value (an object, a batch array, or `{ unparseable: line }`). */
  readonly message: unknown;
}

/** How to start the server. */
export interface RawServerCommand {
  command: string;
  args: string[];
  cwd?: string;
  /** Added to the environment of the process. */
  env?: Record<string, string>;
}

/** Default bound of every wait, in milliseconds. */
const DEFAULT_WAIT_MS = 10_000;

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is RawMessage {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a JSON-RPC id (a string or an integer). */
export function isMessageId(value: unknown): value is MessageId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** True for a response (result or error) to the request `id`; `5` and `"5"` are different ids. */
export function isResponseTo(message: unknown, id: MessageId): boolean {
  return isRecord(message) && message.id === id && !('method' in message) && ('result' in message || 'error' in message);
}

/** The server as a child process, spoken to in raw lines. */
export class RawStdioClient {
  /** Both directions, in order. */
  readonly wire: WireEntry[] = [];
  /** Every line the server wrote to stdout, as written. */
  readonly lines: string[] = [];
  /** Everything the server wrote to stderr. */
  stderr = '';
  /** The method of each request the client wrote, by id (each member of a batch too; `(no valid method)` when it had none). */
  readonly methodById = new Map<MessageId, string>();
  /** Resolves when the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** Called with each server message as soon as it is read (before waiters are woken). */
  onmessage?: (message: unknown) => void;

  private readonly child: ChildProcessWithoutNullStreams;
  private readonly unread: unknown[] = [];
  private wake: Array<() => void> = [];
  private partial = '';
  private gone = false;

  constructor(
    server: RawServerCommand,
    /** How long a wait may take before it fails, in milliseconds. */
    private readonly waitMs = DEFAULT_WAIT_MS,
  ) {
    const main = server.args.find((a) => a.endsWith('.js'));
    if (main && !existsSync(main)) throw new Error(`${main} does not exist: build first with \`npx tsc -b\``);
    this.child = spawn(server.command, server.args, { cwd: server.cwd, env: server.env && { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    // Writing to a server that exited fails with EPIPE: the exit is what a test looks at.
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.on('data', (text: string) => (this.stderr += text));
    this.child.stdout.on('data', (text: string) => {
      const parts = (this.partial + text).split('\n');
      this.partial = parts.pop()!;
      for (const line of parts) this.receive(line);
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (this.partial) this.receive(this.partial);
        this.partial = '';
        this.gone = true;
        this.notify();
        resolve({ code, signal });
      });
    });
  }

  /** The server's process id. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Stops reading the server's stdout (a client that does not read): its pipe fills up. */
  pauseReading(): void {
    this.child.stdout.pause();
  }

  /** Reads the server's stdout again. */
  resumeReading(): void {
    this.child.stdout.resume();
  }

  /** Writes raw text to the server's stdin, as is (no newline added). */
  writeRaw(text: string): void {
    this.child.stdin.write(text);
  }

  /** Ends the server's stdin without waiting for the process. */
  endInput(): void {
    this.child.stdin.end();
  }

  /** Sends a signal to the server. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Every message the server sent so far, in order. */
  get received(): unknown[] {
    return this.wire.filter((e) => e.from === 'server').map((e) => e.message);
  }

  /** Writes each value as one line, all in a single write (so the server reads them together). */
  send(...values: unknown[]): void {
    for (const value of values) this.remember(value);
    this.child.stdin.write(values.map((v) => JSON.stringify(v) + '\n').join(''));
  }

  /** Writes one line as is (a newline is added); it is logged parsed when it parses. */
  writeLine(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = { unparseable: text };
    }
    this.remember(value);
    this.child.stdin.write(text + '\n');
  }

  /** The next unread message that satisfies `match` (messages before it stay unread). */
  async next(match: (m: RawMessage) => boolean, what = 'a message'): Promise<RawMessage> {
    let found: RawMessage | undefined;
    await this.until(() => {
      const index = this.unread.findIndex((m) => isRecord(m) && match(m));
      if (index >= 0) found = this.unread.splice(index, 1)[0] as RawMessage;
      return found !== undefined;
    }, what);
    return found!;
  }

  /** The next unread batch response (an array). */
  async nextBatch(): Promise<unknown[]> {
    let found: unknown[] | undefined;
    await this.until(() => {
      const index = this.unread.findIndex((m) => Array.isArray(m));
      if (index >= 0) found = this.unread.splice(index, 1)[0] as unknown[];
      return found !== undefined;
    }, 'a batch response (an array)');
    return found!;
  }

  /** The response (result or error) to `id`. */
  responseTo(id: MessageId): Promise<RawMessage> {
    return this.next((m) => isResponseTo(m, id), `the response to ${JSON.stringify(id)}`);
  }

  /** Sends a request and resolves with its response. */
  request(id: MessageId, method: string, params?: RawMessage): Promise<RawMessage> {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.responseTo(id);
  }

  /** Initializes the connection on `protocolVersion` (and sends `notifications/initialized`). */
  async initialize(protocolVersion: string, capabilities: RawMessage = {}): Promise<RawMessage> {
    const response = await this.request('init', 'initialize', { protocolVersion, capabilities, clientInfo: { name: 'raw-lines', version: '1.0.0' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  /**
   * Resolves once `condition` holds (checked now and after each chunk the server writes); rejects
   * when the server exits first or the wait takes longer than its bound.
   */
  until(condition: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = (): void => {
        if (condition()) {
          clearTimeout(timer);
          resolve();
        } else if (this.gone) {
          clearTimeout(timer);
          reject(new Error(`the server exited while waiting for ${what}; stderr:\n${this.stderr}`));
        } else {
          this.wake.push(check);
        }
      };
      check();
      if (this.wake.includes(check)) {
        timer = setTimeout(() => {
          this.wake = this.wake.filter((w) => w !== check);
          reject(new Error(`waited ${this.waitMs} ms for ${what}; the last server lines:\n${this.lines.slice(-5).join('\n')}\nstderr:\n${this.stderr}`));
        }, this.waitMs);
      }
    });
  }

  /** Messages received and not consumed by {@link next}, {@link nextBatch} or {@link responseTo}. */
  get leftovers(): unknown[] {
    return [...this.unread];
  }

  /** Forgets the unread messages (they stay in {@link wire}). */
  discardUnread(): void {
    this.unread.length = 0;
  }

  /** Ends stdin and resolves with how the process exited. */
  end(): Promise<ProcessExit> {
    this.child.stdin.end();
    return this.exited;
  }

  /** Kills the process if a test left it running. */
  kill(): void {
    if (!this.gone) this.child.kill('SIGKILL');
  }

  private receive(line: string): void {
    this.lines.push(line);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = { unparseable: line };
    }
    this.wire.push({ seq: this.wire.length, from: 'server', message: value });
    this.unread.push(value);
    this.onmessage?.(value);
  }

  private remember(value: unknown): void {
    this.wire.push({ seq: this.wire.length, from: 'client', message: value });
    for (const m of Array.isArray(value) ? value : [value]) {
      // Anything with an id that is not a response is a request, however malformed (it may be answered with an error).
      if (isRecord(m) && isMessageId(m.id) && !('result' in m) && !('error' in m)) this.methodById.set(m.id, typeof m.method === 'string' ? m.method : '(no valid method)');
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const check of wake) check();
  }
}
