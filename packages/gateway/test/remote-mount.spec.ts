/**
 * Remote mounts (`mountRemote`): a Hermes app serving its own tool next to two upstreams mounted
 * under namespaces — examples/everything (a Hermes server, built) spawned over stdio at `every`, and
 * an official SDK v2 server (`createMcpHandler`) over Streamable HTTP on 127.0.0.1 at `sdk` — served
 * over HTTP and driven by the official SDK v1 client (a 2025-11-25 session) and SDK v2 client
 * (2026-07-28): lists under the namespace, calls, a resource and a template read, a prompt, a
 * completion, progress, cancellation, an elicitation answered through the gateway, the upstream's
 * list change passed on, the app's middleware around mounted tools; then the `every` upstream
 * killed mid-call: that call answers a tool error with its code, a call on `sdk` completes, and
 * `every` is served again without restarting anything.
 */
import 'reflect-metadata';
import { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpApp, McpFactory, McpServer, Middleware, Tool, createLogger } from '@hermes-mcp/core';
import { RemoteMount, mountRemote } from '@hermes-mcp/gateway';
import { createMcpHandler, McpServer as V2Server } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { serveFetch } from '../../client/test/fixtures/http-servers';
import { EVERYTHING, childrenOf, closeServer, serveApp, textOf } from './support';

/** What the app's own middleware saw called (not listed): mounted tools are the app's for it. */
const audited: string[] = [];
const audit: Middleware = (ctx, next) => {
  if (!ctx.listing && ctx.request.method === 'tools/call') audited.push(String(ctx.request.params.name));
  return next();
};

@McpServer({ name: 'gateway', version: '1.0.0', use: [audit] })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

const NAME = { action: 'accept' as const, content: { name: 'Ada', color: 'red', subscribe: false } };
/** The roots the SDK v1 clients list. */
const roots = [{ uri: 'file:///work/legacy', name: 'legacy' }];
const SAMPLED = { role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text: 'short' } };

let upstream: Server;
let gateway: Server;
let app: McpApp;
let url: URL;
let mounts: RemoteMount[] = [];
/** The pid of the `every` upstream's shared process (2026-07-28 requests, lists, completions). */
let sharedPid: number;

beforeAll(async () => {
  const handler = createMcpHandler(() => {
    const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
    server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('wait', { description: 'Answers after a while', inputSchema: z.object({ ms: z.number() }) }, async ({ ms }) => {
      await sleep(ms);
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    });
    return server;
  });
  const served = await serveFetch(handler);
  upstream = served.server;

  app = McpFactory.create(GatewayServer, { logger: createLogger({ level: 'silent' }) });
  const before = new Set(childrenOf(process.pid));
  mounts.push(await mountRemote(app, 'every', { command: EVERYTHING[0], args: EVERYTHING.slice(1) }, { onStderr: () => undefined }));
  [sharedPid] = childrenOf(process.pid).filter((pid) => !before.has(pid));
  // The SDK v2 server asks nothing of older revisions: a 2025-era session's connection speaks 2026-07-28 to it.
  mounts.push(await mountRemote(app, 'sdk', { url: `${served.origin}/mcp` }, { sessionRevision: 'newest' }));

  ({ server: gateway, url } = await serveApp(app));
});

afterAll(async () => {
  await closeServer(gateway);
  await app?.close();
  await Promise.all(mounts.map((mount) => mount.close()));
  mounts = [];
  upstream?.closeAllConnections();
  upstream?.close();
});

/** An SDK v1 client in a 2025-11-25 session that answers elicitations. */
async function legacyClient(): Promise<Client> {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(ElicitRequestSchema, () => NAME);
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [...roots] }));
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** An SDK v2 client speaking 2026-07-28 (stateless) that answers elicitations. */
async function modernClient(): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'sdk-v2', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => NAME);
  client.setRequestHandler('sampling/createMessage', async () => SAMPLED);
  await client.connect(new ModernHttpTransport(url));
  return client;
}

describe('a 2025-11-25 session (SDK v1 client)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await legacyClient();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the app’s own tool and each upstream’s under its namespace, paged through, with their schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['hello', 'every_echo', 'every_slow', 'every_ask_name', 'every_weather', 'sdk_add', 'sdk_wait']));
    expect(names.filter((name) => !name.startsWith('every_') && !name.startsWith('sdk_'))).toEqual(['hello']);
    const echo = tools.find((tool) => tool.name === 'every_echo')!;
    expect(echo.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    // The upstream's output schema is kept: the SDK client checks the structured result against it.
    expect(tools.find((tool) => tool.name === 'every_weather')!.outputSchema).toBeDefined();
  });

  it('calls mounted tools under the namespace, through the app’s middleware', async () => {
    audited.length = 0;
    expect(textOf(await client.callTool({ name: 'every_echo', arguments: { message: 'hi' } }))).toBe('hi');
    expect(textOf(await client.callTool({ name: 'sdk_add', arguments: { a: 2, b: 40 } }))).toBe('42');
    expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
    expect(audited).toEqual(['every_echo', 'sdk_add', 'hello']);
  });

  it('reads a resource and a template under the namespace, with the contents’ URIs as the client sees them', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining(['status://every/server', 'items://every/1', 'items://every/25']));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain('items://every/item/{id}');
    const item = await client.readResource({ uri: 'items://every/item/7' });
    expect(item.contents).toEqual([expect.objectContaining({ uri: 'items://every/item/7', text: 'item 7' })]);
    const status = await client.readResource({ uri: 'status://every/server' });
    expect(status.contents[0].uri).toBe('status://every/server');
    expect(JSON.parse(String((status.contents[0] as { text: string }).text))).toMatchObject({ ok: true });
  });

  it('gets a prompt and completes its argument upstream', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'every_greet')).toMatchObject({
      title: 'Greeting',
      arguments: expect.arrayContaining([expect.objectContaining({ name: 'name' })]),
    });
    const greeting = await client.getPrompt({ name: 'every_greet', arguments: { name: 'Ada', style: 'formal' } });
    expect(greeting.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Good day, Ada.' } }]);
    const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'every_code_review' }, argument: { name: 'code', value: 'run' } });
    expect(completed.completion.values).toEqual(['run()', 'run;']);
  });

  it('passes the upstream’s progress on, each before the answer', async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'every_slow', arguments: { steps: 3, delayMs: 10 } }, undefined, { onprogress: (update) => void seen.push(update.progress) });
    expect(textOf(result)).toBe('slow: completed 3 steps');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('sends the upstream’s elicitation to this client and the answer back', async () => {
    expect(textOf(await client.callTool({ name: 'every_ask_name', arguments: {} }))).toBe('Hello Ada, who likes red');
  });

  it('sends the upstream’s sampling and roots requests to this client', async () => {
    expect(textOf(await client.callTool({ name: 'every_summarize', arguments: { text: 'a long text' } }))).toBe('test-model: short');
    expect(JSON.stringify((await client.callTool({ name: 'every_roots', arguments: {} })).content)).toContain('file:///work/legacy');
  });

  it('tells the session’s upstream its roots changed, which asks this client for them again', async () => {
    roots.push({ uri: 'file:///work/more', name: 'more' });
    await client.sendRootsListChanged();
    for (;;) {
      const seen = (await client.callTool({ name: 'every_roots_changes', arguments: {} })).structuredContent as { changes: number; roots?: Array<{ uri: string }> };
      if (seen.changes > 0 && seen.roots?.some((root) => root.uri === 'file:///work/more')) break;
      await sleep(20);
    }
  });

  it('passes the upstream’s log messages on, at this client’s level', async () => {
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(notification.params.data));
    await client.setLoggingLevel('error');
    expect(textOf(await client.callTool({ name: 'every_log', arguments: { tag: 'mounted' } }))).toBe('logged');
    expect(logged).toEqual(['error', 'critical', 'alert', 'emergency'].map((level) => ({ tag: 'mounted', level })));
  });

  it('cancels the call upstream when the client cancels it', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'every_slow', arguments: { steps: 50, delayMs: 50, label: 'legacy-cancel' } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort(),
    });
    await expect(call).rejects.toThrow();
    // The upstream's handler saw its signal aborted (this session's own upstream process).
    for (;;) {
      const seen = (await client.callTool({ name: 'every_cancellations', arguments: {} })).structuredContent as { aborted: string[] };
      if (seen.aborted.includes('legacy-cancel')) break;
      await sleep(20);
    }
  });
});

describe('2026-07-28 requests (SDK v2 client)', () => {
  let client: ModernClient;
  beforeAll(async () => {
    client = await modernClient();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists and calls mounted tools under the namespace', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['hello', 'every_echo', 'sdk_add']));
    expect(textOf(await client.callTool({ name: 'every_echo', arguments: { message: 'modern' } }))).toBe('modern');
    expect(textOf(await client.callTool({ name: 'sdk_add', arguments: { a: 1, b: 2 } }))).toBe('3');
  });

  it('reads, gets a prompt and completes through the mount', async () => {
    const item = await client.readResource({ uri: 'items://every/item/3' });
    expect(item.contents).toEqual([expect.objectContaining({ uri: 'items://every/item/3', text: 'item 3' })]);
    const greeting = await client.getPrompt({ name: 'every_greet', arguments: { name: 'Ada' } });
    expect(greeting.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hi Ada!' } }]);
    const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'every_code_review' }, argument: { name: 'code', value: 'x' } });
    expect(completed.completion.values).toEqual(['x()', 'x;']);
  });

  it('passes progress on and turns the upstream’s question into this client’s input round', async () => {
    const seen: number[] = [];
    expect(textOf(await client.callTool({ name: 'every_slow', arguments: { steps: 2, delayMs: 10 } }, { onprogress: (update) => void seen.push(update.progress) }))).toBe(
      'slow: completed 2 steps',
    );
    expect(seen).toEqual([1, 2]);
    expect(textOf(await client.callTool({ name: 'every_ask_name', arguments: {} }))).toBe('Hello Ada, who likes red');
    expect(textOf(await client.callTool({ name: 'every_summarize', arguments: { text: 'a long text' } }))).toBe('test-model: short');
  });

  it('cancels the call upstream when the client cancels it', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'every_slow', arguments: { steps: 50, delayMs: 50, label: 'modern-cancel' } }, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(call).rejects.toThrow();
    for (;;) {
      const seen = (await client.callTool({ name: 'every_cancellations', arguments: {} })).structuredContent as { aborted: string[] };
      if (seen.aborted.includes('modern-cancel')) break;
      await sleep(20);
    }
  });

  it('subscribes the upstream for a session’s resources/subscribe and a listen stream’s resourceSubscriptions, and passes its updates on to them only', async () => {
    const session = await legacyClient();
    const sessionSaw: string[] = [];
    session.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void sessionSaw.push(notification.params.uri));
    await session.subscribeResource({ uri: 'status://every/server' });
    const streamSaw: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => void streamSaw.push(notification.params.uri));
    const subscription = await client.listen({ resourceSubscriptions: ['items://every/item/3'] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['items://every/item/3'] });
    // Touched in the upstream's shared process, the one 2026-07-28 calls reach and the one subscribed
    // (a session's calls run in a process of its own); a URI no one subscribed to first, so that,
    // were it passed on, it would come before the others.
    for (const uri of ['items://item/4', 'status://server', 'items://item/3']) {
      expect(textOf(await client.callTool({ name: 'every_touch', arguments: { uri } }))).toBe(`touched ${uri}`);
    }
    for (let waited = 0; sessionSaw.length === 0 || streamSaw.length === 0; waited += 20) {
      if (waited > 10_000) throw new Error(`no update within 10 s (session: ${sessionSaw.join()}; stream: ${streamSaw.join()})`);
      await sleep(20);
    }
    expect(sessionSaw).toEqual(['status://every/server']);
    expect(streamSaw).toEqual(['items://every/item/3']);
    await subscription.close();
    await session.close();
  });

  it('subscribes the upstream to at most maxSubscriptions URIs: past them a subscription is refused with GATEWAY_SUBSCRIPTIONS_FULL', async () => {
    const capped = await mountRemote(app, 'capped', { command: EVERYTHING[0], args: EVERYTHING.slice(1) }, { onStderr: () => undefined, maxSubscriptions: 1 });
    const session = await legacyClient();
    try {
      const saw: string[] = [];
      session.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void saw.push(notification.params.uri));
      await session.subscribeResource({ uri: 'status://capped/server' });
      await expect(session.subscribeResource({ uri: 'items://capped/item/3' })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('GATEWAY_SUBSCRIPTIONS_FULL: the upstream "capped" is subscribed to 1 resources'),
      });
      // The same URI again is no new one.
      await session.subscribeResource({ uri: 'status://capped/server' });
      for (const uri of ['items://item/3', 'status://server']) {
        expect(textOf(await client.callTool({ name: 'capped_touch', arguments: { uri } }))).toBe(`touched ${uri}`);
      }
      for (let waited = 0; saw.length === 0; waited += 20) {
        if (waited > 10_000) throw new Error('no update within 10 s');
        await sleep(20);
      }
      expect(saw).toEqual(['status://capped/server']);
    } finally {
      await session.close();
      await capped.close();
    }
  });

  it('lists the upstream’s tools again when it says they changed, and tells a session so', async () => {
    const session = await legacyClient();
    let told!: () => void;
    const changed = new Promise<void>((resolve) => (told = resolve));
    session.setNotificationHandler(ToolListChangedNotificationSchema, () => told());
    expect(textOf(await client.callTool({ name: 'every_add_tool', arguments: { name: 'greeter' } }))).toContain('greeter');
    await changed;
    expect((await session.listTools()).tools.map((tool) => tool.name)).toContain('every_greeter');
    await session.close();
    for (;;) {
      const { tools } = await client.listTools();
      if (tools.some((tool) => tool.name === 'every_greeter')) break;
      await sleep(20);
    }
    expect(textOf(await client.callTool({ name: 'every_greeter', arguments: {} }))).toBe('hello from greeter');
  });
});

describe('an upstream killed mid-call', () => {
  it('fails that call with a tool error and its code, completes the other upstream’s, and serves the killed one again', async () => {
    const client = await modernClient();
    try {
      let progressed!: () => void;
      const inFlight = new Promise<void>((resolve) => (progressed = resolve));
      const doomed = client.callTool({ name: 'every_slow', arguments: { steps: 50, delayMs: 100 } }, { onprogress: () => progressed() });
      const other = client.callTool({ name: 'sdk_wait', arguments: { ms: 300 } });
      await inFlight;
      process.kill(sharedPid, 'SIGKILL');

      const failed = await doomed;
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/^GATEWAY_UPSTREAM_CLOSED: /);
      expect(failed.structuredContent).toEqual({ code: 'GATEWAY_UPSTREAM_CLOSED', upstream: 'every' });
      expect(textOf(await other)).toBe('waited 300 ms');

      // The app's own tool never stopped; the killed upstream is started again by the next call.
      expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
      expect(textOf(await client.callTool({ name: 'every_echo', arguments: { message: 'back' } }))).toBe('back');
      expect(childrenOf(process.pid)).not.toContain(sharedPid);
      // Listed again once started: the new process serves what it serves at start (not the tool the old one added).
      for (;;) {
        const { tools } = await client.listTools();
        if (!tools.some((tool) => tool.name === 'every_greeter')) break;
        await sleep(20);
      }
    } finally {
      await client.close();
    }
  });
});
