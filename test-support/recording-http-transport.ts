/**
 * The HTTP counterpart of `RecordingStdioTransport`: wraps one of the SDK's HTTP client transports
 * (`StreamableHTTPClientTransport`, `SSEClientTransport`) for end-to-end tests.
 *
 * - It offers the revision under test: the SDK v1 Client always sends its latest revision in
 *   `initialize`; rewriting `params.protocolVersion` is exactly what an older client sends. The
 *   Client then hands the negotiated revision to the inner transport (`setProtocolVersion`), which
 *   sends it as the `mcp-protocol-version` header on every later request.
 * - It records the wire as the server wrote it: the inner transport is given a `fetch` that copies
 *   every response body (JSON, or each SSE `message` event) into {@link wire} before the SDK parses
 *   anything. {@link received} holds what the SDK parsed, {@link http} each HTTP exchange.
 * - It records what goes out and the method of each client request by id, so the server's
 *   messages can be validated afterwards against the revision's schema.
 *
 * Messages pass through unchanged in both directions otherwise.
 */
import type { FetchLike, Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { MessageId } from './mcp-schema';
import { SseParser } from './sse-reader';

/** One HTTP request the transport made, and how it was answered. */
export interface HttpRecord {
  method: string;
  url: string;
  /** The request headers, lower-cased names. */
  headers: Record<string, string>;
  /** The request body, when it was a string (the JSON a POST carried). */
  body?: string;
  status: number;
  contentType: string | null;
}

/** What an SDK client transport looks like from here (the optional members the Client uses). */
type InnerTransport = Transport & { terminateSession?: () => Promise<void> };

/** An SDK HTTP client transport that offers a chosen revision and records the conversation. */
export class RecordingHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** Every message the server wrote, in the order the bodies were read, unparsed by the SDK. */
  readonly wire: unknown[] = [];
  /** Every message the SDK handed to the client, in order. */
  readonly received: JSONRPCMessage[] = [];
  /** Every message the client sent, in order (after the revision rewrite). */
  readonly sent: JSONRPCMessage[] = [];
  /** Every HTTP request made, in order. */
  readonly http: HttpRecord[] = [];
  /** Errors the inner transport reported. */
  readonly errors: Error[] = [];
  /** Bodies that could not be read as JSON-RPC (should stay empty). */
  readonly unreadable: string[] = [];
  /** The method of each request the client sent, by id. */
  readonly requestMethodById = new Map<MessageId, string>();

  private readonly inner: InnerTransport;
  private readonly reading = new Set<Promise<void>>();

  constructor(
    /** Builds the inner transport around the recording fetch it is given. */
    make: (fetch: FetchLike) => InnerTransport,
    /** The revision offered in `initialize`. */
    readonly protocolVersion: string,
  ) {
    this.inner = make((url, init) => this.fetch(url, init));
    this.inner.onmessage = (message, extra) => {
      this.received.push(message);
      this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => {
      this.errors.push(error);
      this.onerror?.(error);
    };
    this.inner.onclose = () => this.onclose?.();
  }

  /** The session id the server gave (Streamable HTTP). */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    let out = message;
    if ('method' in message && 'id' in message) {
      if (message.method === 'initialize') out = { ...message, params: { ...message.params, protocolVersion: this.protocolVersion } };
      this.requestMethodById.set(message.id, message.method);
    }
    this.sent.push(out);
    return this.inner.send(out, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Sends DELETE for the session (Streamable HTTP). */
  terminateSession(): Promise<void> {
    if (!this.inner.terminateSession) return Promise.reject(new Error('this transport has no sessions to terminate'));
    return this.inner.terminateSession();
  }

  /** Resolves once every response body copy has been read to its end (or failed), at most `ms`. */
  async settled(ms = 2_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.reading]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private async fetch(url: string | URL, init?: RequestInit): Promise<Response> {
    const response = await fetch(url, init);
    const contentType = response.headers.get('content-type');
    const record: HttpRecord = { method: init?.method ?? 'GET', url: String(url), headers: lowerCased(init?.headers), status: response.status, contentType };
    if (typeof init?.body === 'string') record.body = init.body;
    this.http.push(record);
    const essence = contentType?.split(';')[0].trim().toLowerCase();
    if (response.body && (essence === 'application/json' || essence === 'text/event-stream')) {
      const copy = response.clone();
      const done = (essence === 'application/json' ? this.readJson(copy) : this.readSse(copy)).catch(() => undefined);
      this.reading.add(done);
      void done.then(() => this.reading.delete(done));
    }
    return response;
  }

  private async readJson(response: Response): Promise<void> {
    const text = await response.text();
    if (text === '') return;
    try {
      this.wire.push(JSON.parse(text));
    } catch {
      this.unreadable.push(text);
    }
  }

  private async readSse(response: Response): Promise<void> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    const take = (text: string) => {
      for (const event of parser.push(text)) {
        if (event.data === '' || (event.event !== undefined && event.event !== 'message')) continue;
        try {
          this.wire.push(JSON.parse(event.data));
        } catch {
          this.unreadable.push(event.data);
        }
      }
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      take(decoder.decode(value, { stream: true }));
    }
    take(decoder.decode());
  }
}

function lowerCased(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => (out[key.toLowerCase()] = value));
  return out;
}
