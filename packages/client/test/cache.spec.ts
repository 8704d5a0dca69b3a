/**
 * The response cache (MCP 2026-07-28): a cacheable result is answered again from the cache for its
 * ttlMs; `cache: false` asks anyway, and keeps the answer; a list change (heard on a listen stream) makes the list's
 * cached pages stale; `public` entries are shared through a shared store, `private` ones never.
 */
import 'reflect-metadata';
import { McpApp, McpAppOptions, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { InMemoryResponseCache, InMemoryTransport, McpClient, McpClientOptions } from '@hermes-mcp/client';

@McpServer({ name: 'cache-test', version: '1.0.0' })
class CacheServer {
  @Tool({ description: 'one' }) one() {
    return 1;
  }
}

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A server, and how many requests of each method (`lists`: tools/list) reached it. */
async function serve(
  cache: McpAppOptions['cache'],
): Promise<{ app: McpApp; lists: () => number; asked: (method: string) => number; connect(options?: McpClientOptions): Promise<McpClient> }> {
  const app = McpFactory.create(CacheServer, { logger: createLogger({ level: 'silent' }), cache });
  const asked = new Map<string, number>();
  return {
    app,
    lists: () => asked.get('tools/list') ?? 0,
    asked: (method) => asked.get(method) ?? 0,
    async connect(options = {}) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await app.connect(serverSide);
      const onframe = serverSide.onframe!;
      serverSide.onframe = (frame) => {
        if (frame.kind === 'single' && frame.message.kind === 'request') asked.set(frame.message.message.method, (asked.get(frame.message.message.method) ?? 0) + 1);
        onframe(frame);
      };
      const client = new McpClient(clientSide, options);
      clients.push(client);
      await client.connect();
      return client;
    },
  };
}

it('answers a list again from the cache for its ttlMs; cache: false asks anyway', async () => {
  const server = await serve({ ttlMs: 60_000, cacheScope: 'private' });
  const client = await server.connect();
  const first = await client.listTools();
  expect(await client.listTools()).toEqual(first);
  expect(server.lists()).toBe(1);
  await client.listTools(undefined, { cache: false });
  expect(server.lists()).toBe(2);
});

it('keeps the answer cache: false asked for: the next call is answered with it, not with the older one', async () => {
  const server = await serve({ ttlMs: 60_000, cacheScope: 'private' });
  const client = await server.connect();
  await client.listTools();
  // A change the client does not hear of (no listen stream): only asking again shows it.
  server.app.addTool({ name: 'two', description: 'added' }, () => 2);
  expect((await client.listTools(undefined, { cache: false })).items.map((t) => t.name)).toEqual(['one', 'two']);
  expect((await client.listTools()).items.map((t) => t.name)).toEqual(['one', 'two']);
  expect(server.lists()).toBe(2);
});

it('answers server/discover asked through request() from the cache too (its result is cacheable); ping() asks anyway', async () => {
  const server = await serve({ ttlMs: 60_000, cacheScope: 'private' });
  const client = await server.connect();
  const before = server.asked('server/discover');
  const first = await client.request('server/discover', {});
  expect(await client.request('server/discover', {})).toEqual(first);
  expect(server.asked('server/discover')).toBe(before + 1);
  await client.ping();
  expect(server.asked('server/discover')).toBe(before + 2);
});

it('keeps nothing with ttlMs 0, nor with responseCache: false', async () => {
  const uncached = await serve({ ttlMs: 0 });
  const client = await uncached.connect();
  await client.listTools();
  await client.listTools();
  expect(uncached.lists()).toBe(2);
  const cached = await serve({ ttlMs: 60_000 });
  const without = await cached.connect({ responseCache: false });
  await without.listTools();
  await without.listTools();
  expect(cached.lists()).toBe(2);
});

it('reads the list again after a list change heard on a listen stream', async () => {
  const server = await serve({ ttlMs: 60_000 });
  const client = await server.connect();
  await client.listTools();
  const listening = (async () => {
    for await (const n of client.listen({ toolsListChanged: true })) {
      if (n.method === 'notifications/subscriptions/acknowledged') server.app.addTool({ name: 'two', description: 'added' }, () => 2);
      else return n.method;
    }
  })();
  expect(await listening).toBe('notifications/tools/list_changed');
  expect((await client.listTools()).items.map((t) => t.name)).toEqual(['one', 'two']);
  expect(server.lists()).toBe(2);
});

it('shares public entries through a shared store, and never private ones', async () => {
  const store = new InMemoryResponseCache();
  const publicServer = await serve({ ttlMs: 60_000, cacheScope: 'public' });
  await (await publicServer.connect({ responseCache: store })).listTools();
  await (await publicServer.connect({ responseCache: store })).listTools();
  expect(publicServer.lists()).toBe(1);
  const privateServer = await serve({ ttlMs: 60_000, cacheScope: 'private' });
  const other = new InMemoryResponseCache();
  await (await privateServer.connect({ responseCache: other })).listTools();
  await (await privateServer.connect({ responseCache: other })).listTools();
  expect(privateServer.lists()).toBe(2);
});
