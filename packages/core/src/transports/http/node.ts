/**
 * The streaming body of a Node `ServerResponse`, for adapters on Node's HTTP server (Fastify's
 * reply once hijacked, a plain `http.createServer`).
 */
import { merge } from '@hermes-mcp/protocol';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpEndpoint } from './endpoint';
import { HTTP_REFUSALS, refuse } from './refusals';
import { NODE_RESPONSE, finishedNormally } from './exchange';
import type { HttpRequest, HttpResponse, HttpStream } from './exchange';

/** An {@link HttpStream} over a Node response whose head was written. */
export class NodeHttpStream implements HttpStream {
  private ended = false;
  /** Whether the response had finished normally, as it closed (see {@link finishedNormally}). */
  private finished = false;

  constructor(private readonly raw: ServerResponse) {
    raw.once('close', () => {
      this.ended = true;
      this.finished = finishedNormally(raw);
    });
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

  /** Known once the response closed (false until then). */
  get delivered(): boolean {
    return this.finished;
  }

  onClose(listener: () => void): void {
    if (this.raw.closed || this.raw.destroyed) listener();
    else this.raw.once('close', listener);
  }
}

/**
 * Starts a streaming response on a Node response (status 200) with `headers` over those already
 * set (`inherited`, such as Fastify hooks' CORS headers): sent at once, or, with `whole`, in one
 * write with a Content-Length, and ended. For adapters on Node's HTTP server.
 */
export function streamNodeResponse(
  raw: ServerResponse,
  inherited: Readonly<Record<string, string | number | string[] | undefined>>,
  headers: Readonly<Record<string, string>>,
  whole?: string,
): HttpStream {
  // One object for the head: Node's writeHead reads it key by key.
  if (whole === undefined) {
    raw.writeHead(200, merge(inherited, headers));
    raw.flushHeaders();
  } else {
    raw.writeHead(200, merge(inherited, headers, { 'content-length': String(Buffer.byteLength(whole)) }));
  }
  const stream = new NodeHttpStream(raw);
  if (whole !== undefined) raw.end(whole);
  return stream;
}

/**
 * An {@link HttpResponse} over a plain Node response: what {@link toNodeListener} answers through
 * when a request cannot become a Fetch API `Request` and core answers it directly, and what an
 * adapter answers through once it took the response over. For adapters.
 */
export class NodeHttpResponse implements HttpResponse {
  constructor(private readonly raw: ServerResponse) {}

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    if (this.raw.headersSent) return;
    this.raw.writeHead(status, headers);
    this.raw.end(body);
  }

  stream(headers: Readonly<Record<string, string>>, whole?: string): HttpStream {
    return streamNodeResponse(this.raw, NO_HEADERS, headers, whole);
  }

  get aborted(): boolean {
    return this.raw.destroyed && !this.raw.writableFinished;
  }

  get bufferedBytes(): number {
    return this.raw.writableFinished ? 0 : this.raw.writableLength;
  }

  onClose(listener: () => void): void {
    if (this.raw.closed || this.raw.destroyed) listener();
    else this.raw.once('close', listener);
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** HTTP methods the Fetch API refuses to hold in a `Request` (`new Request` throws for them). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * Runs a Web-standard handler (`(request: Request) => Promise<Response>`, such as
 * {@link createWebHandler}'s) on Node's HTTP server. The response body is written as the client
 * takes it (a client that reads nothing leaves the backlog in the handler's stream, where its
 * limit applies), and a client that goes away aborts the request's signal.
 *
 * Node's parser accepts requests the Fetch API cannot hold: `TRACE`, or a Host header that is no
 * host (`[`, `user@evil`, a port past 65535). Nothing a client sends is thrown out of the
 * listener: such a request is answered by the handler's endpoint directly (core's own answer, the
 * same as any adapter gives: 403 for a Host it does not allow, 405 for a method it does not
 * serve), or, for a handler that is not {@link createWebHandler}'s, with 400 (405 for a method).
 *
 * @example
 * http.createServer(toNodeListener(createWebHandler(WeatherServer))).listen(3000, '127.0.0.1');
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  const endpoint = (handler as { endpoint?: HttpEndpoint }).endpoint;
  return (req, res) => {
    const controller = new AbortController();
    let request: Request;
    try {
      request = toRequest(req, controller.signal);
    } catch (error) {
      unrepresentable(req, res, endpoint, error);
      return;
    }
    res.once('close', () => {
      if (!finishedNormally(res)) controller.abort();
    });
    // What this response holds for the client counts as unread on the handler's side too.
    Object.defineProperty(request, NODE_RESPONSE, { value: res });
    handler(request)
      .then((response) => write(response, res, controller.signal))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      });
  };
}

/** The Fetch API `Request` of a Node request; throws when the Fetch API cannot hold it. */
function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) throw new TypeError(`the Fetch API cannot hold a ${method} request`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init);
}

/**
 * Answers a request the Fetch API cannot hold: through the endpoint when there is one (core
 * decides, as for every adapter), otherwise 405 for a method and 400 for anything else.
 */
function unrepresentable(req: IncomingMessage, res: ServerResponse, endpoint: HttpEndpoint | undefined, error: unknown): void {
  // The body, if any, is not read: the connection closes after the answer.
  res.shouldKeepAlive = false;
  req.resume();
  const response = new NodeHttpResponse(res);
  if (endpoint) {
    const request: HttpRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      ip: req.socket.remoteAddress,
      remotePort: req.socket.remotePort,
      httpVersion: req.httpVersion,
      native: req,
    };
    endpoint.handle(request, response).catch(() => refuse(response, HTTP_REFUSALS.INTERNAL_ERROR, undefined));
    return;
  }
  if (FORBIDDEN_METHODS.has((req.method ?? '').toUpperCase())) return refuse(response, HTTP_REFUSALS.UNREPRESENTABLE_METHOD, undefined, req.method ?? '');
  refuse(response, HTTP_REFUSALS.UNREPRESENTABLE_REQUEST, undefined, error instanceof Error ? error.message : String(error));
}

/** Writes a `Response` to a Node response, waiting for `drain` when the client is behind. */
async function write(response: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => (head[name] = value));
  res.writeHead(response.status, head);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (signal.aborted) return cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (done) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      if (res.destroyed) return cancel();
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
