/**
 * McpClient against a real Hermes server in this process (linked in-memory transports), in both
 * eras: negotiation, typed methods and pagination, progress, the server's questions answered by
 * the same handlers in both eras, callbacks that throw, timeouts and cancellation (seen by the
 * server), the pending list, capability checks; lists awaited whole and pages under the spec's
 * names; the log level changed after construction; the methods one era lacks refused unsent; and
 * what listen() yields reaching the same callbacks as a legacy session's notifications.
 */
import 'reflect-metadata';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { IsString } from 'class-validator';
import { McpApp, McpContext, McpFactory, McpHandler, McpServer, Prompt, Resource, Tool, ToolError, createLogger } from '@hermes-mcp/core';
import { ClientRequestTrace, InMemoryTransport, McpClient, McpClientOptions, McpError, ToolCallError, unwrap } from '@hermes-mcp/client';

class NameInput {
  @IsString() name!: string;
}

class NoteVars {
  @IsString() id!: string;
}

/** What the server saw of the `wait` tool's signal. */
const waits: { aborted: unknown[] } = { aborted: [] };

class NameForm {
  @IsString() name!: string;
}

@McpServer({ name: 'client-test', version: '2.0.0', instructions: 'Be kind.' })
class TestServer {
  @Tool({ description: 'Greets' }) greet(input: NameInput) {
    return `Hello, ${input.name}!`;
  }
  @Tool({ description: 'Fails as a tool' }) broken() {
    throw new ToolError('it broke');
  }
  @Tool({ description: 'Sends progress' }) async steps(ctx: McpContext) {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3, `step ${i}`);
    return 'stepped';
  }
  @Tool({ description: 'Logs' }) async chatty(ctx: McpContext) {
    await ctx.notify('debug', 'quiet');
    await ctx.notify('warning', 'loud');
    return 'logged';
  }
  @Tool({ description: 'Asks a name' }) async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `you are ${answer.content.name}` : answer.action;
  }
  @Tool({ description: 'Waits until cancelled' }) async wait(ctx: McpContext) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    waits.aborted.push(ctx.signal.reason);
    return 'stopped';
  }
  @Tool({ description: 'a' }) a() {
    return 'a';
  }
  @Resource({ uri: 'notes://one', description: 'One note' }) one() {
    return 'note one';
  }
  @Resource({ uri: 'notes://by-id/{id}', description: 'A note by id' }) byId(vars: NoteVars) {
    return `note ${vars.id}`;
  }
  @Prompt({ description: 'A prompt' }) hello() {
    return 'Say hello';
  }
}

const clients: McpClient[] = [];

/** A connected client of a TestServer app, with the app and the methods of what the client sends. */
async function connected(options: McpClientOptions = {}, pageSize = 3): Promise<{ client: McpClient; app: McpApp; sent: string[] }> {
  const app = McpFactory.create(TestServer, { logger: createLogger({ level: 'silent' }), pageSize });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const sent: string[] = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, sendOptions) => {
    sent.push((message as { method?: string }).method ?? '');
    return send(message, sendOptions);
  };
  const client = new McpClient(clientSide, options);
  clients.push(client);
  await client.connect();
  return { client, app, sent };
}

async function connect(options: McpClientOptions = {}, pageSize = 3): Promise<McpClient> {
  return (await connected(options, pageSize)).client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  waits.aborted.length = 0;
});

describe('negotiation', () => {
  it("speaks 2026-07-28 with a server that answers server/discover ('auto')", async () => {
    const client = await connect();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toEqual({ name: 'client-test', version: '2.0.0' });
    expect(client.serverCapabilities.tools).toBeDefined();
    expect(client.instructions).toBe('Be kind.');
  });

  it('initializes a legacy session at a pinned revision', async () => {
    const client = await connect({ protocolVersion: '2025-06-18' });
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(client.serverInfo).toMatchObject({ name: 'client-test', version: '2.0.0' });
    expect(client.instructions).toBe('Be kind.');
  });
});

describe.each([
  ['legacy', '2025-11-25'],
  ['modern', 'auto'],
] as const)('in the %s era', (era, protocolVersion) => {
  it('lists every tool across pages, and one page at a time', async () => {
    const client = await connect({ protocolVersion });
    expect(client.era).toBe(era);
    const names: string[] = [];
    for await (const tool of client.listAllTools()) names.push(tool.name);
    expect(names).toEqual(['greet', 'broken', 'steps', 'chatty', 'who', 'wait', 'a']);
    const first = await client.listTools();
    expect(first.items.map((t) => t.name)).toEqual(['greet', 'broken', 'steps']);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await client.listTools(first.nextCursor)).items.map((t) => t.name)).toEqual(['chatty', 'who', 'wait']);
  });

  it('awaits a whole list into an array (and still iterates it); pages carry the spec’s field names', async () => {
    const client = await connect({ protocolVersion });
    const tools = await client.listAllTools();
    expect(Array.isArray(tools)).toBe(true);
    expect(tools.map((t) => t.name)).toEqual(['greet', 'broken', 'steps', 'chatty', 'who', 'wait', 'a']);
    const listing = client.listAllResources();
    expect((await listing).map((r) => r.uri)).toEqual(['notes://one']);
    const iterated: string[] = [];
    for await (const resource of listing) iterated.push(resource.uri);
    expect(iterated).toEqual(['notes://one']);
    expect((await client.listAllResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['notes://by-id/{id}']);
    expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['hello']);
    const page = await client.listTools();
    expect(page.tools.map((t) => t.name)).toEqual(['greet', 'broken', 'steps']);
    expect(page.items).toBe(page.tools);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['notes://one']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['notes://by-id/{id}']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['hello']);
  });

  it('changes the log level after construction (setLogLevel), as the logLevel option sets it', async () => {
    const logs: string[] = [];
    const client = await connect({ protocolVersion, logLevel: 'warning', onLog: (message) => logs.push(`${message.level}: ${String(message.data)}`) });
    await client.callTool('chatty');
    expect(logs).toEqual(['warning: loud']);
    await client.setLogLevel('debug');
    await client.callTool('chatty');
    expect(logs).toEqual(['warning: loud', 'debug: quiet', 'warning: loud']);
  });

  it('calls tools; a tool error is a result, unwrap throws it; a protocol error is an McpError', async () => {
    const client = await connect({ protocolVersion });
    expect(unwrap(await client.callTool('greet', { name: 'Ada' })).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    const broken = await client.callTool('broken');
    expect(broken.isError).toBe(true);
    expect(() => unwrap(broken)).toThrow(new ToolCallError(broken));
    expect(() => unwrap(broken)).toThrow('it broke');
    const unknown = await client.callTool('nope').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: -32602 });
  });

  it('pings: `ping` in a legacy session, `server/discover` in 2026-07-28 (which has no ping)', async () => {
    const client = await connect({ protocolVersion });
    const sent: string[] = [];
    // The start of each request the client makes (docs/observability.md).
    const seen = (trace: unknown) => void sent.push((trace as ClientRequestTrace).method);
    subscribe('tracing:hermes-mcp:client:request:start', seen);
    try {
      await client.ping();
    } finally {
      unsubscribe('tracing:hermes-mcp:client:request:start', seen);
    }
    expect(sent).toEqual([era === 'modern' ? 'server/discover' : 'ping']);
  });

  it('reports progress to the call that asked, and reads resources and prompts', async () => {
    const client = await connect({ protocolVersion });
    const progress: Array<[number, string | undefined]> = [];
    await client.callTool('steps', {}, { onProgress: (p) => progress.push([p.progress, p.message]) });
    expect(progress).toEqual([
      [1, 'step 1'],
      [2, 'step 2'],
      [3, 'step 3'],
    ]);
    expect((await client.readResource('notes://one')).contents).toEqual([expect.objectContaining({ uri: 'notes://one', text: 'note one' })]);
    expect((await client.getPrompt('hello')).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello' } }]);
  });

  it('answers the server’s elicitation with onElicitation (a request, or an input round)', async () => {
    const asked: string[] = [];
    const client = await connect({
      protocolVersion,
      onElicitation: (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { name: 'Grace' } };
      },
    });
    expect(unwrap(await client.callTool('who')).content).toEqual([{ type: 'text', text: 'you are Grace' }]);
    expect(asked).toEqual(['Who are you?']);
  });

  it('hears log messages at its level, and survives a callback that throws', async () => {
    const failures: string[] = [];
    const logs: string[] = [];
    const client = await connect({
      protocolVersion,
      logLevel: 'warning',
      onLog: (message) => {
        logs.push(`${message.level}: ${String(message.data)}`);
        throw new Error('the callback broke');
      },
      logger: { error: (message) => failures.push(message) },
    });
    expect(unwrap(await client.callTool('chatty')).content).toEqual([{ type: 'text', text: 'logged' }]);
    expect(logs).toEqual(['warning: loud']);
    expect(failures).toEqual(['the onLog callback threw']);
    expect(unwrap(await client.callTool('greet', { name: 'still here' })).content).toEqual([{ type: 'text', text: 'Hello, still here!' }]);
  });

  it('survives a progress callback that throws: the call still gets its result', async () => {
    const failures: string[] = [];
    const client = await connect({ protocolVersion, logger: { error: (message) => failures.push(message) } });
    const result = await client.callTool(
      'steps',
      {},
      {
        onProgress: () => {
          throw new Error('the progress bar broke');
        },
      },
    );
    expect(unwrap(result).content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(failures).toEqual(['the onProgress callback threw', 'the onProgress callback threw', 'the onProgress callback threw']);
  });

  it('times a request out: the caller gets a timeout error, the server sees notifications/cancelled', async () => {
    const client = await connect({ protocolVersion });
    const error = await client.callTool('wait', {}, { timeout: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32001, message: 'Request timed out after 50 ms' });
    expect(client.pendingRequests()).toEqual([]);
    await waitFor(() => waits.aborted.length === 1);
    expect(String((waits.aborted[0] as Error).message)).toMatch(/timed out/);
  });

  it('lists pending requests, and cancels one, or all', async () => {
    const client = await connect({ protocolVersion });
    const one = client.callTool('wait').catch((e: unknown) => e);
    const two = client.callTool('wait').catch((e: unknown) => e);
    const three = client.callTool('wait').catch((e: unknown) => e);
    await waitFor(() => client.pendingRequests().length === 3);
    const pending = client.pendingRequests();
    expect(pending.map((p) => p.method)).toEqual(['tools/call', 'tools/call', 'tools/call']);
    expect(pending.every((p) => p.elapsedMs >= 0)).toBe(true);
    expect(client.cancel(pending[0].id, 'changed my mind')).toBe(true);
    expect(client.cancel(pending[0].id)).toBe(false);
    expect(await one).toMatchObject({ message: 'changed my mind' });
    expect(client.cancelAll()).toBe(2);
    expect(await two).toBeInstanceOf(McpError);
    expect(await three).toBeInstanceOf(McpError);
    expect(client.pendingRequests()).toEqual([]);
    await waitFor(() => waits.aborted.length === 3);
  });

  it('cancels a request whose AbortSignal aborts', async () => {
    const client = await connect({ protocolVersion });
    const controller = new AbortController();
    const call = client.callTool('wait', {}, { signal: controller.signal }).catch((e: unknown) => e);
    await waitFor(() => client.pendingRequests().length === 1);
    controller.abort(new Error('user pressed stop'));
    expect(await call).toMatchObject({ message: 'user pressed stop' });
    await waitFor(() => waits.aborted.length === 1);
  });
});

describe('2026-07-28: one code path with a legacy session', () => {
  it('refuses subscribe(), unsubscribe() and logging/setLevel unsent, saying what to use in this revision', async () => {
    const { client, sent } = await connected();
    expect(client.era).toBe('modern');
    sent.length = 0;
    const subscribe = await client.subscribe('notes://one').catch((e: unknown) => e);
    expect(subscribe).toBeInstanceOf(McpError);
    expect(subscribe).toMatchObject({
      code: -32601,
      message: 'resources/subscribe is not in MCP 2026-07-28: watch the resource with listen({ resourceSubscriptions: [uri] }); its updates reach onResourceUpdated too',
    });
    await expect(client.unsubscribe('notes://one')).rejects.toMatchObject({
      code: -32601,
      message: expect.stringMatching(/^resources\/unsubscribe is not in MCP 2026-07-28: end the listen\(\) loop/),
    });
    await expect(client.request('logging/setLevel', { level: 'debug' })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringMatching(/^logging\/setLevel is not in MCP 2026-07-28: .*call setLogLevel\(level\)/),
    });
    await client.setLogLevel('error');
    expect(sent).toEqual([]);
    // And the other way round, as before: listen() in a legacy session.
    const legacy = await connected({ protocolVersion: '2025-11-25' });
    legacy.sent.length = 0;
    await expect(legacy.client.listen({ toolsListChanged: true }).next()).rejects.toMatchObject({
      code: -32601,
      message:
        'subscriptions/listen is not in a legacy session (MCP 2025-11-25): list changes come by themselves (onListChanged), and resource updates after subscribe(uri) (onResourceUpdated)',
    });
    expect(legacy.sent).toEqual([]);
  });

  it('refuses a log level that is not one, naming the levels', async () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    expect(() => new McpClient(clientSide, { logLevel: 'verbose' as never })).toThrow(
      new RangeError('the logLevel option: "verbose" is no MCP log level; use one of debug, info, notice, warning, error, critical, alert, emergency'),
    );
    const client = await connect();
    await expect(client.setLogLevel('loud' as never)).rejects.toThrow('setLogLevel: "loud" is no MCP log level; use one of debug, info');
  });

  it('hands what listen() yields to onListChanged, onResourceUpdated and onNotification too, and still yields it', async () => {
    const heard: string[] = [];
    const { client, app } = await connected({
      onListChanged: (list) => heard.push(`list ${list}`),
      onResourceUpdated: (uri) => heard.push(`updated ${uri}`),
      onNotification: (notification) => heard.push(notification.method),
    });
    const yielded: string[] = [];
    for await (const notification of client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://one'] }, { signal: AbortSignal.timeout(10_000) })) {
      yielded.push(notification.method);
      if (notification.method === 'notifications/subscriptions/acknowledged') {
        app.addTool({ name: 'added', description: 'added while listening' }, () => 'x');
        app.notifyResourceUpdated('notes://one');
      }
      if (yielded.length === 3) break;
    }
    // The server sends the two in either order.
    expect(yielded[0]).toBe('notifications/subscriptions/acknowledged');
    expect(yielded.slice(1).sort()).toEqual(['notifications/resources/updated', 'notifications/tools/list_changed']);
    expect(heard.sort()).toEqual([
      'list tools',
      'notifications/resources/updated',
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'updated notes://one',
    ]);
  });
});

describe('capability checks', () => {
  it('refuses a method whose capability the server did not declare, without sending it', async () => {
    // A server without decorators that offers tools only.
    const toolsOnly: McpHandler = {
      serverInfo: { name: 'tools-only', version: '1.0.0' },
      capabilities: { tools: {} },
      handleRequest: (ctx) => {
        if (ctx.request.method === 'tools/list') return { tools: [{ name: 't', inputSchema: { type: 'object' } }] };
        throw McpError.methodNotFound(ctx.request.method);
      },
    };
    const app = McpFactory.create(toolsOnly, { logger: createLogger({ level: 'silent' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.connect(serverSide);
    const client = new McpClient(clientSide, { protocolVersion: '2025-11-25' });
    clients.push(client);
    await client.connect();
    const sent: string[] = [];
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => {
      sent.push((message as { method?: string }).method ?? '');
      return send(message, options);
    };
    await expect(client.listPrompts()).rejects.toMatchObject({ code: -32601, message: 'The server did not declare the capability prompts/list needs' });
    expect(sent).toEqual([]);
    expect((await client.listTools()).items.map((t) => t.name)).toEqual(['t']);
    expect(sent).toEqual(['tools/list']);
  });

  it('refuses requests before connect()', async () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    await expect(new McpClient(clientSide).listTools()).rejects.toMatchObject({ message: 'Not connected: call connect() first' });
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('answers that break the revision’s shape', () => {
  it('fail where they are read, saying what is missing', async () => {
    const sloppy: McpHandler = {
      serverInfo: { name: 'sloppy', version: '1.0.0' },
      capabilities: { tools: {}, prompts: {} },
      handleRequest: (ctx) => (ctx.request.method === 'tools/list' ? { tools: 'not a list' } : { messages: undefined }),
    };
    const app = McpFactory.create(sloppy, { logger: createLogger({ level: 'silent' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.connect(serverSide);
    const client = new McpClient(clientSide, { protocolVersion: '2025-11-25' });
    clients.push(client);
    await client.connect();
    await expect(client.listTools()).rejects.toMatchObject({ code: -32603, message: 'Invalid response to tools/list: "tools" must be an array' });
    await expect(client.getPrompt('x')).rejects.toMatchObject({ message: 'Invalid response to prompts/get: "messages" must be an array' });
  });
});
