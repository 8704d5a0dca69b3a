/**
 * The v2 client's `StdioClientTransport` (`@modelcontextprotocol/client/stdio`), wrapped for
 * end-to-end tests of the 2026-07-28 era:
 *
 * - it records every line the server wrote to stdout, parsed but otherwise untouched (the wire, not
 *   what the SDK made of it), every message the client sent, and the method of each request by id,
 *   so every server message can be validated afterwards;
 * - it is a wrapper, not the SDK class itself: the v2 client probes a server with `server/discover`
 *   on a throwaway sibling process when handed its own stdio transport, but on the connection
 *   itself for any other stdio-shaped transport (one with `stderr` and `pid`), so the probe is part
 *   of the recorded conversation;
 * - it reports how the server process ended.
 *
 * Messages pass through unchanged in both directions.
 */
import type { ChildProcess } from 'node:child_process';
import type { Stream } from 'node:stream';
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import type { MessageId } from './mcp-schema';
import type { ProcessExit } from './recording-transport';

/** A v2 stdio client transport that records the conversation. */
export class RecordingModernStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** Every line the server wrote to stdout, parsed (`{ unparseable: line }` when it was not JSON). */
  readonly wire: unknown[] = [];
  /** Both directions, in order. */
  readonly conversation: Array<{ from: 'client' | 'server'; message: unknown }> = [];
  /** Every message the client sent, in order. */
  readonly sent: JSONRPCMessage[] = [];
  /** The method of each request the client sent, by id. */
  readonly requestMethodById = new Map<MessageId, string>();
  /** Errors the inner transport reported. */
  readonly errors: Error[] = [];
  /** Everything the server wrote to stderr. */
  stderrText = '';

  private readonly inner: StdioClientTransport;
  private exitPromise?: Promise<ProcessExit>;
  private partial = '';

  constructor(server: StdioServerParameters) {
    this.inner = new StdioClientTransport({ ...server, stderr: 'pipe' });
    this.inner.stderr?.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    this.inner.onmessage = (message: JSONRPCMessage) => this.onmessage?.(message);
    this.inner.onerror = (error) => {
      this.errors.push(error);
      this.onerror?.(error);
    };
    this.inner.onclose = () => this.onclose?.();
  }

  /** The child's stderr (its presence, with {@link pid}, makes the client treat this as stdio). */
  get stderr(): Stream | null {
    return this.inner.stderr;
  }

  /** The child's pid, once started. */
  get pid(): number | null {
    return this.inner.pid;
  }

  async start(): Promise<void> {
    await this.inner.start();
    // The SDK exposes neither the raw lines nor the exit status; read both off its (private) process.
    const child = (this.inner as unknown as { _process?: ChildProcess })._process;
    if (!child?.stdout) throw new Error('the v2 StdioClientTransport has no _process after start(): the SDK changed; update RecordingModernStdioTransport');
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (this.partial + chunk.toString('utf8')).split('\n');
      this.partial = parts.pop()!;
      for (const line of parts) if (line.trim() !== '') this.line(line);
    });
    this.exitPromise = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message) this.requestMethodById.set(message.id, message.method);
    this.sent.push(message);
    this.conversation.push({ from: 'client', message });
    return this.inner.send(message);
  }

  /** Ends the server's stdin (the SDK escalates to signals if it does not exit). */
  close(): Promise<void> {
    return this.inner.close();
  }

  /** Resolves when the server process has exited. */
  exited(): Promise<ProcessExit> {
    if (!this.exitPromise) return Promise.reject(new Error('the transport was never started'));
    return this.exitPromise;
  }

  private line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = { unparseable: line };
    }
    this.wire.push(value);
    this.conversation.push({ from: 'server', message: value });
  }
}
