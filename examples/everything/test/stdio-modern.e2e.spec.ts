/**
 * stdio: the same modern flows (MCP 2026-07-28) with a spawned server — the built everything
 * server (dist/main.js), two ways:
 *
 * - through the official v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28, over
 *   its stdio transport: discover, tools/list in pages of 10, tools/call, a multi round-trip
 *   elicitation, resources, prompts, completions, progress, per-request logging, cancellation,
 *   and a listen subscription that sees a runtime change;
 * - in raw JSON lines, for what a well-behaved client never sends: bad envelopes, unserved
 *   versions, removed methods, batches, `initialize` on a connection already speaking 2026-07-28;
 *   and a `server/discover` probe followed by `initialize`, which must still open a legacy session
 *   (the probe does not pin the connection).
 *
 * Every line the server wrote is validated against the 2026-07-28 schema (the legacy session's
 * against 2025-11-25).
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import * as path from 'node:path';
import { Client, type Progress } from '@modelcontextprotocol/client';
import { MODERN_REVISION, type MessageId, loadModernSchema, loadSchemas, validateModernServerMessage, validateServerMessage } from '../../../test-support/mcp-schema';
import { RawStdioClient, isRecord, isResponseTo } from '../../../test-support/raw-stdio-client';
import { RecordingModernStdioTransport } from '../../../test-support/recording-modern-stdio';
import { eventually, textOf } from '../../../test-support/e2e';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER = { command: process.execPath, args: [path.resolve(__dirname, '../dist/main.js')], cwd: REPO_ROOT };

const PV = 'io.modelcontextprotocol/protocolVersion';
const CC = 'io.modelcontextprotocol/clientCapabilities';
const LL = 'io.modelcontextprotocol/logLevel';
const SI = 'io.modelcontextprotocol/serverInfo';
const SID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = { name: 'hermes-everything', version: '0.1.0' };

const LEGACY = '2025-11-25';

const schema = loadModernSchema();
const legacySchema = loadSchemas([LEGACY]).revisions.get(LEGACY)!;

type Raw = Record<string, unknown>;

/** The requests the client sent for `method`, in order. */
function sentFor(transport: RecordingModernStdioTransport, method: string): Raw[] {
  return (transport.sent as unknown as Raw[]).filter((m) => m.method === method && 'id' in m);
}

/** The response to the request `id` on the wire. */
function answerTo(transport: RecordingModernStdioTransport, id: unknown): Raw {
  const found = transport.wire.find((m) => isResponseTo(m, id as MessageId));
  if (!found) throw new Error(`no response to ${JSON.stringify(id)} on the wire`);
  return found as Raw;
}

describe('the everything server on stdio, MCP 2026-07-28, driven by the v2 client', () => {
  let transport: RecordingModernStdioTransport;
  let client: Client;
  const elicitations: Raw[] = [];

  beforeAll(async () => {
    transport = new RecordingModernStdioTransport(SERVER);
    client = new Client({ name: 'v2-stdio', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_REVISION } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { name: 'Ada', age: 36, color: 'green', subscribe: true } };
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('probes with server/discover on the connection itself; discover names the versions, the capabilities and the server', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject(SERVER_INFO);
    const [probe] = transport.sent as unknown as Raw[];
    expect(probe).toMatchObject({ method: 'server/discover', params: { _meta: { [PV]: MODERN_REVISION, [CC]: { elicitation: { form: {} } } } } });
    const discovered = await client.discover();
    expect(discovered).toMatchObject({
      supportedVersions: [MODERN_REVISION],
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true }, completions: {}, logging: {} },
      instructions: 'A test server: every tool shows one MCP feature.',
    });
    expect(discovered.capabilities).not.toHaveProperty('tasks');
    const wire = answerTo(transport, sentFor(transport, 'server/discover')[1].id).result as Raw;
    expect(wire).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [SI]: SERVER_INFO } });
  });

  it('pages tools/list by 10: a nextCursor on every page but the last', async () => {
    // Without a cursor the client walks the pages itself: one request a page on the wire.
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'ask_name', 'toggle', 'log', 'cancellations']));
    const requests = sentFor(transport, 'tools/list');
    const pages = requests.map((request) => answerTo(transport, request.id).result as Raw);
    expect(pages).toHaveLength(Math.ceil(tools.length / 10));
    pages.forEach((page, i) => {
      expect(page).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      expect((requests[i].params as Raw).cursor).toBe(i === 0 ? undefined : pages[i - 1].nextCursor);
      if (i < pages.length - 1) expect(page).toMatchObject({ tools: expect.any(Array), nextCursor: expect.any(String) });
      else expect(page).not.toHaveProperty('nextCursor');
      expect((page.tools as Raw[]).length).toBe(i < pages.length - 1 ? 10 : tools.length - 10 * i);
    });
    expect(pages.flatMap((page) => (page.tools as Raw[]).map((t) => t.name))).toEqual(tools.map((t) => t.name));
    // A page asked for by its cursor is that page, as the server wrote it.
    const second = await client.listTools({ cursor: pages[0].nextCursor as string });
    expect(second.tools.map((t) => t.name)).toEqual((pages[1].tools as Raw[]).map((t) => t.name));
    expect(second.nextCursor).toBe(pages[1].nextCursor);
    // No 2025-11-25 leftovers on a 2026 tool.
    for (const tool of tools) expect(tool).not.toHaveProperty('execution');
  });

  it('calls echo', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello, 2026' } });
    expect(textOf(result)).toBe('hello, 2026');
    expect(result._meta).toMatchObject({ [SI]: SERVER_INFO });
  });

  it('asks for a name in an MRTR round, answered under the key the server chose, with the state echoed', async () => {
    expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello Ada (36), who likes green and news');
    expect(elicitations).toEqual([
      expect.objectContaining({ mode: 'form', message: 'Please tell us about yourself', requestedSchema: expect.objectContaining({ type: 'object', required: ['name'] }) }),
    ]);
    const calls = (transport.sent as unknown as Raw[]).filter((m) => m.method === 'tools/call' && (m.params as Raw).name === 'ask_name');
    expect(calls).toHaveLength(2);
    const round = answerTo(transport, calls[0].id).result as Raw;
    expect(round).toMatchObject({ resultType: 'input_required', requestState: expect.any(String), _meta: { [SI]: SERVER_INFO } });
    const keys = Object.keys(round.inputRequests as Raw);
    expect(keys).toEqual(['elicit:0']);
    expect((round.inputRequests as Raw)['elicit:0']).toMatchObject({ method: 'elicitation/create' });
    expect(calls[1].params).toMatchObject({ inputResponses: { 'elicit:0': { action: 'accept' } }, requestState: round.requestState });
    expect(answerTo(transport, calls[1].id).result).toMatchObject({ resultType: 'complete' });
  });

  it('reads a resource, a template, a catalog item; an unknown URI is -32602 with that URI', async () => {
    const status = await client.readResource({ uri: 'status://server' });
    expect(status.contents).toEqual([expect.objectContaining({ uri: 'status://server', mimeType: 'application/json' })]);
    expect(JSON.parse((status.contents[0] as { text: string }).text)).toMatchObject({ ok: true });
    expect((await client.readResource({ uri: 'items://item/7' })).contents).toEqual([{ uri: 'items://item/7', mimeType: 'text/plain', text: 'item 7' }]);
    expect((await client.readResource({ uri: 'items://3' })).contents).toEqual([{ uri: 'items://3', mimeType: 'text/plain', text: 'item 3' }]);
    await expect(client.readResource({ uri: 'nope://missing' })).rejects.toMatchObject({ code: -32602 });
    const missing = answerTo(transport, sentFor(transport, 'resources/read').at(-1)!.id);
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'nope://missing' } });
  });

  it('gets prompts', async () => {
    expect((await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', style: 'formal' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Good day, Ada.' } },
    ]);
    const review = await client.getPrompt({ name: 'code_review', arguments: { code: 'x = 1' } });
    expect(review.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('completes a prompt argument and a template variable', async () => {
    const code = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'code', value: 'run' } });
    expect(code.completion.values).toEqual(['run()', 'run;']);
    const id = await client.complete({ ref: { type: 'ref/resource', uri: 'items://item/{id}' }, argument: { name: 'id', value: '2' } });
    expect(id.completion).toMatchObject({ values: ['2', '20', '21', '22', '23', '24', '25'], total: 7, hasMore: false });
  });

  it('reports progress on the request itself, before its result, and only when the request carried a progressToken', async () => {
    const updates: Progress[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, delayMs: 10, label: 'with-progress' } }, { onprogress: (p) => void updates.push(p) });
    expect(textOf(result)).toBe('with-progress: completed 3 steps');
    const expected = [1, 2, 3].map((progress) => ({ progress, total: 3, message: `step ${progress} of 3` }));
    // The client handles a response at once but a notification a tick later, so progress read in
    // the same chunk as the response may reach no callback: the callback sees a prefix, the wire all.
    expect(updates).toEqual(expected.slice(0, updates.length));
    const call = sentFor(transport, 'tools/call').at(-1)!;
    const token = ((call.params as Raw)._meta as Raw).progressToken;
    expect(token).toBeDefined();
    const answered = transport.wire.findIndex((m) => isResponseTo(m, call.id as MessageId));
    const progress = transport.wire.flatMap((m, i) => (isRecord(m) && m.method === 'notifications/progress' && (m.params as Raw).progressToken === token ? [i] : []));
    expect(progress.map((i) => (transport.wire[i] as Raw).params)).toEqual(expected.map((p) => ({ progressToken: token, ...p })));
    expect(Math.max(...progress)).toBeLessThan(answered);
    // Without a token: no progress at all.
    const before = transport.wire.length;
    await client.callTool({ name: 'slow', arguments: { steps: 2, delayMs: 5, label: 'silent' } });
    expect(transport.wire.slice(before).filter((m) => isRecord(m) && m.method === 'notifications/progress')).toEqual([]);
  });

  it('sends log messages only for a request whose _meta names a level, at or above that level, before its result', async () => {
    const logs: Raw[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as Raw));
    let before = transport.wire.length;
    expect(textOf(await client.callTool({ name: 'log', arguments: { tag: 'unheard' } }))).toBe('logged');
    expect(transport.wire.slice(before).filter((m) => isRecord(m) && m.method === 'notifications/message')).toEqual([]);

    before = transport.wire.length;
    expect(textOf(await client.callTool({ name: 'log', arguments: { tag: 'heard' }, _meta: { [LL]: 'error' } }))).toBe('logged');
    const call = sentFor(transport, 'tools/call').at(-1)!;
    // The client merged the level into its envelope.
    expect((call.params as Raw)._meta).toMatchObject({ [PV]: MODERN_REVISION, [LL]: 'error' });
    const after = transport.wire.slice(before);
    const messages = after.filter((m) => isRecord(m) && m.method === 'notifications/message') as Raw[];
    expect(messages.map((m) => (m.params as Raw).level)).toEqual(['error', 'critical', 'alert', 'emergency']);
    expect(messages.every((m) => ((m.params as Raw).data as Raw).tag === 'heard')).toBe(true);
    expect(after.findIndex((m) => isResponseTo(m, call.id as MessageId))).toBe(after.length - 1);
    // The client dispatches notifications a tick after they are read: they may trail the result.
    await eventually('the client to see the four log messages', () => logs.length === 4);
    expect(logs.map((l) => l.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
  });

  it('stops a slow call cancelled with notifications/cancelled, and never answers it', async () => {
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'slow', arguments: { steps: 50, delayMs: 100, label: 'to-cancel' } },
      { signal: controller.signal, onprogress: () => controller.abort('changed my mind') },
    );
    await expect(call).rejects.toBeDefined();
    const request = sentFor(transport, 'tools/call').at(-1)!;
    expect((request.params as Raw).arguments).toMatchObject({ label: 'to-cancel' });
    const cancel = (transport.sent as unknown as Raw[]).find((m) => m.method === 'notifications/cancelled' && (m.params as Raw).requestId === request.id);
    expect(cancel).toBeDefined();
    // The handler sees its signal abort (a few ticks after the server read the cancellation)…
    await eventually('slow to see its signal abort', async () => {
      const seen = await client.callTool({ name: 'cancellations', arguments: {} });
      return (seen.structuredContent as { aborted: string[] }).aborted.includes('to-cancel');
    });
    // … and by the time one more request has made the round trip, its (suppressed) answer would be out.
    await client.callTool({ name: 'echo', arguments: { message: 'fence' } });
    expect(transport.wire.filter((m) => isResponseTo(m, request.id as MessageId))).toEqual([]);
    const progress = transport.wire.filter(
      (m) => isRecord(m) && m.method === 'notifications/progress' && (m.params as Raw).progressToken === ((request.params as Raw)._meta as Raw).progressToken,
    );
    // At most the progress in flight before the cancellation was read (the first, which triggered it).
    expect(progress.length).toBeLessThanOrEqual(2);
  });

  it('streams list changes to a listen subscription, tagged with its id, until the client cancels it', async () => {
    const changes: Raw[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push(n as unknown as Raw));
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['status://server'] });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['status://server'] });
    const listen = sentFor(transport, 'subscriptions/listen').at(-1)!;
    const ack = transport.wire.find((m) => isRecord(m) && m.method === 'notifications/subscriptions/acknowledged') as Raw;
    expect(ack.params).toEqual({ _meta: { [SID]: listen.id }, notifications: { toolsListChanged: true, resourceSubscriptions: ['status://server'] } });

    expect(textOf(await client.callTool({ name: 'toggle', arguments: { kind: 'tool', key: 'whisper', enabled: false } }))).toBe('tool whisper disabled');
    await eventually('tools/list_changed on the subscription', () => changes.length === 1);
    expect(textOf(await client.callTool({ name: 'touch', arguments: { uri: 'status://server' } }))).toBe('touched status://server');
    await eventually('resources/updated on the subscription', () => transport.wire.some((m) => isRecord(m) && m.method === 'notifications/resources/updated'));
    // A prompt change was not asked for.
    await client.callTool({ name: 'toggle', arguments: { kind: 'prompt', key: 'greet', enabled: false } });
    await client.callTool({ name: 'toggle', arguments: { kind: 'prompt', key: 'greet', enabled: true } });
    const streamed = transport.wire.filter((m) => isRecord(m) && isRecord(m.params) && isRecord(m.params._meta) && SID in m.params._meta) as Raw[];
    expect(streamed.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/resources/updated']);
    for (const m of streamed) expect(((m.params as Raw)._meta as Raw)[SID]).toBe(listen.id);
    expect(streamed[2].params).toMatchObject({ uri: 'status://server' });

    await subscription.close();
    expect(await subscription.closed).toBe('local');
    expect((transport.sent as unknown as Raw[]).some((m) => m.method === 'notifications/cancelled' && (m.params as Raw).requestId === listen.id)).toBe(true);
    // After the cancellation nothing more for it: no change, no result.
    expect(textOf(await client.callTool({ name: 'toggle', arguments: { kind: 'tool', key: 'whisper', enabled: true } }))).toBe('tool whisper enabled');
    await client.callTool({ name: 'echo', arguments: { message: 'fence' } });
    expect(changes).toHaveLength(1);
    expect(transport.wire.filter((m) => isResponseTo(m, listen.id as MessageId))).toEqual([]);
  });

  it('every line the server wrote validates against 2026-07-28, and none is a request', async () => {
    await client.close();
    expect(await transport.exited()).toEqual({ code: 0, signal: null });
    expect(transport.wire.length).toBeGreaterThan(30);
    expect(transport.wire.filter((m) => isRecord(m) && 'method' in m && 'id' in m)).toEqual([]);
    const violations = transport.wire.flatMap((m) => validateModernServerMessage(schema, m, transport.requestMethodById));
    expect(violations).toEqual([]);
  });
});

describe('the everything server on stdio, MCP 2026-07-28, in raw lines: what a good client never sends', () => {
  let raw: RawStdioClient;
  const envelope = (extra: Raw = {}): Raw => ({ [PV]: MODERN_REVISION, [CC]: {}, ...extra });
  const request = (id: MessageId, method: string, params?: Raw) => raw.request(id, method, params);

  beforeAll(() => {
    raw = new RawStdioClient(SERVER);
  });

  afterAll(() => {
    raw?.kill();
  });

  it('answers discover and refuses bad envelopes without pinning the connection, echoing each id', async () => {
    expect((await request('probe', 'server/discover', { _meta: envelope() })).result).toMatchObject({ supportedVersions: [MODERN_REVISION], resultType: 'complete' });
    const noCapabilities = await request('no-cc', 'tools/list', { _meta: { [PV]: MODERN_REVISION } });
    expect(noCapabilities).toEqual({ jsonrpc: '2.0', id: 'no-cc', error: expect.objectContaining({ code: -32602, data: { envelope: { key: CC, problem: 'missing' } } }) });
    const badLevel = await request(7, 'tools/list', { _meta: envelope({ [LL]: 'loud' }) });
    expect(badLevel).toMatchObject({ id: 7, error: { code: -32602, data: { envelope: { key: LL } } } });
    const badInfo = await request('bad-info', 'tools/list', { _meta: envelope({ 'io.modelcontextprotocol/clientInfo': 'me' }) });
    expect(badInfo).toMatchObject({ id: 'bad-info', error: { code: -32602 } });
    const unserved = await request('v999', 'tools/list', { _meta: envelope({ [PV]: 'v999' }) });
    expect(unserved).toMatchObject({ id: 'v999', error: { code: -32022, data: { supported: [MODERN_REVISION], requested: 'v999' } } });
    const legacyInEnvelope = await request('legacy-claim', 'tools/list', { _meta: envelope({ [PV]: '2025-11-25' }) });
    expect(legacyInEnvelope).toMatchObject({ error: { code: -32022, data: { requested: '2025-11-25' } } });
  });

  it('pins on the first valid request; then ping, logging/setLevel and resources/subscribe are -32601 and initialize is -32022', async () => {
    expect((await request(1, 'tools/call', { name: 'echo', arguments: { message: 'pinned' }, _meta: envelope() })).result).toMatchObject({
      content: [{ type: 'text', text: 'pinned' }],
    });
    for (const [id, method, params] of [
      ['ping', 'ping', {}],
      ['set-level', 'logging/setLevel', { level: 'debug' }],
      ['subscribe', 'resources/subscribe', { uri: 'status://server' }],
      ['unknown', 'nope/never', {}],
    ] as const) {
      expect(await request(id, method, { ...params, _meta: envelope() })).toMatchObject({ id, error: { code: -32601 } });
    }
    const initialize = await request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } });
    expect(initialize).toMatchObject({ id: 'init', error: { code: -32022, data: { supported: [MODERN_REVISION], requested: '2025-11-25' } } });
  });

  it('checks the envelope of every request once pinned: a missing one is -32602 with the id echoed', async () => {
    expect(await request('bare', 'tools/list', {})).toMatchObject({ id: 'bare', error: { code: -32602, data: { envelope: { missing: ['_meta'] } } } });
    expect(await request(42, 'ping')).toMatchObject({ id: 42, error: { code: -32602 } });
    expect(await request('no-pv', 'tools/list', { _meta: { [CC]: {} } })).toMatchObject({ id: 'no-pv', error: { code: -32602 } });
    // 2026-07-28 has no batches: one error, without an id (never `id: null`), and no member is served.
    raw.send([
      { jsonrpc: '2.0', id: 'batched-1', method: 'tools/list', params: { _meta: envelope() } },
      { jsonrpc: '2.0', id: 'batched-2', method: 'tools/call', params: { name: 'echo', arguments: { message: 'batched' }, _meta: envelope() } },
    ]);
    const refused = await raw.next((m) => 'error' in m && !('id' in m), 'the error for the batch');
    expect(refused.error).toMatchObject({ code: -32600 });
    // Still serving: the connection did not fall back to the legacy era.
    expect((await request(2, 'tools/list', { _meta: envelope() })).result).toMatchObject({ resultType: 'complete', nextCursor: expect.any(String) });
    expect(raw.received.filter((m) => isResponseTo(m, 'batched-1') || isResponseTo(m, 'batched-2'))).toEqual([]);
  });

  it('never answers a call cancelled by notifications/cancelled', async () => {
    raw.send({
      jsonrpc: '2.0',
      id: 'slow-1',
      method: 'tools/call',
      params: { name: 'slow', arguments: { steps: 40, delayMs: 50, label: 'raw-cancel' }, _meta: envelope({ progressToken: 'raw-progress' }) },
    });
    await raw.next((m) => m.method === 'notifications/progress' && (m.params as Raw).progressToken === 'raw-progress', 'the first progress of slow-1');
    raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1', reason: 'no longer needed', _meta: envelope() } });
    let n = 0;
    await eventually('slow-1 to see its signal abort', async () => {
      const seen = await request(`seen-${n++}`, 'tools/call', { name: 'cancellations', arguments: {}, _meta: envelope() });
      return ((seen.result as Raw).structuredContent as { aborted: string[] }).aborted.includes('raw-cancel');
    });
    await request('fence', 'tools/call', { name: 'echo', arguments: { message: 'fence' }, _meta: envelope() });
    expect(raw.received.filter((m) => isResponseTo(m, 'slow-1'))).toEqual([]);
  });

  it('every line the server wrote validates against 2026-07-28', async () => {
    expect(await raw.end()).toEqual({ code: 0, signal: null });
    expect(raw.received.filter((m) => isRecord(m) && 'unparseable' in m)).toEqual([]);
    const violations = raw.received.flatMap((m) => validateModernServerMessage(schema, m, raw.methodById));
    expect(violations).toEqual([]);
  });
});

describe('the everything server on stdio: a server/discover probe does not pin the connection', () => {
  let raw: RawStdioClient;

  beforeAll(() => {
    raw = new RawStdioClient(SERVER);
  });

  afterAll(() => {
    raw?.kill();
  });

  it('answers the probe in 2026-07-28, then serves a legacy session opened by initialize', async () => {
    const probe = await raw.request('probe', 'server/discover', { _meta: { [PV]: MODERN_REVISION, [CC]: {} } });
    expect(probe.result).toMatchObject({ supportedVersions: [MODERN_REVISION], resultType: 'complete' });
    const init = await raw.initialize(LEGACY);
    expect(init.result).toMatchObject({ protocolVersion: LEGACY, serverInfo: SERVER_INFO });
    expect(init.result).not.toHaveProperty('resultType');
    expect(await raw.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const echo = await raw.request(2, 'tools/call', { name: 'echo', arguments: { message: 'legacy' } });
    expect(echo.result).toEqual({ content: [{ type: 'text', text: 'legacy' }] });
    // Pinned legacy: a later discover is a method this era does not have.
    expect(await raw.request(3, 'server/discover', { _meta: { [PV]: MODERN_REVISION, [CC]: {} } })).toMatchObject({ id: 3, error: { code: -32601 } });
    expect(await raw.end()).toEqual({ code: 0, signal: null });
    expect(validateModernServerMessage(schema, probe, new Map([['probe', 'server/discover']]))).toEqual([]);
    const legacy = raw.received.filter((m) => !isResponseTo(m, 'probe'));
    expect(legacy).toHaveLength(4);
    expect(legacy.flatMap((m) => validateServerMessage(legacySchema, m, raw.methodById))).toEqual([]);
  });
});
