/**
 * JSON-RPC batches against the built everything server (dist/main.js), in raw JSON lines.
 *
 * Only revision 2025-03-26 has batches: there a batch of requests gets one array with a response
 * per request (notifications and responses in it get none), invalid members get their errors in
 * that array, and the batched calls really run. On 2024-11-05, 2025-06-18 and 2025-11-25 a batch
 * is one -32600 error with id null, and none of it runs. The server keeps serving after each.
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import * as path from 'node:path';
import { type LegacyRevision, type MessageId, loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';
import { RawStdioClient, type RawMessage, isRecord } from '../../../test-support/raw-stdio-client';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER = { command: process.execPath, args: [path.resolve(__dirname, '../dist/main.js')], cwd: REPO_ROOT };

const schemas = loadSchemas();

/** The revisions without batches. */
const WITHOUT_BATCHES = ['2024-11-05', '2025-06-18', '2025-11-25'] as const;

const request = (id: MessageId, method: string, params?: RawMessage): RawMessage =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const notification = (method: string, params: RawMessage): RawMessage => ({ jsonrpc: '2.0', method, params });
const callTool = (id: MessageId, name: string, args: RawMessage): RawMessage => request(id, 'tools/call', { name, arguments: args });

/** Five requests of five kinds, ids of both types, and a notification among them. */
const FIVE_AND_A_NOTIFICATION: RawMessage[] = [
  callTool('b-echo', 'echo', { message: 'hello from a batch' }),
  request(2, 'tools/list'),
  request('b-ping', 'ping'),
  notification('notifications/cancelled', { requestId: 'nothing-is-running', reason: 'a notification in a batch' }),
  request(4, 'prompts/get', { name: 'greet', arguments: { name: 'Ada', style: 'formal' } }),
  request('b-status', 'resources/read', { uri: 'status://server' }),
];

/** `5` and `"5"` are different ids: keys keep the type. */
const key = (value: unknown): string => `${typeof value}:${String(value)}`;

/** The responses of a batch array by id (type-sensitive); fails on duplicates. */
function byId(batch: unknown[]): Map<string, RawMessage> {
  const out = new Map<string, RawMessage>();
  for (const member of batch) {
    expect(isRecord(member)).toBe(true);
    const response = member as RawMessage;
    expect(out.has(key(response.id))).toBe(false);
    out.set(key(response.id), response);
  }
  return out;
}

function expectError(response: RawMessage | undefined, id: MessageId | null, code: number): { code: number; message: string } {
  expect(response).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  expect(response).not.toHaveProperty('result');
  return response!.error as { code: number; message: string };
}

/**
 * Sends `values` (one line each) and returns everything the server sent in answer, up to a ping
 * sent as a fence. The server reads its input in order, so what it does with `values` at once is
 * done before it answers the fence. A batch array, though, is sent when its last member settles,
 * possibly after single requests read behind it: when `awaitArray` the fence is written only once
 * the array has arrived.
 */
async function exchange(server: RawStdioClient, fenceId: string, values: unknown[], awaitArray: boolean): Promise<unknown[]> {
  const from = server.wire.length;
  const sentSince = () =>
    server.wire
      .slice(from)
      .filter((e) => e.from === 'server')
      .map((e) => e.message);
  const fence = request(fenceId, 'ping');
  if (awaitArray) {
    server.send(...values);
    await server.until(() => sentSince().some(Array.isArray), 'a batch response (an array)');
    server.send(fence);
  } else {
    server.send(...values, fence);
  }
  await server.until(() => sentSince().some((m) => isRecord(m) && m.id === fenceId), `the answer to ${fenceId}`);
  const between = sentSince();
  expect(between[between.length - 1]).toEqual({ jsonrpc: '2.0', id: fenceId, result: {} });
  server.discardUnread();
  return between.slice(0, -1);
}

/** Every tool name, walking the pages of tools/list. */
async function toolNames(server: RawStdioClient, idPrefix: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const response = await server.request(`${idPrefix}-${page}`, 'tools/list', cursor === undefined ? {} : { cursor });
    const result = response.result as { tools: Array<{ name: string }>; nextCursor?: string };
    names.push(...result.tools.map((t) => t.name));
    cursor = result.nextCursor;
    if (cursor === undefined) return names;
  }
  throw new Error('tools/list did not end within 10 pages');
}

/** True for an error response with `id: null` (the MCP schemas do not allow that id; JSON-RPC requires it). */
const isNullIdError = (m: unknown): boolean => isRecord(m) && m.id === null && 'error' in m;

/**
 * Validates every message the server sent against the revision's schema, leaving out the error
 * responses with `id: null` (checked by the tests themselves). Returns how many were left out.
 */
function expectSchemaValid(server: RawStdioClient, revision: LegacyRevision): number {
  const schema = schemas.revisions.get(revision)!;
  let nullIdErrors = 0;
  const violations = server.received.flatMap((m) => {
    if (Array.isArray(m)) {
      const kept = m.filter((member) => !isNullIdError(member));
      nullIdErrors += m.length - kept.length;
      return kept.length > 0 ? validateServerMessage(schema, kept, server.methodById) : [];
    }
    if (isNullIdError(m)) {
      nullIdErrors++;
      return [];
    }
    return validateServerMessage(schema, m, server.methodById);
  });
  expect(violations).toEqual([]);
  return nullIdErrors;
}

function expectOnlyJsonOnStdout(server: RawStdioClient): void {
  expect(server.received.length).toBeGreaterThan(0);
  expect(server.received.filter((m) => isRecord(m) && 'unparseable' in m)).toEqual([]);
}

describe('batches on revision 2025-03-26', () => {
  let server: RawStdioClient;

  beforeAll(async () => {
    server = new RawStdioClient(SERVER);
    const init = await server.initialize('2025-03-26');
    expect((init.result as RawMessage).protocolVersion).toBe('2025-03-26');
    server.discardUnread();
  });

  afterAll(() => server?.kill());

  it('five requests and a notification in one batch: one array of exactly five responses, matched by id', async () => {
    const sent = await exchange(server, 'after-five', [FIVE_AND_A_NOTIFICATION], true);
    expect(sent).toHaveLength(1);
    expect(Array.isArray(sent[0])).toBe(true);
    const batch = sent[0] as unknown[];
    expect(batch).toHaveLength(5);
    const responses = byId(batch);
    expect([...responses.keys()].sort()).toEqual([key('b-echo'), key(2), key('b-ping'), key(4), key('b-status')].sort());

    expect(responses.get(key('b-echo'))).toEqual({ jsonrpc: '2.0', id: 'b-echo', result: { content: [{ type: 'text', text: 'hello from a batch' }] } });
    const tools = responses.get(key(2))!.result as { tools: Array<{ name: string }>; nextCursor?: string };
    // The server pages by 10.
    expect(tools.tools.map((t) => t.name).slice(0, 3)).toEqual(['echo', 'slow', 'cancellations']);
    expect(tools.tools).toHaveLength(10);
    expect(typeof tools.nextCursor).toBe('string');
    expect(responses.get(key('b-ping'))).toEqual({ jsonrpc: '2.0', id: 'b-ping', result: {} });
    expect(responses.get(key(4))).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { description: 'Greet someone', messages: [{ role: 'user', content: { type: 'text', text: 'Good day, Ada.' } }] },
    });
    const status = responses.get(key('b-status'))!.result as { contents: Array<{ uri: string; mimeType: string; text: string }> };
    expect(status.contents).toHaveLength(1);
    expect(status.contents[0]).toMatchObject({ uri: 'status://server', mimeType: 'application/json' });
    expect(JSON.parse(status.contents[0].text)).toMatchObject({ ok: true });
  });

  it('a batch with invalid members: an error for each of them in the array, results for the rest', async () => {
    const sent = await exchange(
      server,
      'after-invalid',
      [
        [
          request('ok-1', 'ping'),
          { jsonrpc: '1.0', id: 'bad-version', method: 'ping' },
          { jsonrpc: '2.0', id: 'bad-method', method: 42 },
          { jsonrpc: '2.0', id: 'positional', method: 'tools/list', params: [1] },
          { jsonrpc: '2.0', id: { not: 'an id' }, method: 'ping' },
          7,
          { jsonrpc: '2.0', id: 'no-method' },
          request('unknown-method', 'tools/explode', {}),
          callTool('unknown-tool', 'no_such_tool', {}),
          callTool('bad-arguments', 'echo', { message: 42 }),
          notification('notifications/cancelled', { requestId: 'nothing-is-running' }),
          // A response in a batch answers nothing the server asked: it gets no answer either.
          { jsonrpc: '2.0', id: 'stray', result: {} },
          callTool('ok-2', 'echo', { message: 'still here' }),
        ],
      ],
      true,
    );
    expect(sent).toHaveLength(1);
    const batch = sent[0] as RawMessage[];
    expect(batch).toHaveLength(11);
    const nullIds = batch.filter((m) => m.id === null);
    expect(nullIds).toHaveLength(2);
    for (const m of nullIds) expectError(m, null, -32600);
    const responses = byId(batch.filter((m) => m.id !== null));
    expect(responses.get(key('ok-1'))).toEqual({ jsonrpc: '2.0', id: 'ok-1', result: {} });
    expectError(responses.get(key('bad-version')), 'bad-version', -32600);
    expectError(responses.get(key('bad-method')), 'bad-method', -32600);
    expectError(responses.get(key('positional')), 'positional', -32600);
    expectError(responses.get(key('no-method')), 'no-method', -32600);
    expect(expectError(responses.get(key('unknown-method')), 'unknown-method', -32601).message).toContain('tools/explode');
    expect(expectError(responses.get(key('unknown-tool')), 'unknown-tool', -32602).message).toContain('no_such_tool');
    expect(responses.get(key('bad-arguments'))!.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^message must be a string, not a number$/m) }],
    });
    expect(responses.get(key('ok-2'))).toEqual({ jsonrpc: '2.0', id: 'ok-2', result: { content: [{ type: 'text', text: 'still here' }] } });
    expect(responses.has(key('stray'))).toBe(false);
  });

  it('a batch of notifications and responses only gets no answer at all', async () => {
    const sent = await exchange(
      server,
      'after-no-requests',
      [
        [
          notification('notifications/cancelled', { requestId: 'nothing-is-running' }),
          { jsonrpc: '2.0', id: 'stray-result', result: {} },
          { jsonrpc: '2.0', id: 'stray-error', error: { code: -32000, message: 'nothing asked for this' } },
        ],
      ],
      false,
    );
    expect(sent).toEqual([]);
  });

  it('an empty array is -32600 with id null', async () => {
    const sent = await exchange(server, 'after-empty', [[]], false);
    expect(sent).toHaveLength(1);
    expectError(sent[0] as RawMessage, null, -32600);
  });

  it('batched calls run: add_tool adds its tool, and list_changed follows', async () => {
    const sent = await exchange(server, 'after-add-tool', [[callTool('b-add', 'add_tool', { name: 'batched_2025_03_26' }), request('b-ping-2', 'ping')]], true);
    expect(sent).toContainEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const batch = sent.find(Array.isArray) as RawMessage[];
    expect(byId(batch)).toEqual(
      new Map([
        [key('b-add'), { jsonrpc: '2.0', id: 'b-add', result: { content: [{ type: 'text', text: 'added batched_2025_03_26' }] } }],
        [key('b-ping-2'), { jsonrpc: '2.0', id: 'b-ping-2', result: {} }],
      ]),
    );
    expect(sent).toHaveLength(2);
    expect(await toolNames(server, 'tools-after-add')).toContain('batched_2025_03_26');
  });

  it("a batched call's progress comes before the array; a batched call cancelled meanwhile has no entry in it", async () => {
    const from = server.wire.length;
    server.send(
      [
        request('b-slow', 'tools/call', { name: 'slow', arguments: { steps: 2, delayMs: 5, label: 'batched-slow' }, _meta: { progressToken: 'p-slow' } }),
        request('b-doomed', 'tools/call', { name: 'slow', arguments: { steps: 5, delayMs: 40, label: 'batched-doomed' }, _meta: { progressToken: 'p-doomed' } }),
        callTool('b-echo-2', 'echo', { message: 'beside slow calls' }),
      ],
      // Read with the batch, so the doomed call is aborted before its first step.
      notification('notifications/cancelled', { requestId: 'b-doomed', reason: 'not needed' }),
    );
    const batch = (await server.nextBatch()) as RawMessage[];
    const sent = server.wire
      .slice(from)
      .filter((e) => e.from === 'server')
      .map((e) => e.message);
    expect(sent).toEqual([
      notification('notifications/progress', { progressToken: 'p-slow', progress: 1, total: 2, message: 'step 1 of 2' }),
      notification('notifications/progress', { progressToken: 'p-slow', progress: 2, total: 2, message: 'step 2 of 2' }),
      batch,
    ]);
    expect(byId(batch)).toEqual(
      new Map([
        [key('b-slow'), { jsonrpc: '2.0', id: 'b-slow', result: { content: [{ type: 'text', text: 'batched-slow: completed 2 steps' }] } }],
        [key('b-echo-2'), { jsonrpc: '2.0', id: 'b-echo-2', result: { content: [{ type: 'text', text: 'beside slow calls' }] } }],
      ]),
    );
    server.discardUnread();
    const aborted = await server.request('list-cancellations', 'tools/call', { name: 'cancellations', arguments: {} });
    expect(JSON.parse(((aborted.result as RawMessage).content as Array<{ text: string }>)[0].text)).toEqual({ aborted: ['batched-doomed'] });
  });

  it('the server still serves single requests; stdout carried only JSON; ending stdin ends it with code 0', async () => {
    await expect(server.request('still-serving', 'ping')).resolves.toEqual({ jsonrpc: '2.0', id: 'still-serving', result: {} });
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
    expectOnlyJsonOnStdout(server);
  });

  it('every message validates against the 2025-03-26 schema, batch responses included', () => {
    // Two members of the invalid batch and the empty array: answered with id null.
    expect(expectSchemaValid(server, '2025-03-26')).toBe(3);
  });
});

describe('a batch before initialize (no revision negotiated yet)', () => {
  let server: RawStdioClient;

  beforeAll(() => {
    server = new RawStdioClient(SERVER);
  });

  afterAll(() => server?.kill());

  it('is -32600 with id null, and the initialize inside it does not run', async () => {
    const sent = await exchange(
      server,
      'after-early-batch',
      [
        [
          request('batched-init', 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw-lines', version: '1.0.0' } }),
          request('batched-ping', 'ping'),
        ],
      ],
      false,
    );
    expect(sent).toHaveLength(1);
    expect(expectError(sent[0] as RawMessage, null, -32600).message).toMatch(/batch/i);
    // Had the batched initialize run, this one would be refused as a second initialize.
    const init = await server.initialize('2025-03-26');
    expect((init.result as RawMessage).protocolVersion).toBe('2025-03-26');
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
  });
});

describe.each(WITHOUT_BATCHES)('batches on revision %s (which has none)', (revision) => {
  let server: RawStdioClient;

  beforeAll(async () => {
    server = new RawStdioClient(SERVER);
    const init = await server.initialize(revision);
    expect((init.result as RawMessage).protocolVersion).toBe(revision);
    server.discardUnread();
  });

  afterAll(() => server?.kill());

  it('the five-request batch is one -32600 error with id null, and nothing else is sent', async () => {
    const sent = await exchange(server, 'after-five', [FIVE_AND_A_NOTIFICATION], false);
    expect(sent).toHaveLength(1);
    expect(expectError(sent[0] as RawMessage, null, -32600).message).toMatch(/batch/i);
  });

  it('a batched add_tool does not run: no list_changed, and the tool is not there', async () => {
    const sent = await exchange(server, 'after-add-tool', [[callTool('b-add', 'add_tool', { name: `batched_${revision.replace(/-/g, '_')}` }), request('b-ping', 'ping')]], false);
    expect(sent).toHaveLength(1);
    expectError(sent[0] as RawMessage, null, -32600);
    const names = await toolNames(server, 'tools-after-add');
    expect(names).toContain('add_tool');
    expect(names.filter((n) => n.startsWith('batched_'))).toEqual([]);
  });

  it('a batch with invalid members is refused as a whole', async () => {
    const sent = await exchange(server, 'after-invalid', [[request('ok-1', 'ping'), { jsonrpc: '1.0', id: 'bad-version', method: 'ping' }, 7]], false);
    expect(sent).toHaveLength(1);
    expectError(sent[0] as RawMessage, null, -32600);
  });

  it('the same calls sent one by one work', async () => {
    for (const message of FIVE_AND_A_NOTIFICATION) server.send(message);
    const ids = FIVE_AND_A_NOTIFICATION.filter((m) => 'id' in m).map((m) => m.id as MessageId);
    for (const id of ids) expect(await server.responseTo(id)).toHaveProperty('result');
  });

  it('stdout carried only JSON; ending stdin ends the server with code 0', async () => {
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
    expectOnlyJsonOnStdout(server);
    expect(server.leftovers).toEqual([]);
  });

  it(`every other message validates against the ${revision} schema`, () => {
    // The three refused batches.
    expect(expectSchemaValid(server, revision)).toBe(3);
  });
});
