import 'reflect-metadata';
import { IsInt, IsString, Length, Max, Min, ValidateNested, IsArray } from 'class-validator';
import { Type } from 'class-transformer';
import { InMemoryTransport, McpError, Peer, JsonRpcMessage, parseFrame } from '@hermes-mcp/protocol';
import { Ctx, McpContext, McpFactory, McpHandler, McpServer, Prompt, Resource, Tool, ToolError, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });

/** A client end made of our own Peer, for engine-level tests (the SDK client is used end to end). */
async function connect(target: Parameters<typeof McpFactory.create>[0]) {
  const app = McpFactory.create(target, { logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const notes: JsonRpcMessage[] = [];
  const client = new Peer(clientSide, {
    onRequest: () => ({}),
    onNotification: (n) => void notes.push(n),
    acceptBatch: () => true,
  });
  await app.connect(serverSide);
  await client.start();
  const init = (protocolVersion = '2025-11-25', capabilities = {}) => client.request('initialize', { protocolVersion, capabilities, clientInfo: { name: 'test', version: '1' } });
  return { app, client, clientSide, notes, init };
}

async function errorOf(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    return error as McpError;
  }
  throw new Error('expected an error');
}

const rawHandler: McpHandler = {
  serverInfo: { name: 'raw', version: '2.0.0', title: 'Raw', icons: [{ src: 'https://x/i.png' }] },
  capabilities: { tools: {}, completions: {}, logging: {} },
  instructions: 'be nice',
  handleRequest(ctx) {
    if (ctx.request.method === 'tools/list') return { tools: [] };
    if (ctx.request.method === 'echo') return { params: ctx.request.params, era: ctx.session.era, version: ctx.session.protocolVersion };
    throw McpError.methodNotFound(ctx.request.method);
  },
};

describe('engine lifecycle (low-level McpHandler)', () => {
  it.each([
    ['2024-11-05', '2024-11-05'],
    ['2025-03-26', '2025-03-26'],
    ['2025-06-18', '2025-06-18'],
    ['2025-11-25', '2025-11-25'],
    ['2026-07-28', '2025-11-25'],
    ['1999-01-01', '2025-11-25'],
  ])('initialize offering %s negotiates %s', async (offered, negotiated) => {
    const { init, app } = await connect(rawHandler);
    const result = await init(offered);
    expect(result.protocolVersion).toBe(negotiated);
    expect(result.instructions).toBe('be nice');
    await app.close();
  });

  it('shapes serverInfo and capabilities for old revisions', async () => {
    const { init } = await connect(rawHandler);
    const result = await init('2024-11-05');
    expect(result.serverInfo).toEqual({ name: 'raw', version: '2.0.0' });
    expect(result.capabilities).toEqual({ tools: {}, logging: {} });
    const other = await connect(rawHandler);
    const latest = await other.init('2025-11-25');
    expect(latest.serverInfo).toEqual(rawHandler.serverInfo);
  });

  it('answers ping before initialize and refuses other requests with -32600', async () => {
    const { client } = await connect(rawHandler);
    expect(await client.request('ping', undefined)).toEqual({});
    const error = await errorOf(client.request('tools/list', {}));
    expect(error.code).toBe(-32600);
    expect(error.message).toContain('initialize');
  });

  it('refuses a second initialize and malformed initialize params', async () => {
    const { client, init } = await connect(rawHandler);
    const bad = await errorOf(client.request('initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }));
    expect(bad.code).toBe(-32602);
    const noInfo = await errorOf(client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }));
    expect(noInfo.code).toBe(-32602);
    await init();
    expect((await errorOf(init())).code).toBe(-32600);
  });

  it('passes other requests to the handler with the session in the context', async () => {
    const { client, init } = await connect(rawHandler);
    await init('2025-06-18');
    expect(await client.request('echo', { a: 1 })).toEqual({ params: { a: 1 }, era: 'legacy', version: '2025-06-18' });
    expect((await errorOf(client.request('nope', {}))).code).toBe(-32601);
  });

  it('validates logging/setLevel', async () => {
    const { client, init } = await connect(rawHandler);
    await init();
    expect(await client.request('logging/setLevel', { level: 'warning' })).toEqual({});
    expect((await errorOf(client.request('logging/setLevel', { level: 'loud' }))).code).toBe(-32602);
  });

  it('accepts batches on 2025-03-26 only', async () => {
    const replies: unknown[] = [];
    for (const version of ['2025-03-26', '2025-06-18']) {
      const { clientSide, init } = await connect(rawHandler);
      await init(version);
      const answer = new Promise((resolve) => {
        clientSide.onframe = (frame) => resolve(frame);
      });
      await clientSide.sendRaw(
        JSON.stringify([
          { jsonrpc: '2.0', id: 'a', method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/x' },
          { jsonrpc: '2.0', id: 'b', method: 'echo' },
        ]),
      );
      replies.push(await answer);
    }
    expect(replies[0]).toMatchObject({
      kind: 'batch',
      messages: [
        { kind: 'result', message: { id: 'a' } },
        { kind: 'result', message: { id: 'b' } },
      ],
    });
    expect(replies[1]).toMatchObject({ kind: 'single', message: { kind: 'error', message: { id: null, error: { code: -32600 } } } });
  });

  it('answers garbage with -32700 and keeps serving', async () => {
    const { clientSide, client, init } = await connect(rawHandler);
    await init();
    const answer = new Promise((resolve) => {
      const previous = clientSide.onframe!;
      clientSide.onframe = (frame) => {
        clientSide.onframe = previous;
        resolve(frame);
      };
    });
    await clientSide.sendRaw('{not json');
    expect(await answer).toMatchObject({ kind: 'single', message: { kind: 'error', message: { id: null, error: { code: -32700 } } } });
    expect(parseFrame('{}').kind).toBe('single');
    expect(await client.request('ping', undefined)).toEqual({});
  });
});

class Item {
  @IsString() @Length(1, 10) label!: string;
}

class OrderInput {
  @IsInt() @Min(1) @Max(5) quantity!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
}

class Sum {
  @IsInt() sum!: number;
}

class Topic {
  @IsString() @Length(2, 20) topic!: string;
}

@McpServer({ name: 'shop', version: '1.0.0' })
class ShopServer {
  seenSignal?: AbortSignal;

  @Tool({ description: 'Place an order' })
  order(input: OrderInput) {
    return { ok: true, count: input.items.length * input.quantity };
  }

  @Tool() refuse() {
    throw new ToolError('out of stock');
  }

  @Tool() crash() {
    throw new Error('database password is hunter2');
  }

  @Tool() protocol() {
    throw McpError.invalidParams('custom');
  }

  @Tool({ output: Sum }) wrongOutput() {
    return { sum: 'three' };
  }

  @Tool() async slow(@Ctx() ctx: McpContext) {
    this.seenSignal = ctx.signal;
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'never sent';
  }

  @Tool() async chatty(ctx: McpContext) {
    await ctx.notify('debug', 'hidden');
    await ctx.notify('error', 'shown');
    return 'done';
  }

  @Resource({ uri: 'shop://broken' }) broken() {
    throw new Error('secret internals');
  }

  @Prompt() pitch(args: Topic) {
    return `Sell ${args.topic}`;
  }
}

describe('engine with a decorated server', () => {
  async function ready(version = '2025-11-25') {
    const session = await connect(ShopServer);
    await session.init(version);
    return session;
  }

  it('returns validation failures as a tool error naming each field path', async () => {
    const { client } = await ready();
    const result = await client.request('tools/call', { name: 'order', arguments: { quantity: 9, items: [{ label: '' }, { label: 'ok' }] } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text).toContain('quantity');
    expect(text).toContain('items[0].label');
    expect(text).not.toContain('items[1]');
    const ok = await client.request('tools/call', { name: 'order', arguments: { quantity: 2, items: [{ label: 'a' }] } });
    expect(ok).toEqual({ content: [{ type: 'text', text: '{"ok":true,"count":2}' }], structuredContent: { ok: true, count: 2 } });
  });

  it('maps ToolError, McpError and unexpected errors', async () => {
    const { client } = await ready();
    expect(await client.request('tools/call', { name: 'refuse' })).toEqual({ content: [{ type: 'text', text: 'out of stock' }], isError: true });
    const crash = await client.request('tools/call', { name: 'crash' });
    expect(crash.isError).toBe(true);
    expect(JSON.stringify(crash)).not.toContain('hunter2');
    expect((await errorOf(client.request('tools/call', { name: 'protocol' }))).message).toContain('custom');
    expect((await errorOf(client.request('tools/call', { name: 'missing' }))).code).toBe(-32602);
    expect((await errorOf(client.request('tools/call', { name: 'order', arguments: 'x' }))).code).toBe(-32602);
    const wrong = await client.request('tools/call', { name: 'wrongOutput' });
    expect(wrong.isError).toBe(true);
    const broken = await errorOf(client.request('resources/read', { uri: 'shop://broken' }));
    expect(broken.code).toBe(-32603);
    expect(broken.message).not.toContain('secret');
  });

  it('validates prompt arguments with -32602', async () => {
    const { client } = await ready();
    expect(await client.request('prompts/get', { name: 'pitch', arguments: { topic: 'tea' } })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Sell tea' } }],
    });
    const error = await errorOf(client.request('prompts/get', { name: 'pitch', arguments: { topic: 'x' } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('topic');
  });

  it('aborts the handler on notifications/cancelled and sends no response', async () => {
    const session = await ready();
    const { clientSide, client } = session;
    const seen: unknown[] = [];
    const original = clientSide.onframe!;
    clientSide.onframe = (frame) => {
      seen.push(frame);
      original(frame);
    };
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'slow' }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort('user gave up');
    await expect(call).rejects.toBeInstanceOf(McpError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([]);
    expect(await client.request('ping', undefined)).toEqual({});
  });

  it('sends log notifications at or above the level the client set', async () => {
    const { client, notes } = await ready();
    await client.request('tools/call', { name: 'chatty' });
    expect(notes).toEqual([]);
    await client.request('logging/setLevel', { level: 'info' });
    await client.request('tools/call', { name: 'chatty' });
    expect(notes).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'shown' } }]);
  });

  it('hides structuredContent from 2025-03-26 clients', async () => {
    const { client } = await ready('2025-03-26');
    const ok = await client.request('tools/call', { name: 'order', arguments: { quantity: 1, items: [] } });
    expect(ok).toEqual({ content: [{ type: 'text', text: '{"ok":true,"count":0}' }] });
  });
});
