import 'reflect-metadata';
import Fastify from 'fastify';
import { McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';

@McpServer({ name: 'bad-headers', version: '1.0.0' })
class BadHeaders {
  @Tool({
    description: 'declares a header on a number, which clients refuse',
    inputSchema: { type: 'object', properties: { amount: { type: 'number', 'x-mcp-header': 'Amount' } } },
  })
  pay() {
    return 'paid';
  }
}

describe('x-mcp-header declarations', () => {
  it('are checked when the plugin is registered: a malformed one stops the start, naming the tool', async () => {
    const fastify = Fastify({ logger: false });
    await expect(fastify.register(hermesMcp, { server: BadHeaders, appOptions: { logger: createLogger({ level: 'silent' }) } })).rejects.toThrow(
      /BadHeaders\.pay: the x-mcp-header declarations of "pay" are invalid/,
    );
    await fastify.close();
  });
});
