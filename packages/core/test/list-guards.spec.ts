/**
 * Middleware on list methods: a component's middleware decides whether a caller sees it in
 * tools/list, resources/list, resources/templates/list and prompts/list (`ctx.listing` set, `next()`
 * stopping short of the handler), in both eras; pages and cursors are cut from what the caller
 * sees; a modern result filtered for a caller is private; lists without middleware are untouched.
 */
import 'reflect-metadata';
import { McpContext, McpServer, Middleware, Prompt, Resource, Tool, ToolError, Use, Listing } from '@hermes-mcp/core';
import { createTestClient, TestClient } from '@hermes-mcp/testing';

/** Only the client named `admin` passes. */
const adminOnly: Middleware = (ctx, next) => {
  if (ctx.session.clientInfo?.name !== 'admin') throw new ToolError('admins only');
  return next();
};

/** What a pass-through middleware saw: `listing` on lists, nothing on calls. */
const seen: Array<Listing | 'call'> = [];
const audit: Middleware = async (ctx, next) => {
  seen.push(ctx.listing ?? 'call');
  return next();
};

/** A middleware that fails by rejecting, not by throwing at once. */
const rejects: Middleware = () => Promise.reject(new Error('no such luck'));

@McpServer({ name: 'guarded', version: '1.0.0' })
class GuardedServer {
  @Tool({ description: 'one' }) t1() {
    return 1;
  }
  @Use(adminOnly) @Tool({ description: 'two (admin)' }) t2() {
    return 2;
  }
  @Use(audit) @Tool({ description: 'three (audited)' }) t3(ctx: McpContext) {
    return ctx.listing === undefined ? 'called without listing' : 'listing leaked';
  }
  @Use(adminOnly) @Tool({ description: 'four (admin)' }) t4() {
    return 4;
  }
  @Tool({ description: 'five' }) t5() {
    return 5;
  }
  @Use(rejects) @Tool({ description: 'six (never seen)' }) t6() {
    return 6;
  }

  @Resource({ uri: 'notes://public', description: 'for all' }) open() {
    return 'open';
  }
  @Use(adminOnly) @Resource({ uri: 'notes://secret', description: 'admins' }) secret() {
    return 'secret';
  }
  @Use(adminOnly) @Resource({ uri: 'notes://by-id/{id}', description: 'admins' }) byId() {
    return 'note';
  }

  @Prompt({ description: 'for all' }) hello() {
    return 'hello';
  }
  @Use(adminOnly) @Prompt({ description: 'admins' }) audit() {
    return 'audit';
  }
}

@McpServer({ name: 'plain', version: '1.0.0' })
class PlainServer {
  @Tool({ description: 'a' }) a() {
    return 'a';
  }
}

const clients: TestClient[] = [];
async function connect(name: string, era: 'legacy' | 'modern', server: Function = GuardedServer, pageSize = 2): Promise<TestClient> {
  const client = await createTestClient(server as new () => object, {
    era,
    clientInfo: { name, version: '1' },
    appOptions: { pageSize, cache: { ttlMs: 1000, cacheScope: 'public' } },
  });
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  seen.length = 0;
});

describe.each(['legacy', 'modern'] as const)('lists filtered by middleware (%s era)', (era) => {
  it('shows a guarded component only to callers its guard lets through; a rejecting middleware hides it from all', async () => {
    const admin = await connect('admin', era);
    const guest = await connect('guest', era);
    expect((await admin.listTools()).map((t) => t.name)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect((await guest.listTools()).map((t) => t.name)).toEqual(['t1', 't3', 't5']);
    expect((await admin.listResources()).map((r) => r.uri)).toEqual(['notes://public', 'notes://secret']);
    expect((await guest.listResources()).map((r) => r.uri)).toEqual(['notes://public']);
    expect((await admin.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['notes://by-id/{id}']);
    expect(await guest.listResourceTemplates()).toEqual([]);
    expect((await admin.listPrompts()).map((p) => p.name)).toEqual(['hello', 'audit']);
    expect((await guest.listPrompts()).map((p) => p.name)).toEqual(['hello']);
  });

  it('refuses a hidden component when it is called anyway', async () => {
    const guest = await connect('guest', era);
    expect(await guest.callTool('t2')).toMatchObject({ content: [{ type: 'text', text: 'admins only' }], isError: true });
    expect(await guest.callTool('t1')).toMatchObject({ content: [{ type: 'text', text: '1' }] });
  });

  it('cuts pages from what the caller sees: every visible item once, in order, across cursors', async () => {
    const guest = await connect('guest', era);
    const first = await guest.request('tools/list');
    expect((first.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['t1', 't3']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await guest.request('tools/list', { cursor: first.nextCursor });
    expect((second.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['t5']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('gives pass-through middleware ctx.listing on lists only, and leaves the component visible', async () => {
    const guest = await connect('guest', era);
    await guest.listTools();
    expect(seen).toContainEqual({ kind: 'tool', name: 't3' });
    seen.length = 0;
    expect(await guest.callTool('t3')).toMatchObject({ content: [{ type: 'text', text: 'called without listing' }] });
    expect(seen).toEqual(['call']);
  });

  it('refuses a malformed cursor with -32602 before any middleware runs', async () => {
    const guest = await connect('guest', era);
    await expect(guest.request('tools/list', { cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602 });
    expect(seen).toEqual([]);
  });
});

describe('cache hints of filtered lists (MCP 2026-07-28)', () => {
  it('marks a list filtered for its caller private, and leaves a list without middleware as configured', async () => {
    const guarded = await connect('guest', 'modern', GuardedServer, 100);
    expect(await guarded.request('tools/list')).toMatchObject({ cacheScope: 'private', ttlMs: 1000 });
    const plain = await connect('guest', 'modern', PlainServer, 100);
    expect(await plain.request('tools/list')).toMatchObject({ cacheScope: 'public', ttlMs: 1000 });
  });

  it('keeps legacy list results free of cache hints', async () => {
    const guarded = await connect('guest', 'legacy', GuardedServer, 100);
    expect((await guarded.request('tools/list')).cacheScope).toBeUndefined();
  });
});
