/**
 * An answer that carries headers of the request's admission, whatever the route answers: made by
 * the endpoint for the rare request that needs one (a DPoP nonce to roll over to), so the routes
 * answer as they always do, on every adapter.
 */
import type { HttpResponse, HttpStream } from './exchange';

/**
 * `response`, adding `added` to whatever it sends — a whole response, or a stream's headers (an
 * SSE answer, a session's stream) — and otherwise the response it wraps.
 */
export class AddedHeaders implements HttpResponse {
  constructor(
    private readonly response: HttpResponse,
    private readonly added: Readonly<Record<string, string>>,
  ) {}

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    this.response.send(status, { ...headers, ...this.added }, body);
  }

  stream(headers: Readonly<Record<string, string>>, whole?: string): HttpStream {
    return this.response.stream({ ...headers, ...this.added }, whole);
  }

  get aborted(): boolean {
    return this.response.aborted;
  }

  get bufferedBytes(): number {
    return this.response.bufferedBytes;
  }

  onClose(listener: () => void): void {
    this.response.onClose(listener);
  }
}
