/**
 * A server no one here wrote — the official `@modelcontextprotocol/server-everything` (an SDK v1
 * server, 2025-era revisions only) — behind a Hermes gateway, driven by the official SDK clients:
 *
 * 1. On stdio behind `hermes-mcp proxy --http`, for the SDK v1 client (a 2025-11-25 session) and
 *    the SDK v2 client pinned to 2026-07-28, each declaring sampling, elicitation (form and URL) and
 *    roots: every tool it lists called (its questions answered), every resource read, a template
 *    instance read, every prompt got, completions, progress and a cancelled call.
 * 2. In its own Streamable HTTP mode on a loopback port, reached through `hermes-mcp proxy <url>
 *    --stdio` by both clients over stdio.
 * 3. Mounted with `mountRemote` into a decorated Hermes app served over HTTP, next to the app's own
 *    tool, for the SDK v2 client in both eras.
 */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { McpApp, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { RemoteMount, mountRemote } from '@hermes-mcp/gateway';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, REPO_ROOT, RunningProxy, closeServer, rejectionOf, serveApp, startProxy } from './support';

const SERVER_EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js', { paths: [REPO_ROOT] });
/** The files it serves as its static resources (`demo://resource/static/document/<name>`). */
const DOCS = path.join(path.dirname(SERVER_EVERYTHING), 'docs');

// ---------------------------------------------------------------------------------------------
// What the clients answer, and what they were asked
// ---------------------------------------------------------------------------------------------

const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const SAMPLED = { role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text: 'a canned haiku' } };
const FORM_ANSWER = { name: 'Ada Lovelace', check: true, integer: 7 };

interface Asked {
  elicitations: Array<{ mode?: string; message: string; url?: string; requestedSchema?: { required?: string[] } }>;
  samplings: Array<{ messages: Array<{ content: { text?: string } }>; systemPrompt?: string; maxTokens?: number }>;
}

function newAsked(): Asked {
  return { elicitations: [], samplings: [] };
}

/** A form elicitation gets FORM_ANSWER, a URL elicitation (nothing to fill in) an accept. */
function elicit(asked: Asked, params: unknown) {
  const request = params as Asked['elicitations'][number];
  asked.elicitations.push(request);
  return request.mode === 'url' ? { action: 'accept' as const } : { action: 'accept' as const, content: { ...FORM_ANSWER } };
}

function sample(asked: Asked, params: unknown) {
  asked.samplings.push(params as Asked['samplings'][number]);
  return SAMPLED;
}

// ---------------------------------------------------------------------------------------------
// One interface over the two SDK clients
// ---------------------------------------------------------------------------------------------

interface Block {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string; blob?: string; mimeType?: string };
  annotations?: { priority?: number; audience?: string[] };
}
interface Result {
  content: Block[];
  structuredContent?: unknown;
  isError?: boolean;
}
interface Contents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}
interface CallOptions {
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
}
interface Driver {
  asked: Asked;
  tools(): Promise<Array<{ name: string }>>;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<Result>;
  resources(): Promise<Array<{ uri: string; name: string; mimeType?: string }>>;
  templates(): Promise<string[]>;
  read(uri: string): Promise<Contents[]>;
  prompts(): Promise<Array<{ name: string; arguments?: Array<{ name: string; required?: boolean }> }>>;
  prompt(name: string, args?: Record<string, string>): Promise<Array<{ role: string; content: Block }>>;
  complete(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, name: string, value: string, context?: Record<string, string>): Promise<string[]>;
  close(): Promise<void>;
}

type LegacyTransport = StreamableHTTPClientTransport | StdioClientTransport;
type ModernTransport = ModernHttpTransport | ModernStdioTransport;

/** The SDK v1 client in a 2025-11-25 session, answering sampling, elicitation and roots. */
async function legacyDriver(transport: LegacyTransport): Promise<Driver> {
  const asked = newAsked();
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => elicit(asked, request.params));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(asked, request.params));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [...ROOTS] }));
  await client.connect(transport);
  expect(client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything', version: '2.0.0' });
  return {
    asked,
    tools: async () => (await client.listTools()).tools,
    call: async (name, args, options) => (await client.callTool({ name, arguments: args }, undefined, options)) as Result,
    resources: async () => (await client.listResources()).resources,
    templates: async () => (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    read: async (uri) => (await client.readResource({ uri })).contents,
    prompts: async () => (await client.listPrompts()).prompts,
    prompt: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages,
    complete: async (ref, name, value, context) =>
      (await client.complete({ ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values,
    close: () => client.close(),
  };
}

/** The SDK v2 client, pinned to 2026-07-28 unless `legacy` (its default: a 2025-11-25 session). */
async function modernDriver(transport: ModernTransport, legacy = false): Promise<Driver> {
  const asked = newAsked();
  const client = new ModernClient(
    { name: 'sdk-v2', version: '2.4.0' },
    {
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } },
      ...(legacy ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => elicit(asked, request.params));
  client.setRequestHandler('sampling/createMessage', async (request) => sample(asked, request.params));
  client.setRequestHandler('roots/list', async () => ({ roots: [...ROOTS] }));
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe(legacy ? 'legacy' : 'modern');
  return {
    asked,
    tools: async () => (await client.listTools()).tools,
    call: async (name, args, options) => await client.callTool({ name, arguments: args }, options),
    resources: async () => (await client.listResources()).resources,
    templates: async () => (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    read: async (uri) => (await client.readResource({ uri })).contents,
    prompts: async () => (await client.listPrompts()).prompts,
    prompt: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages,
    complete: async (ref, name, value, context) =>
      (await client.complete({ ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values,
    close: () => client.close(),
  };
}

/** The text blocks of a result (a tool error fails here, with its text). */
function texts(result: Result): string[] {
  expect({ isError: result.isError ?? false, content: result.content }).toMatchObject({ isError: false });
  return result.content.filter((block) => block.type === 'text').map((block) => block.text!);
}

// ---------------------------------------------------------------------------------------------
// server-everything's catalog
// ---------------------------------------------------------------------------------------------

/** Each tool it lists to a client with sampling, elicitation (form and URL) and roots: arguments and what its answer must be. */
const CALLS: Record<string, { args: Record<string, unknown>; check: (result: Result, driver: Driver) => void | Promise<void> }> = {
  echo: {
    args: { message: 'through the gateway' },
    check: (result) => expect(texts(result)).toEqual(['Echo: through the gateway']),
  },
  'get-annotated-message': {
    args: { messageType: 'error', includeImage: true },
    check: (result) =>
      expect(result.content).toEqual([
        { type: 'text', text: 'Error: Operation failed', annotations: { priority: 1, audience: ['user', 'assistant'] } },
        { type: 'image', data: expect.stringMatching(/^iVBORw0KGgo/), mimeType: 'image/png', annotations: { priority: 0.5, audience: ['user'] } },
      ]),
  },
  'get-env': {
    args: {},
    // The upstream process's environment, as JSON: it has a PATH to have been spawned by name.
    check: (result) => expect(JSON.parse(texts(result)[0])).toEqual(expect.objectContaining({ PATH: expect.any(String) })),
  },
  'get-resource-links': {
    args: { count: 2 },
    check: (result) =>
      expect(result.content).toEqual([
        { type: 'text', text: 'Here are 2 resource links to resources available in this server:' },
        expect.objectContaining({ type: 'resource_link', uri: 'demo://resource/dynamic/blob/1', name: 'Blob Resource 1' }),
        expect.objectContaining({ type: 'resource_link', uri: 'demo://resource/dynamic/text/2', name: 'Text Resource 2' }),
      ]),
  },
  'get-resource-reference': {
    args: { resourceType: 'Text', resourceId: 3 },
    check: (result) => {
      expect(result.content).toHaveLength(3);
      expect(result.content[1]).toEqual({
        type: 'resource',
        resource: { uri: 'demo://resource/dynamic/text/3', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 3: This is a plaintext resource created at /) },
      });
      expect(result.content[2].text).toBe('You can access this resource using the URI: demo://resource/dynamic/text/3');
    },
  },
  'get-structured-content': {
    args: { location: 'Chicago' },
    check: (result) => {
      expect(result.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
      expect(JSON.parse(texts(result)[0])).toEqual(result.structuredContent);
    },
  },
  'get-sum': {
    args: { a: 2, b: 40 },
    check: (result) => expect(texts(result)).toEqual(['The sum of 2 and 40 is 42.']),
  },
  'get-tiny-image': {
    args: {},
    check: (result) =>
      expect(result.content).toEqual([
        { type: 'text', text: "Here's the image you requested:" },
        { type: 'image', data: expect.stringMatching(/^iVBORw0KGgo/), mimeType: 'image/png' },
        { type: 'text', text: 'The image above is the MCP logo.' },
      ]),
  },
  'gzip-file-as-resource': {
    // A data: URI rather than its default (a file on GitHub): there is no network here.
    args: { name: 'hello.txt.gz', data: `data:text/plain;base64,${Buffer.from('hello through the gateway').toString('base64')}`, outputType: 'resourceLink' },
    check: async (result, driver) => {
      expect(result.content).toEqual([expect.objectContaining({ type: 'resource_link', uri: 'demo://resource/session/hello.txt.gz', mimeType: 'application/gzip' })]);
      // The resource it registered for the session, read through the gateway.
      const [contents] = await driver.read('demo://resource/session/hello.txt.gz');
      expect(gunzipSync(Buffer.from(contents.blob!, 'base64')).toString()).toBe('hello through the gateway');
    },
  },
  'toggle-simulated-logging': {
    args: {},
    // Started here, stopped again by the test that calls every tool.
    check: (result) => expect(texts(result)[0]).toMatch(/^Started simulated, random-leveled logging for session /),
  },
  'toggle-subscriber-updates': {
    args: {},
    check: (result) => expect(texts(result)[0]).toMatch(/^Started simulated resource updated notifications for session /),
  },
  'trigger-long-running-operation': {
    args: { duration: 0.2, steps: 2 },
    check: (result) => expect(texts(result)).toEqual(['Long running operation completed. Duration: 0.2 seconds, Steps: 2.']),
  },
  // Listed only to a client that declares roots: asks this client for its roots.
  'get-roots-list': {
    args: {},
    check: (result) => expect(texts(result)[0]).toMatch(/^Current MCP Roots \(1 total\):\n\n1\. project\n {3}URI: file:\/\/\/work\/project\n/),
  },
  // Listed only to a client that declares elicitation: asks a form of this client.
  'trigger-elicitation-request': {
    args: {},
    check: (result, driver) => {
      expect(texts(result).slice(0, 2)).toEqual([
        '✅ User provided the requested information!',
        'User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Favorite Integer: 7',
      ]);
      expect(driver.asked.elicitations.at(-1)).toMatchObject({ message: 'Please provide inputs for the following fields:', requestedSchema: { required: ['name'] } });
    },
  },
  // Listed only to a client that declares URL elicitation: asks this client to open a URL.
  'trigger-url-elicitation': {
    args: { url: 'https://example.com/consent', elicitationId: 'consent-1' },
    check: (result, driver) => {
      expect(texts(result)[0]).toBe('✅ User completed the URL elicitation flow.\nElicitation ID: consent-1\nURL: https://example.com/consent');
      expect(driver.asked.elicitations.at(-1)).toMatchObject({ mode: 'url', url: 'https://example.com/consent', message: 'Please open the link to complete this action.' });
    },
  },
  // Listed only to a client that declares sampling: asks this client for a message.
  'trigger-sampling-request': {
    args: { prompt: 'a haiku about gateways', maxTokens: 20 },
    check: (result, driver) => {
      const [text] = texts(result);
      expect(text.startsWith('LLM sampling result: \n')).toBe(true);
      expect(JSON.parse(text.slice('LLM sampling result: \n'.length))).toMatchObject(SAMPLED);
      expect(driver.asked.samplings.at(-1)).toMatchObject({
        messages: [{ content: { text: 'Resource trigger-sampling-request context: a haiku about gateways' } }],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 20,
      });
    },
  },
};

/**
 * Tools it lists that are not called here, and why. The test that lists the tools asserts each is
 * listed.
 */
const NOT_CALLED: Record<string, string> = {
  // Runs only as a 2025-11-25 task upstream (`execution.taskSupport: "required"`, four 1-second
  // stages): called plainly by a test of its own, which the gateway makes a task-augmented call
  // and `tasks/result` upstream.
  'simulate-research-query': 'called by "answers its task-only tool asked plainly"',
};

/**
 * Tools it registers only for a client that can run ITS requests as tasks (`capabilities.tasks.requests
 * .sampling/.elicitation`), which neither SDK client declares: not listed, asserted absent.
 */
const NOT_LISTED = ['trigger-sampling-request-async', 'trigger-elicitation-request-async'];

/** Its prompts, each with arguments, and the messages it must answer. */
const PROMPTS: Record<string, { args?: Record<string, string>; check: (messages: Array<{ role: string; content: Block }>) => void }> = {
  'simple-prompt': {
    check: (messages) => expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }]),
  },
  'args-prompt': {
    args: { city: 'Lyon', state: 'Rhône' },
    check: (messages) => expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: "What's weather in Lyon, Rhône?" } }]),
  },
  'completable-prompt': {
    args: { department: 'Sales', name: 'Eve' },
    check: (messages) => expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please promote Eve to the head of the Sales team.' } }]),
  },
  'resource-prompt': {
    args: { resourceType: 'Blob', resourceId: '4' },
    check: (messages) => {
      expect(messages[0]).toEqual({ role: 'user', content: { type: 'text', text: 'This prompt includes the Blob resource with id: 4. Please analyze the following resource:' } });
      const resource = messages[1].content.resource!;
      expect(resource.uri).toBe('demo://resource/dynamic/blob/4');
      expect(Buffer.from(resource.blob!, 'base64').toString()).toMatch(/^Resource 4: This is a base64 blob created at /);
    },
  },
};

const DOC_NAMES = ['architecture.md', 'extension.md', 'features.md', 'how-it-works.md', 'instructions.md', 'startup.md', 'structure.md'];
const docUri = (name: string) => `demo://resource/static/document/${name}`;
const docText = (name: string) => readFileSync(path.join(DOCS, name), 'utf8');

// ---------------------------------------------------------------------------------------------
// 1. On stdio, behind `hermes-mcp proxy --http`
// ---------------------------------------------------------------------------------------------

describe('server-everything on stdio behind `hermes-mcp proxy --http`', () => {
  let proxy: RunningProxy;
  let url: URL;

  beforeAll(async () => {
    proxy = await startProxy(['--http', '0', '--', process.execPath, SERVER_EVERYTHING, 'stdio']);
    url = new URL(proxy.urls[0]);
  });

  afterAll(async () => {
    await proxy?.stop();
  });

  const eras: Array<[string, () => Promise<Driver>]> = [
    ['SDK v1 client, 2025-11-25 session', () => legacyDriver(new StreamableHTTPClientTransport(url))],
    ['SDK v2 client, 2026-07-28', () => modernDriver(new ModernHttpTransport(url))],
  ];

  describe.each(eras)('%s', (_era, connect) => {
    let driver: Driver;

    beforeAll(async () => {
      driver = await connect();
    });

    afterAll(async () => {
      await driver?.close();
    });

    it('lists every tool it serves to a client with sampling, elicitation and roots: each one called here or in NOT_CALLED', async () => {
      const names = (await driver.tools()).map((tool) => tool.name);
      expect([...names].sort()).toEqual([...Object.keys(CALLS), ...Object.keys(NOT_CALLED)].sort());
      for (const name of Object.keys(NOT_CALLED)) expect(names).toContain(name);
      for (const name of NOT_LISTED) expect(names).not.toContain(name);
      // Its task-only tool is listed as a plain one: the gateway runs it as a task upstream.
      const research = (await driver.tools()).find((tool) => tool.name === 'simulate-research-query') as { execution?: { taskSupport?: string } };
      expect(research.execution?.taskSupport).toBeUndefined();
    });

    it('answers its task-only tool asked plainly: the gateway runs it as a 2025-11-25 task upstream, the question the task asks on the way goes to this client', async () => {
      const result = await driver.call('simulate-research-query', { topic: 'python', ambiguous: true });
      expect(texts(result)[0]).toMatch(/^# Research Report: python \(User accepted without selection\)\n/);
      expect(texts(result)[0]).toContain('`working` → `input_required` → `working` → `completed`');
      expect(driver.asked.elicitations.at(-1)).toMatchObject({ message: expect.stringMatching(/^The research query "python" could have multiple interpretations/) });
      expect((result as { _meta?: Record<string, unknown> })._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    });

    it.each(Object.keys(CALLS))('calls %s and gets its answer', async (name) => {
      const { args, check } = CALLS[name];
      await check(await driver.call(name, args), driver);
    });

    it('stops what its toggles started', async () => {
      expect(texts(await driver.call('toggle-simulated-logging', {}))[0]).toMatch(/^Stopped simulated logging for session /);
      expect(texts(await driver.call('toggle-subscriber-updates', {}))[0]).toMatch(/^Stopped simulated resource updates for session /);
    });

    it('lists its resources and templates, and reads each resource and a template instance', async () => {
      const resources = await driver.resources();
      // Its documents, then the resource gzip-file-as-resource registered above on this client's upstream.
      const session = 'demo://resource/session/hello.txt.gz';
      expect(resources.map((resource) => resource.uri)).toEqual([...DOC_NAMES.map(docUri), session]);
      for (const resource of resources.filter((listed) => listed.uri !== session)) {
        expect(await driver.read(resource.uri)).toEqual([{ uri: resource.uri, mimeType: 'text/markdown', text: docText(resource.name) }]);
      }
      const [gzipped] = await driver.read(session);
      expect(gzipped).toMatchObject({ uri: session, mimeType: 'application/gzip' });
      expect(gunzipSync(Buffer.from(gzipped.blob!, 'base64')).toString()).toBe('hello through the gateway');
      expect(await driver.templates()).toEqual(['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/{resourceId}']);
      const [text] = await driver.read('demo://resource/dynamic/text/42');
      expect(text).toEqual({
        uri: 'demo://resource/dynamic/text/42',
        mimeType: 'text/plain',
        text: expect.stringMatching(/^Resource 42: This is a plaintext resource created at /),
      });
      const [blob] = await driver.read('demo://resource/dynamic/blob/9');
      expect(Buffer.from(blob.blob!, 'base64').toString()).toMatch(/^Resource 9: This is a base64 blob created at /);
    });

    it('gets every prompt it lists, with arguments', async () => {
      const prompts = await driver.prompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(Object.keys(PROMPTS));
      expect(prompts.find((prompt) => prompt.name === 'args-prompt')!.arguments).toEqual([
        expect.objectContaining({ name: 'city', required: true }),
        expect.objectContaining({ name: 'state', required: false }),
      ]);
      for (const [name, { args, check }] of Object.entries(PROMPTS)) check(await driver.prompt(name, args));
    });

    it('completes a prompt argument (with the context of another) and a template variable', async () => {
      expect(await driver.complete({ type: 'ref/prompt', name: 'completable-prompt' }, 'department', 'S')).toEqual(['Sales', 'Support']);
      expect(await driver.complete({ type: 'ref/prompt', name: 'completable-prompt' }, 'name', '', { department: 'Engineering' })).toEqual(['Alice', 'Bob', 'Charlie']);
      expect(await driver.complete({ type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, 'resourceId', '17')).toEqual(['17']);
      expect(await driver.complete({ type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, 'resourceId', 'x')).toEqual([]);
    });

    it('passes the progress of trigger-long-running-operation on', async () => {
      const progress: unknown[] = [];
      const result = await driver.call('trigger-long-running-operation', { duration: 0.4, steps: 2 }, { onprogress: (update) => void progress.push(update) });
      expect(texts(result)).toEqual(['Long running operation completed. Duration: 0.4 seconds, Steps: 2.']);
      expect(progress).toEqual([
        { progress: 1, total: 2 },
        { progress: 2, total: 2 },
      ]);
    });

    it('cancels a long call (the call rejects) and keeps serving', async () => {
      const abort = new AbortController();
      const progress: unknown[] = [];
      const call = driver.call(
        'trigger-long-running-operation',
        { duration: 20, steps: 40 },
        { signal: abort.signal, onprogress: (update) => (progress.push(update), abort.abort('enough')) },
      );
      const error = await rejectionOf(call);
      expect(String(error.message ?? error)).toMatch(/enough|abort|cancel/i);
      expect(progress).toEqual([{ progress: 1, total: 40 }]);
      expect(texts(await driver.call('echo', { message: 'still here' }))).toEqual(['Echo: still here']);
      expect(texts(await driver.call('get-sum', { a: 1, b: 1 }))).toEqual(['The sum of 1 and 1 is 2.']);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 2. In its Streamable HTTP mode, behind `hermes-mcp proxy <url> --stdio`
// ---------------------------------------------------------------------------------------------

/** A free TCP port on the loopback interface (closed again before it is given). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('server-everything in its Streamable HTTP mode, behind `hermes-mcp proxy <url> --stdio`', () => {
  let upstream: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    upstream = spawn(process.execPath, [SERVER_EVERYTHING, 'streamableHttp'], { cwd: REPO_ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      const onData = (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes(`listening on port ${port}`)) {
          upstream.stderr!.off('data', onData);
          upstream.stderr!.resume();
          resolve();
        }
      };
      upstream.stderr!.on('data', onData);
      upstream.once('exit', (code, signal) => reject(new Error(`server-everything exited (${signal ?? code}) before listening:\n${stderr}`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
  });

  afterAll(async () => {
    if (!upstream || upstream.exitCode !== null || upstream.signalCode !== null) return;
    const exited = new Promise((resolve) => upstream.once('exit', resolve));
    upstream.kill('SIGTERM');
    await exited;
  });

  const stdio = () => ({ command: process.execPath, args: [CLI, 'proxy', url, '--stdio'], cwd: REPO_ROOT, stderr: 'pipe' as const });
  const eras: Array<[string, () => Promise<Driver>]> = [
    ['SDK v1 client, 2025-11-25 session', () => legacyDriver(new StdioClientTransport(stdio()))],
    ['SDK v2 client, 2026-07-28', () => modernDriver(new ModernStdioTransport(stdio()))],
  ];

  it.each(eras)('serves the %s over stdio: tools listed, echo, get-sum, a question, a prompt, a resource', async (_era, connect) => {
    const driver = await connect();
    try {
      const names = (await driver.tools()).map((tool) => tool.name);
      expect([...names].sort()).toEqual([...Object.keys(CALLS), ...Object.keys(NOT_CALLED)].sort());
      await CALLS.echo.check(await driver.call('echo', CALLS.echo.args), driver);
      await CALLS['get-sum'].check(await driver.call('get-sum', CALLS['get-sum'].args), driver);
      await CALLS['trigger-sampling-request'].check(await driver.call('trigger-sampling-request', CALLS['trigger-sampling-request'].args), driver);
      PROMPTS['args-prompt'].check(await driver.prompt('args-prompt', PROMPTS['args-prompt'].args));
      expect(await driver.read(docUri('features.md'))).toEqual([{ uri: docUri('features.md'), mimeType: 'text/markdown', text: docText('features.md') }]);
    } finally {
      await driver.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Mounted into a Hermes app with mountRemote
// ---------------------------------------------------------------------------------------------

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

describe('server-everything mounted into a Hermes app (mountRemote), served over HTTP', () => {
  let app: McpApp;
  let mount: RemoteMount;
  let gateway: Server;
  let url: URL;

  beforeAll(async () => {
    app = McpFactory.create(GatewayServer, { logger: createLogger({ level: 'silent' }) });
    mount = await mountRemote(app, 'everything', { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'] }, { onStderr: () => undefined });
    ({ server: gateway, url } = await serveApp(app));
  });

  afterAll(async () => {
    await closeServer(gateway);
    await app?.close();
    await mount?.close();
  });

  const eras: Array<[string, () => Promise<Driver>]> = [
    ['SDK v2 client, 2025-11-25 session', () => modernDriver(new ModernHttpTransport(url), true)],
    ['SDK v2 client, 2026-07-28', () => modernDriver(new ModernHttpTransport(url))],
  ];

  it.each(eras)('serves the %s: mounted tools, a prompt and a resource under the namespace, and the app’s own tool', async (_era, connect) => {
    const driver = await connect();
    try {
      const names = (await driver.tools()).map((tool) => tool.name);
      expect(names).toContain('hello');
      expect(names.filter((name) => name !== 'hello').sort()).toEqual([...Object.keys(CALLS), ...Object.keys(NOT_CALLED)].map((name) => `everything_${name}`).sort());

      expect(texts(await driver.call('everything_echo', { message: 'mounted' }))).toEqual(['Echo: mounted']);
      expect(texts(await driver.call('everything_get-sum', { a: 20, b: 22 }))).toEqual(['The sum of 20 and 22 is 42.']);
      expect(texts(await driver.call('hello', {}))).toEqual(['hello from the gateway']);

      const progress: unknown[] = [];
      const long = await driver.call('everything_trigger-long-running-operation', { duration: 0.2, steps: 2 }, { onprogress: (update) => void progress.push(update) });
      expect(texts(long)).toEqual(['Long running operation completed. Duration: 0.2 seconds, Steps: 2.']);
      expect(progress).toEqual([
        { progress: 1, total: 2 },
        { progress: 2, total: 2 },
      ]);
      await CALLS['trigger-elicitation-request'].check(await driver.call('everything_trigger-elicitation-request', {}), driver);

      const prompts = (await driver.prompts()).map((prompt) => prompt.name);
      expect(prompts).toEqual(expect.arrayContaining(Object.keys(PROMPTS).map((name) => `everything_${name}`)));
      PROMPTS['simple-prompt'].check(await driver.prompt('everything_simple-prompt'));
      PROMPTS['args-prompt'].check(await driver.prompt('everything_args-prompt', PROMPTS['args-prompt'].args));

      const mounted = 'demo://everything/resource/static/document/features.md';
      expect((await driver.resources()).map((resource) => resource.uri)).toContain(mounted);
      expect(await driver.read(mounted)).toEqual([{ uri: mounted, mimeType: 'text/markdown', text: docText('features.md') }]);
      const [instance] = await driver.read('demo://everything/resource/dynamic/text/5');
      expect(instance).toEqual({
        uri: 'demo://everything/resource/dynamic/text/5',
        mimeType: 'text/plain',
        text: expect.stringMatching(/^Resource 5: This is a plaintext resource created at /),
      });
    } finally {
      await driver.close();
    }
  });

  it('subscribes the upstream (a 2025-era one: resources/subscribe) when a session or a listen stream subscribes to a mounted resource, and passes its updates on to them only', async () => {
    const features = 'demo://everything/resource/static/document/features.md';
    const instructions = 'demo://everything/resource/static/document/instructions.md';
    const session = new ModernClient({ name: 'sdk-v2', version: '2.4.0' });
    const modern = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const sessionSaw = new Set<string>();
    const streamSaw = new Set<string>();
    session.setNotificationHandler('notifications/resources/updated', (notification) => void sessionSaw.add(notification.params.uri));
    modern.setNotificationHandler('notifications/resources/updated', (notification) => void streamSaw.add(notification.params.uri));
    await session.connect(new ModernHttpTransport(url));
    await modern.connect(new ModernHttpTransport(url));
    try {
      await session.subscribeResource({ uri: features });
      const subscription = await modern.listen({ resourceSubscriptions: [instructions] });
      // 2026-07-28 calls run on the mount's shared connection, the one subscribed upstream: its
      // simulated updates start, at once and every 5 s, for each URI that connection subscribed to.
      expect(texts(await modern.callTool({ name: 'everything_toggle-subscriber-updates', arguments: {} }))[0]).toMatch(/^Started simulated resource updated/);
      for (let waited = 0; !sessionSaw.has(features) || !streamSaw.has(instructions); waited += 20) {
        if (waited > 12_000) throw new Error(`no update within 12 s (session: ${[...sessionSaw].join()}; stream: ${[...streamSaw].join()})`);
        await sleep(20);
      }
      expect([...sessionSaw]).toEqual([features]);
      expect([...streamSaw]).toEqual([instructions]);
      expect(texts(await modern.callTool({ name: 'everything_toggle-subscriber-updates', arguments: {} }))[0]).toMatch(/^Stopped simulated resource updates/);
      await subscription.close();
    } finally {
      await session.close();
      await modern.close();
    }
  });
});

describe('a 2025-11-25 task-only tool of a mounted upstream, its call cancelled', () => {
  let app: McpApp;
  let mount: RemoteMount;
  let gateway: Server;
  let url: URL;
  let dir: string;
  let log: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hermes-tee-'));
    log = path.join(dir, 'upstream.log');
    app = McpFactory.create(GatewayServer, { logger: createLogger({ level: 'silent' }) });
    // server-everything behind a tee that writes down what it is sent and what it answers.
    const tee = path.join(__dirname, 'fixtures', 'tee.mjs');
    mount = await mountRemote(app, 'everything', { command: process.execPath, args: [tee, log, SERVER_EVERYTHING, 'stdio'] }, { onStderr: () => undefined });
    ({ server: gateway, url } = await serveApp(app));
  });

  afterAll(async () => {
    await closeServer(gateway);
    await app?.close();
    await mount?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cancels the task upstream (tasks/cancel), which the upstream answers with the task cancelled', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const abort = new AbortController();
      const call = client.callTool({ name: 'everything_simulate-research-query', arguments: { topic: 'cancelled research' } }, undefined, { signal: abort.signal });
      // Its stages take a second each: cancelled once the task is under way upstream.
      type Line = { pid: string; mark: string; message: { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> } };
      const lines = (): Line[] =>
        (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []).map((line) => {
          const [pid, mark, ...json] = line.split(' ');
          return { pid, mark, message: JSON.parse(json.join(' ')) as Line['message'] };
        });
      const sent = (method: string) => lines().filter((line) => line.mark === '>' && line.message.method === method);
      for (let waited = 0; sent('tasks/result').length === 0; waited += 20) {
        if (waited > 10_000) throw new Error('the gateway did not wait for a task within 10 s');
        await sleep(20);
      }
      expect(sent('tools/call')[0].message.params?.task).toEqual({ ttl: expect.any(Number) });
      abort.abort();
      await expect(call).rejects.toThrow();
      let answer: Line | undefined;
      for (let waited = 0; answer === undefined; waited += 20) {
        if (waited > 10_000) throw new Error(`no tasks/cancel answered within 10 s:\n${readFileSync(log, 'utf8')}`);
        const cancel = sent('tasks/cancel')[0];
        answer = cancel && lines().find((line) => line.pid === cancel.pid && line.mark === '<' && line.message.id === cancel.message.id);
        if (answer) expect(answer.message.result).toMatchObject({ taskId: cancel.message.params?.taskId });
        await sleep(20);
      }
      expect(answer.message.result).toMatchObject({ status: 'cancelled' });
    } finally {
      await client.close();
    }
  });
});
