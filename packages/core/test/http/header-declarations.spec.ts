import 'reflect-metadata';
import { McpServer, Tool } from '@hermes-mcp/core';
import { ADAPTERS, serveOn } from '../../../../test-support/adapters';

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

describe.each(ADAPTERS)('%s: x-mcp-header declarations', (adapter) => {
  it('are checked when the adapter is made (the plugin registered, the handler created): a malformed one stops the start, naming the tool', async () => {
    await expect(serveOn(adapter, BadHeaders)).rejects.toThrow(/BadHeaders\.pay: the x-mcp-header declarations of "pay" are invalid/);
  });
});
