/**
 * Test support: two linked in-memory transports. What one sends, the other receives a microtask
 * later, after a real `JSON.stringify` + `parseFrame` round trip, so framing and ordering are the
 * ones a wire would give. Each end keeps a log of what it sent, so tests can assert on the wire.
 */
import { JsonRpcMessage, ParsedFrame, SendOptions, Transport, TransportInfo, parseFrame } from '@hermes-mcp/protocol';

/** One end of a linked pair; records every frame it sends. */
export class LinkedTransport implements Transport {
  readonly info: TransportInfo = { kind: 'linked' };
  onframe?: (frame: ParsedFrame) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Every message (or batch array) this end sent, in order, as the other end received it. */
  readonly sent: Array<JsonRpcMessage | JsonRpcMessage[]> = [];
  /** The `relatedRequestId` hint given with each entry of {@link sent}. */
  readonly sentOptions: Array<SendOptions | undefined> = [];
  other?: LinkedTransport;
  closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    const text = JSON.stringify(message);
    this.sent.push(JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[]);
    this.sentOptions.push(options);
    return this.sendRaw(text);
  }

  /** Delivers raw text to the other end, as if it arrived on a wire (for malformed input). */
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

/** Two transports linked to each other. */
export function linkedTransports(): [LinkedTransport, LinkedTransport] {
  const a = new LinkedTransport();
  const b = new LinkedTransport();
  a.other = b;
  b.other = a;
  return [a, b];
}

/**
 * A raw end for tests that speak JSON-RPC by hand: it records every frame it receives and can
 * wait for the next ones.
 */
export class FrameRecorder {
  readonly frames: ParsedFrame[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(readonly transport: LinkedTransport) {
    transport.onframe = (frame) => {
      this.frames.push(frame);
      this.waiters = this.waiters.filter((w) => {
        if (this.frames.length < w.count) return true;
        w.resolve();
        return false;
      });
    };
  }

  /** Resolves once `count` frames in total have been received (rejects after `ms`). */
  waitFor(count: number, ms = 500): Promise<ParsedFrame[]> {
    if (this.frames.length >= count) return Promise.resolve(this.frames.slice());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`expected ${count} frames, got ${this.frames.length}`)), ms);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.frames.slice());
        },
      });
    });
  }
}

/** Resolves after `ms` milliseconds of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets every queued microtask and one macrotask turn run (enough for in-memory delivery). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
