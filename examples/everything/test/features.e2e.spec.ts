/**
 * End to end over stdio: every feature of the built everything server (dist/main.js), driven by
 * the official SDK client once per legacy revision — cancellation, progress, logging levels,
 * elicitation, sampling, roots, pagination, runtime changes with list_changed, subscriptions,
 * completions, content and tool metadata by revision, middleware and handler timeouts.
 *
 * Two clients talk to two servers per revision: one declares sampling, elicitation and roots and
 * answers them as each test says; a bare one declares nothing, for the "capability missing" cases.
 * Every message either server sends is validated afterwards against that revision's official JSON
 * Schema, including "no field the revision lacks".
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type JSONRPCMessage,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { LEGACY_REVISIONS, type LegacyRevision, type MessageId, loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';
import { RecordingStdioTransport } from '../../../test-support/recording-transport';
import { mcpErrorOf, Raw, eventually, wireProgress, textOf } from '../../../test-support/e2e';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER_MAIN = path.resolve(__dirname, '../dist/main.js');

const schemas = loadSchemas();

/** Revisions compare as dates. */
const atLeast = (revision: LegacyRevision, since: LegacyRevision) => revision >= since;

/** The tools the decorated class declares, in declaration order (the order of `tools/list`). */
const TOOLS = [
  'echo',
  'slow',
  'cancellations',
  'log',
  'ask_name',
  'open_url',
  'summarize',
  'roots',
  'roots_changes',
  'toggle',
  'add_tool',
  'touch',
  'content_kinds',
  'weather',
  'too_slow',
  'guarded',
  'whisper',
  'long_job',
  'composed',
];
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** What `content_kinds` sends as image and audio data. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

/** The ids of the requests of `method` the client sent, oldest first. */
function idsOf(transport: RecordingStdioTransport, method: string): MessageId[] {
  return [...transport.requestMethodById].filter(([, m]) => m === method).map(([id]) => id);
}

/** The raw response (as it came off the wire) to request `id`, if one arrived. */
function responseTo(transport: RecordingStdioTransport, id: MessageId): Raw | undefined {
  return (transport.received as Raw[]).find((m) => m.id === id && ('result' in m || 'error' in m));
}

/** The raw result of the last request of `method`. */
function lastRawResult(transport: RecordingStdioTransport, method: string): Raw {
  const id = idsOf(transport, method).pop();
  const response = id === undefined ? undefined : responseTo(transport, id);
  if (!response || !('result' in response)) throw new Error(`no result was received for ${method} (id ${String(id)})`);
  return response.result as Raw;
}

/** The params of the `method` notifications the server sent while `run` ran (they precede its response). */
async function notificationsDuring(transport: RecordingStdioTransport, method: string, run: () => Promise<unknown>): Promise<Raw[]> {
  const from = transport.received.length;
  await run();
  return (transport.received.slice(from) as Raw[]).filter((m) => m.method === method && !('id' in m)).map((m) => (m.params ?? {}) as Raw);
}

/** Counts the notifications a client's handler received, so a test can wait for the next one. */
class Inbox {
  readonly seen: Raw[] = [];
  push = (notification: { params?: unknown }): void => {
    this.seen.push((notification.params ?? {}) as Raw);
  };
  /** Waits until more than `count` notifications arrived. */
  after(count: number, what: string): Promise<void> {
    return eventually(what, () => this.seen.length > count);
  }
}

/** What the full client's handlers answer (each test sets them) and what they were asked. */
interface ClientSide {
  elicit: (params: Raw) => Raw;
  sample: (params: Raw, signal: AbortSignal) => Raw | Promise<Raw>;
  roots: Root[];
  elicitations: Raw[];
  samplings: Raw[];
  rootsAsked: number;
}

function capabilitiesFor(revision: LegacyRevision): ClientCapabilities {
  const latest = revision === '2025-11-25';
  return {
    sampling: latest ? { tools: {} } : {},
    elicitation: latest ? { form: {}, url: {} } : {},
    roots: { listChanged: true },
  };
}

function spawnTransport(revision: LegacyRevision): RecordingStdioTransport {
  return new RecordingStdioTransport({ command: process.execPath, args: [SERVER_MAIN], cwd: REPO_ROOT }, revision);
}

describe.each(LEGACY_REVISIONS)('everything over stdio, revision %s', (revision) => {
  let transport: RecordingStdioTransport;
  let client: Client;
  /** A second server, and a client that declares no capability at all. */
  let bareTransport: RecordingStdioTransport;
  let bare: Client;
  const side: ClientSide = {
    elicit: () => ({ action: 'cancel' }),
    sample: () => ({ model: 'unused', role: 'assistant', content: { type: 'text', text: '' } }),
    roots: [],
    elicitations: [],
    samplings: [],
    rootsAsked: 0,
  };
  const toolsChanged = new Inbox();
  const promptsChanged = new Inbox();
  const resourcesChanged = new Inbox();
  const updated = new Inbox();
  /** The id of the `slow` call the cancellation test aborts. */
  let cancelledId: MessageId | undefined;

  const call = (name: string, args: Raw = {}) => client.callTool({ name, arguments: args });
  const callText = async (name: string, args: Raw = {}) => textOf(await call(name, args));

  beforeAll(async () => {
    if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} does not exist: build first with \`npx tsc -b\``);
    transport = spawnTransport(revision);
    client = new Client({ name: 'everything-e2e', version: '1.0.0' }, { capabilities: capabilitiesFor(revision) });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      side.elicitations.push(request.params);
      return side.elicit(request.params);
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      side.samplings.push(request.params);
      return await side.sample(request.params, extra.signal);
    });
    client.setRequestHandler(ListRootsRequestSchema, () => {
      side.rootsAsked++;
      return { roots: side.roots };
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, toolsChanged.push);
    client.setNotificationHandler(PromptListChangedNotificationSchema, promptsChanged.push);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, resourcesChanged.push);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, updated.push);

    bareTransport = spawnTransport(revision);
    bare = new Client({ name: 'everything-e2e-bare', version: '1.0.0' });
    await Promise.all([client.connect(transport), bare.connect(bareTransport)]);
  });

  afterAll(async () => {
    await Promise.all([client?.close(), bare?.close()]);
  });

  it('initialize negotiates the offered revision', () => {
    for (const t of [transport, bareTransport]) expect(lastRawResult(t, 'initialize').protocolVersion).toBe(revision);
    expect(client.getServerVersion()).toMatchObject({ name: 'hermes-everything', version: '0.1.0' });
  });

  it('logging: nothing before logging/setLevel, then only messages at or above the level set', async () => {
    const logged = (tag: string) => notificationsDuring(transport, 'notifications/message', () => call('log', { tag }));

    // Before any setLevel the server sends no log message at all.
    expect(await logged('before')).toEqual([]);

    await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
    const warning = await logged('warn');
    expect(warning).toEqual(LEVELS.slice(3).map((level) => ({ level, logger: 'everything', data: { tag: 'warn', level } })));
    expect(warning).toHaveLength(5);

    await client.setLoggingLevel('debug');
    const debug = await logged('all');
    expect(debug).toEqual(LEVELS.map((level) => ({ level, logger: 'everything', data: { tag: 'all', level } })));

    // The bare client's connection has its own level, never set: nothing.
    expect(await notificationsDuring(bareTransport, 'notifications/message', () => bare.callTool({ name: 'log', arguments: { tag: 'bare' } }))).toEqual([]);
  });

  it('pagination: resources/list in three pages, tools/list in two, a tampered cursor is -32602', async () => {
    const page1 = await client.listResources();
    expect(page1.resources).toHaveLength(10);
    expect(typeof page1.nextCursor).toBe('string');
    const page2 = await client.listResources({ cursor: page1.nextCursor });
    expect(page2.resources).toHaveLength(10);
    expect(typeof page2.nextCursor).toBe('string');
    expect(page2.nextCursor).not.toBe(page1.nextCursor);
    const page3 = await client.listResources({ cursor: page2.nextCursor });
    expect(page3.resources).toHaveLength(6);
    expect(page3.nextCursor).toBeUndefined();
    expect(lastRawResult(transport, 'resources/list')).not.toHaveProperty('nextCursor');

    const uris = [...page1.resources, ...page2.resources, ...page3.resources].map((r) => r.uri);
    expect(new Set(uris).size).toBe(26);
    expect(uris).toEqual(['status://server', ...Array.from({ length: 25 }, (_, i) => `items://${i + 1}`)]);
    expect(page1.resources[1]).toEqual({ uri: 'items://1', name: 'item-1', description: 'Catalog item 1', mimeType: 'text/plain' });

    // Any edit is refused: a character of the payload, the last character of the seal (one whose
    // changed bits a base64 decoder ignores), a character appended.
    const cursor = page1.nextCursor!;
    const last = BASE64URL.indexOf(cursor[cursor.length - 1]);
    const edits = [`${cursor[0] === 'A' ? 'B' : 'A'}${cursor.slice(1)}`, `${cursor.slice(0, -1)}${BASE64URL[last ^ 1]}`, `${cursor}!`];
    for (const tampered of edits) {
      const forged = await mcpErrorOf(client.listResources({ cursor: tampered }));
      expect(forged.code).toBe(-32602);
      expect(forged.message).toContain('invalid cursor');
    }

    const tools1 = await client.listTools();
    expect(tools1.tools).toHaveLength(10);
    expect(typeof tools1.nextCursor).toBe('string');
    // A cursor of one list is no cursor of another.
    expect((await mcpErrorOf(client.listResources({ cursor: tools1.nextCursor }))).code).toBe(-32602);
    const tools2 = await client.listTools({ cursor: tools1.nextCursor });
    expect(tools2.tools).toHaveLength(TOOLS.length - 10);
    expect(tools2.nextCursor).toBeUndefined();
    expect([...tools1.tools, ...tools2.tools].map((t) => t.name)).toEqual(TOOLS);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: 'items://item/{id}', name: 'item', description: 'One item by id', mimeType: 'text/plain' }]);
  });

  it('progress: increasing, with total (and message from 2025-03-26), all before the response', async () => {
    const delivered: Raw[] = [];
    const done = await client.callTool({ name: 'slow', arguments: { steps: 5, delayMs: 10, label: 'progress' } }, undefined, {
      onprogress: (p) => delivered.push({ ...p }),
    });
    expect(textOf(done)).toBe('progress: completed 5 steps');

    const token = idsOf(transport, 'tools/call').pop()!;
    const wire = wireProgress(transport, token);
    const expected = [1, 2, 3, 4, 5].map((step) => ({
      progressToken: token,
      progress: step,
      total: 5,
      ...(atLeast(revision, '2025-03-26') && { message: `step ${step} of 5` }),
    }));
    expect(wire.updates).toEqual(expected);
    expect(wire.beforeResponse).toBe(true);
    // SDK v1 may drop progress read in the same chunk as the response (typescript-sdk#2580):
    // what it delivered can only be held to a prefix of what the wire carried.
    const sent = expected.map(({ progressToken: _t, ...rest }) => rest);
    expect(delivered).toEqual(sent.slice(0, delivered.length));
  });

  it('cancellation: aborting a running tool rejects the call, no response is sent, the handler sees its signal aborted', async () => {
    const label = `cancel-${revision}`;
    const controller = new AbortController();
    let progressSeen = 0;
    const running = client.callTool({ name: 'slow', arguments: { steps: 20, delayMs: 50, label } }, undefined, {
      signal: controller.signal,
      onprogress: () => {
        if (++progressSeen === 1) controller.abort('the test cancels');
      },
    });
    await expect(running).rejects.toBeDefined();
    expect(progressSeen).toBeGreaterThanOrEqual(1);

    const sent = transport.sent as Raw[];
    const request = sent.find((m) => m.method === 'tools/call' && ((m.params as Raw).arguments as Raw).label === label)!;
    cancelledId = request.id as MessageId;
    const cancel = sent.find((m) => m.method === 'notifications/cancelled' && (m.params as Raw).requestId === cancelledId);
    expect(cancel).toBeDefined();

    // The handler records the label once its signal is aborted; by the time `cancellations`
    // answers, the server has settled the slow call (responses go out in order) — with nothing.
    let aborted: string[] = [];
    await eventually(`the slow handler of ${label} sees its signal aborted`, async () => {
      aborted = (JSON.parse(await callText('cancellations')) as { aborted: string[] }).aborted;
      return aborted.includes(label);
    });
    expect(aborted).toEqual([label]);
    expect(responseTo(transport, cancelledId)).toBeUndefined();
    // It stopped early: far fewer than 20 progress notifications went out.
    expect(wireProgress(transport, cancelledId).updates.length).toBeLessThan(20);

    // The server keeps serving.
    expect(await callText('echo', { message: 'still here' })).toBe('still here');
  });

  it('elicitation: a form, accepted / declined / cancelled; an invalid answer is -32602; URL mode', async () => {
    if (!atLeast(revision, '2025-06-18')) {
      const error = await mcpErrorOf(call('ask_name'));
      expect(error.code).toBe(-32021);
      expect(error.message).toContain('elicitation needs MCP 2025-06-18');
      expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
      const url = await mcpErrorOf(call('open_url', { url: 'https://example.com/login' }));
      expect(url.code).toBe(-32021);
      expect(url.message).toContain('elicitation needs MCP 2025-06-18');
      expect(side.elicitations).toEqual([]);
      return;
    }
    const latest = revision === '2025-11-25';

    side.elicit = () => ({ action: 'accept', content: { name: 'Ada', age: 36, color: 'green', subscribe: true } });
    expect(await callText('ask_name')).toBe('Hello Ada (36), who likes green and news');
    expect(side.elicitations).toHaveLength(1);
    const asked = side.elicitations[0];
    expect(asked.message).toBe('Please tell us about yourself');
    if (latest) expect(asked.mode).toBe('form');
    else expect(asked).not.toHaveProperty('mode');
    const schema = asked.requestedSchema as { type: string; properties: Record<string, Raw>; required: string[] };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(['name', 'age', 'color', 'subscribe']);
    // A form cannot carry the length pattern, and maxLength would count `❤️` as two: only the minimum.
    expect(schema.properties.name).toEqual({ type: 'string', description: 'Your name', minLength: 1 });
    expect(schema.properties.age).toEqual({ type: 'integer', description: 'Your age', minimum: 0, maximum: 150 });
    expect(schema.properties.color).toEqual(
      latest
        ? {
            type: 'string',
            description: 'Favourite colour',
            oneOf: [
              { const: 'red', title: 'Red' },
              { const: 'green', title: 'Green' },
              { const: 'blue', title: 'Blue' },
            ],
            default: 'blue',
          }
        : { type: 'string', description: 'Favourite colour', enum: ['red', 'green', 'blue'], enumNames: ['Red', 'Green', 'Blue'] },
    );
    expect(schema.properties.subscribe).toEqual({ type: 'boolean', description: 'Subscribe to news', default: false });
    // Only `name` must be given: `age` is optional, and color and subscribe have initialisers.
    expect(schema.required).toEqual(['name']);

    // Fields left out get the class's initialisers.
    side.elicit = () => ({ action: 'accept', content: { name: 'Bob' } });
    expect(await callText('ask_name')).toBe('Hello Bob, who likes blue');

    side.elicit = () => ({ action: 'decline' });
    expect(await callText('ask_name')).toBe('no answer: decline');
    side.elicit = () => ({ action: 'cancel' });
    expect(await callText('ask_name')).toBe('no answer: cancel');

    side.elicit = () => ({ action: 'accept', content: { name: 'Old', age: 'old' } });
    const invalid = await mcpErrorOf(call('ask_name'));
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toContain('NameForm');
    expect(invalid.message).toMatch(/^age must be an integer, not a string$/m);

    const before = side.elicitations.length;
    side.elicit = () => ({ action: 'accept' });
    if (latest) {
      expect(await callText('open_url', { url: 'https://example.com/login' })).toBe('url elicitation: accept');
      const urlAsk = side.elicitations[before];
      expect(urlAsk).toMatchObject({ mode: 'url', message: 'Please sign in', url: 'https://example.com/login' });
      expect(typeof urlAsk.elicitationId).toBe('string');
      expect(urlAsk).not.toHaveProperty('requestedSchema');
    } else {
      const error = await mcpErrorOf(call('open_url', { url: 'https://example.com/login' }));
      expect(error.code).toBe(-32021);
      expect(error.message).toContain('URL elicitation needs MCP 2025-11-25');
      expect(error.data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
      expect(side.elicitations).toHaveLength(before);
    }
  });

  it('sampling: the client is asked, the tool returns its answer; with tools only on 2025-11-25', async () => {
    side.sample = () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'short' } });
    expect(await callText('summarize', { text: 'a long story' })).toBe('test-model: short');
    expect(side.samplings).toHaveLength(1);
    expect(side.samplings[0]).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: a long story' } }],
      maxTokens: 100,
      systemPrompt: 'Be brief.',
    });

    if (revision === '2025-11-25') {
      expect(await callText('summarize', { text: 'with tools', withTools: true })).toBe('test-model: short');
      expect(side.samplings).toHaveLength(2);
      expect(side.samplings[1]).toMatchObject({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: with tools' } }],
        maxTokens: 100,
        tools: [{ name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } }],
      });
    } else {
      const error = await mcpErrorOf(call('summarize', { text: 'with tools', withTools: true }));
      expect(error.code).toBe(-32021);
      expect(error.message).toContain('sampling with tools needs MCP 2025-11-25');
      expect(error.data).toEqual({ requiredCapabilities: { sampling: { tools: {} } } });
      expect(side.samplings).toHaveLength(1);
    }
  });

  it('cancellation reaches the sampling request the tool is waiting on', async () => {
    let samplingSignal: AbortSignal | undefined;
    side.sample = (_params, signal) =>
      new Promise((resolve) => {
        samplingSignal = signal;
        signal.addEventListener('abort', () => resolve({ model: 'late', role: 'assistant', content: { type: 'text', text: 'too late' } }));
      });
    const controller = new AbortController();
    const running = client.callTool({ name: 'summarize', arguments: { text: 'never mind' } }, undefined, { signal: controller.signal });
    await eventually('the client is asked to sample', () => samplingSignal !== undefined);
    const toolCallId = idsOf(transport, 'tools/call').pop()!;
    controller.abort('the test cancels');
    await expect(running).rejects.toBeDefined();

    // The server cancels its own request to the client, which the SDK turns into an aborted signal.
    await eventually('the server cancels its sampling/createMessage', () => samplingSignal!.aborted);
    const samplingRequest = (transport.received as Raw[]).filter((m) => m.method === 'sampling/createMessage').pop()!;
    const cancelled = (transport.received as Raw[]).filter((m) => m.method === 'notifications/cancelled').map((m) => m.params as Raw);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].requestId).toBe(samplingRequest.id);
    expect(typeof cancelled[0].reason).toBe('string');
    // Neither the answer of the aborted sampling nor a response to the cancelled call went out.
    expect(await callText('echo', { message: 'next' })).toBe('next');
    expect(responseTo(transport, toolCallId)).toBeUndefined();
    expect((transport.sent as Raw[]).filter((m) => m.id === samplingRequest.id && !('method' in m))).toEqual([]);
  });

  it('roots: the tool reads the client roots; a roots list_changed makes the server read them again', async () => {
    side.roots = [{ uri: 'file:///work/first', name: 'first' }];
    expect(JSON.parse(await callText('roots'))).toEqual({ roots: side.roots });
    expect(side.rootsAsked).toBe(1);

    expect(JSON.parse(await callText('roots_changes'))).toEqual({ changes: 0, roots: [] });
    side.roots = [{ uri: 'file:///work/second', name: 'second' }, { uri: 'file:///work/third' }];
    await client.sendRootsListChanged();
    // The listener counts the change first, then asks for the roots: wait for both.
    let seen: { changes: number; roots: Root[] } = { changes: 0, roots: [] };
    await eventually('the server reads the roots after roots/list_changed', async () => {
      seen = JSON.parse(await callText('roots_changes')) as typeof seen;
      return seen.changes >= 1 && seen.roots.length > 0;
    });
    expect(seen).toEqual({ changes: 1, roots: side.roots });
    expect(side.rootsAsked).toBe(2);
  });

  it('capabilities the client did not declare: sampling, elicitation and roots fail with -32021', async () => {
    const sampling = await mcpErrorOf(bare.callTool({ name: 'summarize', arguments: { text: 'x' } }));
    expect(sampling.code).toBe(-32021);
    expect(sampling.message).toContain('did not declare the sampling capability');
    expect(sampling.data).toEqual({ requiredCapabilities: { sampling: {} } });

    const elicitation = await mcpErrorOf(bare.callTool({ name: 'ask_name', arguments: {} }));
    expect(elicitation.code).toBe(-32021);
    expect(elicitation.message).toContain(atLeast(revision, '2025-06-18') ? 'did not declare the elicitation capability' : 'elicitation needs MCP 2025-06-18');

    const roots = await mcpErrorOf(bare.callTool({ name: 'roots', arguments: {} }));
    expect(roots.code).toBe(-32021);
    expect(roots.message).toContain('did not declare the roots capability');
    expect(roots.data).toEqual({ requiredCapabilities: { roots: {} } });

    // Nothing was asked of the bare client.
    expect((bareTransport.received as Raw[]).filter((m) => 'method' in m && 'id' in m)).toEqual([]);
  });

  it('runtime changes: toggling and adding tools, prompts and resources send list_changed', async () => {
    const listAllTools = async () => {
      const first = await client.listTools();
      const rest = first.nextCursor ? (await client.listTools({ cursor: first.nextCursor })).tools : [];
      return [...first.tools, ...rest].map((t) => t.name);
    };
    const toggle = (kind: string, key: string, enabled: boolean) => callText('toggle', { kind, key, enabled });

    let count = toolsChanged.seen.length;
    expect(await toggle('tool', 'echo', false)).toBe('tool echo disabled');
    await toolsChanged.after(count, 'tools/list_changed after disabling echo');
    expect(await listAllTools()).not.toContain('echo');
    const unknown = await mcpErrorOf(call('echo', { message: 'hi' }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('echo');

    count = toolsChanged.seen.length;
    expect(await toggle('tool', 'echo', true)).toBe('tool echo enabled');
    await toolsChanged.after(count, 'tools/list_changed after enabling echo');
    expect(await listAllTools()).toEqual(TOOLS);
    expect(await callText('echo', { message: 'back' })).toBe('back');

    count = toolsChanged.seen.length;
    expect(await callText('add_tool', { name: 'hello_rt' })).toBe('added hello_rt');
    await toolsChanged.after(count, 'tools/list_changed after add_tool');
    expect(await listAllTools()).toEqual([...TOOLS, 'hello_rt']);
    expect(await callText('hello_rt')).toBe('hello from hello_rt');

    count = promptsChanged.seen.length;
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'code_review']);
    expect(await toggle('prompt', 'greet', false)).toBe('prompt greet disabled');
    await promptsChanged.after(count, 'prompts/list_changed after disabling greet');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['code_review']);
    expect((await mcpErrorOf(client.getPrompt({ name: 'greet', arguments: { name: 'x' } }))).code).toBe(-32602);
    count = promptsChanged.seen.length;
    await toggle('prompt', 'greet', true);
    await promptsChanged.after(count, 'prompts/list_changed after enabling greet');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'code_review']);

    count = resourcesChanged.seen.length;
    expect(await toggle('resource', 'items://1', false)).toBe('resource items://1 disabled');
    await resourcesChanged.after(count, 'resources/list_changed after disabling items://1');
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['status://server', ...Array.from({ length: 9 }, (_, i) => `items://${i + 2}`)]);
    const gone = await mcpErrorOf(client.readResource({ uri: 'items://1' }));
    expect(gone.code).toBe(-32002);
    count = resourcesChanged.seen.length;
    await toggle('resource', 'items://1', true);
    await resourcesChanged.after(count, 'resources/list_changed after enabling items://1');
    expect((await client.readResource({ uri: 'items://1' })).contents).toEqual([{ uri: 'items://1', mimeType: 'text/plain', text: 'item 1' }]);

    // Every change went out as one list_changed of the right kind: three for tools, two each for the others.
    const wire = (method: string) => (transport.received as Raw[]).filter((m) => m.method === method);
    expect(wire('notifications/tools/list_changed')).toHaveLength(3);
    expect(wire('notifications/prompts/list_changed')).toHaveLength(2);
    expect(wire('notifications/resources/list_changed')).toHaveLength(2);
    for (const m of [...wire('notifications/tools/list_changed'), ...wire('notifications/prompts/list_changed')]) {
      expect(m).not.toHaveProperty('params.uri');
    }
  });

  it('subscriptions: resources/updated only for subscribed URIs, and not after unsubscribe', async () => {
    const touched = (uri: string) => notificationsDuring(transport, 'notifications/resources/updated', () => call('touch', { uri }));

    // Not subscribed yet.
    expect(await touched('status://server')).toEqual([]);

    await expect(client.subscribeResource({ uri: 'status://server' })).resolves.toEqual({});
    const count = updated.seen.length;
    expect(await touched('status://server')).toEqual([{ uri: 'status://server' }]);
    await updated.after(count, 'the SDK delivers resources/updated');
    expect(updated.seen[updated.seen.length - 1]).toEqual({ uri: 'status://server' });

    expect(await touched('items://3')).toEqual([]);

    await expect(client.unsubscribeResource({ uri: 'status://server' })).resolves.toEqual({});
    expect(await touched('status://server')).toEqual([]);
    expect((transport.received as Raw[]).filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(1);

    const { contents } = await client.readResource({ uri: 'status://server' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'status://server', mimeType: 'application/json' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ ok: true });
  });

  it('completions: enum values, template variables, custom completers; an unknown prompt is -32602', async () => {
    const style = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'style', value: 'f' } });
    expect(style.completion).toEqual({ values: ['formal'], total: 1, hasMore: false });

    const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'items://item/{id}' }, argument: { name: 'id', value: '2' } });
    expect(ids.completion.values).toEqual(['2', '20', '21', '22', '23', '24', '25']);
    expect(ids.completion.values.every((v) => v.startsWith('2'))).toBe(true);

    const code = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'code', value: 'run' } });
    expect(code.completion.values).toEqual(['run()', 'run;']);

    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
    expect(none.completion.values).toEqual([]);

    const unknown = await mcpErrorOf(client.complete({ ref: { type: 'ref/prompt', name: 'no_such_prompt' }, argument: { name: 'x', value: '' } }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('no_such_prompt');
    const unknownTemplate = await mcpErrorOf(client.complete({ ref: { type: 'ref/resource', uri: 'nowhere://{x}' }, argument: { name: 'x', value: '' } }));
    expect(unknownTemplate.code).toBe(-32602);

    // The template the ids complete for reads as well.
    expect((await client.readResource({ uri: 'items://item/7' })).contents).toEqual([{ uri: 'items://item/7', mimeType: 'text/plain', text: 'item 7' }]);
  });

  it('content kinds: all five where the revision has them, text where it does not', async () => {
    await call('content_kinds');
    const raw = lastRawResult(transport, 'tools/call');
    const textBlock = {
      type: 'text',
      text: 'plain text',
      annotations: atLeast(revision, '2025-06-18') ? { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' } : { audience: ['user'], priority: 0.5 },
    };
    const audioBlock = atLeast(revision, '2025-03-26')
      ? { type: 'audio', data: WAV, mimeType: 'audio/wav' }
      : { type: 'text', text: '[audio content (audio/wav) is not supported by this protocol revision]' };
    const linkBlock = atLeast(revision, '2025-06-18')
      ? { type: 'resource_link', uri: 'items://1', name: 'item-1', description: 'The first item', mimeType: 'text/plain' }
      : { type: 'text', text: 'Resource: item-1 <items://1>' };
    expect(raw.content).toEqual([
      textBlock,
      { type: 'image', data: PNG, mimeType: 'image/png' },
      audioBlock,
      linkBlock,
      { type: 'resource', resource: { uri: 'items://2', text: 'the second item', mimeType: 'text/plain' } },
    ]);
    expect(raw).not.toHaveProperty('isError');
    expect(raw).not.toHaveProperty('structuredContent');
  });

  it('weather: structured output and tool metadata shaped for the revision', async () => {
    const result = await call('weather', { city: 'Paris' });
    const forecast = { city: 'Paris', temperature: 21.5, conditions: 'sunny' };
    expect(JSON.parse(textOf(result))).toEqual(forecast);
    const raw = lastRawResult(transport, 'tools/call');
    if (atLeast(revision, '2025-06-18')) expect(raw.structuredContent).toEqual(forecast);
    else expect(raw).not.toHaveProperty('structuredContent');

    await client.listTools().then((first) => client.listTools({ cursor: first.nextCursor }));
    const page2 = lastRawResult(transport, 'tools/list').tools as Raw[];
    const weather = page2.find((t) => t.name === 'weather')!;
    expect(weather).toMatchObject({ name: 'weather', description: 'A forecast, as structured output' });
    expect(weather.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 2, pattern: expect.stringMatching(/\{2,40\}\$$/) } },
      required: ['city'],
    });

    if (atLeast(revision, '2025-03-26')) expect(weather.annotations).toEqual({ title: 'Weather', readOnlyHint: true, openWorldHint: true });
    else expect(weather).not.toHaveProperty('annotations');
    if (atLeast(revision, '2025-06-18')) {
      expect(weather.title).toBe('Weather');
      expect(weather._meta).toEqual({ 'example.com/category': 'weather' });
      expect(weather.outputSchema).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' }, temperature: { type: 'number' }, conditions: { enum: ['sunny', 'rainy', 'cloudy'] } },
      });
      expect([...((weather.outputSchema as Raw).required as string[])].sort()).toEqual(['city', 'conditions', 'temperature']);
    } else {
      for (const key of ['title', '_meta', 'outputSchema']) expect(weather).not.toHaveProperty(key);
    }
    if (revision === '2025-11-25') expect(weather.icons).toEqual([{ src: 'https://example.com/sun.png', mimeType: 'image/png' }]);
    else expect(weather).not.toHaveProperty('icons');

    const serverInfo = lastRawResult(transport, 'initialize').serverInfo as Raw;
    if (revision === '2025-11-25') {
      expect(serverInfo).toMatchObject({ icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }], websiteUrl: 'https://example.com' });
    } else {
      for (const key of ['icons', 'websiteUrl', 'description']) expect(serverInfo).not.toHaveProperty(key);
    }
  });

  it('middleware: a guard refuses a wrong token and assigns the user; a wrapper changes the result', async () => {
    const denied = await call('guarded', { token: 'nope' });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('access denied');

    const welcome = await call('guarded', { token: 'letmein' });
    expect(welcome.isError).toBeFalsy();
    expect(textOf(welcome)).toBe('welcome, admin (7 characters)');

    expect(await callText('whisper', { message: 'quiet please' })).toBe('QUIET PLEASE');
  });

  it('timeouts: a tool past its limit is answered with a tool error', async () => {
    const result = await call('too_slow');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('timed out after 100 ms');
    // The server is not stuck behind it.
    expect(await callText('echo', { message: 'after' })).toBe('after');
  });

  it(`every message both servers sent validates against the ${revision} schema`, () => {
    const schema = schemas.revisions.get(revision)!;
    expect(transport.received.length).toBeGreaterThan(50);
    const violations = [transport, bareTransport].flatMap((t) => t.received.flatMap((message: JSONRPCMessage) => validateServerMessage(schema, message, t.requestMethodById)));
    if (violations.length > 0) console.error(`schema violations (${revision}):\n${violations.join('\n')}`);
    expect(violations).toEqual([]);
  });

  it('the cancelled call was never answered; closing stdin ends both servers with exit code 0', async () => {
    expect(cancelledId).toBeDefined();
    expect(responseTo(transport, cancelledId!)).toBeUndefined();
    expect(transport.errors).toEqual([]);
    expect(bareTransport.errors).toEqual([]);
    await Promise.all([client.close(), bare.close()]);
    await expect(transport.exited()).resolves.toEqual({ code: 0, signal: null });
    await expect(bareTransport.exited()).resolves.toEqual({ code: 0, signal: null });
  });
});
