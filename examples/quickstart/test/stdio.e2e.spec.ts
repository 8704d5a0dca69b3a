/**
 * End to end over stdio: the built quickstart server (dist/main.js) driven by the official SDK
 * client, once per legacy revision. Every message the server sends is validated afterwards against
 * that revision's official JSON Schema, including "no field the revision lacks".
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EmptyResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LEGACY_REVISIONS, type LegacyRevision, loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';
import { RecordingStdioTransport } from '../../../test-support/recording-transport';
import { Raw, mcpErrorOf, textOf, wireProgress } from '../../../test-support/e2e';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER_MAIN = path.resolve(__dirname, '../dist/main.js');

const schemas = loadSchemas();

/** Revisions compare as dates. */
const atLeast = (revision: LegacyRevision, since: LegacyRevision) => revision >= since;

/** The raw result (as it came off the wire) of the last request of `method`. */
function lastRawResult(transport: RecordingStdioTransport, method: string): Raw {
  const ids = [...transport.requestMethodById].filter(([, m]) => m === method).map(([id]) => id);
  const id = ids[ids.length - 1];
  const response = transport.received.find((m) => 'id' in m && m.id === id && 'result' in m) as { result: Raw } | undefined;
  if (!response) throw new Error(`no result was received for ${method} (id ${String(id)})`);
  return response.result;
}

/** The schema of an optional property without its `null` alternative (`anyOf: [X, {type: 'null'}]` → X). */
function nonNull(schema: Raw): Raw {
  if (!Array.isArray(schema.anyOf)) return schema;
  const branches = schema.anyOf as Raw[];
  expect(branches.filter((b) => b.type === 'null')).toHaveLength(1);
  const rest = branches.filter((b) => b.type !== 'null');
  expect(rest).toHaveLength(1);
  return rest[0];
}

describe.each(LEGACY_REVISIONS)('quickstart over stdio, revision %s', (revision) => {
  let transport: RecordingStdioTransport;
  let client: Client;

  beforeAll(async () => {
    if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} does not exist: build first with \`npx tsc -b\``);
    transport = new RecordingStdioTransport({ command: process.execPath, args: [SERVER_MAIN], cwd: REPO_ROOT }, revision);
    client = new Client({ name: 'quickstart-e2e', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('initialize negotiates the offered revision and describes the server', () => {
    const sentInit = transport.sent.find((m) => 'method' in m && m.method === 'initialize') as { params: Raw };
    expect(sentInit.params.protocolVersion).toBe(revision);

    const result = lastRawResult(transport, 'initialize');
    expect(result.protocolVersion).toBe(revision);
    const serverInfo = { name: 'hermes-quickstart', version: '0.1.0' };
    expect(result.serverInfo).toEqual(atLeast(revision, '2025-06-18') ? { ...serverInfo, title: 'Hermes quickstart notes' } : serverInfo);
    expect(result.instructions).toBe('A small notebook. Use add_note to save notes and search_notes to find them; read notes://all for everything.');
    expect(result.capabilities).toEqual({
      logging: {},
      // completion/complete exists in every revision; the capability that announces it from 2025-03-26.
      ...(atLeast(revision, '2025-03-26') && { completions: {} }),
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
    expect(client.getServerVersion()).toMatchObject(serverInfo);
    expect(client.getInstructions()).toBe(result.instructions);
  });

  it('answers ping with an empty result', async () => {
    await expect(client.ping()).resolves.toEqual({});
    expect(lastRawResult(transport, 'ping')).toEqual({});
  });

  it('tools/list: names, input schemas, and fields by revision', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'add_note', 'now', 'search_notes']);

    const raw = (lastRawResult(transport, 'tools/list').tools as Raw[]).reduce<Record<string, Raw>>((all, t) => ({ ...all, [t.name as string]: t }), {});
    const addNote = raw.add_note;
    expect(addNote.description).toBe('Save a note and return it');
    const input = addNote.inputSchema as { type: string; properties: Record<string, Raw>; required?: string[] };
    expect(input.type).toBe('object');
    expect(input.properties.title).toMatchObject({ type: 'string', minLength: 1, pattern: expect.stringMatching(/\{1,80\}\$$/), description: 'A short title' });
    expect(input.properties.body).toMatchObject({ type: 'string', pattern: expect.stringMatching(/\{0,10000\}\$$/) });
    // Optional (@IsOptional) fields are not required and also accept null, as class-validator does.
    expect(input.properties.tags).toMatchObject({ description: 'Lower-case tags' });
    expect(nonNull(input.properties.tags)).toMatchObject({ type: 'array', maxItems: 10, items: { type: 'string', pattern: '^[a-z0-9-]+$' } });
    expect([...(input.required ?? [])].sort()).toEqual(['body', 'title']);

    const search = raw.search_notes.inputSchema as { properties: Record<string, Raw>; required?: string[] };
    expect(nonNull(search.properties.limit)).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    expect(search.required).toEqual(['query']);

    const add = raw.add.inputSchema as { properties: Record<string, Raw>; required?: string[] };
    expect(add.properties).toMatchObject({ a: { type: 'number' }, b: { type: 'number' } });
    expect([...(add.required ?? [])].sort()).toEqual(['a', 'b']);

    const now = raw.now.inputSchema as { type: string; properties?: Raw; required?: string[] };
    expect(now.type).toBe('object');
    expect(Object.keys(now.properties ?? {})).toEqual([]);

    // outputSchema: `add` only, and only where structured output exists.
    if (atLeast(revision, '2025-06-18')) {
      expect(raw.add.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    } else {
      expect(raw.add).not.toHaveProperty('outputSchema');
    }
    for (const name of ['add_note', 'search_notes', 'now']) expect(raw[name]).not.toHaveProperty('outputSchema');

    // annotations arrived in 2025-03-26; titles in 2025-06-18.
    if (atLeast(revision, '2025-03-26')) {
      expect(raw.add_note.annotations).toEqual({ destructiveHint: false });
      expect(raw.search_notes.annotations).toEqual({ readOnlyHint: true });
      expect(raw.add.annotations).toEqual({ readOnlyHint: true });
    } else {
      for (const tool of Object.values(raw)) expect(tool).not.toHaveProperty('annotations');
    }
    if (atLeast(revision, '2025-06-18')) expect(raw.now.title).toBe('Server time');
    else for (const tool of Object.values(raw)) expect(tool).not.toHaveProperty('title');
  });

  it('tools/call: add_note saves a note and returns it', async () => {
    const result = await client.callTool({ name: 'add_note', arguments: { title: 'Groceries', body: 'milk, eggs', tags: ['shopping', 'home-2'] } });
    expect(result.isError).toBeFalsy();
    const note = JSON.parse(textOf(result)) as Raw;
    expect(note).toMatchObject({ id: '2', title: 'Groceries', body: 'milk, eggs', tags: ['shopping', 'home-2'] });
    const raw = lastRawResult(transport, 'tools/call');
    if (atLeast(revision, '2025-06-18')) expect(raw.structuredContent).toEqual(note);
    else expect(raw).not.toHaveProperty('structuredContent');
  });

  it('tools/call: add returns structured output where the revision has it, JSON text always', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3.5 } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ sum: 5.5 });
    const raw = lastRawResult(transport, 'tools/call');
    if (atLeast(revision, '2025-06-18')) expect(raw.structuredContent).toEqual({ sum: 5.5 });
    else expect(raw).not.toHaveProperty('structuredContent');
    expect(raw).not.toHaveProperty('isError');
  });

  it('tools/call: now returns the server time as ISO 8601 text', async () => {
    const result = await client.callTool({ name: 'now', arguments: {} });
    const text = textOf(result);
    expect(new Date(text).toISOString()).toBe(text);
  });

  it('tools/call: invalid input is a tool error naming each field path', async () => {
    const result = await client.callTool({ name: 'add_note', arguments: { title: '', body: 'x', tags: ['ok', 'Not OK'] } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^Invalid arguments for tool "add_note":\n/);
    expect(text).toMatch(/^title must be longer than or equal to 1 characters$/m);
    expect(text).toMatch(/^tags\[1\] must match \/\^\[a-z0-9-\]\+\$\/ regular expression$/m);
    expect(text).not.toMatch(/^body\b/m);
    expect(lastRawResult(transport, 'tools/call')).not.toHaveProperty('structuredContent');

    const missing = await client.callTool({ name: 'add_note', arguments: { title: 'no body', tags: [7] } });
    expect(missing.isError).toBe(true);
    const missingText = textOf(missing);
    expect(missingText).toMatch(/^body is required: a string$/m);
    expect(missingText).toMatch(/^tags\[0\] must be a string, not a number$/m);
    expect(missingText).not.toMatch(/^title\b/m);

    const wrongType = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/^a must be a number, not a string$/m);
    expect(textOf(wrongType)).not.toMatch(/^b\b/m);
    expect(lastRawResult(transport, 'tools/call')).not.toHaveProperty('structuredContent');
  });

  it('tools/call: invalid input names the index of a bad array element (tags[1])', async () => {
    const result = await client.callTool({ name: 'add_note', arguments: { title: 'x', body: 'x', tags: ['ok', 'Not OK'] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^tags\[1\] must match /m);
  });

  it('tools/call: search_notes reports progress in order, before its result', async () => {
    const delivered: Raw[] = [];
    const found = await client.callTool({ name: 'search_notes', arguments: { query: 'welcome' } }, undefined, {
      onprogress: (p) => delivered.push({ ...p }),
    });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toBe('#1 Welcome');

    // What the server sent for this call's token (the SDK uses the request id as the token).
    const token = [...transport.requestMethodById].filter(([, m]) => m === 'tools/call').pop()![0];
    const wire = wireProgress(transport, token);
    // `message` on progress arrived in 2025-03-26.
    const expected = atLeast(revision, '2025-03-26')
      ? [
          { progressToken: token, progress: 0, total: 1, message: 'searching' },
          { progressToken: token, progress: 1, total: 1, message: 'found 1' },
        ]
      : [
          { progressToken: token, progress: 0, total: 1 },
          { progressToken: token, progress: 1, total: 1 },
        ];
    expect(wire.updates).toEqual(expected);
    expect(wire.beforeResponse).toBe(true);

    // What the SDK's onprogress delivered: in order and increasing, the server's updates as sent.
    // SDK v1 dispatches notifications a microtask late but responses at once, so a progress
    // notification read in the same chunk as the response is dropped (typescript-sdk#2580): the
    // SDK can only be held to a prefix of what the wire carried, never to something else.
    const sent = expected.map(({ progressToken: _t, ...rest }) => rest);
    expect(delivered).toEqual(sent.slice(0, delivered.length));
  });

  it('tools/call: search_notes throws a ToolError when nothing matches (after its progress)', async () => {
    const missing = await client.callTool({ name: 'search_notes', arguments: { query: 'zzz-no-such-note' } }, undefined, {
      onprogress: () => undefined,
    });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('no note matches "zzz-no-such-note"');
    const token = [...transport.requestMethodById].filter(([, m]) => m === 'tools/call').pop()![0];
    const wire = wireProgress(transport, token);
    expect(wire.updates.map((u) => u.progress)).toEqual([0, 1]);
    expect(wire.beforeResponse).toBe(true);
  });

  it('tools/call: an unknown tool is a -32602 protocol error', async () => {
    const error = await mcpErrorOf(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  it('logging/setLevel accepts a level and refuses an unknown one', async () => {
    await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
    const error = await mcpErrorOf(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema));
    expect(error.code).toBe(-32602);
  });

  it('resources/list and resources/templates/list', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([{ uri: 'notes://all', name: 'all-notes', description: 'Every note, as JSON', mimeType: 'application/json' }]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: 'notes://note/{id}', name: 'note', description: 'One note, as Markdown', mimeType: 'text/markdown' }]);
  });

  it('resources/read: the static JSON resource', async () => {
    const { contents } = await client.readResource({ uri: 'notes://all' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'notes://all', mimeType: 'application/json' });
    const notes = JSON.parse((contents[0] as { text: string }).text) as Raw[];
    expect(notes.map((n) => n.title)).toEqual(['Welcome', 'Groceries']);
  });

  it('resources/read: the template, with a valid and an invalid id', async () => {
    const { contents } = await client.readResource({ uri: 'notes://note/1' });
    expect(contents).toEqual([{ uri: 'notes://note/1', mimeType: 'text/markdown', text: '# Welcome\n\nThis note was created when the server started.\n' }]);

    const error = await mcpErrorOf(client.readResource({ uri: 'notes://note/abc' }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('id must be a number');
    expect(error.data).toMatchObject({ uri: 'notes://note/abc' });
  });

  it('resources/read: an unknown URI is -32002 with the uri in data', async () => {
    const error = await mcpErrorOf(client.readResource({ uri: 'notes://nowhere' }));
    expect(error.code).toBe(-32002);
    expect(error.data).toEqual({ uri: 'notes://nowhere' });
  });

  it('prompts/list describes the arguments and whether they are required', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ name: 'summarize', description: 'Ask the model to summarise the notes' });
    expect(prompts[0].arguments).toEqual([
      { name: 'topic', description: 'Only notes about this topic', required: false },
      { name: 'style', description: 'brief or detailed', required: false },
    ]);
  });

  it('prompts/get: valid arguments, an invalid style, an unknown prompt', async () => {
    const result = await client.getPrompt({ name: 'summarize', arguments: { topic: 'welcome', style: 'detailed' } });
    expect(result.description).toBe('Ask the model to summarise the notes');
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: 'Summarise these notes about welcome (detailed):\n- Welcome: This note was created when the server started.',
        },
      },
    ]);

    const plain = await client.getPrompt({ name: 'summarize' });
    expect((plain.messages[0].content as { text: string }).text).toMatch(/^Summarise these notes \(brief\):\n- Welcome: .*\n- Groceries: milk, eggs$/);

    const badStyle = await mcpErrorOf(client.getPrompt({ name: 'summarize', arguments: { style: 'bogus' } }));
    expect(badStyle.code).toBe(-32602);
    expect(badStyle.message).toContain('style');

    const unknown = await mcpErrorOf(client.getPrompt({ name: 'no_such_prompt' }));
    expect(unknown.code).toBe(-32602);
  });

  it(`every message the server sent validates against the ${revision} schema`, () => {
    const schema = schemas.revisions.get(revision)!;
    expect(transport.received.length).toBeGreaterThan(20);
    const violations = transport.received.flatMap((message: JSONRPCMessage) => validateServerMessage(schema, message, transport.requestMethodById));
    if (violations.length > 0) console.error(`schema violations (${revision}):\n${violations.join('\n')}`);
    expect(violations).toEqual([]);
  });

  it('nothing but protocol on stdout; closing stdin ends the server with exit code 0', async () => {
    expect(transport.errors).toEqual([]);
    await client.close();
    await expect(transport.exited()).resolves.toEqual({ code: 0, signal: null });
    expect(transport.stderrText).toContain('Connect a client by having it spawn this process');
  });
});
