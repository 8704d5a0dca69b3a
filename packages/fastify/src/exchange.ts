/**
 * A Fastify request and its reply as core's HTTP endpoint reads and answers them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpRequest, HttpResponse, HttpStream, streamNodeResponse } from '@hermes-mcp/core/adapter';

/** Parsed bodies whose text could spell a key that is refused (see `parseJson`'s `suspect`). */
export const suspectBodies = new WeakSet<object>();

/**
 * One Fastify request and its reply as core reads and answers them: the {@link HttpRequest} and
 * the {@link HttpResponse} in one object (one allocation per request). Whole responses go through
 * Fastify (its hooks, serializers, logging); a stream takes the raw response over (`hijack`),
 * keeping the headers Fastify hooks already set (CORS, say).
 */
export class FastifyExchange implements HttpRequest, HttpResponse {
  readonly method: string;
  readonly url: string;
  readonly headers: FastifyRequest['headers'];
  readonly ip: string;
  readonly remotePort: number | undefined;
  readonly httpVersion: string;
  readonly body: unknown;
  readonly bodySuspect: boolean;

  constructor(
    /** The Fastify request (`native` for hooks such as `clientKey`). */
    readonly native: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    const body = native.body;
    this.method = native.method;
    this.url = native.url;
    this.headers = native.headers;
    this.ip = native.ip;
    this.remotePort = native.socket.remotePort;
    this.httpVersion = native.raw.httpVersion;
    this.body = body;
    this.bodySuspect = typeof body === 'object' && body !== null && suspectBodies.has(body);
  }

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    this.reply.code(status).headers(headers).send(body);
  }

  stream(headers: Readonly<Record<string, string>>, whole?: string): HttpStream {
    const reply = this.reply;
    reply.hijack();
    return streamNodeResponse(reply.raw, reply.getHeaders(), headers, whole);
  }

  get bufferedBytes(): number {
    const raw = this.reply.raw;
    return raw.writableFinished ? 0 : raw.writableLength;
  }

  get aborted(): boolean {
    return this.reply.raw.destroyed && !this.reply.raw.writableFinished;
  }

  onClose(listener: () => void): void {
    const raw = this.reply.raw;
    if (raw.closed || raw.destroyed) listener();
    else raw.once('close', listener);
  }
}
