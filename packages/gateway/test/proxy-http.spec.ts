/**
 * `hermes-mcp proxy --http 0 -- <the everything example on stdio>`, spawned as a process, driven
 * over real HTTP by the official SDK v1 client (2025-era sessions: Streamable HTTP with
 * `Mcp-Session-Id`, and HTTP+SSE) and the SDK v2 client pinned to 2026-07-28 (stateless): lists
 * with their pages, calls with progress, logging, cancellation, and the upstream's questions —
 * elicitation, sampling, roots — answered by the downstream client whose call caused them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { SseReader } from '../../../test-support/sse-reader';
import { everythingProxy, rejectionOf, textOf } from './support';

const NAME_ANSWER = { action: 'accept' as const, content: { name: 'Ada', age: 36, color: 'green', subscribe: true } };
const SAMPLED = { role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text: 'short' } };

const served = everythingProxy();

/** An SDK v1 client that answers every question, connected over Streamable HTTP (or HTTP+SSE). */
async function legacyClient(sse = false): Promise<{ client: Client; logs: unknown[]; transport: StreamableHTTPClientTransport | SSEClientTransport }> {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(ElicitRequestSchema, () => NAME_ANSWER);
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  const transport = sse ? new SSEClientTransport(new URL(`${served.url.href}/sse`)) : new StreamableHTTPClientTransport(served.url);
  await client.connect(transport);
  return { client, logs, transport };
}

describe('SDK v1 over Streamable HTTP (a 2025-11-25 session)', () => {
  let client: Client;
  let logs: unknown[];
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    ({ client, logs, transport } = (await legacyClient()) as { client: Client; logs: unknown[]; transport: StreamableHTTPClientTransport });
  });

  afterAll(async () => {
    await client?.close();
  });

  it('initializes a session with the upstream server name, capabilities and instructions', () => {
    expect(transport.sessionId).toMatch(/\S{16,}/);
    expect(client.getServerVersion()).toMatchObject({ name: 'hermes-everything', version: '0.1.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} });
    expect(client.getInstructions()).toBe('A test server: every tool shows one MCP feature.');
  });

  it('lists tools, pages of resources, templates and prompts; reads, gets and completes through the upstream', async () => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['echo', 'slow', 'ask_name', 'summarize', 'roots', 'log']));
    const first = await client.listResources();
    expect(first.nextCursor).toBeDefined();
    const second = await client.listResources({ cursor: first.nextCursor });
    expect([...first.resources, ...second.resources].map((resource) => resource.uri)).toEqual(expect.arrayContaining(['items://1', 'items://10', 'items://11']));
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toContain('items://item/{id}');
    expect((await client.readResource({ uri: 'items://3' })).contents[0]).toMatchObject({ uri: 'items://3', text: 'item 3' });
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['greet', 'code_review']));
    const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'code', value: 'run' } });
    expect(completed.completion.values).toEqual(['run()', 'run;']);
  });

  it('calls a tool and passes its progress on, each before the answer', async () => {
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } }))).toBe('through the proxy');
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, delayMs: 5, label: 'p' } }, undefined, { onprogress: (update) => void progress.push(update) });
    expect(textOf(result)).toBe('p: completed 3 steps');
    expect(progress).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step} of 3` })));
  });

  it('passes the log messages of a call at the level the session set', async () => {
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'log', arguments: { tag: 'lv' } });
    expect(logs.map((log) => (log as { level: string }).level)).toEqual(['error', 'critical', 'alert', 'emergency']);
    expect(logs[0]).toEqual({ level: 'error', logger: 'everything', data: { tag: 'lv', level: 'error' } });
  });

  it("sends the upstream's elicitation, sampling and roots requests to this client and carries the answers back", async () => {
    expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello Ada (36), who likes green and news');
    expect(textOf(await client.callTool({ name: 'summarize', arguments: { text: 'a long text' } }))).toBe('test-model: short');
    expect(JSON.parse(textOf(await client.callTool({ name: 'roots', arguments: {} })))).toEqual({ roots: [{ uri: 'file:///work/project', name: 'project' }] });
  });

  it("tells the session's upstream that the roots changed, and answers the roots/list it then asks outside any call", async () => {
    await client.sendRootsListChanged();
    for (;;) {
      const seen = JSON.parse(textOf(await client.callTool({ name: 'roots_changes', arguments: {} }))) as { changes: number; roots?: unknown };
      if (seen.changes === 0) continue;
      expect(seen).toEqual({ changes: 1, roots: [{ uri: 'file:///work/project', name: 'project' }] });
      break;
    }
  });

  it("subscribes the session's upstream and passes its resource updates on; unsubscribing stops them", async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    await client.subscribeResource({ uri: 'status://server' });
    expect(textOf(await client.callTool({ name: 'touch', arguments: { uri: 'status://server' } }))).toBe('touched status://server');
    // The notification may come after the answer (the upstream sends it to the session, not the call).
    while (updated.length === 0) await client.ping();
    expect(updated).toEqual(['status://server']);
    await client.unsubscribeResource({ uri: 'status://server' });
    await client.callTool({ name: 'touch', arguments: { uri: 'status://server' } });
    await client.callTool({ name: 'echo', arguments: { message: 'after' } });
    expect(updated).toEqual(['status://server']);
  });

  it('cancels the upstream call when the client cancels', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { steps: 50, delayMs: 200, label: 'cancel-me' } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort('enough'),
    });
    await rejectionOf(call);
    // The session's own upstream saw the cancellation (its handler's signal aborted).
    for (;;) {
      const seen = JSON.parse(textOf(await client.callTool({ name: 'cancellations', arguments: {} }))) as { aborted: string[] };
      if (seen.aborted.includes('cancel-me')) break;
    }
  });

  it('keeps each session on its own upstream: another session has its own log level and state', async () => {
    const other = await legacyClient();
    try {
      // No level set in this session: nothing is sent to it.
      await other.client.callTool({ name: 'log', arguments: { tag: 'other' } });
      expect(other.logs).toEqual([]);
      const seen = JSON.parse(textOf(await other.client.callTool({ name: 'cancellations', arguments: {} }))) as { aborted: string[] };
      expect(seen.aborted).not.toContain('cancel-me');
    } finally {
      await other.client.close();
    }
  });
});

describe('SDK v1 over HTTP+SSE (2024-11-05)', () => {
  it('serves the same upstream through the legacy transport', async () => {
    const { client } = await legacyClient(true);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'old transport' } }))).toBe('old transport');
    } finally {
      await client.close();
    }
  });
});

describe('SDK v2 pinned to 2026-07-28 (stateless)', () => {
  let client: ModernClient;
  const elicitations: unknown[] = [];

  beforeAll(async () => {
    client = new ModernClient(
      { name: 'sdk-v2', version: '2.4.0' },
      { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params);
      return NAME_ANSWER;
    });
    client.setRequestHandler('sampling/createMessage', async () => SAMPLED);
    await client.connect(new ModernHttpTransport(served.url));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('discovers the upstream server and calls its tools without a session', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'hermes-everything' });
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'modern' } }))).toBe('modern');
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    expect((await client.readResource({ uri: 'items://7' })).contents[0]).toMatchObject({ text: 'item 7' });
  });

  it('passes progress on', async () => {
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 2, delayMs: 5, label: 'm' } }, { onprogress: (update) => void progress.push(update) });
    expect(textOf(result)).toBe('m: completed 2 steps');
    expect(progress).toHaveLength(2);
  });

  it('cancels the upstream call when the client cancels', async () => {
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'slow', arguments: { steps: 50, delayMs: 200, label: 'modern-cancel' } },
      { signal: abort.signal, onprogress: () => abort.abort('enough') },
    );
    await rejectionOf(call);
    for (;;) {
      const seen = JSON.parse(textOf(await client.callTool({ name: 'cancellations', arguments: {} }))) as { aborted: string[] };
      if (seen.aborted.includes('modern-cancel')) break;
    }
  });

  it("answers the upstream's elicitation and sampling through input rounds with this client", async () => {
    expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello Ada (36), who likes green and news');
    expect(elicitations).toEqual([expect.objectContaining({ message: 'Please tell us about yourself', requestedSchema: expect.objectContaining({ type: 'object' }) })]);
    expect(textOf(await client.callTool({ name: 'summarize', arguments: { text: 'text' } }))).toBe('test-model: short');
  });
});

describe('resumability (2025-11-25, raw HTTP)', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  it('replays the rest of a call’s stream, its answer included, from Last-Event-ID after the client left', async () => {
    const initialize = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = initialize.headers.get('mcp-session-id')!;
    await initialize.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);

    const call = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { steps: 3, delayMs: 150, label: 'r' }, _meta: { progressToken: 'r' } } },
      headers,
    );
    expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = new SseReader(call.body!, 30_000);
    let seen = await first.message('the first progress');
    // A priming event (no data) may come first.
    while ((seen.message as { method?: string }).method !== 'notifications/progress') seen = await first.message('the first progress');
    expect(seen.message).toMatchObject({ params: { progressToken: 'r', progress: 1 } });
    await first.cancel();

    const resumed = await fetch(served.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': seen.event.id! } });
    expect(resumed.status).toBe(200);
    const rest = new SseReader(resumed.body!, 30_000);
    const messages: Record<string, unknown>[] = [];
    while (!messages.some((message) => message.id === 1)) messages.push((await rest.message('the rest of the stream')).message);
    await rest.cancel();
    expect(messages.map((message) => (message.params as { progress?: number } | undefined)?.progress ?? message.id)).toEqual([2, 3, 1]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'r: completed 3 steps' }] } });
  });
});
