/**
 * The HTTP requests of the client transports, on `node:http`/`node:https` with a keep-alive agent
 * when no `fetch` is given: Node's `fetch` costs several times more per request than the request
 * itself (measured in `npm run bench`, client section). Only what the transports use of a
 * `Response` is offered; a JSON answer is read straight from the socket, an SSE one becomes a web
 * stream.
 */
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** What the transports read of an answer (a `Response` has all of it). */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
}

/** What the transports send. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** A `fetch`, or the node:http one below. */
export type FetchLike = (url: URL, init: FetchInit) => Promise<FetchResponse>;

/** One answer read from a Node response. */
class NodeResponse implements FetchResponse {
  private stream?: ReadableStream<Uint8Array> = undefined;

  constructor(private readonly raw: IncomingMessage) {}

  get status(): number {
    return this.raw.statusCode ?? 0;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  readonly headers = {
    get: (name: string): string | null => {
      const value = this.raw.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };

  get body(): ReadableStream<Uint8Array> {
    return (this.stream ??= Readable.toWeb(this.raw) as ReadableStream<Uint8Array>);
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      this.raw.setEncoding('utf8');
      this.raw.on('data', (chunk: string) => (text += chunk));
      this.raw.once('end', () => resolve(text));
      this.raw.once('error', reject);
    });
  }
}

/** Keep-alive agents, one per protocol, with a bounded number of sockets per server. */
const agents = { 'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }), 'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

/**
 * A request on node:http(s); rejects like `fetch` on a network error or an abort. A kept-alive
 * socket the server closed meanwhile (it restarted, or its idle timeout passed) fails before any
 * answer: the request is sent again once, on a new socket, as Node's documentation advises.
 */
export const nodeFetch: FetchLike = (url, init) => send(url, init, true);

function send(url: URL, init: FetchInit, retry: boolean): Promise<FetchResponse> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const request = (https ? httpsRequest : httpRequest)(url, {
      method: init.method,
      headers: init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
      agent: agents[https ? 'https:' : 'http:'],
      signal: init.signal,
    });
    request.once('response', (raw) => resolve(new NodeResponse(raw)));
    request.once('error', (error: NodeJS.ErrnoException) => {
      if (retry && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) resolve(send(url, init, false));
      else reject(new TypeError('fetch failed', { cause: error }));
    });
    request.end(init.body);
  });
}

/**
 * The `fetch` of an HTTP transport: the one given, else {@link nodeFetch}; with `auth`, wrapped so
 * that every request carries the token (a 401 or 403 insufficient_scope signs in and retries).
 */
export function transportFetch(options: { url: string | URL; fetch?: typeof fetch; auth?: { wrap(inner: FetchLike, serverUrl: URL): FetchLike } }): FetchLike {
  // Node's fetch costs more than the request itself: node:http with keep-alive unless told otherwise.
  const base: FetchLike = options.fetch ? options.fetch : nodeFetch;
  return options.auth ? options.auth.wrap(base, new URL(options.url)) : base;
}
