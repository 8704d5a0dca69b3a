/**
 * What a WebSocket adapter on `@hermes-mcp/core/adapter` needs besides its runtime's own API, as
 * a third party would write it: the upgrade request as an `HttpRequest`, an `HttpResponse` whose
 * answer (a refusal: 400, 401, 426, 429 …) becomes a `Response`, and a socket that takes the
 * runtime's events in and emits them as `acceptWebSocket` listens for them. Bun (bun.ts) and Deno
 * (deno.ts) feed it from `Bun.serve`'s `websocket` handlers and from a WHATWG `WebSocket`.
 */
import { MCP_SUBPROTOCOL } from '@hermes-mcp/core/adapter';
import type { AcceptedWebSocket, HttpEndpoint, HttpRequest, HttpResponse, HttpStream, WebSocketAdmission } from '@hermes-mcp/core/adapter';

/** The path of the WebSocket endpoint the runtime fixtures serve. */
export const WEBSOCKET_PATH = '/mcp/ws';

/** A `Request` as the endpoint reads it: method, path and query, headers with lower-case names. */
function httpRequestOf(request: Request, ip: string | undefined): HttpRequest {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  return { method: request.method, url: url.pathname + url.search, headers, ip, native: request };
}

/** An {@link HttpResponse} for an upgrade request: the endpoint only ever answers it whole. */
class UpgradeAnswer implements HttpResponse {
  response?: Response = undefined;
  readonly aborted = false;
  readonly bufferedBytes = 0;

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    this.response = new Response(body ?? null, { status, headers });
  }

  stream(): HttpStream {
    throw new Error('an upgrade request is never answered with a stream');
  }

  onClose(listener: () => void): void {
    listener();
  }
}

/**
 * Admits a request to the WebSocket path: its admission, or the `Response` that refuses it (426
 * without an upgrade, 403, 400 without the `mcp` subprotocol, 401, 429, 503).
 */
export async function admit(endpoint: HttpEndpoint, request: Request, ip: string | undefined): Promise<WebSocketAdmission | Response> {
  const answer = new UpgradeAnswer();
  if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') endpoint.refuseNotUpgraded(answer, WEBSOCKET_PATH);
  else {
    const admission = await endpoint.admitWebSocket(httpRequestOf(request, ip), answer);
    if (admission) return admission;
  }
  return answer.response!;
}

type Listener = (...args: never[]) => void;
const encoder = new TextEncoder();

/**
 * A server-side socket as `acceptWebSocket` takes it, over a runtime's own: the runtime's adapter
 * calls {@link message}, {@link closed} and {@link pinged}; frames that come before the endpoint
 * listens are kept for it. The runtime's socket has no pause (Bun's, a WHATWG one): input is
 * never paused, and the endpoint's limits on unread output still hold.
 */
export class RuntimeSocket implements AcceptedWebSocket {
  readonly protocol = MCP_SUBPROTOCOL;
  private readonly listeners = new Map<string, Set<Listener>>();
  private early: Array<[ArrayBuffer, boolean]> = [];

  constructor(
    private readonly raw: {
      readonly readyState: number;
      readonly bufferedAmount: number;
      send(data: string): void;
      close(code?: number, reason?: string): void;
    },
  ) {}

  get readyState(): number {
    return this.raw.readyState;
  }

  get bufferedAmount(): number {
    return this.raw.bufferedAmount;
  }

  send(data: string, callback?: (error?: Error) => void): void {
    this.raw.send(data);
    if (callback) queueMicrotask(() => callback());
  }

  close(code?: number, reason?: string): void {
    this.raw.close(code, reason);
  }

  pause(): void {}

  resume(): void {}

  on(event: string, listener: Listener): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    if (event === 'message') for (const [data, binary] of this.early.splice(0)) this.message(data, binary);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  /** A frame from the client: text or binary. */
  message(data: string | ArrayBuffer, binary = typeof data !== 'string'): void {
    const bytes = typeof data === 'string' ? encoder.encode(data).buffer : data;
    const listeners = this.listeners.get('message');
    if (!listeners?.size) return void this.early.push([bytes, binary]);
    for (const listener of [...listeners]) (listener as (data: ArrayBuffer, isBinary: boolean) => void)(bytes, binary);
  }

  /** The socket closed, from either side. */
  closed(): void {
    for (const listener of [...(this.listeners.get('close') ?? [])]) listener();
  }

  /** A ping from the client. */
  pinged(): void {
    for (const listener of [...(this.listeners.get('ping') ?? [])]) listener();
  }
}
