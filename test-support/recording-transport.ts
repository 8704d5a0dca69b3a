/**
 * A thin wrapper around the SDK's StdioClientTransport for end-to-end tests.
 *
 * - It offers the revision under test: the SDK v1 Client always sends its latest revision in
 *   `initialize`; rewriting `params.protocolVersion` is exactly what an older client sends. (The
 *   Client accepts whatever revision the server answers with, if it is in its supported list.)
 * - It records every message that comes in, every transport error, and the method of each request
 *   that goes out, by id, so the test can validate all of the server's messages afterwards.
 * - It reports how the server process ended (exit code or signal).
 *
 * Nothing else is changed: messages are passed through in both directions as they are.
 */
import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { MessageId } from './mcp-schema';

/** How the server process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A StdioClientTransport that offers a chosen revision and records the conversation. */
export class RecordingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** Every message the server sent, in order (as the SDK parsed it off the wire). */
  readonly received: JSONRPCMessage[] = [];
  /** Every message the client sent, in order (after the revision rewrite). */
  readonly sent: JSONRPCMessage[] = [];
  /** Both directions in the order they happened, so a test can tell what was sent before what arrived. */
  readonly wire: Array<{ from: 'client' | 'server'; message: JSONRPCMessage }> = [];
  /** Errors the transport reported (e.g. a line the SDK could not parse as JSON-RPC). */
  readonly errors: Error[] = [];
  /** The method of each request the client sent, by id. */
  readonly requestMethodById = new Map<MessageId, string>();
  /** Everything the server wrote to stderr. */
  stderrText = '';

  private readonly inner: StdioClientTransport;
  private exitPromise?: Promise<ProcessExit>;

  constructor(
    server: StdioServerParameters,
    /** The revision offered in `initialize`. */
    readonly protocolVersion: string,
  ) {
    this.inner = new StdioClientTransport({ ...server, stderr: 'pipe' });
    // With stderr 'pipe' the SDK hands out a PassThrough before start, so nothing is lost.
    this.inner.stderr?.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.received.push(message);
      this.wire.push({ from: 'server', message });
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => {
      this.errors.push(error);
      this.onerror?.(error);
    };
    this.inner.onclose = () => this.onclose?.();
  }

  async start(): Promise<void> {
    await this.inner.start();
    // The SDK does not expose the child's exit status; read it from its (private) process handle.
    const child = (this.inner as unknown as { _process?: ChildProcess })._process;
    if (!child) throw new Error('StdioClientTransport has no _process after start(): the SDK changed; update RecordingStdioTransport');
    this.exitPromise = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    let out = message;
    if ('method' in message && 'id' in message) {
      if (message.method === 'initialize') {
        out = { ...message, params: { ...message.params, protocolVersion: this.protocolVersion } };
      }
      this.requestMethodById.set(message.id, message.method);
    }
    this.sent.push(out);
    this.wire.push({ from: 'client', message: out });
    return this.inner.send(out);
  }

  /** Ends the server's stdin (the SDK escalates to SIGTERM after 2 s if it does not exit). */
  close(): Promise<void> {
    return this.inner.close();
  }

  /** The child's pid, once started. */
  get pid(): number | null {
    return this.inner.pid;
  }

  /** Resolves when the server process has exited. */
  exited(): Promise<ProcessExit> {
    if (!this.exitPromise) return Promise.reject(new Error('the transport was never started'));
    return this.exitPromise;
  }
}
