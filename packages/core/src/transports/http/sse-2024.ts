/**
 * The HTTP+SSE transport of MCP 2024-11-05: a GET opens an SSE stream whose first event names the
 * endpoint to POST messages to; every server message travels on that one stream.
 */
import { JsonRpcMessage, ParsedFrame, Transport, TransportInfo, serialize } from '@hermes-mcp/protocol';
import type { SseConnection } from './sse';

/** The transport of one HTTP+SSE session (MCP 2024-11-05). For the Hermes packages. */
export class HttpSseTransport implements Transport {
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly connection: SseConnection,
  ) {
    this.info = Object.freeze({ kind: 'http+sse', sessionId });
    connection.onClose(() => void this.close());
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    let data: string;
    try {
      data = serialize(message);
    } catch (error) {
      // A notification or request that cannot be turned into JSON: its sender's mistake, told to it.
      return Promise.reject(error);
    }
    this.connection.write(data, undefined, 'message');
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.connection.end();
    this.onclose?.();
    return Promise.resolve();
  }
}
