/**
 * The client side of the HTTP+SSE transport of MCP 2024-11-05, for servers that still speak only
 * it: a GET opens the session's event stream, whose first `endpoint` event names where to POST;
 * every message of the server arrives on that stream as a `message` event. The session lives as
 * long as the stream.
 */
import { ConnectionClosedError, ErrorCode, JsonRpcMessage, McpError, ParsedFrame, SendOptions, Transport, TransportInfo, parseFrame, serialize } from '@hermes-mcp/protocol';
import { AnswersInFlight, messageLimit, messageTooLarge } from './limits';
import { FetchLike, FetchResponse, httpTransportInfo, readText, transportFetch } from './node-fetch';
import { OAuthClient } from './oauth';
import { OAuthError } from './oauth-answer';
import { SseEvent, readSse } from './sse';
import { transportOptions } from './transport-url';
import type { TransportState } from './stdio';

/** Options of an {@link SseClientTransport}. */
export interface SseClientOptions {
  /** The stream's URL, e.g. `http://127.0.0.1:3000/mcp/sse`. */
  url: string | URL;
  /** Headers sent with the GET and every POST. */
  headers?: Record<string, string>;
  /**
   * The `fetch` to use (default: `node:http` with keep-alive). Its redirects are followed by the
   * transport, only within the server's origin.
   */
  fetch?: typeof fetch;
  /** Signs in to servers that ask for OAuth (MCP authorization): see {@link OAuthClient}. */
  auth?: OAuthClient;
  /** Milliseconds to wait for the `endpoint` event (default 10 000). */
  connectTimeout?: number;
  /**
   * The largest message read from the server, in bytes (default 16 MiB): an event past it is
   * dropped as it streams in, and every request pending fails with -32013 naming the limit (which
   * of them it answered cannot be told); a POST's answer past it fails that POST.
   */
  maxMessageBytes?: number;
}

/** Talks to a 2024-11-05 HTTP+SSE server. */
export class SseClientTransport implements Transport {
  /** `kind`, the server's `url` and the `httpVersion` spoken, when known (for telemetry: `server.address`, `network.protocol.version`). */
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  ondiscard?: (error: McpError) => void;
  private state: TransportState = 'disconnected';
  private lastError?: Error = undefined;
  private endpoint?: URL = undefined;
  private readonly aborter = new AbortController();
  private readonly fetch: FetchLike;
  private closed = false;
  private readonly options: SseClientOptions;
  /** A controller per POST under way: close() ends each, and no shared signal collects a listener per request. */
  private readonly posts = new Set<AbortController>();
  private readonly answers = new AnswersInFlight();
  private readonly maxBytes: number;

  /** `new SseClientTransport(url, options?)` — the official SDK's way, e.g. with a `new URL(…)` — or `new SseClientTransport({ url, …options })`. */
  constructor(url: string | URL, options?: Omit<SseClientOptions, 'url'>);
  constructor(options: SseClientOptions);
  constructor(first: string | URL | SseClientOptions, rest?: Omit<SseClientOptions, 'url'>) {
    const options = (this.options = transportOptions('SseClientTransport', first, rest));
    this.info = httpTransportInfo('sse', String(options.url), options);
    this.fetch = transportFetch(options);
    this.maxBytes = messageLimit(options);
  }

  /**
   * The session's id, as the `endpoint` event's URL names it (`?sessionId=`, as servers of the
   * HTTP+SSE transport do); undefined before it came or when it names none. Telemetry's `mcp.session.id`.
   */
  get sessionId(): string | undefined {
    return this.endpoint?.searchParams.get('sessionId') ?? undefined;
  }

  /** The transport's state, its last error and the URL it POSTs to. */
  status(): { state: TransportState; lastError?: Error; endpoint?: string } {
    const status: { state: TransportState; lastError?: Error; endpoint?: string } = { state: this.state };
    if (this.lastError) status.lastError = this.lastError;
    if (this.endpoint) status.endpoint = this.endpoint.href;
    return status;
  }

  /** Opens the stream and waits for the `endpoint` event. */
  async start(): Promise<void> {
    this.state = 'connecting';
    const url = new URL(this.options.url);
    // Only the handshake is timed: once the endpoint event came, the stream may last for ever.
    const handshake = new AbortController();
    const timer = setTimeout(() => handshake.abort(new Error('no endpoint event in time')), this.options.connectTimeout ?? 10_000);
    try {
      let response: FetchResponse;
      try {
        response = await this.fetch(url, {
          method: 'GET',
          headers: { ...this.options.headers, accept: 'text/event-stream' },
          signal: AbortSignal.any([this.aborter.signal, handshake.signal]),
        });
      } catch (error) {
        // Signing in failed, or a redirect was refused: said as it is.
        if (error instanceof OAuthError || error instanceof McpError) throw this.fail(error);
        throw this.fail(new ConnectionClosedError(`Could not open the SSE stream at ${url.href}: ${(error as Error).message}`));
      }
      if (!response.ok || !response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await response.body?.cancel().catch(() => undefined);
        throw this.fail(new ConnectionClosedError(`GET ${url.href} answered ${response.status} ${response.headers.get('content-type') ?? ''}, not an SSE stream`));
      }
      const events = readSse(response.body, this.aborter.signal, this.maxBytes);
      const first = await events.next().catch(() => ({ done: true as const, value: undefined }));
      if (first.done || first.value.event !== 'endpoint') {
        this.aborter.abort();
        throw this.fail(new ConnectionClosedError(`The SSE stream at ${url.href} did not start with an endpoint event`));
      }
      const endpoint = new URL(first.value.data, url);
      if (endpoint.origin !== url.origin) {
        this.aborter.abort();
        throw this.fail(new ConnectionClosedError(`The endpoint event names another origin (${endpoint.origin}); refused`));
      }
      this.endpoint = endpoint;
      this.state = 'connected';
      void this.read(events);
    } finally {
      clearTimeout(timer);
    }
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed || !this.endpoint) throw new ConnectionClosedError('Connection closed');
    const own = new AbortController();
    this.posts.add(own);
    // An answer to one of the server's requests: the stream waits while too many are on their way.
    const answer = !Array.isArray(message) && !('method' in message);
    if (answer) this.answers.add();
    try {
      let response: FetchResponse;
      try {
        response = await this.fetch(this.endpoint, {
          method: 'POST',
          headers: { ...this.options.headers, ...options?.headers, 'content-type': 'application/json' },
          body: serialize(message),
          signal: own.signal,
        });
      } catch (error) {
        if (error instanceof OAuthError || error instanceof McpError) throw this.fail(error);
        throw this.fail(new ConnectionClosedError(`Could not reach ${this.endpoint.href}: ${(error as Error).message}`));
      }
      // The answer comes on the stream; the body says at most why a POST was refused.
      const text = await readText(response, this.maxBytes).catch((error: unknown) => {
        if (error instanceof McpError) throw error;
        return '';
      });
      if (!response.ok)
        throw new McpError(ErrorCode.InternalError, `HTTP ${response.status} from ${this.endpoint.href}${text ? `: ${text.slice(0, 200)}` : ''}`, { status: response.status });
    } finally {
      this.posts.delete(own);
      if (answer) this.answers.done();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.aborter.abort();
    for (const post of this.posts) post.abort();
    this.posts.clear();
    this.end();
    return Promise.resolve();
  }

  /** Hands each `message` event to the peer until the stream ends; then the session is over. */
  private async read(events: AsyncGenerator<SseEvent>): Promise<void> {
    try {
      for await (const event of events) {
        if (event.tooLarge !== undefined) {
          // Dropped as it came; whose answer it was cannot be told, so every pending request hears why.
          const error = messageTooLarge(this.maxBytes, undefined, true);
          this.lastError = error;
          this.onerror?.(error);
          this.ondiscard?.(error);
          continue;
        }
        if ((event.event === undefined || event.event === 'message') && event.data !== '') this.onframe?.(parseFrame(event.data));
        const room = this.answers.room();
        if (room) await room;
      }
    } catch (error) {
      if (!this.closed) this.fail(error instanceof Error ? error : new Error(String(error)));
    }
    this.end();
  }

  private fail(error: Error): Error {
    this.lastError = error;
    this.state = 'error';
    this.onerror?.(error);
    return error;
  }

  private end(): void {
    if (this.state !== 'error') this.state = 'disconnected';
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}

/**
 * The official SDK's name for {@link SseClientTransport} (`SSEClientTransport` of
 * `@modelcontextprotocol/sdk/client/sse.js`): the same class, so
 * `new SSEClientTransport(new URL('http://127.0.0.1:3000/mcp/sse'))` works as there.
 */
export const SSEClientTransport = SseClientTransport;
/** The official SDK's name for {@link SseClientTransport}. */
export type SSEClientTransport = SseClientTransport;
