/**
 * The HTTP+SSE transport of MCP 2024-11-05: a GET opens an SSE stream whose first event names the
 * endpoint to POST messages to; every server message travels on that one stream.
 */
import { JsonRpcMessage, McpError, DONE, ParsedFrame, RequestId, SendOptions, Transport, TransportInfo } from '@hermes-mcp/protocol';
import type { SseConnection } from './sse';
import { OutputLimits, Outgoing, dropForSlowClient, outgoing } from '../backpressure';
import type { ClientView } from '../unread';

/** The transport of one HTTP+SSE session (MCP 2024-11-05). For the Hermes packages. */
export class HttpSseTransport implements Transport {
  readonly info: TransportInfo;
  onframe?: (frame: ParsedFrame, info?: TransportInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onabort?: (requestId: RequestId, error: McpError) => void;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly connection: SseConnection,
    /** The limits on what goes out to the session's client. */
    private readonly limits: OutputLimits,
    /** The session's client, whose unread output the limits count over all its connections. */
    private readonly client: Pick<ClientView, 'unread'>,
  ) {
    this.info = Object.freeze({ kind: 'http+sse', sessionId });
    connection.onClose(() => void this.close());
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return DONE;
    let out: Outgoing;
    try {
      out = outgoing(message, this.client.unread(), this.limits);
    } catch (error) {
      // A notification or request that cannot be turned into JSON: its sender's mistake, told to it.
      return Promise.reject(error);
    }
    if (out.text === undefined) return dropForSlowClient(message as JsonRpcMessage, options?.relatedRequestId, out.refused, this.onabort);
    this.connection.write(out.text, undefined, 'message');
    return DONE;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.connection.end();
    this.onclose?.();
    return Promise.resolve();
  }
}
