/**
 * One Server-Sent Events connection: writes events to the streaming body of an HTTP response
 * (whatever the adapter: {@link HttpStream}).
 *
 * A client that does not read its stream cannot make the server buffer without end: once more
 * than `maxBufferedBytes` wait unread, the next write closes the connection instead
 * ({@link SseConnection.overflowed}), and its owner decides what that means (a request's stream:
 * the request is cancelled; the session's GET stream: it ends and can be resumed).
 */
import { merge } from '@hermes-mcp/protocol';
import type { HttpResponse, HttpStream } from './exchange';
import { atExpiry } from '../expiry';

/** Default limit of what one stream may hold unread: 4 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The headers of every SSE response. */
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

/** Writes SSE events on one HTTP response. For the Hermes packages. */
export class SseConnection {
  private ended = false;
  /** True when the connection was closed because its client left too much unread. */
  overflowed = false;

  private constructor(
    private readonly raw: HttpStream,
    private readonly maxBuffered: number,
  ) {
    raw.onClose(() => (this.ended = true));
  }

  /**
   * Starts an SSE response (status 200) with `headers` besides the SSE ones. The connection closes
   * when more than `maxBufferedBytes` wait unread.
   */
  static open(response: HttpResponse, headers: Record<string, string> = {}, maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES): SseConnection {
    return new SseConnection(response.stream(merge(headers, SSE_HEADERS)), maxBufferedBytes);
  }

  /**
   * Answers with a stream whose every event is already known: headers and events go out in one
   * write, with a Content-Length, and the response ends.
   */
  static whole(response: HttpResponse, headers: Record<string, string>, events: string): SseConnection {
    return new SseConnection(response.stream(merge(headers, SSE_HEADERS), events), Infinity);
  }

  /**
   * True once everything written was handed to the operating system (the response finished, not
   * cut). Known once the response is over: read it in {@link onClose}.
   */
  get delivered(): boolean {
    return this.raw.delivered;
  }

  /** True once the response ended, from either side. */
  get closed(): boolean {
    return this.ended || this.raw.closed;
  }

  /** Bytes written and not yet taken by the operating system. */
  get bufferedBytes(): number {
    return this.raw.bufferedBytes;
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
    if (this.raw.bufferedBytes <= this.maxBuffered) return true;
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

  /**
   * Ends the stream when the access token it was opened with expires (`AuthInfo.expiresAt`,
   * seconds; nothing without one): the client reconnects, with a fresh token or to a 401 that
   * says to get one.
   */
  endAtExpiry(expiresAt: number | undefined): this {
    if (expiresAt !== undefined && !this.closed) this.onClose(atExpiry(expiresAt, () => this.end()));
    return this;
  }

  /**
   * Runs `listener` once when the response is over (immediately if it is): cut, or ended and done
   * with — a Node response once its last bytes were handed on or given up, not as it is ended.
   */
  onClose(listener: () => void): void {
    this.raw.onClose(listener);
  }
}
