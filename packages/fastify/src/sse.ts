/**
 * One Server-Sent Events connection: writes events to a raw Node response. Fastify is told to let
 * go of the reply (`hijack`) once a stream starts; the headers Fastify hooks set (CORS, say) are
 * carried over.
 *
 * A client that does not read its stream cannot make the server buffer without end: once more
 * than `maxBufferedBytes` wait unread, the next write closes the connection instead
 * ({@link SseConnection.overflowed}), and its owner decides what that means (a request's stream:
 * the request is cancelled; the session's GET stream: it ends and can be resumed).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Default limit of what one stream may hold unread: 4 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Writes SSE events on one HTTP response. @internal */
export class SseConnection {
  private ended = false;
  private readonly closeListeners: Array<() => void> = [];
  /** True when the connection was closed because its client left too much unread. */
  overflowed = false;

  private constructor(
    private readonly raw: ServerResponse,
    private readonly maxBuffered: number,
  ) {
    raw.on('close', () => {
      this.ended = true;
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  /**
   * Starts an SSE response on `reply` (status 200), keeping the headers already set on it. The
   * connection closes when more than `maxBufferedBytes` wait unread.
   */
  static open(reply: FastifyReply, headers: Record<string, string> = {}, maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES): SseConnection {
    const raw = SseConnection.head(reply, headers);
    raw.flushHeaders();
    return new SseConnection(raw, maxBufferedBytes);
  }

  /**
   * Answers with a stream whose every event is already known: headers and events go out in one
   * write, with a Content-Length, and the response ends.
   */
  static whole(reply: FastifyReply, headers: Record<string, string>, events: string): SseConnection {
    const raw = SseConnection.head(reply, { ...headers, 'content-length': String(Buffer.byteLength(events)) });
    const connection = new SseConnection(raw, Infinity);
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

  /** Bytes written and not yet taken by the operating system. */
  get bufferedBytes(): number {
    return this.raw.writableLength;
  }

  /** Writes an already formatted frame. */
  writeFrame(frame: string): void {
    if (!this.closed && this.hasRoom()) this.raw.write(frame);
  }

  /** Writes one `message` event. */
  write(data: string, id?: string, event?: string): void {
    if (this.closed || !this.hasRoom()) return;
    let frame = '';
    if (id !== undefined) frame += `id: ${id}\n`;
    if (event !== undefined) frame += `event: ${event}\n`;
    this.raw.write(`${frame}data: ${data}\n\n`);
  }

  /**
   * False (and the connection closed) when the client left more than the limit unread. Any one
   * event goes out whatever its size; a backlog past the limit is what closes the stream.
   */
  private hasRoom(): boolean {
    if (this.raw.writableLength <= this.maxBuffered) return true;
    this.overflowed = true;
    this.ended = true;
    this.raw.destroy();
    return false;
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
