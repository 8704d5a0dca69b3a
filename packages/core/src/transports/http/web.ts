/**
 * The Web-standard adapter: `(request: Request) => Promise<Response>`, for every server built on
 * the Fetch API's types — Hono, Next.js route handlers, Bun.serve, Deno.serve, workers, or Node
 * behind an adapter. The same {@link HttpEndpoint} as the Fastify plugin answers; this file only
 * turns a `Request` into an {@link HttpRequest} (reading the body within `bodyLimit`) and answers
 * through a `Response`, streamed with a `ReadableStream` for SSE.
 */
import { parseJson } from '@hermes-mcp/protocol';
import type { Constructor } from '../../container';
import { McpApp, McpAppOptions, McpFactory } from '../../bootstrap/factory';
import type { McpHandler } from '../../engine/mcp-handler';
import { HttpEndpoint, HttpEndpointOptions } from './endpoint';
import { HTTP_REFUSALS, refuse, sendError } from './refusals';
import { Deadlines } from './deadlines';
import { NODE_RESPONSE, whenNodeResponseOver } from './exchange';
import type { HttpRequest, HttpResponse, HttpStream, NodeOutput } from './exchange';
import { isJsonContentType } from './accept';
import { HermesError } from '../../errors';

/** Options of {@link createWebHandler}. */
export interface WebHandlerOptions extends HttpEndpointOptions {
  /** Options for `McpFactory.create` when the server is not an app yet. */
  appOptions?: McpAppOptions;
  /**
   * The client's address, for `maxSessionsPerClient` and logs (a `Request` does not carry one;
   * e.g. `(request) => request.headers.get('x-forwarded-for') ?? undefined` behind your proxy).
   */
  clientIp?: (request: Request) => string | undefined;
  /**
   * Milliseconds between the SSE comments (`:` lines, which clients ignore) written on a stream
   * that stays open; default 5 000, 0 for none. Cloudflare Workers cancel a response as hung
   * when its request has nothing pending — a GET or `subscriptions/listen` stream is only written
   * from other requests — and the comment's timer is pending; its write is also how the handler
   * learns there that a client left.
   */
  heartbeatMs?: number;
}

/** A Web-standard MCP handler, with the endpoint behind it and its graceful close. */
export interface WebHandler {
  (request: Request): Promise<Response>;
  /** The endpoint answering (its sessions, settings). */
  readonly endpoint: HttpEndpoint;
  /** Shuts down gracefully (see {@link HttpEndpoint.close}); call it before your server stops. */
  close(): Promise<void>;
}

/**
 * Serves a Hermes MCP server from any Fetch-API server.
 *
 * @example
 * const mcp = createWebHandler(WeatherServer, { path: '/mcp' });
 * Bun.serve({ port: 3000, fetch: mcp });                    // Bun
 * export const POST = mcp, GET = mcp, DELETE = mcp;         // a Next.js route handler
 * app.all('/mcp/*', (c) => mcp(c.req.raw));                 // Hono
 */
export function createWebHandler(server: Constructor | McpHandler | McpApp, options: WebHandlerOptions = {}): WebHandler {
  const app = server instanceof McpApp ? server : McpFactory.create(server, options.appOptions);
  const endpoint = new HttpEndpoint(app, options);
  const bodyLimit = endpoint.settings.bodyLimit;
  const deadlines = new Deadlines<BodyRead>(endpoint.settings.bodyTimeout, (read) => read.cut());
  const bodies = new Bodies(endpoint);
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  if (!(Number.isFinite(heartbeatMs) && heartbeatMs >= 0)) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `\`heartbeatMs\` must be a number of milliseconds, 0 or more (0: no heartbeat); got ${String(heartbeatMs)}.`);
  }
  const handler = async (request: Request): Promise<Response> => {
    const response = new WebResponse(request.signal, bodies, heartbeatMs, (request as { [NODE_RESPONSE]?: NodeOutput })[NODE_RESPONSE]);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const read = request.method === 'POST' ? await readBody(request, headers, bodyLimit, deadlines, response) : NO_BODY;
    if (read === undefined) return response.response;
    const http: HttpRequest = {
      method: request.method,
      url: url.pathname + url.search,
      headers: headers,
      ip: options.clientIp?.(request),
      body: read.body,
      bodySuspect: read.suspect,
      native: request,
    };
    endpoint.handle(http, response).catch((error: unknown) => {
      app.logger.error({ err: error }, 'MCP endpoint failed');
      if (!response.started) refuse(response, HTTP_REFUSALS.INTERNAL_ERROR, undefined);
    });
    return response.response;
  };
  const close = async (): Promise<void> => {
    await endpoint.close();
    await bodies.taken(endpoint.gracePeriodMs);
  };
  return Object.assign(handler, { endpoint, close });
}

/** Bodies at least this long are handed to the server in slices, as it reads them. */
const SLICED_FROM = 64 * 1024;
/** The size of one slice. */
const SLICE = 64 * 1024;

/**
 * The whole bodies this handler has handed out whose every byte the server has not read yet:
 * large ones (what the server has not taken counts as the client's unread output), and, once
 * closing began, every one — so that `close()` resolves only when the answers it promised were
 * taken (a process that exits then loses none).
 */
class Bodies {
  private readonly pending = new Set<SlicedBody>();
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly endpoint: HttpEndpoint) {}

  /** Whether a body of `length` characters is handed out in slices. */
  sliced(length: number): boolean {
    return length >= SLICED_FROM || this.endpoint.isClosing;
  }

  /**
   * A body handed out in slices; `onTaken` runs once the server has read it all (`whole` true), or
   * gave up on it (the request ended first, or its reader cancelled).
   */
  add(text: string, onTaken: (whole: boolean) => void): SlicedBody {
    const body = new SlicedBody(encoder.encode(text), (whole) => {
      this.pending.delete(body);
      onTaken(whole);
      if (this.pending.size === 0) for (const settle of this.waiting.splice(0)) settle();
    });
    this.pending.add(body);
    return body;
  }

  /** Resolves once every body handed out was taken, or after `timeoutMs` (a client that never reads). */
  taken(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiting.push(done);
    });
  }
}

/**
 * A whole body read in slices: each is a view of the encoded text, enqueued when the server pulls
 * (a Node server behind {@link toNodeListener} pulls again once its socket drained), so the server
 * never holds it all in its own buffers, and what it has not pulled is known.
 */
class SlicedBody {
  readonly readable: ReadableStream<Uint8Array>;
  private offset = 0;
  private done = false;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly onTaken: (whole: boolean) => void,
  ) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          if (this.offset === this.bytes.byteLength) {
            // Pulled past the last slice: the server wrote that one out. Told after the
            // microtasks that end its response have run.
            controller.close();
            setImmediate(() => this.finish(true));
            return;
          }
          const end = Math.min(this.offset + SLICE, this.bytes.byteLength);
          controller.enqueue(this.bytes.subarray(this.offset, end));
          this.offset = end;
        },
        cancel: () => this.finish(),
      },
      { highWaterMark: 0 },
    );
  }

  /** Bytes the server has not pulled yet. */
  get bufferedBytes(): number {
    return this.done ? 0 : this.bytes.byteLength - this.offset;
  }

  /** The length in bytes. */
  get byteLength(): number {
    return this.bytes.byteLength;
  }

  /** Read whole (`whole`), or given up: the request ended, or its reader cancelled, before the body was read. */
  finish(whole = false): void {
    if (this.done) return;
    this.done = true;
    this.onTaken(whole);
  }
}

const NO_BODY = { body: undefined, suspect: false };
const encoder = new TextEncoder();

/**
 * The body of a POST, parsed: undefined (and the response sent: 413, 400) when it is too large,
 * empty or not JSON. A body that is not declared JSON is left for the endpoint to refuse (415).
 */
async function readBody(
  request: Request,
  headers: Record<string, string>,
  limit: number,
  deadlines: Deadlines<BodyRead>,
  response: HttpResponse,
): Promise<{ body: unknown; suspect: boolean } | undefined> {
  const tooLarge = () => refuse(response, HTTP_REFUSALS.PAYLOAD_TOO_LARGE, undefined, limit);
  const declared = Number(headers['content-length']);
  if (declared > limit) return void tooLarge();
  if (!isJsonContentType(headers['content-type'])) {
    await request.body?.cancel();
    return NO_BODY;
  }
  // Bun gives an empty body as none at all.
  if (!request.body) return void refuse(response, HTTP_REFUSALS.BODY_EMPTY, undefined);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A body that trickles in is cut at the deadline: the pending read ends, and the answer is 408.
  const read = new BodyRead(reader);
  deadlines.add(read);
  try {
    for (;;) {
      const { done, value } = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (read.late) return void refuse(response, HTTP_REFUSALS.REQUEST_TIMEOUT, undefined, deadlines.timeoutMs);
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        return void tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    deadlines.delete(read);
  }
  const text = new TextDecoder().decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
  if (text === '') return void refuse(response, HTTP_REFUSALS.BODY_EMPTY, undefined);
  const parsed = parseJson(text);
  if (!parsed.ok) return void sendError(response, 400, parsed.error.code, parsed.error.message);
  return { body: parsed.value, suspect: parsed.suspect };
}

/** The reading of one body, which its deadline can cut. */
class BodyRead {
  /** True once the deadline passed. */
  late = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The deadline passed: the pending read ends. */
  cut(): void {
    this.late = true;
    void this.reader.cancel().catch(() => undefined);
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/** An {@link HttpResponse} that becomes a `Response`: whole, or streamed through a `ReadableStream`. */
class WebResponse implements HttpResponse {
  /** The `Response`, once the endpoint decided how to answer. */
  readonly response: Promise<Response>;
  /** True once the endpoint answered (the `Response` exists). */
  started = false;
  private resolve!: (response: Response) => void;
  private readonly over = new WhenOver();
  private body?: WebStream = undefined;
  private sliced?: SlicedBody = undefined;

  constructor(
    private readonly signal: AbortSignal,
    private readonly bodies: Bodies,
    private readonly heartbeatMs: number,
    /** The Node response behind the `Response`, under `toNodeListener`: what it holds is unread too. */
    private readonly behind?: NodeOutput,
  ) {
    this.response = new Promise((resolve) => (this.resolve = resolve));
    signal.addEventListener('abort', () => this.finish(), { once: true });
  }

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    if (this.started) return;
    this.started = true;
    if (body === undefined || status === 202 || status === 204 || !this.bodies.sliced(body.length)) {
      this.resolve(new Response(status === 202 || status === 204 ? null : (body ?? null), { status, headers }));
      queueMicrotask(() => this.finish());
      return;
    }
    const sliced = this.bodies.add(body, () => this.finish());
    this.sliced = sliced;
    this.resolve(new Response(sliced.readable, { status, headers: { ...headers, 'content-length': String(sliced.byteLength) } }));
    if (this.signal.aborted) sliced.finish();
  }

  stream(headers: Readonly<Record<string, string>>, whole?: string): HttpStream {
    this.started = true;
    if (whole !== undefined) {
      // In slices, as a large whole body is sent, whatever its size: whether it was read whole (and,
      // under toNodeListener, whether the Node response then finished) says whether it went out.
      const sent = new SentWhole(this.behind);
      const sliced = this.bodies.add(whole, (taken) => {
        sent.taken(taken);
        this.finish();
      });
      this.sliced = sliced;
      this.resolve(new Response(sliced.readable, { status: 200, headers: { ...headers, 'content-length': String(sliced.byteLength) } }));
      if (this.signal.aborted) sliced.finish();
      return sent;
    }
    const stream = new WebStream(() => this.finish(), this.heartbeatMs, this.behind);
    this.body = stream;
    this.resolve(new Response(stream.readable, { status: 200, headers }));
    return stream;
  }

  get aborted(): boolean {
    return this.signal.aborted || (this.body?.cancelled ?? false);
  }

  get bufferedBytes(): number {
    return this.sliced?.bufferedBytes ?? 0;
  }

  onClose(listener: () => void): void {
    this.over.add(listener);
  }

  /** The response is over: complete (its body taken), cut by the client, or destroyed. */
  private finish(): void {
    if (this.over.done) return;
    this.body?.cut();
    this.sliced?.finish();
    this.over.fire();
  }
}

/**
 * A whole answer sent as one body (an SSE answer that became one response): over once its body was
 * read whole or given up; delivered when read whole — and, under `toNodeListener`, once the Node
 * response it was piped to finished normally (what the body's reader handed on may still be cut).
 */
class SentWhole implements HttpStream {
  private went = false;
  private readonly over = new WhenOver();

  constructor(private readonly behind?: NodeOutput) {}

  write(): void {
    // ended already: it was sent whole
  }

  end(): void {
    // ended already
  }

  destroy(): void {
    // nothing left to cut: the body is the response's
  }

  get bufferedBytes(): number {
    return 0;
  }

  get closed(): boolean {
    return true;
  }

  get delivered(): boolean {
    return this.went;
  }

  onClose(listener: () => void): void {
    this.over.add(listener);
  }

  /** The body was read whole (`whole`), or given up. */
  taken(whole: boolean): void {
    if (!whole || !this.behind) {
      this.went = whole;
      this.over.fire();
      return;
    }
    whenNodeResponseOver(this.behind, (finished) => {
      this.went = finished;
      this.over.fire();
    });
  }
}

/** The streamed body of a {@link WebResponse}: what is enqueued and not yet read counts as buffered. */
class WebStream implements HttpStream {
  readonly readable: ReadableStream<Uint8Array>;
  /**
   * True once nothing more reaches the client: it stopped reading (the `Response` body was
   * cancelled), or the stream was cut for it.
   */
  cancelled = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private endedNormally = false;
  private readonly over = new WhenOver();

  constructor(
    private readonly onOver: () => void,
    heartbeatMs: number,
    /** The Node response the stream is piped to, if any: what it holds is unread too. */
    private readonly behind?: NodeOutput,
  ) {
    // Made while the request that opened the stream is being handled: a worker's timer then
    // belongs to that request, which it keeps from being taken for hung.
    if (heartbeatMs > 0) {
      const timer = setInterval(() => this.write(':\n\n'), heartbeatMs);
      timer.unref?.();
      this.over.add(() => clearInterval(timer));
    }
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => {
          this.cancelled = true;
          this.close();
        },
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }

  write(chunk: string): void {
    if (!this.ended) this.controller.enqueue(encoder.encode(chunk));
  }

  end(): void {
    if (this.ended) return;
    this.endedNormally = true;
    this.controller.close();
    this.close();
  }

  destroy(): void {
    if (this.ended) return;
    // Cut as a client that left would cut it: the response is aborted, and so is what writes to it.
    this.cancelled = true;
    this.controller.error(new Error('the client left too much of the stream unread'));
    this.close();
  }

  /**
   * The response ended from outside (the request was aborted): the body closes quietly. Not with
   * an error — nobody is left to read it, and Deno prints the stack of every errored body.
   */
  cut(): void {
    if (this.ended) return;
    this.cancelled = true;
    try {
      this.controller.close();
    } catch {
      // already closed
    }
    this.close();
  }

  get bufferedBytes(): number {
    return this.ended ? 0 : -(this.controller.desiredSize ?? 0) + (this.behind?.writableLength ?? 0);
  }

  get closed(): boolean {
    return this.ended;
  }

  get delivered(): boolean {
    return this.endedNormally && !this.cancelled;
  }

  onClose(listener: () => void): void {
    this.over.add(listener);
  }

  private close(): void {
    if (this.over.fire()) this.onOver();
  }

  private get ended(): boolean {
    return this.over.done;
  }
}

/** Listeners run once, when something is over (at once, for those added later). */
class WhenOver {
  private over = false;
  private readonly listeners: Array<() => void> = [];

  /** True once it is over. */
  get done(): boolean {
    return this.over;
  }

  /** Runs `listener` when it is over (now, if it is). */
  add(listener: () => void): void {
    if (this.over) listener();
    else this.listeners.push(listener);
  }

  /** It is over: runs the listeners; false when it already was. */
  fire(): boolean {
    if (this.over) return false;
    this.over = true;
    for (const listener of this.listeners.splice(0)) listener();
    return true;
  }
}
