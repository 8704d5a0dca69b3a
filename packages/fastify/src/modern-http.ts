/**
 * MCP 2026-07-28 over Streamable HTTP: one stateless POST per request, no session.
 *
 * The checks run in the order the spec gives them — envelope (-32602), header/body agreement
 * (-32020), version (-32022), method (-32601, 404) — and every error echoes the request's id. The
 * answer is JSON when the result is the first thing to send, or an SSE stream when notifications
 * come first (progress, logs, a listen stream). Closing the response cancels the request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpApp, ModernSink } from '@hermes-mcp/core';
import { checkVersion, readEnvelope } from '@hermes-mcp/core';
import { ErrorCode, InboundRequest, JsonRpcRequest, JsonRpcResponse, McpError, RequestId, TransportInfo, errorResponse, resultResponse, serialize } from '@hermes-mcp/protocol';
import { HeaderProblem, checkMethodHeader, checkVersionHeader } from './modern-headers';
import { SseConnection } from './sse';

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
    private readonly reply: FastifyReply,
    private readonly id: RequestId,
    private readonly maxBufferedBytes: number,
  ) {
    super(info);
  }

  /** ModernSink: a notification of this request goes on its stream (opened now if need be). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (this.finished || this.aborted) return;
    // A client that reads nothing gets its stream closed past the limit (which aborts the request).
    this.stream ??= SseConnection.open(this.reply, {}, this.maxBufferedBytes);
    this.stream.write(JSON.stringify({ jsonrpc: '2.0', method, params }), undefined, 'message');
  }

  /** Writes the answer: the last event of the stream, or the JSON body. Only the first counts. */
  answer(response: JsonRpcResponse, status: number): void {
    if (this.finished) return;
    this.finished = true;
    const stream = this.stream;
    if (stream) {
      stream.write(serialize(response), undefined, 'message');
      stream.end();
    } else if (!this.reply.raw.destroyed) {
      sendJson(this.reply, response, status);
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
      else this.reply.raw.once('close', () => this.closedEarly() && this.cancel());
    }
    return signal;
  }

  override get aborted(): boolean {
    if (!super.aborted && this.closedEarly()) this.cancel();
    return super.aborted;
  }

  private closedEarly(): boolean {
    return !this.finished && this.reply.raw.destroyed;
  }

  private cancel(): void {
    this.abort(new McpError(ErrorCode.RequestTimeout, 'the client closed the response'));
  }
}

function sendJson(reply: FastifyReply, payload: JsonRpcResponse, status: number): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(serialize(payload));
}

/** The HTTP status an error is sent with in the modern era. */
function statusOf(error: McpError): number {
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

/** -32020 (HTTP 400): a header disagrees with the body, is malformed, or is missing. */
export function headerMismatch(problem: HeaderProblem): McpError {
  const error = new McpError(ErrorCode.HeaderMismatch, problem.message, problem.data);
  error.httpStatus = 400;
  return error;
}

/**
 * The remaining header checks (required headers, Mcp-Name, Mcp-Param-*), run once the envelope's
 * `version` is known to be served.
 */
export type HeaderCheck = (request: FastifyRequest, message: JsonRpcRequest, version: string) => McpError | undefined;

/** Answers one modern-era request. @internal */
export async function serveModern(
  app: McpApp,
  request: FastifyRequest,
  reply: FastifyReply,
  message: JsonRpcRequest,
  checkHeaders: HeaderCheck,
  maxBufferedBytes: number,
): Promise<FastifyReply> {
  const id: RequestId = message.id;
  let envelope;
  try {
    const read = readEnvelope(message.params);
    // Headers that contradict the body come before the version check: a body naming an unknown
    // version under `MCP-Protocol-Version: 2026-07-28` is a mismatch (-32020), not -32022.
    const contradiction = checkVersionHeader(request.headers, read.version) ?? checkMethodHeader(request.headers, message.method);
    if (contradiction) throw headerMismatch(contradiction);
    envelope = checkVersion(read);
    const problem = checkHeaders(request, message, envelope.version);
    if (problem) throw problem;
  } catch (error) {
    const failure = error instanceof McpError ? error : McpError.internalError();
    return sendJson(reply, errorResponse(id, failure), statusOf(failure));
  }

  const info: TransportInfo = { kind: 'http', headers: request.headers, ip: request.ip, url: request.url };
  const inbound = new ResponseRequest(info, reply, id, maxBufferedBytes);
  let response: JsonRpcResponse;
  let status = 200;
  try {
    const result = await app.engine.modern.handle(message, envelope, inbound, info, inbound);
    response = resultResponse(id, result);
  } catch (error) {
    if (!(error instanceof McpError)) app.logger.error({ err: error, method: message.method }, 'MCP request failed');
    const failure = error instanceof McpError ? error : McpError.internalError();
    response = errorResponse(id, failure);
    status = statusOf(failure);
  }
  if (inbound.finished || (inbound.aborted && reply.raw.destroyed)) return reply;
  inbound.answer(response, status);
  return reply;
}
