/**
 * Reads a `text/event-stream` body event by event (the WHATWG rules MCP servers write to: `id`,
 * `event`, `data` lines, `retry`, comments), bounded so a server cannot make one event grow
 * without limit.
 */

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** Most characters one event may hold (16 MiB): a bigger one ends the stream with an error. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** The events of a response body, as they arrive. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  let buffer = '';
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
      buffer += value;
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (hasData || event.id !== undefined || event.retry !== undefined) yield event;
          event = { data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') {
          event.data = hasData ? `${event.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'id' && !value.includes('\0')) event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
        if (event.data.length > MAX_EVENT_CHARS) throw new Error(`an SSE event larger than ${MAX_EVENT_CHARS} characters`);
      }
      if (buffer.length > MAX_EVENT_CHARS) throw new Error(`an SSE line longer than ${MAX_EVENT_CHARS} characters`);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Left before the end (the reader stopped, or an error): the body is not needed any more.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
