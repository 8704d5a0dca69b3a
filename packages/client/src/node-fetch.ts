/**
 * The HTTP requests of the client transports, on `node:http`/`node:https` with a keep-alive agent
 * when no `fetch` is given: Node's `fetch` costs several times more per request than the request
 * itself (measured in `npm run bench`, client section). Only what the transports use of a
 * `Response` is offered; a JSON answer is read straight from the socket, an SSE one becomes a web
 * stream. Whichever `fetch` runs, a body is read up to a limit ({@link readText}) and a redirect
 * is followed only within the server's origin ({@link followRedirect}).
 */
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { ErrorCode, McpError } from '@hermes-mcp/protocol';
import type { TransportInfo } from '@hermes-mcp/protocol';
import { DEFAULT_MAX_MESSAGE_BYTES, messageTooLarge } from './limits';

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
  /** Set for a `fetch` that was given: redirects come back as they are, for {@link followRedirect}. */
  redirect?: 'manual';
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

  /** The body as text, at most the default message limit (see {@link textWithin}). */
  text(): Promise<string> {
    return this.textWithin(DEFAULT_MAX_MESSAGE_BYTES);
  }

  /**
   * The body as text; one that declares, or reaches, more than `maxBytes` drops the connection
   * and rejects with -32013. Read as bytes and decoded once: a string grown chunk by chunk would
   * throw from a listener, out of reach, at V8's string limit.
   */
  textWithin(maxBytes: number): Promise<string> {
    const raw = this.raw;
    return new Promise((resolve, reject) => {
      const declared = Number(raw.headers['content-length']);
      if (declared > maxBytes) {
        raw.destroy();
        return reject(messageTooLarge(maxBytes, declared));
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      raw.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= maxBytes) return void chunks.push(chunk);
        raw.destroy();
        reject(messageTooLarge(maxBytes));
      });
      raw.once('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, bytes).toString('utf8')));
      raw.once('error', reject);
    });
  }
}

/**
 * The body of an answer as text, at most `maxBytes` of it: past them (or declared past them) the
 * body is dropped and the promise rejects with -32013, naming the limit.
 */
export async function readText(response: FetchResponse, maxBytes: number): Promise<string> {
  if (response instanceof NodeResponse) return response.textWithin(maxBytes);
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw messageTooLarge(maxBytes, declared);
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw messageTooLarge(maxBytes);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

/** Keep-alive agents, one per protocol, with a bounded number of sockets per server. */
const agents = { 'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }), 'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

/**
 * A request on node:http(s); rejects like `fetch` on a network error or an abort. A kept-alive
 * socket the server closed meanwhile (it restarted, or its idle timeout passed) fails before any
 * answer: the request is sent again once, on a new socket, as Node's documentation advises.
 */
export const nodeFetch: FetchLike = (url, init) => send(url, init, true, 0);

function send(url: URL, init: FetchInit, retry: boolean, redirects: number): Promise<FetchResponse> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const request = (https ? httpsRequest : httpRequest)(url, {
      method: init.method,
      headers: init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
      agent: agents[https ? 'https:' : 'http:'],
      signal: init.signal,
    });
    request.once('response', (raw) => {
      const response = new NodeResponse(raw);
      try {
        resolve(followRedirect(response, url, init, redirects, (target) => send(target, init, true, redirects + 1)) ?? response);
      } catch (error) {
        reject(error);
      }
    });
    request.once('error', (error: NodeJS.ErrnoException) => {
      if (retry && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) resolve(send(url, init, false, redirects));
      else reject(new TypeError('fetch failed', { cause: error }));
    });
    request.end(init.body);
  });
}

/** Redirects followed in a row; one more is refused. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The request sent again where a redirect answer points, when the client follows it: a target in
 * the request's origin, with no other credentials in its URL, at most {@link MAX_REDIRECTS} in a
 * row, that keeps the method (307 and 308; any redirect of a GET). Any other redirect throws an
 * error naming its target: followed, it would carry the request's headers (an API key, the
 * session id, a token) to a server they were not meant for. Undefined for an answer that is no
 * redirect (or has no readable `Location`), which the transport reads as any other.
 */
function followRedirect(response: FetchResponse, url: URL, init: FetchInit, redirects: number, again: (target: URL) => Promise<FetchResponse>): Promise<FetchResponse> | undefined {
  if ((response as { type?: string }).type === 'opaqueredirect') {
    throw new McpError(ErrorCode.InternalError, `${init.method} ${url.href} was redirected, and this fetch does not tell where to: not followed`);
  }
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get('location');
  const target = location === null ? undefined : URL.canParse(location, url.href) ? new URL(location, url) : undefined;
  if (target === undefined) return undefined;
  void response.body?.cancel().catch(() => undefined);
  const why =
    target.origin !== url.origin
      ? `another origin (the client follows redirects only within the server's origin, so that its headers stay there; use that URL as the endpoint if it is the server meant)`
      : (target.username || target.password) && (target.username !== url.username || target.password !== url.password)
        ? 'other credentials in the URL'
        : redirects >= MAX_REDIRECTS
          ? `the redirect after ${MAX_REDIRECTS} in a row`
          : response.status !== 307 && response.status !== 308 && init.method !== 'GET'
            ? `a ${response.status} would turn the ${init.method} into a GET (only 307 and 308 keep it)`
            : undefined;
  if (why === undefined) return again(target);
  // Named without credentials, query or fragment: they may hold secrets.
  const named = new URL(target.href);
  named.username = named.password = named.search = named.hash = '';
  throw new McpError(ErrorCode.InternalError, `HTTP ${response.status} from ${url.href} redirects to ${named.href}: not followed, ${why}`, {
    status: response.status,
    location: named.href,
  });
}

/** A `fetch` that was given, its redirects followed by {@link followRedirect} rather than by itself. */
function redirectsChecked(given: typeof fetch): FetchLike {
  const send = (url: URL, init: FetchInit, redirects: number): Promise<FetchResponse> =>
    given(url, { ...init, redirect: 'manual' }).then((response) => followRedirect(response, url, init, redirects, (target) => send(target, init, redirects + 1)) ?? response);
  return (url, init) => send(url, init, 0);
}

/**
 * The `fetch` of an HTTP transport: the one given, else {@link nodeFetch}; with `auth`, wrapped so
 * that every request carries the token (a 401 or 403 insufficient_scope signs in and retries).
 */
export function transportFetch(options: { url: string | URL; fetch?: typeof fetch; auth?: { wrap(inner: FetchLike, serverUrl: URL): FetchLike } }): FetchLike {
  // Node's fetch costs more than the request itself: node:http with keep-alive unless told otherwise.
  const base: FetchLike = options.fetch ? redirectsChecked(options.fetch) : nodeFetch;
  return options.auth ? options.auth.wrap(base, new URL(options.url)) : base;
}

/**
 * The `info` of an HTTP transport (telemetry reads it): `kind`, the server's `url`, and
 * `httpVersion`, the HTTP version its requests go in — `1.1` on {@link nodeFetch}, as node:http
 * speaks no other; left out with a `fetch` that was given, whose `Response` does not say which
 * version carried it (undici's may have negotiated HTTP/2).
 */
export function httpTransportInfo(kind: string, url: string, options: { fetch?: typeof fetch }): TransportInfo {
  return Object.freeze(options.fetch ? { kind, url } : { kind, url, httpVersion: '1.1' });
}
