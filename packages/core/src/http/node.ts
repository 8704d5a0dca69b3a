/**
 * The streaming body of a Node `ServerResponse`, for adapters on Node's HTTP server (Fastify's
 * reply once hijacked, a plain `http.createServer`).
 */
import type { ServerResponse } from 'node:http';
import type { HttpStream } from './exchange';

/** An {@link HttpStream} over a Node response whose head was written. */
export class NodeHttpStream implements HttpStream {
  private ended = false;

  constructor(private readonly raw: ServerResponse) {
    raw.once('close', () => (this.ended = true));
  }

  write(chunk: string): void {
    if (!this.closed) this.raw.write(chunk);
  }

  end(): void {
    if (this.closed) return;
    this.ended = true;
    this.raw.end();
  }

  destroy(): void {
    this.ended = true;
    this.raw.destroy();
  }

  get bufferedBytes(): number {
    return this.raw.writableLength;
  }

  get closed(): boolean {
    return this.ended || this.raw.writableEnded || this.raw.destroyed;
  }

  get delivered(): boolean {
    return this.raw.writableFinished;
  }

  onClose(listener: () => void): void {
    if (this.raw.closed || this.raw.destroyed) listener();
    else this.raw.once('close', listener);
  }
}
