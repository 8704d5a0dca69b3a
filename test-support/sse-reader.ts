/**
 * Reads Server-Sent Events off a fetch body, the way the wire carries them, without any SDK: the
 * test sees every event (priming events with empty data included) with its `id`, `event`, `retry`
 * and `data` exactly as the server wrote them.
 *
 * Parsing follows the WHATWG rules where they matter here: lines end with CRLF, LF or CR; a blank
 * line ends an event; `field: value` loses one leading space; `data` lines join with "\n"; lines
 * starting with ":" are comments. Unlike an EventSource, an event is reported even when its data
 * is empty (that is what a priming event looks like).
 */

import { SseEvent, SseParser } from './fixtures/src/fuzz/sse';

export { SseEvent, SseParser };

/** How long a read may wait before it fails, by default. */
const DEFAULT_WAIT_MS = 5_000;

/**
 * Reads the events of one SSE response body, one at a time, with bounded waits.
 *
 * @example
 * const reader = new SseReader(response.body!);
 * const priming = await reader.next();
 * const rest = await reader.readToEnd();
 */
export class SseReader {
  /** Every event read so far, in order. */
  readonly events: SseEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser = new SseParser();
  private readonly queue: SseEvent[] = [];
  private ended = false;
  /** Why reading stopped, when the body failed rather than ended (an abort, a reset). */
  failure?: unknown;

  constructor(
    body: ReadableStream<Uint8Array>,
    /** How long one {@link next} may wait, in milliseconds. */
    private readonly waitMs = DEFAULT_WAIT_MS,
  ) {
    this.reader = body.getReader();
  }

  /** True once the server ended the stream (and every event was read). */
  get done(): boolean {
    return this.ended && this.queue.length === 0;
  }

  /** The next event, or undefined when the stream ended; rejects when none comes in time. */
  async next(what = 'the next SSE event'): Promise<SseEvent | undefined> {
    const deadline = Date.now() + this.waitMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`waited ${this.waitMs} ms for ${what}; events so far: ${JSON.stringify(this.events)}`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left)));
      const chunk = await Promise.race([this.read(), timeout]);
      clearTimeout(timer);
      if (chunk === 'timeout') continue;
    }
    const event = this.queue.shift();
    if (event) this.events.push(event);
    return event;
  }

  /** The next event, which must exist (the stream must not end first). */
  async expect(what = 'the next SSE event'): Promise<SseEvent> {
    const event = await this.next(what);
    if (!event) throw new Error(`the stream ended before ${what}; events so far: ${JSON.stringify(this.events)}`);
    return event;
  }

  /** The next event whose data is a JSON-RPC message, parsed (events with empty data are skipped but kept in {@link events}). */
  async message(what = 'the next message'): Promise<{ event: SseEvent; message: Record<string, unknown> }> {
    for (;;) {
      const event = await this.expect(what);
      if (event.data !== '') return { event, message: JSON.parse(event.data) as Record<string, unknown> };
    }
  }

  /** Reads until the server ends the stream; returns the events read by this call. */
  async readToEnd(): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let event = await this.next('the end of the stream'); event; event = await this.next('the end of the stream')) out.push(event);
    return out;
  }

  /** Stops reading (the connection is let go); safe to call twice. */
  async cancel(): Promise<void> {
    this.ended = true;
    await this.reader.cancel().catch(() => undefined);
  }

  private pending?: Promise<void>;

  /** One read of the body at a time, shared by racing waits so no chunk is lost. */
  private read(): Promise<void> {
    this.pending ??= this.reader.read().then(
      ({ value, done }) => {
        this.pending = undefined;
        if (done) {
          this.queue.push(...this.parser.push(this.decoder.decode()));
          this.ended = true;
          return;
        }
        this.queue.push(...this.parser.push(this.decoder.decode(value, { stream: true })));
      },
      (error: unknown) => {
        this.pending = undefined;
        this.failure = error;
        this.ended = true;
      },
    );
    return this.pending;
  }
}
