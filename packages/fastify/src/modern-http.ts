/**
 * MCP 2026-07-28 over Streamable HTTP: one stateless POST per request, no session.
 *
 * The checks run in the order the spec gives them — envelope (-32602), header/body agreement
 * (-32020), version (-32022), method (-32601, 404) — and every error echoes the request's id. The
 * answer is JSON when the result is the first thing to send, or an SSE stream when notifications
 * come first (progress, logs, a listen stream). Closing the response cancels the request.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpApp } from '@hermes-mcp/core';
import { checkVersion, readEnvelope } from '@hermes-mcp/core';
import { ErrorCode, InboundRequest, JsonRpcRequest, JsonRpcResponse, McpError, RequestId, TransportInfo, errorResponse, resultResponse, serialize } from '@hermes-mcp/protocol';
import { HeaderProblem, checkMethodHeader, checkVersionHeader } from './modern-headers';
import { SseConnection } from './sse';

/**
 * A modern request over HTTP, which closing its response before the answer cancels (2026-07-28 has
 * no cancel notification on HTTP). Most handlers never look: the response is watched only once
 * the signal is asked for, and `aborted` checks the response itself, so a request costs no
 * listener of its own.
 */
class ResponseRequest extends InboundRequest {
  /** Set once the answer is being written: closing the response no longer cancels anything. */
  finished = false;
  private watching = false;
  /** Writes the answer (set by {@link serveModern} once it can answer). */
  answer?: (response: JsonRpcResponse, status: number) => void;

  constructor(
    info: TransportInfo,
    private readonly response: ServerResponse,
  ) {
    super(info);
  }

  /** Answers with `error` now (the shutdown's grace period ended); the handler's result is dropped. */
  fail(error: McpError): void {
    this.answer?.(errorResponse(this.id, error), statusOf(error));
  }

  /** The request's id (set by {@link serveModern}). */
  id: RequestId = 0;

  override get signal(): AbortSignal {
    const signal = super.signal;
    if (!this.watching) {
      this.watching = true;
      if (this.closedEarly()) this.cancel();
      else this.response.once('close', () => this.closedEarly() && this.cancel());
    }
    return signal;
  }

  override get aborted(): boolean {
    if (!super.aborted && this.closedEarly()) this.cancel();
    return super.aborted;
  }

  private closedEarly(): boolean {
    return !this.finished && this.response.destroyed;
  }

  private cancel(): void {
    this.abort(new McpError(ErrorCode.RequestTimeout, 'the client closed the response'));
  }
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
  const send = (payload: JsonRpcResponse, status: number) => reply.code(status).header('content-type', 'application/json').send(serialize(payload));
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
    return send(errorResponse(id, failure), statusOf(failure));
  }

  const info: TransportInfo = { kind: 'http', headers: request.headers, ip: request.ip, url: request.url };
  const inbound = new ResponseRequest(info, reply.raw);
  inbound.id = id;
  let stream: SseConnection | undefined;
  const sink = {
    notify: async (method: string, params: Record<string, unknown>) => {
      if (inbound.finished || inbound.aborted) return;
      // A client that reads nothing gets its stream closed past the limit (which aborts the request).
      stream ??= SseConnection.open(reply, {}, maxBufferedBytes);
      stream.write(JSON.stringify({ jsonrpc: '2.0', method, params }), undefined, 'message');
    },
  };
  inbound.answer = (response, status) => {
    if (inbound.finished) return;
    inbound.finished = true;
    if (stream) {
      stream.write(serialize(response), undefined, 'message');
      stream.end();
    } else if (!reply.raw.destroyed) {
      send(response, status);
    }
  };
  let response: JsonRpcResponse;
  let status = 200;
  try {
    const result = await app.engine.modern.handle(message, envelope, inbound, info, sink);
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
