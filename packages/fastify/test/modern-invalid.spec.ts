import 'reflect-metadata';
import Fastify, { FastifyInstance } from 'fastify';
import { McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';

@McpServer({ name: 'tiny', version: '1.0.0' })
class Tiny {
  @Tool({ description: 'pong' }) pong() {
    return 'pong';
  }
}

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('malformed JSON-RPC meant for MCP 2026-07-28', () => {
  let fastify: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    fastify = Fastify({ logger: false });
    await fastify.register(hermesMcp, { server: Tiny, appOptions: { logger: createLogger({ level: 'silent' }) } });
    url = `${await fastify.listen({ host: '127.0.0.1', port: 0 })}/mcp`;
  });
  afterAll(() => fastify.close());

  const post = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify(body),
    });

  it.each([
    ['a method that is not a string', { jsonrpc: '2.0', id: 5, method: 5, params: { _meta: META } }, /"method" member must be a string/],
    ['the wrong jsonrpc version', { jsonrpc: '1.0', id: 5, method: 'tools/list', params: { _meta: META } }, /"jsonrpc" member must be exactly "2.0"/],
  ])('is answered 400 -32600 naming the problem, with its id: %s', async (_, body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { id?: unknown; error: { code: number; message: string } };
    expect(answer.id).toBe(5);
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toMatch(message);
  });
});
