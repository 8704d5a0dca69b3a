/**
 * A `fetch` for HTTP client transports (the v1 SDK's and the v2 client's alike) that records every
 * exchange with the server: the request, the status, and each JSON-RPC message of the response
 * body — a JSON body, or each `message` event of an SSE stream — exactly as the server wrote it.
 *
 * Each exchange is put in an era by its request, the way a dual-era server decides: a POST whose
 * body carries `_meta["io.modelcontextprotocol/protocolVersion"]` is modern (2026-07-28); every
 * other request (initialize, session POSTs, GET streams, DELETE) is legacy. So two clients of
 * different eras can share one recorder, and each era's messages are validated against its own
 * schema, with the methods of that era's requests (their ids may overlap between clients).
 *
 * Bodies are read as they arrive and handed on to the client (a tap, not a copy): a client that
 * cancels a stream — closing a `subscriptions/listen`, say — really closes it, and one that stops
 * reading without cancelling still lets the recorder see the rest.
 *
 * @example
 * const recorder = new RecordingFetch();
 * const transport = new StreamableHTTPClientTransport(url, { fetch: recorder.fetch });
 * // … drive the client …
 * await recorder.settled();
 * recorder.messages('modern').flatMap((m) => validateModernServerMessage(schema, m, recorder.requestMethodById('modern')));
 */
import type { MessageId } from './mcp-schema';
import { SseParser } from './sse-reader';

/** `modern` (2026-07-28, per-request `_meta`) or `legacy` (initialize-based sessions). */
export type WireEra = 'modern' | 'legacy';

/** One HTTP request and what came back. */
export interface FetchExchange {
  /** Position among all exchanges. */
  readonly seq: number;
  readonly era: WireEra;
  readonly method: string;
  readonly url: string;
  /** Request headers, lower-cased names. */
  readonly headers: Record<string, string>;
  /** The request body, parsed (when it was JSON text). */
  readonly body?: unknown;
  readonly status: number;
  readonly contentType: string | null;
  /** Response headers, lower-cased names. */
  readonly responseHeaders: Record<string, string>;
  /** The JSON-RPC messages of the response body, in order; grows while a stream is open. */
  readonly messages: unknown[];
  /** True once the body was read to its end, failed, or was cancelled by the client (or had none). */
  ended: boolean;
}

/** The shape both SDKs accept as their `fetch` option. */
export type RecordedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const CLAIM = 'io.modelcontextprotocol/protocolVersion';

/** How long a body is still read after its request was aborted, in milliseconds. */
const ABORT_GRACE_MS = 50;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is MessageId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** True when a request body carries the 2026-07-28 envelope claim. */
function claimsModern(body: unknown): boolean {
  return isRecord(body) && isRecord(body.params) && isRecord(body.params._meta) && CLAIM in body.params._meta;
}

/** Records the HTTP conversation of any number of client transports. */
export class RecordingFetch {
  /** Every exchange, in the order the requests were made. */
  readonly exchanges: FetchExchange[] = [];
  /** Response bodies (or SSE data) that were not JSON (should stay empty). */
  readonly unreadable: string[] = [];
  private readonly reading = new Set<Promise<void>>();

  /** Pass this as the transport's `fetch` option. */
  readonly fetch: RecordedFetch = (url, init) => this.record(url, init);

  /** Every message the server wrote in answer to requests of `era`, in the order they were read. */
  messages(era: WireEra): unknown[] {
    return this.ofEra(era).flatMap((e) => e.messages);
  }

  /** The exchanges of `era`. */
  ofEra(era: WireEra): FetchExchange[] {
    return this.exchanges.filter((e) => e.era === era);
  }

  /** The method of each request the clients sent in `era`, by id (batch members included). */
  requestMethodById(era: WireEra): Map<MessageId, string> {
    const out = new Map<MessageId, string>();
    for (const exchange of this.ofEra(era)) {
      for (const m of Array.isArray(exchange.body) ? exchange.body : [exchange.body]) {
        if (isRecord(m) && typeof m.method === 'string' && isId(m.id)) out.set(m.id, m.method);
      }
    }
    return out;
  }

  /** Resolves once every body read so far has ended (or failed), waiting at most `ms`. */
  async settled(ms = 2_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.reading]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private async record(url: string | URL, init?: RequestInit): Promise<Response> {
    let body: unknown;
    if (typeof init?.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    const method = init?.method ?? 'GET';
    const response = await fetch(url, init);
    const contentType = response.headers.get('content-type');
    const exchange: FetchExchange = {
      seq: this.exchanges.length,
      era: method === 'POST' && claimsModern(body) ? 'modern' : 'legacy',
      method,
      url: String(url),
      headers: lowerCased(init?.headers),
      ...(body !== undefined && { body }),
      status: response.status,
      contentType,
      responseHeaders: lowerCased(response.headers),
      messages: [],
      ended: false,
    };
    this.exchanges.push(exchange);
    const essence = contentType?.split(';')[0].trim().toLowerCase();
    if (!response.body || (essence !== 'application/json' && essence !== 'text/event-stream')) {
      exchange.ended = true;
      return response;
    }
    return new Response(this.tap(response.body, essence === 'text/event-stream', exchange, init?.signal ?? undefined), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /** A pass-through of `source` that parses what flows by into `into`. */
  private tap(source: ReadableStream<Uint8Array>, sse: boolean, exchange: FetchExchange, signal?: AbortSignal): ReadableStream<Uint8Array> {
    const into = exchange.messages;
    const decoder = new TextDecoder();
    const parser = new SseParser();
    let text = '';
    const take = (data: string) => {
      if (data === '') return;
      try {
        into.push(JSON.parse(data));
      } catch {
        this.unreadable.push(data);
      }
    };
    const feed = (chunk: string) => {
      if (!sse) {
        text += chunk;
        return;
      }
      for (const event of parser.push(chunk)) if (event.event === undefined || event.event === 'message') take(event.data);
    };
    let resolve!: () => void;
    const finished = new Promise<void>((r) => (resolve = r));
    const done = () => {
      exchange.ended = true;
      resolve();
    };
    this.reading.add(finished);
    void finished.then(() => this.reading.delete(finished));
    const reader = source.getReader();
    let cancelled = false;
    // A client may abort its request as the last bytes arrive (the v2 client does so on a listen's
    // result); undici then never ends the body. Whatever had arrived is read within the grace.
    signal?.addEventListener('abort', () => setTimeout(() => void reader.cancel().catch(() => undefined), ABORT_GRACE_MS).unref(), { once: true });
    // Read eagerly, not on the client's pulls: a client may stop reading once it has what it
    // wanted (a listen's result, say) without cancelling, and the end must still be seen.
    return new ReadableStream<Uint8Array>({
      start(controller) {
        void (async () => {
          try {
            for (;;) {
              const { value, done: ended } = await reader.read();
              if (ended) break;
              feed(decoder.decode(value, { stream: true }));
              if (!cancelled) controller.enqueue(value);
            }
            feed(decoder.decode());
            if (!sse) take(text);
            if (!cancelled) controller.close();
          } catch (error) {
            if (!cancelled) controller.error(error);
          } finally {
            done();
          }
        })();
      },
      async cancel(reason) {
        cancelled = true;
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }
}

function lowerCased(headers: RequestInit['headers'] | Headers): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => (out[key.toLowerCase()] = value));
  return out;
}
