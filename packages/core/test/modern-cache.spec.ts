import 'reflect-metadata';
import { InMemoryTransport, Peer } from '@hermes-mcp/protocol';
import { McpFactory, McpServer, Resource, createLogger } from '@hermes-mcp/core';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

@McpServer({ name: 'cached', version: '1', cache: { ttlMs: 60_000, cacheScope: 'public' } })
class Cached {
  @Resource({ uri: 'c://fresh', cache: { ttlMs: 5, cacheScope: 'private' } }) fresh() {
    return 'fresh';
  }
  @Resource({ uri: 'c://plain' }) plain() {
    return 'plain';
  }
}

async function client() {
  const app = McpFactory.create(Cached, { logger: createLogger({ level: 'silent' }) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const peer = new Peer(a, { onRequest: () => ({}) });
  await app.connect(b);
  return peer;
}

describe('caching hints (MCP 2026-07-28)', () => {
  it('come from the server, and from a resource for its own reads', async () => {
    const peer = await client();
    const discover = await peer.request('server/discover', { _meta: META });
    expect(discover).toMatchObject({ ttlMs: 60_000, cacheScope: 'public', resultType: 'complete' });
    expect(await peer.request('resources/list', { _meta: META })).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(await peer.request('resources/read', { uri: 'c://fresh', _meta: META })).toMatchObject({ ttlMs: 5, cacheScope: 'private' });
    expect(await peer.request('resources/read', { uri: 'c://plain', _meta: META })).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('never reach a legacy client', async () => {
    const peer = await client();
    await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    const read = await peer.request('resources/read', { uri: 'c://fresh' });
    expect(read.ttlMs).toBeUndefined();
    expect(read.cacheScope).toBeUndefined();
    expect(read.resultType).toBeUndefined();
  });
});
