/**
 * Test support: two linked in-memory transports. What one sends, the other receives a microtask
 * later, after a real `JSON.stringify` + `parseFrame` round trip, so framing and ordering are the
 * ones a wire would give. Each end keeps a log of what it sent, so tests can assert on the wire.
 */
import { InMemoryTransport, JsonRpcMessage, ParsedFrame, SendOptions, TransportInfo } from '@hermes-mcp/protocol';

/** One end of a linked pair; records every frame it sends. */
export class LinkedTransport extends InMemoryTransport {
  override readonly info: TransportInfo = { kind: 'linked' };
  /** Every message (or batch array) this end sent, in order, as the other end received it. */
  readonly sent: Array<JsonRpcMessage | JsonRpcMessage[]> = [];
  /** The `relatedRequestId` hint given with each entry of {@link sent}. */
  readonly sentOptions: Array<SendOptions | undefined> = [];

  override send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!this.closed) {
      this.sent.push(JSON.parse(JSON.stringify(message)) as JsonRpcMessage | JsonRpcMessage[]);
      this.sentOptions.push(options);
    }
    return super.send(message, options);
  }
}

/** Two transports linked to each other. */
export function linkedTransports(): [LinkedTransport, LinkedTransport] {
  return InMemoryTransport.link(new LinkedTransport(), new LinkedTransport());
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
