/**
 * The client side of Streamable HTTP (MCP 2025-03-26 … 2025-11-25) and of MCP 2026-07-28 over
 * HTTP. Each message is a POST; a request's answer is JSON, or an SSE stream carrying what the
 * server sends about the request and then its response. A stream cut before the response is
 * resumed with `Last-Event-ID` after the server's `retry` (or a backoff with jitter). A legacy
 * session keeps its `Mcp-Session-Id`, opens the GET stream for the server's own messages, and is
 * ended with DELETE on close. Modern requests carry `Mcp-Method` and `Mcp-Name`.
 */
import {
  ConnectionClosedError,
  ErrorCode,
  JsonRpcMessage,
  McpError,
  META_KEYS,
  ParsedFrame,
  RequestId,
  SendOptions,
  Transport,
  TransportInfo,
  isModernProtocolVersion,
  isRecord,
  mcpMethod,
  parseFrame,
  serialize,
  merge,
} from '@hermes-mcp/protocol';
import { AnswersInFlight, messageLimit, messageTooLarge } from './limits';
import { FetchLike, FetchResponse, httpTransportInfo, readText, transportFetch } from './node-fetch';
import { OAuthClient } from './oauth';
import { OAuthError } from './oauth-answer';
import { DEFAULT_MAX_ATTEMPTS, ReconnectOptions, backoffDelay } from './reconnect';
import { readSse } from './sse';
import { transportOptions } from './transport-url';
import type { TransportState } from './stdio';

/** Options of a {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /** Headers sent with every request (an `authorization` header, say). */
  headers?: Record<string, string>;
  /**
   * The `fetch` to use (default: `node:http` with keep-alive). Its redirects are followed by the
   * transport, only within the server's origin.
   */
  fetch?: typeof fetch;
  /** Signs in to servers that ask for OAuth (MCP authorization): see {@link OAuthClient}. */
  auth?: OAuthClient;
  reconnect?: ReconnectOptions;
  /** Open the GET stream of a legacy session for the server's own messages (default true). */
  standaloneStream?: boolean;
  /**
   * The largest message read from the server, in bytes (default 16 MiB): a JSON answer or an SSE
   * event past it is dropped as it streams in, and the request it answers fails with -32013
   * naming the limit (an event on the session's GET stream is dropped, and the stream reads on).
   */
  maxMessageBytes?: number;
}

/** The content headers of every POST (the caller's own headers come first, these win). */
const POST_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Talks to an MCP server over HTTP. */
export class StreamableHttpClientTransport implements Transport {
  /** `kind`, the server's `url` and the `httpVersion` spoken, when known (for telemetry: `server.address`, `network.protocol.version`). */
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onlost?: (requestId: RequestId, error: Error) => void;
  /** The session's id, once the server gave one (legacy sessions). */
  sessionId?: string = undefined;
  /** The revision sent in `MCP-Protocol-Version` (set by the client once negotiated). */
  protocolVersion?: string = undefined;
  private state: TransportState = 'disconnected';
  private lastError?: Error = undefined;
  private reconnects = 0;
  private closed = false;
  private readonly aborter = new AbortController();
  private readonly url: URL;
  private readonly fetch: FetchLike;
  private standaloneOpen = false;
  /**
   * Every POST under way, with what ends its connection: a request whose answer is awaited by its
   * id (a cancellation ends it), any other message by its controller.
   */
  private readonly inflight = new Map<RequestId | AbortController, AbortController>();
  private readonly answers = new AnswersInFlight();
  private readonly maxBytes: number;
  private readonly options: StreamableHttpClientOptions;

  /**
   * `new StreamableHttpClientTransport(url, options?)` — the official SDK's way, e.g. with a
   * `new URL(…)` — or `new StreamableHttpClientTransport({ url, …options })`.
   */
  constructor(url: string | URL, options?: Omit<StreamableHttpClientOptions, 'url'>);
  constructor(options: StreamableHttpClientOptions);
  constructor(first: string | URL | StreamableHttpClientOptions, rest?: Omit<StreamableHttpClientOptions, 'url'>) {
    const options = (this.options = transportOptions('StreamableHttpClientTransport', first, rest));
    this.url = new URL(options.url);
    this.info = httpTransportInfo('http', this.url.href, options);
    this.fetch = transportFetch(options);
    this.maxBytes = messageLimit(options);
  }

  /** The transport's state, last error and how many times it reconnected a stream. */
  status(): { state: TransportState; lastError?: Error; reconnects: number; sessionId?: string } {
    const status: { state: TransportState; lastError?: Error; reconnects: number; sessionId?: string } = { state: this.state, reconnects: this.reconnects };
    if (this.lastError) status.lastError = this.lastError;
    if (this.sessionId) status.sessionId = this.sessionId;
    return status;
  }

  /** Sets the revision sent in `MCP-Protocol-Version` (the client calls it once negotiated). */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  start(): Promise<void> {
    this.state = 'connected';
    return Promise.resolve();
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) throw new ConnectionClosedError('Connection closed');
    const single = Array.isArray(message) ? undefined : (message as { id?: RequestId; method?: string; params?: Record<string, unknown> });
    const headers = this.headers(merge(options?.headers, POST_HEADERS));
    const meta = isRecord(single?.params?._meta) ? single.params._meta : undefined;
    const modernVersion = meta?.[META_KEYS.protocolVersion];
    if (typeof modernVersion === 'string') headers['mcp-protocol-version'] = modernVersion;
    // Every request and notification of 2026-07-28 names its method (SEP-2243).
    if (single?.method !== undefined && (typeof modernVersion === 'string' || (this.protocolVersion !== undefined && isModernProtocolVersion(this.protocolVersion)))) {
      headers['mcp-method'] = single.method;
      const field = mcpMethod(single.method)?.nameField;
      const name = field ? single.params?.[field] : undefined;
      if (typeof name === 'string') headers['mcp-name'] = name;
    }
    const awaited = single?.method !== undefined && single.id !== undefined ? single.id : undefined;
    // A request cancelled by the client ends its answer's connection: that is how an HTTP server
    // hears of it (a 2026-07-28 one only so; a legacy one also reads the notification, sent below).
    if (single?.method === 'notifications/cancelled') this.abortRequest(single.params?.requestId as RequestId);
    // A controller per POST: close() ends each, and no shared signal collects a listener per request.
    const own = new AbortController();
    const key = awaited ?? own;
    this.inflight.set(key, own);
    // An answer to one of the server's requests: the streams wait while too many are on their way.
    const answer = single !== undefined && single.method === undefined;
    if (answer) this.answers.add();
    let streaming = false;
    try {
      let response: FetchResponse;
      try {
        response = await this.fetch(this.url, { method: 'POST', headers, body: serialize(message), signal: own.signal });
      } catch (error) {
        const failure = this.failed(error, `POST ${this.url.href} failed`);
        // Signing in failed, or a redirect was refused: that, not "could not reach", is what the caller must hear.
        if (error instanceof OAuthError || error instanceof McpError) throw error;
        throw new ConnectionClosedError(`Could not reach ${this.url.href}: ${causeOf(failure)}`);
      }
      const session = response.headers.get('mcp-session-id');
      if (session && single?.method === 'initialize') this.sessionId = session;
      if (response.status === 202) {
        await response.body?.cancel().catch(() => undefined);
        if (single?.method === 'notifications/initialized') this.openStandalone();
        return;
      }
      const type = (response.headers.get('content-type') ?? '').toLowerCase();
      if (type.startsWith('text/event-stream') && response.body) {
        // Read in the background: the peer hears each message as it comes.
        streaming = true;
        void this.consume(response.body, awaited, own.signal).finally(() => this.inflight.delete(key));
        return;
      }
      // A body past the limit fails the request; one cut short is read as an empty one.
      const text = await readText(response, this.maxBytes).catch((error: unknown) => {
        if (error instanceof McpError) throw error;
        return '';
      });
      if (type.startsWith('application/json') && text !== '') {
        const frame = parseFrame(text);
        if (frame.kind === 'invalid' && frame.error.code === ErrorCode.ParseError) {
          throw new McpError(ErrorCode.InternalError, `HTTP ${response.status} from ${this.url.href}: the body is not valid JSON (${frame.error.message}): ${text.slice(0, 200)}`, {
            status: response.status,
          });
        }
        // A JSON-RPC answer (a result, or an error with an HTTP error status) goes to the peer as it is.
        if (frame.kind !== 'invalid' && (response.ok || hasId(frame))) {
          this.onframe?.(frame);
          return;
        }
      }
      if (response.status === 404 && this.sessionId !== undefined && single?.method !== 'initialize') {
        // The server forgot the session (it expired, or the server restarted): the next initialize starts a new one.
        this.sessionId = undefined;
        this.standaloneOpen = false;
        throw new ConnectionClosedError('Session not found (HTTP 404): the server ended the session', { status: 404, sessionExpired: true });
      }
      throw new McpError(ErrorCode.InternalError, `HTTP ${response.status} from ${this.url.href}${text ? `: ${text.slice(0, 200)}` : ''}`, { status: response.status });
    } finally {
      if (!streaming) this.inflight.delete(key);
      if (answer) this.answers.done();
    }
  }

  /** Ends the session (DELETE) and every stream. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.aborter.abort();
    for (const request of this.inflight.values()) request.abort();
    this.inflight.clear();
    if (this.sessionId !== undefined) {
      // A server that does not let clients end sessions answers 405: nothing more to do.
      await this.fetch(this.url, { method: 'DELETE', headers: this.headers({}) }).then(
        (response) => response.body?.cancel(),
        () => undefined,
      );
    }
    this.state = 'disconnected';
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }

  /** The headers of every request: the options', the session's and the revision's. */
  private headers(own: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = merge(this.options.headers, own);
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined && headers['mcp-protocol-version'] === undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  /**
   * Reads an SSE stream; when it ends before the response to `awaited` (or it is the GET stream,
   * which is kept open), reconnects with `Last-Event-ID` and reads on.
   */
  private async consume(body: ReadableStream<Uint8Array>, awaited: RequestId | undefined, signal: AbortSignal): Promise<void> {
    let answered = false;
    let lastId: string | undefined;
    let retry: number | undefined;
    let attempt = 0;
    let stream: ReadableStream<Uint8Array> | null | undefined = body;
    while (!this.closed && !signal.aborted) {
      if (stream) {
        try {
          for await (const event of readSse(stream, signal, this.maxBytes)) {
            attempt = 0;
            if (event.tooLarge !== undefined) {
              // Dropped as it came: the request of this stream fails with why; the GET stream reads on.
              const error = messageTooLarge(this.maxBytes);
              this.failed(error, 'an SSE event was dropped');
              if (awaited === undefined) continue;
              return this.giveUp(awaited, error);
            }
            if (event.id !== undefined) lastId = event.id;
            if (event.retry !== undefined) retry = event.retry;
            if (event.data === '') continue;
            const frame = parseFrame(event.data);
            if (awaited !== undefined && isResponseTo(frame, awaited)) answered = true;
            this.onframe?.(frame);
            const room = this.answers.room();
            if (room) await room;
          }
        } catch (error) {
          if (this.closed || signal.aborted) return;
          this.failed(error, 'an SSE stream broke');
        }
      }
      if (this.closed || signal.aborted || (awaited !== undefined && answered)) return;
      // The stream ended early: resume it, if the server numbered its events.
      if (lastId === undefined && awaited !== undefined) return this.giveUp(awaited, lost('the response stream ended before the response, and had no event id to resume from'));
      if (attempt >= (this.options.reconnect?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
        if (awaited !== undefined) return this.giveUp(awaited, lost(`the response stream could not be resumed after ${attempt} attempts`));
        this.standaloneOpen = false;
        return;
      }
      await this.sleep(backoffDelay(attempt++, this.options.reconnect, retry), signal);
      if (this.closed || signal.aborted) return;
      stream = await this.reopen(lastId, signal);
      if (stream === null) {
        // The server does not offer a GET stream (405), or does not know the event id: stop.
        if (awaited !== undefined) return this.giveUp(awaited, lost('the server refused to resume the response stream'));
        this.standaloneOpen = false;
        return;
      }
      this.reconnects++;
    }
  }

  /** Opens the GET stream (resuming from `lastEventId`); null when the server refuses it, undefined on a network error (retried). */
  private async reopen(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | null | undefined> {
    const headers = this.headers({ accept: 'text/event-stream' });
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    try {
      const response = await this.fetch(this.url, { method: 'GET', headers, signal });
      if (response.ok && response.body && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response.body;
      await response.body?.cancel().catch(() => undefined);
      return response.status >= 500 ? undefined : null;
    } catch (error) {
      if (!this.closed) this.failed(error, `GET ${this.url.href} failed`);
      // A refused redirect will be refused again: no use retrying.
      return error instanceof McpError ? null : undefined;
    }
  }

  /** Opens the session's GET stream once, in the background. */
  private openStandalone(): void {
    if (this.options.standaloneStream === false || this.standaloneOpen || this.sessionId === undefined) return;
    this.standaloneOpen = true;
    void this.reopen(undefined, this.aborter.signal).then((stream) => {
      if (stream) void this.consume(stream, undefined, this.aborter.signal);
      else this.standaloneOpen = false;
    });
  }

  /** Ends the connection answering a request (the client cancelled it). */
  private abortRequest(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.inflight.get(id)?.abort();
    this.inflight.delete(id);
  }

  /** The request will get no response over this stream: the peer fails it with `error` (a local error, not the server's answer). */
  private giveUp(id: RequestId, error: Error): void {
    this.onlost?.(id, error);
  }

  /** Waits `ms`, or until `signal` aborts; its listener goes with the wait (a long-lived signal sees many). */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private failed(error: unknown, what: string): Error {
    // Duck-typed: an error made in another realm (Node's fetch under a test runner) is no `instanceof Error` here.
    const failure = isErrorLike(error) ? (error as Error) : new Error(String(error));
    this.lastError = failure;
    this.state = 'error';
    this.onerror?.(new Error(`${what}: ${failure.message}`));
    return failure;
  }
}

/** True for a frame that answers a request (a result or an error with an id). */
function hasId(frame: ParsedFrame): boolean {
  if (frame.kind !== 'single' || (frame.message.kind !== 'result' && frame.message.kind !== 'error')) return false;
  const id = frame.message.message.id as unknown;
  return typeof id === 'string' || typeof id === 'number';
}

/** True for the response to request `id`. */
function isResponseTo(frame: ParsedFrame, id: RequestId): boolean {
  return frame.kind === 'single' && (frame.message.kind === 'result' || frame.message.kind === 'error') && frame.message.message.id === id;
}

/** What a failed `fetch` says, with its cause (`fetch failed` alone says little). */
function causeOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return isErrorLike(cause) ? `${error.message} (${cause.message})` : error.message;
}

function isErrorLike(value: unknown): value is { message: string } {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

/**
 * The official SDK's name for {@link StreamableHttpClientTransport} (`StreamableHTTPClientTransport`
 * of `@modelcontextprotocol/sdk/client/streamableHttp.js`): the same class, so
 * `new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp'))` works as there.
 */
export const StreamableHTTPClientTransport = StreamableHttpClientTransport;
/** The official SDK's name for {@link StreamableHttpClientTransport}. */
export type StreamableHTTPClientTransport = StreamableHttpClientTransport;

/** The error of a request whose response stream was lost for good (a local error: no server sent it). */
function lost(why: string): ConnectionClosedError {
  return new ConnectionClosedError(`Connection lost: ${why}`);
}
