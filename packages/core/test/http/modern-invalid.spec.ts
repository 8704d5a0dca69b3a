import 'reflect-metadata';
import { McpServer, Tool } from '@hermes-mcp/core';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

@McpServer({ name: 'tiny', version: '1.0.0' })
class Tiny {
  @Tool({ description: 'pong' }) pong() {
    return 'pong';
  }
}

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe.each(ADAPTERS)('%s: malformed JSON-RPC meant for MCP 2026-07-28', (adapter) => {
  let server: Serving;

  beforeAll(async () => {
    server = await serveOn(adapter, Tiny);
  });
  afterAll(() => server.close());

  const post = (body: unknown) =>
    fetch(server.url, {
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
