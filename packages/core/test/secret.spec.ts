/**
 * Nothing Hermes makes while an app is created draws random bytes: Cloudflare Workers refuse to
 * generate random values at a module's top level, where a worker makes its handler. The secrets of
 * cursors, request states and DPoP nonces are drawn on first use, once.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { InMemoryTransport, Peer } from '@hermes-mcp/protocol';
import { McpFactory, McpServer, Tool, createLogger, createWebHandler } from '@hermes-mcp/core';

class Input {
  @IsString() text!: string;
}

@McpServer({ name: 'secrets', version: '1.0.0' })
class SecretsServer {
  @Tool({ input: Input }) one(input: Input) {
    return input.text;
  }
  @Tool() two() {
    return 2;
  }
}

describe('secrets drawn on first use', () => {
  it('creating an app and its Web handler (with DPoP nonces) draws no random bytes; the first cursor draws them once', async () => {
    // The module object itself (an import's namespace has no configurable properties to spy on).
    const draws = jest.spyOn(require('node:crypto') as typeof import('node:crypto'), 'randomBytes');
    try {
      const app = McpFactory.create(SecretsServer, { pageSize: 1, logger: createLogger({ level: 'silent' }) });
      createWebHandler(app, {
        auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: ['http://127.0.0.1/'], verifier: () => ({ scopes: [] }), dpop: { nonce: true } },
      });
      expect(draws).not.toHaveBeenCalled();

      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await app.connect(serverSide);
      const peer = new Peer(clientSide, { onRequest: () => ({}), onNotification: () => undefined });
      await peer.start();
      await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      await peer.notify('notifications/initialized');
      const first = (await peer.request('tools/list', {})) as { nextCursor?: string };
      const second = (await peer.request('tools/list', { cursor: first.nextCursor })) as { tools: Array<{ name: string }> };
      expect(second.tools.map((tool) => tool.name)).toEqual(['two']);
      expect(draws.mock.calls.filter(([size]) => size === 32)).toHaveLength(1);
      await app.close();
    } finally {
      draws.mockRestore();
    }
  });
});
