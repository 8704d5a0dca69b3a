/**
 * A linked pair of in-memory transports: what one sends, the other receives. Messages are
 * serialised and parsed on the way, exactly as on a wire, and delivered asynchronously (a
 * microtask later), so tests see real framing and real ordering.
 */
import type { McpError } from './errors';
import { JsonRpcMessage, ParsedFrame, RequestId, parseFrame } from './jsonrpc';
import type { SendOptions, Transport, TransportInfo } from './transport';

/** One end of an in-memory link. */
export class InMemoryTransport implements Transport {
  readonly info: TransportInfo = { kind: 'memory' };
  onframe?: (frame: ParsedFrame) => void;
  onclose?: () => void;
  oninputend?: () => void;
  onerror?: (error: Error) => void;
  onabort?: (requestId: RequestId, error: McpError) => void;
  /** Told when an inbound request was cancelled by the other end (nothing to end here). */
  requestCancelled?: (requestId: RequestId) => void;
  /** The other end, once linked. */
  other?: InMemoryTransport;
  /** True once this end closed. */
  closed = false;

  /** Two transports linked to each other. */
  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    return InMemoryTransport.link(new InMemoryTransport(), new InMemoryTransport());
  }

  /** Links two ends (of any subclass) to each other. */
  static link<T extends InMemoryTransport>(a: T, b: T): [T, T] {
    a.other = b;
    b.other = a;
    return [a, b];
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Sends a message; rejects once this end is closed. */
  send(message: JsonRpcMessage | JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    return this.sendRaw(JSON.stringify(message));
  }

  /** Delivers raw text to the other end, as if it arrived on a wire (for bad-input tests). */
  sendRaw(text: string): Promise<void> {
    const other = this.other;
    queueMicrotask(() => {
      if (other && !other.closed) other.onframe?.(parseFrame(text));
    });
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.onclose?.();
    const other = this.other;
    if (other && !other.closed) queueMicrotask(() => void other.close());
    return Promise.resolve();
  }
}
