/**
 * What a server declares is what it serves: `tools`, `resources` and `prompts` when it has one of
 * that kind (or says it will add some at runtime), `completions` when something completes, each list
 * with `listChanged` — held against what the official SDKs (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/server`) declare for the same servers, at `initialize` and (v2) at
 * `server/discover`, in both eras and over the Web handler as over a stream.
 *
 * "The same server" built with an SDK declares `logging` and, with resources, `resources.subscribe`:
 * Hermes serves both by itself (every handler has `ctx.notify`, every connection
 * `logging/setLevel` and `resources/subscribe`), where an SDK server serves them once told to (see
 * `DecoratedServerHandler.capabilities`).
 */
import 'reflect-metadata';
import { IsIn, IsString } from 'class-validator';
import { McpServer as V1Server, ResourceTemplate as V1Template } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable as v1Completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { InMemoryTransport as V1Memory } from '@modelcontextprotocol/sdk/inMemory.js';
import { completable, createMcpHandler, InMemoryTransport as V2Memory, McpServer as V2Server, ResourceTemplate as V2Template } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { InMemoryTransport, JsonRpcMessage, Peer, ServerCapabilities } from '@hermes-mcp/protocol';
import { Complete, Constructor, McpFactory, McpServer, Prompt, Resource, TASKS_EXTENSION, Tool, createLogger, createWebHandler } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });
const CLIENT = { name: 'caps', version: '1.0.0' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT,
};
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT } } as const;
const DISCOVER = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } } as const;

class AddNote {
  @IsString() text!: string;
}

class NoteVars {
  @IsString() id!: string;
}

class TopicArgs {
  @Complete((value) => ['cats', 'cars', 'dogs'].filter((topic) => topic.startsWith(value)))
  @IsString()
  topic!: string;
}

class ToneArgs {
  @IsIn(['formal', 'casual']) tone!: string;
}

const TOPICS = ['cats', 'cars', 'dogs'];

/** What these servers tell an SDK server they serve. */
type DeclaredBySdk = { logging?: Record<string, never>; resources?: { subscribe?: boolean }; prompts?: Record<string, never> };

/** One server, written the Hermes way and the way of each SDK. */
interface Twin {
  name: string;
  hermes: Constructor;
  /** The SDK server's `capabilities` option: what it must be told to serve what Hermes serves. */
  told: DeclaredBySdk;
  v1(server: V1Server): void;
  v2(server: V2Server): void;
  /** What every one of them declares. */
  declares: ServerCapabilities;
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const contents = (uri: URL, value: string) => ({ contents: [{ uri: uri.href, text: value }] });
const message = (value: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: value } }] });

@McpServer({ name: 'calculator', version: '1.0.0' })
class ToolsOnly {
  @Tool({ description: 'Adds a note' }) add(input: AddNote) {
    return input.text;
  }
}

@McpServer({ name: 'notes', version: '1.0.0' })
class NoPrompts {
  @Tool({ description: 'Adds a note' }) add(input: AddNote) {
    return input.text;
  }
  @Resource({ uri: 'notes://all' }) all() {
    return '[]';
  }
  @Resource({ uri: 'notes://note/{id}', params: NoteVars }) note(vars: NoteVars) {
    return vars.id;
  }
}

@McpServer({ name: 'writer', version: '1.0.0' })
class Completing {
  @Prompt({ description: 'Write about a topic', args: TopicArgs }) about(args: TopicArgs) {
    return `Write about ${args.topic}`;
  }
  @Resource({ uri: 'topics://topic/{id}', params: NoteVars, complete: { id: (value) => TOPICS.filter((topic) => topic.startsWith(value)) } }) topic(vars: NoteVars) {
    return vars.id;
  }
}

@McpServer({ name: 'tones', version: '1.0.0' })
class Tones {
  @Prompt({ description: 'Write in a tone' }) write(args: ToneArgs) {
    return `Write in a ${args.tone} tone`;
  }
}

@McpServer({ name: 'quiet', version: '1.0.0', capabilities: { tools: { listChanged: false }, resources: { subscribe: false } } })
class Quiet {
  @Tool({ description: 'Adds a note' }) add(input: AddNote) {
    return input.text;
  }
}

@McpServer({ name: 'plugins', version: '1.0.0', capabilities: { prompts: {} } })
class RuntimePrompts {
  @Tool({ description: 'Adds a note' }) add(input: AddNote) {
    return input.text;
  }
}

const TWINS: Twin[] = [
  {
    name: 'a server with only tools',
    hermes: ToolsOnly,
    told: { logging: {} },
    v1: (s) => s.registerTool('add', { description: 'Adds a note', inputSchema: { text: z.string() } }, ({ text: t }) => text(t)),
    v2: (s) => s.registerTool('add', { description: 'Adds a note', inputSchema: z.object({ text: z.string() }) }, ({ text: t }) => text(t)),
    declares: { logging: {}, tools: { listChanged: true } },
  },
  {
    name: 'a server without prompts (tools, a resource and a template)',
    hermes: NoPrompts,
    told: { logging: {}, resources: { subscribe: true } },
    v1: (s) => {
      s.registerTool('add', { description: 'Adds a note', inputSchema: { text: z.string() } }, ({ text: t }) => text(t));
      s.registerResource('all', 'notes://all', {}, (uri) => contents(uri, '[]'));
      s.registerResource('note', new V1Template('notes://note/{id}', { list: undefined }), {}, (uri, vars) => contents(uri, String(vars.id)));
    },
    v2: (s) => {
      s.registerTool('add', { description: 'Adds a note', inputSchema: z.object({ text: z.string() }) }, ({ text: t }) => text(t));
      s.registerResource('all', 'notes://all', {}, (uri) => contents(uri, '[]'));
      s.registerResource('note', new V2Template('notes://note/{id}', { list: undefined }), {}, (uri, vars) => contents(uri, String(vars.id)));
    },
    declares: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
  },
  {
    name: 'a server whose prompt argument and template variable complete',
    hermes: Completing,
    told: { logging: {}, resources: { subscribe: true } },
    v1: (s) => {
      s.registerPrompt(
        'about',
        { description: 'Write about a topic', argsSchema: { topic: v1Completable(z.string(), (v) => TOPICS.filter((t) => t.startsWith(v))) } },
        ({ topic }) => message(`Write about ${topic}`),
      );
      s.registerResource('topic', new V1Template('topics://topic/{id}', { list: undefined, complete: { id: (v) => TOPICS.filter((t) => t.startsWith(v)) } }), {}, (uri, vars) =>
        contents(uri, String(vars.id)),
      );
    },
    v2: (s) => {
      s.registerPrompt(
        'about',
        { description: 'Write about a topic', argsSchema: z.object({ topic: completable(z.string(), (v) => TOPICS.filter((t) => t.startsWith(v))) }) },
        ({ topic }) => message(`Write about ${topic}`),
      );
      s.registerResource('topic', new V2Template('topics://topic/{id}', { list: undefined, complete: { id: (v) => TOPICS.filter((t) => t.startsWith(v)) } }), {}, (uri, vars) =>
        contents(uri, String(vars.id)),
      );
    },
    declares: { logging: {}, completions: {}, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } },
  },
  {
    name: 'a server that says it adds prompts at runtime',
    hermes: RuntimePrompts,
    told: { logging: {}, prompts: {} },
    v1: (s) => s.registerTool('add', { description: 'Adds a note', inputSchema: { text: z.string() } }, ({ text: t }) => text(t)),
    v2: (s) => s.registerTool('add', { description: 'Adds a note', inputSchema: z.object({ text: z.string() }) }, ({ text: t }) => text(t)),
    declares: { logging: {}, tools: { listChanged: true }, prompts: { listChanged: true } },
  },
];

/** A transport end of either SDK, as far as these tests use it. */
interface SdkEnd {
  onmessage?: (message: { id?: unknown; result?: unknown; error?: unknown }) => void;
  start(): Promise<void>;
  send(message: object): Promise<void>;
  close(): Promise<void>;
}

/** Sends one request to an SDK server over its in-memory transport and resolves with its answer. */
async function askSdk(server: { connect(transport: never): Promise<void>; close(): Promise<void> }, pair: [SdkEnd, SdkEnd], request: object): Promise<Record<string, unknown>> {
  const [client, side] = pair;
  await server.connect(side as never);
  const answer = new Promise<{ result?: unknown; error?: unknown }>((resolve) => (client.onmessage = (m) => m.id === 1 && resolve(m)));
  await client.start();
  await client.send(request);
  const { result, error } = await answer;
  await server.close();
  if (error !== undefined) throw new Error(`the SDK server answered with ${JSON.stringify(error)}`);
  return result as Record<string, unknown>;
}

async function v1Initialize(twin: Twin): Promise<unknown> {
  const server = new V1Server({ name: twin.name, version: '1.0.0' }, { capabilities: twin.told });
  twin.v1(server);
  return (await askSdk(server, V1Memory.createLinkedPair() as unknown as [SdkEnd, SdkEnd], INITIALIZE)).capabilities;
}

function v2Server(twin: Twin): V2Server {
  const server = new V2Server({ name: twin.name, version: '1.0.0' }, { capabilities: twin.told });
  twin.v2(server);
  return server;
}

async function v2Initialize(twin: Twin): Promise<unknown> {
  return (await askSdk(v2Server(twin), V2Memory.createLinkedPair() as unknown as [SdkEnd, SdkEnd], INITIALIZE)).capabilities;
}

/** `server/discover` of the SDK v2 server, served the 2026-07-28 way (`createMcpHandler`). */
async function v2Discover(twin: Twin): Promise<unknown> {
  const handler = createMcpHandler(() => v2Server(twin));
  try {
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        body: JSON.stringify(DISCOVER),
      }),
    );
    return ((await response.json()) as { result: { capabilities: unknown } }).result.capabilities;
  } finally {
    await handler.close();
  }
}

/** A Hermes app and a raw client on a stream (our Peer), which notes the notifications it gets. */
async function hermes(server: Constructor | ReturnType<typeof McpFactory.create>) {
  const app = typeof server === 'function' ? McpFactory.create(server, { logger }) : server;
  const open = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const notes: string[] = [];
    const peer = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n: JsonRpcMessage) => void notes.push((n as { method: string }).method) });
    await app.connect(serverSide);
    await peer.start();
    return { peer, notes };
  };
  const initialize = async (protocolVersion = '2025-11-25') => {
    const session = await open();
    const result = await session.peer.request('initialize', { protocolVersion, capabilities: {}, clientInfo: CLIENT });
    await session.peer.notify('notifications/initialized', {});
    return { ...session, capabilities: result.capabilities as ServerCapabilities };
  };
  const discover = async () => (await (await open()).peer.request('server/discover', { _meta: ENVELOPE })).capabilities as ServerCapabilities;
  return { app, open, initialize, discover };
}

/** Hermes' discover capabilities without the tasks extension, which Hermes declares in 2026-07-28 and SDK v2 2.4 does not have. */
function withoutTasks(capabilities: ServerCapabilities): ServerCapabilities {
  const { extensions, ...rest } = capabilities;
  const others = Object.entries((extensions ?? {}) as Record<string, unknown>).filter(([id]) => id !== TASKS_EXTENSION);
  return others.length > 0 ? { ...rest, extensions: Object.fromEntries(others) } : rest;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the capabilities a server declares, next to the official SDKs', () => {
  describe.each(TWINS)('$name', (twin) => {
    it('initialize (2025-11-25): Hermes declares what SDK v1 and v2 declare for the same server', async () => {
      const hermesCapabilities = (await (await hermes(twin.hermes)).initialize()).capabilities;
      expect(hermesCapabilities).toEqual(twin.declares);
      expect(await v1Initialize(twin)).toEqual(twin.declares);
      expect(await v2Initialize(twin)).toEqual(twin.declares);
    });

    it('server/discover (2026-07-28): the same as SDK v2, on a stream and over the Web handler', async () => {
      const served = await hermes(twin.hermes);
      expect(withoutTasks(await served.discover())).toEqual(twin.declares);
      expect(await v2Discover(twin)).toEqual(twin.declares);
      const web = createWebHandler(served.app);
      try {
        const response = await web(
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: {
              host: '127.0.0.1',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'server/discover',
            },
            body: JSON.stringify(DISCOVER),
          }),
        );
        const body = (await response.json()) as { result: { capabilities: ServerCapabilities } };
        expect([response.status, body]).toEqual([200, expect.objectContaining({ result: expect.any(Object) })]);
        expect(withoutTasks(body.result.capabilities)).toEqual(twin.declares);
      } finally {
        await web.close();
      }
    });
  });

  it('a server without prompts answers prompts/list and completion/complete with -32601, in both eras', async () => {
    const { initialize, open } = await hermes(NoPrompts);
    const { peer } = await initialize();
    await expect(peer.request('prompts/list', {})).rejects.toMatchObject({ code: -32601 });
    await expect(peer.request('completion/complete', { ref: { type: 'ref/resource', uri: 'notes://note/{id}' }, argument: { name: 'id', value: '' } })).rejects.toMatchObject({
      code: -32601,
    });
    const modern = (await open()).peer;
    await expect(modern.request('prompts/list', { _meta: ENVELOPE })).rejects.toMatchObject({ code: -32601 });
    // And one with no resources refuses resources/subscribe (the capability it needs).
    const tools = (await (await hermes(ToolsOnly)).initialize()).peer;
    await expect(tools.request('resources/subscribe', { uri: 'notes://all' })).rejects.toMatchObject({ code: -32601 });
  });

  it('declares completions for an @IsIn argument, which Hermes completes by itself (the SDKs complete only completable() arguments)', async () => {
    const { peer, capabilities } = await (await hermes(Tones)).initialize();
    expect(capabilities).toEqual({ logging: {}, completions: {}, prompts: { listChanged: true } });
    expect(await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'write' }, argument: { name: 'tone', value: 'c' } })).toEqual({
      completion: { values: ['casual'], total: 1, hasMore: false },
    });
  });

  it('drops completions on 2024-11-05, which has no such capability', async () => {
    expect((await (await hermes(Completing)).initialize('2024-11-05')).capabilities).toEqual({
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
  });

  it('takes what @McpServer({ capabilities }) says: listChanged: false is declared and kept (no client is told of the change), subscribe: false refuses subscriptions', async () => {
    const served = await hermes(Quiet);
    const { peer, notes, capabilities } = await served.initialize();
    expect(capabilities).toEqual({ logging: {}, tools: { listChanged: false }, resources: { subscribe: false, listChanged: true } });
    await expect(peer.request('resources/subscribe', { uri: 'notes://all' })).rejects.toMatchObject({ code: -32601 });
    served.app.tool('add').disable();
    await tick();
    expect(notes).toEqual([]);
  });

  describe('a kind added at runtime', () => {
    it('that the server neither had nor declared is declared from then on: sessions opened before are not told of it', async () => {
      const served = await hermes(ToolsOnly);
      const before = await served.initialize();
      expect(before.capabilities).not.toHaveProperty('prompts');
      served.app.addPrompt({ name: 'late', description: 'Added while running' }, () => 'late');
      await tick();
      expect(before.notes).toEqual([]);
      const after = await served.initialize();
      expect(after.capabilities).toEqual({ logging: {}, tools: { listChanged: true }, prompts: { listChanged: true } });
      expect(await after.peer.request('prompts/list', {})).toMatchObject({ prompts: [{ name: 'late' }] });
      // Later changes reach the sessions told of the list.
      served.app.prompt('late').disable();
      await tick();
      expect(after.notes).toEqual(['notifications/prompts/list_changed']);
      expect(before.notes).toEqual([]);
    });

    it('that the server declared is known to every session from its start, which is told when it comes', async () => {
      const served = await hermes(RuntimePrompts);
      const { peer, notes } = await served.initialize();
      expect(await peer.request('prompts/list', {})).toEqual({ prompts: [] });
      served.app.addPrompt({ name: 'plugin', description: 'Added by a plugin' }, () => 'plugin');
      await tick();
      expect(notes).toEqual(['notifications/prompts/list_changed']);
      expect(await peer.request('prompts/list', {})).toMatchObject({ prompts: [{ name: 'plugin' }] });
    });

    it('never shrinks what clients were told: the last tool removed leaves tools declared', async () => {
      const served = await hermes(ToolsOnly);
      const before = await served.initialize();
      served.app.tool('add').remove();
      await tick();
      expect(before.notes).toEqual(['notifications/tools/list_changed']);
      expect((await served.initialize()).capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
    });
  });
});
