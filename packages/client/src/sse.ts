/**
 * Reads a `text/event-stream` body event by event (the WHATWG rules MCP servers write to: `id`,
 * `event`, `data` lines, `retry`, comments), bounded so a server cannot make one event grow
 * without limit: an event past the limit is dropped as it streams in, never held whole. Lines are
 * cut from the bytes as they come, each byte looked at once, and decoded one line at a time (a
 * line end is never inside a UTF-8 character).
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from './limits';

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
  /**
   * Set, with `data` empty, when the event grew past the limit: the bytes it had then. Its rest
   * is skipped up to the blank line that ends it; the stream goes on after.
   */
  tooLarge?: number;
}

const LF = 0x0a;
const CR = 0x0d;
/** The longest field prefix a server writes before a value: `event: ` and `retry: `. */
const FIELD_PREFIX_BYTES = 7;

/** The events of a response body, as they arrive; an event whose data passes `maxBytes` bytes comes as `{ tooLarge }`. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal, maxBytes = DEFAULT_MAX_MESSAGE_BYTES): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  /** The line so far, when it began in an earlier chunk. */
  let parts: Buffer[] = [];
  let lineBytes = 0;
  /** Bytes of the event's data so far (its lines joined with newlines, as the message will be). */
  let eventBytes = 0;
  /** The event passed the limit: its lines are skipped up to the blank line that ends it. */
  let skipping = false;
  /** The last chunk ended with CR: an LF that starts the next one belongs to it. */
  let afterCr = false;
  let firstLine = true;
  let event: SseEvent = { data: '' };
  let hasData = false;
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      let start = afterCr && chunk[0] === LF ? 1 : 0;
      afterCr = false;
      for (let i = start; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte !== LF && byte !== CR) continue;
        const length = lineBytes + i - start;
        const from = start;
        const end = i;
        const held = parts;
        parts = [];
        lineBytes = 0;
        if (byte === CR) {
          if (i + 1 < chunk.length) i += chunk[i + 1] === LF ? 1 : 0;
          else afterCr = true;
        }
        start = i + 1;
        if (length === 0) {
          // A blank line ends the event.
          if (!skipping && (hasData || event.id !== undefined || event.retry !== undefined)) yield event;
          event = { data: '' };
          hasData = false;
          eventBytes = 0;
          skipping = false;
          continue;
        }
        if (skipping) continue;
        let line = held.length === 0 ? chunk.toString('utf8', from, end) : Buffer.concat([...held, chunk.subarray(from, end)]).toString('utf8');
        if (firstLine && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
        firstLine = false;
        if (line.charCodeAt(0) === 0x3a) continue; // ':' starts a comment, no part of the event
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
        // What counts is the data, as the message will be (its lines joined with newlines): a
        // server's largest message fits in one event, whatever its framing. Other fields replace
        // each other, so they add nothing up; each line is bounded as it comes (below).
        const size = name !== 'data' ? 0 : length - Buffer.byteLength(line.slice(0, line.length - value.length)) + (hasData ? 1 : 0);
        if (eventBytes + size > maxBytes) {
          skipping = true;
          yield { data: '', tooLarge: eventBytes + size };
          continue;
        }
        eventBytes += size;
        hasData = field(name, value, event, hasData);
      }
      if (start < chunk.length) {
        lineBytes += chunk.length - start;
        if (!skipping) parts.push(chunk.subarray(start));
        // A line that never ends counts against its event as it comes (less the longest field name it may start with).
        if (!skipping && eventBytes + lineBytes > maxBytes + FIELD_PREFIX_BYTES) {
          skipping = true;
          parts = [];
          yield { data: '', tooLarge: eventBytes + lineBytes };
        }
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Left before the end (the reader stopped, or an error): the body is not needed any more.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Adds one field to `event`; returns whether the event has data now. */
function field(name: string, value: string, event: SseEvent, hasData: boolean): boolean {
  if (name === 'data') {
    event.data = hasData ? `${event.data}\n${value}` : value;
    return true;
  }
  if (name === 'id' && !value.includes('\0')) event.id = value;
  else if (name === 'event') event.event = value;
  else if (name === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
  return hasData;
}
