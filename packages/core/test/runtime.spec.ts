import 'reflect-metadata';
import { IsIn, IsString } from 'class-validator';
import { InMemoryTransport, JsonRpcMessage, McpError, Peer } from '@hermes-mcp/protocol';
import { Complete, McpFactory, McpServer, Prompt, Resource, Tool, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });

class Pick {
  @IsIn(['alpha', 'beta', 'gamma']) choice!: string;
  @Complete((value, ctx) => [`${value}-${ctx.arguments.choice ?? 'none'}`]) @IsString() free!: string;
}

class Vars {
  @IsString() id!: string;
}

@McpServer({ name: 'rt', version: '1' })
class RuntimeServer {
  @Tool() one() {
    return 1;
  }
  @Tool() two() {
    return 2;
  }
  @Prompt({ complete: { free: () => ['explicit'] } }) pick(args: Pick) {
    return args.choice;
  }
  @Prompt() plain(args: Pick) {
    return args.choice;
  }
  @Resource({ uri: 'rt://thing/{id}', complete: { id: (v) => ['1', '2', '10'].filter((x) => x.startsWith(v)) } }) thing(vars: Vars) {
    return vars.id;
  }
}

async function start(options = {}) {
  const app = McpFactory.create(RuntimeServer, { logger, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const notes: JsonRpcMessage[] = [];
  const client = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n) => void notes.push(n) });
  await app.connect(serverSide);
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { app, client, notes, settle };
}

describe('runtime changes', () => {
  it('disables, enables, removes and adds tools, telling clients once per tick', async () => {
    const { app, client, notes, settle } = await start();
    const names = async () => ((await client.request('tools/list', {})).tools as Array<{ name: string }>).map((t) => t.name);
    expect(await names()).toEqual(['one', 'two']);
    app.tool('one').disable();
    app.tool('two').disable();
    await settle();
    expect(notes.map((n) => (n as { method: string }).method)).toEqual(['notifications/tools/list_changed']);
    expect(await names()).toEqual([]);
    await expect(client.request('tools/call', { name: 'one' })).rejects.toMatchObject({ code: -32602 });
    app.tool('one').enable();
    expect(app.tool('one').enabled).toBe(true);
    const added = app.addTool({ name: 'three', description: 'added' }, () => 'three!');
    expect(await names()).toEqual(['one', 'three']);
    expect(await client.request('tools/call', { name: 'three' })).toEqual({ content: [{ type: 'text', text: 'three!' }] });
    added.remove();
    app.prompt('plain').disable();
    await settle();
    // enable + add (one tick), then remove + disable prompt (another tick): one per list per tick.
    expect(notes.map((n) => (n as { method: string }).method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
    expect(() => app.tool('missing')).toThrow('there is no tool "missing"');
    expect(() => app.addTool({ name: 'one' }, () => 1)).toThrow('HERMES_DUPLICATE_NAME');
  });
});

describe('completions', () => {
  it('completes enums by themselves, then @Complete, then the decorator option', async () => {
    const { client } = await start();
    const complete = (ref: object, name: string, value: string, context?: object) =>
      client.request('completion/complete', { ref, argument: { name, value }, ...(context && { context: { arguments: context } }) });
    expect(await complete({ type: 'ref/prompt', name: 'pick' }, 'choice', 'G')).toEqual({ completion: { values: ['gamma'], total: 1, hasMore: false } });
    expect((await complete({ type: 'ref/prompt', name: 'plain' }, 'free', 'x', { choice: 'beta' })).completion).toMatchObject({ values: ['x-beta'] });
    expect((await complete({ type: 'ref/prompt', name: 'pick' }, 'free', 'x')).completion).toMatchObject({ values: ['explicit'] });
    expect((await complete({ type: 'ref/prompt', name: 'pick' }, 'nope', 'x')).completion).toEqual({ values: [] });
    expect((await complete({ type: 'ref/resource', uri: 'rt://thing/{id}' }, 'id', '1')).completion).toMatchObject({ values: ['1', '10'] });
    await expect(complete({ type: 'ref/prompt', name: 'ghost' }, 'x', '')).rejects.toBeInstanceOf(McpError);
    await expect(complete({ type: 'ref/tool', name: 'one' }, 'x', '')).rejects.toMatchObject({ code: -32602 });
  });
});

describe('pagination', () => {
  it('pages lists with sealed cursors', async () => {
    const { client, app } = await start({ pageSize: 1 });
    app.addTool({ name: 'three' }, () => 3);
    const first = await client.request('tools/list', {});
    expect((first.tools as unknown[]).length).toBe(1);
    const second = await client.request('tools/list', { cursor: first.nextCursor });
    const third = await client.request('tools/list', { cursor: second.nextCursor });
    expect(third.nextCursor).toBeUndefined();
    expect([first, second, third].map((p) => (p.tools as Array<{ name: string }>)[0].name)).toEqual(['one', 'two', 'three']);
    await expect(client.request('tools/list', { cursor: `${first.nextCursor}x` })).rejects.toMatchObject({ code: -32602 });
    await expect(client.request('prompts/list', { cursor: first.nextCursor })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('subscriptions', () => {
  it('sends resource updates only to subscribed connections', async () => {
    const a = await start();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const other: JsonRpcMessage[] = [];
    const b = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n) => void other.push(n) });
    await a.app.connect(serverSide);
    await b.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } });
    expect(await a.client.request('resources/subscribe', { uri: 'rt://thing/1' })).toEqual({});
    a.app.notifyResourceUpdated('rt://thing/1');
    a.app.notifyResourceUpdated('rt://thing/2');
    await a.settle();
    expect(a.notes).toEqual([{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'rt://thing/1' } }]);
    expect(other).toEqual([]);
    await a.client.request('resources/unsubscribe', { uri: 'rt://thing/1' });
    a.app.notifyResourceUpdated('rt://thing/1');
    await a.settle();
    expect(a.notes).toHaveLength(1);
    await expect(a.client.request('resources/subscribe', {})).rejects.toMatchObject({ code: -32602 });
  });
});
