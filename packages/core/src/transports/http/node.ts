/**
 * The streaming body of a Node `ServerResponse`, for adapters on Node's HTTP server (Fastify's
 * reply once hijacked, a plain `http.createServer`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpStream } from './exchange';

/** An {@link HttpStream} over a Node response whose head was written. */
export class NodeHttpStream implements HttpStream {
  private ended = false;

  constructor(private readonly raw: ServerResponse) {
    raw.once('close', () => (this.ended = true));
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

  get delivered(): boolean {
    return this.raw.writableFinished;
  }

  onClose(listener: () => void): void {
    if (this.raw.closed || this.raw.destroyed) listener();
    else this.raw.once('close', listener);
  }
}

/**
 * Runs a Web-standard handler (`(request: Request) => Promise<Response>`, such as
 * {@link createWebHandler}'s) on Node's HTTP server. The response body is written as the client
 * takes it (a client that reads nothing leaves the backlog in the handler's stream, where its
 * limit applies), and a client that goes away aborts the request's signal.
 *
 * @example
 * http.createServer(toNodeListener(createWebHandler(WeatherServer))).listen(3000, '127.0.0.1');
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const one of value) headers.append(name, one);
      else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal };
    if (hasBody) {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init);
    handler(request)
      .then((response) => write(response, res, controller.signal))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      });
  };
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
