/**
 * One Server-Sent Events connection: writes events to a raw Node response. Fastify is told to let
 * go of the reply (`hijack`) once a stream starts; the headers Fastify hooks set (CORS, say) are
 * carried over.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Writes SSE events on one HTTP response. @internal */
export class SseConnection {
  private ended = false;
  private readonly closeListeners: Array<() => void> = [];

  private constructor(private readonly raw: ServerResponse) {
    raw.on('close', () => {
      this.ended = true;
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  /** Starts an SSE response on `reply` (status 200), keeping the headers already set on it. */
  static open(reply: FastifyReply, headers: Record<string, string> = {}): SseConnection {
    const raw = SseConnection.head(reply, headers);
    raw.flushHeaders();
    return new SseConnection(raw);
  }

  /**
   * Answers with a stream whose every event is already known: headers and events go out in one
   * write, with a Content-Length, and the response ends.
   */
  static whole(reply: FastifyReply, headers: Record<string, string>, events: string): SseConnection {
    const raw = SseConnection.head(reply, { ...headers, 'content-length': String(Buffer.byteLength(events)) });
    const connection = new SseConnection(raw);
    raw.end(events);
    return connection;
  }

  private static head(reply: FastifyReply, headers: Record<string, string>): ServerResponse {
    reply.hijack();
    const raw = reply.raw;
    const inherited = reply.getHeaders() as Record<string, string | number | string[]>;
    raw.writeHead(200, {
      ...inherited,
      ...headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    return raw;
  }

  /** True once everything written was handed to the operating system (the response finished, not cut). */
  get delivered(): boolean {
    return this.raw.writableFinished;
  }

  /** True once the response ended, from either side. */
  get closed(): boolean {
    return this.ended || this.raw.writableEnded || this.raw.destroyed;
  }

  /** Writes an already formatted frame. */
  writeFrame(frame: string): void {
    if (!this.closed) this.raw.write(frame);
  }

  /** Writes one `message` event. */
  write(data: string, id?: string, event?: string): void {
    if (this.closed) return;
    let frame = '';
    if (id !== undefined) frame += `id: ${id}\n`;
    if (event !== undefined) frame += `event: ${event}\n`;
    this.raw.write(`${frame}data: ${data}\n\n`);
  }

  /**
   * The priming event (MCP 2025-11-25): an id and empty data, so the client can resume from it,
   * and a `retry` telling it how long to wait before reconnecting.
   */
  prime(id: string, retryMs: number): void {
    if (this.closed) return;
    this.raw.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Ends the response. */
  end(): void {
    if (this.closed) return;
    this.ended = true;
    this.raw.end();
  }

  /** Runs `listener` once when the connection closes (immediately if it already did). */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }
}
