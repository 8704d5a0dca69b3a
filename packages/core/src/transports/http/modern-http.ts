/**
 * MCP 2026-07-28 over Streamable HTTP: one stateless POST per request, no session.
 *
 * The checks run in the order the spec gives them — envelope (-32602), header/body agreement
 * (-32020), version (-32022), method (-32601, 404) — and every error echoes the request's id. The
 * answer is JSON when the result is the first thing to send, or an SSE stream when notifications
 * come first (progress, logs, a listen stream). Closing the response cancels the request.
 */
import { ErrorCode, InboundRequest, JsonRpcRequest, JsonRpcResponse, McpError, RequestId, TransportInfo, errorResponse, resultResponse, merge } from '@hermes-mcp/protocol';
import { OutputLimits, outgoing } from '../backpressure';
import type { ClientView } from '../unread';
import type { AuthInfo } from '../../context/mcp-context';
import type { Engine } from '../../engine/engine';
import type { Logger } from '../../logger';
import type { ModernSink } from '../../engine/modern-call';
import type { HttpRequest, HttpResponse } from './exchange';
import { SseConnection } from './sse';
import { answerTurn } from './answer-turn';
import { atExpiry } from '../expiry';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/**
 * One modern request over HTTP: its abort side, where its notifications go (its own SSE stream,
 * opened by the first one), and its answer. Closing the response before the answer cancels it
 * (2026-07-28 has no cancel notification on HTTP). Most handlers never look: the response is
 * watched only once the signal is asked for, and `aborted` checks the response itself, so a
 * request costs no listener, closure or second object of its own.
 */
class ResponseRequest extends InboundRequest implements ModernSink {
  /** Set once the answer is being written: closing the response no longer cancels anything. */
  finished = false;
  private watching = false;
  /** The SSE stream, once a notification came before the answer. */
  private stream?: SseConnection = undefined;

  constructor(
    info: TransportInfo,
    private readonly response: HttpResponse,
    private readonly id: RequestId,
    private readonly maxBufferedBytes: number,
    private readonly limits: OutputLimits,
    private readonly client: ClientView,
  ) {
    super(info);
  }

  /** ModernSink: a notification of this request goes on its stream (opened now if need be). */
  // eslint-disable-next-line @typescript-eslint/require-await -- ModernSink promises; a failure to open the stream rejects
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (this.finished || this.aborted) return;
    const out = outgoing({ jsonrpc: '2.0', method, params }, this.client.unread(), this.limits);
    // Past what the client may leave unread: the request ends with -32011.
    if (out.text === undefined) return this.fail(out.refused);
    // A client that reads nothing gets its stream closed past the limit (which aborts the request).
    if (!this.stream) {
      const stream = SseConnection.open(this.response, {}, this.maxBufferedBytes);
      this.client.track(stream, (listener) => stream.onClose(listener));
      this.stream = stream;
    }
    this.stream.write(out.text, undefined, 'message');
  }

  /** Writes the answer: the last event of the stream, or the JSON body (with `headers`). Only the first counts. */
  answer(response: JsonRpcResponse, status: number, headers: Readonly<Record<string, string>> = JSON_HEADERS): void {
    if (this.finished) return;
    this.finished = true;
    // An answer past the limits is replaced by its error (-32013, -32011), sent with status 200.
    const out = outgoing(response, this.client.unread(), this.limits);
    const text = out.text;
    const stream = this.stream;
    if (stream) {
      stream.write(text, undefined, 'message');
      stream.end();
    } else if (!this.response.aborted) {
      const sent = this.response;
      sent.send(out.sent === response ? status : 200, out.sent === response ? headers : JSON_HEADERS, text);
      // Counted where it is written: the next answer of the same turn is checked against it.
      if (sent.bufferedBytes > 0) this.client.track(sent, (listener) => sent.onClose(listener));
    }
  }

  /** Answers with `error` now (the shutdown's grace period ended); the handler's result is dropped. */
  fail(error: McpError): void {
    this.answer(errorResponse(this.id, error), statusOf(error));
  }

  override get signal(): AbortSignal {
    const signal = super.signal;
    if (!this.watching) {
      this.watching = true;
      if (this.closedEarly()) this.cancel();
      else this.response.onClose(() => this.closedEarly() && this.cancel());
    }
    return signal;
  }

  override get aborted(): boolean {
    if (!super.aborted && this.closedEarly()) this.cancel();
    return super.aborted;
  }

  /**
   * The token the request came with expired: it is answered with -32014 now (a listen stream ends
   * with that error as its last event) and its handler is aborted. The client listens again with
   * a fresh token, or gets the 401 that says to get one.
   */
  expire(): void {
    const error = McpError.tokenExpired();
    this.fail(error);
    this.abort(error);
  }

  private closedEarly(): boolean {
    return !this.finished && this.response.aborted;
  }

  private cancel(): void {
    this.abort(new McpError(ErrorCode.RequestTimeout, 'the client closed the response'));
  }
}

/** The HTTP status an error is sent with in the modern era. */
export function statusOf(error: McpError): number {
  if (error.httpStatus !== undefined) return error.httpStatus;
  switch (error.code) {
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
      return 400;
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ServerShuttingDown:
      return 503;
    default:
      return 200;
  }
}

/**
 * Answers one modern-era request: checked and handled by the engine (one sequence for every
 * transport), answered as JSON, or as an SSE stream once a notification comes first. Every error
 * echoes the request's id, with the HTTP status of its code (and the headers `challenge` gives for
 * it: the `WWW-Authenticate` of a 403 for missing scopes). `info` is what its handlers see of the
 * transport (the endpoint's, credentials hidden). @internal
 */
export async function serveModern(
  engine: Engine,
  logger: Logger,
  request: HttpRequest,
  response: HttpResponse,
  message: JsonRpcRequest,
  maxBufferedBytes: number,
  limits: OutputLimits,
  client: ClientView,
  info: TransportInfo,
  challenge?: (error: McpError) => Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const id: RequestId = message.id;
  const inbound = new ResponseRequest(info, response, id, maxBufferedBytes, limits, client);
  // A listen stream has no end of its own: it serves no longer than the token it was opened with.
  const expiresAt = message.method === 'subscriptions/listen' ? (info.auth as AuthInfo | undefined)?.expiresAt : undefined;
  const cancelExpiry = expiresAt === undefined ? undefined : atExpiry(expiresAt, () => inbound.expire());
  let answer: JsonRpcResponse;
  let status = 200;
  let headers = JSON_HEADERS;
  try {
    answer = resultResponse(id, await engine.serveModern(message, request.headers, inbound, info, inbound));
  } catch (error) {
    if (!(error instanceof McpError)) logger.error({ err: error, method: message.method }, 'MCP request failed');
    const failure = error instanceof McpError ? error : McpError.internalError();
    answer = errorResponse(id, failure);
    status = statusOf(failure);
    const extra = challenge?.(failure);
    if (extra) headers = merge(JSON_HEADERS, extra);
  }
  cancelExpiry?.();
  if (inbound.finished || (inbound.aborted && response.aborted)) return;
  await answerTurn();
  inbound.answer(answer, status, headers);
}
