/**
 * The built quickstart server (dist/main.js) fed raw lines on stdin, without any SDK: garbage,
 * JSON that is not JSON-RPC, wrong params, batches, an oversized line. Each gets the JSON-RPC
 * error it deserves, the server keeps serving (a ping answers after each), stdout carries nothing
 * but JSON-RPC, and the process exits with code 0 when stdin ends.
 *
 * Needs the build (`npx tsc -b`), which `npm test` runs first.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER_MAIN = path.resolve(__dirname, '../dist/main.js');

const schemas = loadSchemas(['2025-03-26', '2025-11-25']);

type Message = Record<string, unknown>;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The server as a child process, spoken to in raw lines. */
class RawServer {
  /** Every line the server wrote to stdout, as written. */
  readonly lines: string[] = [];
  /** Everything it wrote to stderr. */
  stderr = '';
  /** The method of each request id written so far (`(none)` for a message with an id and no method). */
  readonly methodById = new Map<string | number, string>();
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly unread: unknown[] = [];
  private wake: Array<() => void> = [];
  private partial = '';
  private gone = false;

  constructor() {
    if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} does not exist: build first with \`npx tsc -b\``);
    this.child = spawn(process.execPath, [SERVER_MAIN], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => (this.stderr += text));
    this.child.stdout.on('data', (text: string) => {
      const parts = (this.partial + text).split('\n');
      this.partial = parts.pop()!;
      for (const line of parts) {
        this.lines.push(line);
        try {
          this.unread.push(JSON.parse(line));
        } catch {
          this.unread.push({ unparseable: line });
        }
      }
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (this.partial) this.lines.push(this.partial);
        this.gone = true;
        this.notify();
        resolve({ code, signal });
      });
    });
  }

  /** Writes one line (a newline is added). */
  writeLine(text: string): void {
    try {
      const value: unknown = JSON.parse(text);
      for (const m of Array.isArray(value) ? value : [value]) {
        if (isRecord(m) && isId(m.id)) this.methodById.set(m.id as string | number, typeof m.method === 'string' ? m.method : '(none)');
      }
    } catch {
      // not JSON: nothing to remember
    }
    this.child.stdin.write(text + '\n');
  }

  /** Writes one JSON value as a line. */
  send(value: unknown): void {
    this.writeLine(JSON.stringify(value));
  }

  /** The next unread message that satisfies `match` (messages before it stay unread). */
  async next(match: (m: Message) => boolean = () => true): Promise<Message> {
    for (;;) {
      const index = this.unread.findIndex((m) => isRecord(m) && match(m));
      if (index >= 0) return this.unread.splice(index, 1)[0] as Message;
      if (this.gone) throw new Error(`the server exited before answering; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }

  /** The next unread error response with `id: null`. */
  nextNullIdError(): Promise<Message> {
    return this.next((m) => m.id === null && 'error' in m);
  }

  /** Sends a request and resolves with its response. */
  request(id: string | number, method: string, params?: unknown): Promise<Message> {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.responseTo(id);
  }

  /** The response (result or error) carrying `id`. */
  responseTo(id: string | number): Promise<Message> {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m));
  }

  /** The next unread batch response (an array). */
  async nextBatch(): Promise<Message[]> {
    for (;;) {
      const index = this.unread.findIndex((m) => Array.isArray(m));
      if (index >= 0) return this.unread.splice(index, 1)[0] as Message[];
      if (this.gone) throw new Error(`the server exited before answering; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }

  /** Messages received and not consumed by a test. */
  get leftovers(): unknown[] {
    return [...this.unread];
  }

  /** Initializes the connection on `protocolVersion`. */
  async initialize(protocolVersion: string): Promise<Message> {
    const response = await this.request('init', 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'raw-lines', version: '1.0.0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  /** Ends stdin and resolves with how the process exited. */
  end(): Promise<Exit> {
    this.child.stdin.end();
    return this.exited;
  }

  /** Kills the process if a test left it running. */
  kill(): void {
    if (!this.gone) this.child.kill('SIGKILL');
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const resolve of wake) resolve();
  }
}

function isRecord(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** What is wrong with `value` as a JSON-RPC 2.0 message (or batch of them) a server sends; undefined when nothing. */
function jsonRpcProblem(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty array';
    return value.map(jsonRpcProblem).find((p) => p !== undefined);
  }
  if (!isRecord(value)) return 'not an object';
  if (value.jsonrpc !== '2.0') return 'no "jsonrpc": "2.0"';
  if (typeof value.method === 'string') return value.params === undefined || isRecord(value.params) ? undefined : 'params not an object';
  if ('result' in value) return isId(value.id) && isRecord(value.result) ? undefined : 'bad result response';
  if ('error' in value) {
    const error = value.error;
    if (!isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return 'bad error object';
    return value.id === null || isId(value.id) ? undefined : 'bad id';
  }
  return 'neither a request, a notification nor a response';
}

function expectError(response: Message, id: string | number | null, code: number): { code: number; message: string; data?: unknown } {
  expect(response).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  expect(response).not.toHaveProperty('result');
  return response.error as { code: number; message: string; data?: unknown };
}

/** Checks the server still answers: a ping with a fresh id gets an empty result. */
async function expectStillServing(server: RawServer, id: string): Promise<void> {
  await expect(server.request(id, 'ping')).resolves.toEqual({ jsonrpc: '2.0', id, result: {} });
}

/**
 * Validates every message the server sent against the revision's official schema, except the
 * error responses with `id: null` (unparseable or id-less input): JSON-RPC 2.0 requires that null,
 * while the MCP schemas allow only a string or integer id (2025-11-25 lets it be omitted), so
 * those are checked by {@link jsonRpcProblem} alone. Returns how many were left out.
 */
function expectSchemaValid(server: RawServer, revision: '2025-03-26' | '2025-11-25'): number {
  const schema = schemas.revisions.get(revision)!;
  const messages = server.lines.map((line) => JSON.parse(line) as unknown);
  const nullIdErrors = messages.filter((m) => isRecord(m) && m.id === null && 'error' in m);
  const violations = messages.filter((m) => !nullIdErrors.includes(m)).flatMap((m) => validateServerMessage(schema, m, server.methodById));
  if (violations.length > 0) console.error(`schema violations (${revision}):\n${violations.join('\n')}`);
  expect(violations).toEqual([]);
  return nullIdErrors.length;
}

function expectOnlyJsonRpcOnStdout(server: RawServer): void {
  expect(server.lines.length).toBeGreaterThan(0);
  const problems = server.lines.flatMap((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return [`line ${i + 1} is not JSON: ${line.slice(0, 200)}`];
    }
    const problem = jsonRpcProblem(value);
    return problem ? [`line ${i + 1}: ${problem}: ${line.slice(0, 200)}`] : [];
  });
  expect(problems).toEqual([]);
}

describe('quickstart over stdio: bad input on a 2025-11-25 connection', () => {
  let server: RawServer;

  beforeAll(() => {
    server = new RawServer();
  });

  afterAll(() => server?.kill());

  it('garbage is a -32700 parse error with id null', async () => {
    server.writeLine('not json');
    const error = expectError(await server.nextNullIdError(), null, -32700);
    expect(error.message).toMatch(/parse/i);
    server.writeLine('{"jsonrpc":"2.0","id":1,"method":');
    expectError(await server.nextNullIdError(), null, -32700);
    await expectStillServing(server, 'after-garbage');
  });

  it('JSON that is not JSON-RPC is a -32600 invalid request (id echoed when readable)', async () => {
    server.writeLine('{"hello":1}');
    expectError(await server.nextNullIdError(), null, -32600);
    await expectStillServing(server, 'after-object');

    server.writeLine('[1,2]');
    expectError(await server.nextNullIdError(), null, -32600);
    await expectStillServing(server, 'after-array');

    server.writeLine('"str"');
    expectError(await server.nextNullIdError(), null, -32600);
    await expectStillServing(server, 'after-string');

    server.writeLine('{"jsonrpc":"2.0","id":5}');
    expectError(await server.responseTo(5), 5, -32600);
    await expectStillServing(server, 'after-no-method');

    server.writeLine('{"jsonrpc":"1.0","id":"old","method":"ping"}');
    expectError(await server.responseTo('old'), 'old', -32600);
    await expectStillServing(server, 'after-old-version');
  });

  it('a request before initialize is -32600, ping is allowed', async () => {
    const error = expectError(await server.request('early', 'tools/list'), 'early', -32600);
    expect(error.message).toContain('initialize');
    await expectStillServing(server, 'before-init');
  });

  it('initialize negotiates 2025-11-25', async () => {
    const response = await server.initialize('2025-11-25');
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-11-25', serverInfo: { name: 'hermes-quickstart' } } });
    const tools = await server.request('tools', 'tools/list');
    expect((tools.result as { tools: unknown[] }).tools).toHaveLength(4);
  });

  it('a second initialize is refused', async () => {
    const response = await server.request('init-again', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw-lines', version: '1.0.0' },
    });
    expectError(response, 'init-again', -32600);
    await expectStillServing(server, 'after-init-again');
  });

  it('an unknown method is -32601', async () => {
    const error = expectError(await server.request('unknown', 'tools/explode', {}), 'unknown', -32601);
    expect(error.message).toContain('tools/explode');
    await expectStillServing(server, 'after-unknown');
  });

  it('params of the wrong type are -32602 (or -32600 when params is not an object)', async () => {
    expectError(await server.request('name-42', 'tools/call', { name: 42, arguments: {} }), 'name-42', -32602);
    await expectStillServing(server, 'after-name-42');

    expectError(await server.request('args-x', 'tools/call', { name: 'add', arguments: 'x' }), 'args-x', -32602);
    await expectStillServing(server, 'after-args-x');

    expectError(await server.request('args-array', 'tools/call', { name: 'add', arguments: [1, 2] }), 'args-array', -32602);
    await expectStillServing(server, 'after-args-array');

    expectError(await server.request('no-uri', 'resources/read', {}), 'no-uri', -32602);
    await expectStillServing(server, 'after-no-uri');

    expectError(await server.request('prompt-args', 'prompts/get', { name: 'summarize', arguments: 'x' }), 'prompt-args', -32602);
    await expectStillServing(server, 'after-prompt-args');

    expectError(await server.request('cursor', 'tools/list', { cursor: 'nope' }), 'cursor', -32602);
    await expectStillServing(server, 'after-cursor');

    expectError(await server.request('level', 'logging/setLevel', { level: 42 }), 'level', -32602);
    await expectStillServing(server, 'after-level');

    // JSON-RPC allows positional params; MCP does not: the envelope itself is wrong.
    server.writeLine('{"jsonrpc":"2.0","id":"positional","method":"tools/list","params":[1]}');
    expectError(await server.responseTo('positional'), 'positional', -32600);
    await expectStillServing(server, 'after-positional');
  });

  it('invalid tool arguments are a tool result with isError, naming the fields', async () => {
    const response = await server.request('bad-add', 'tools/call', { name: 'add', arguments: { a: 'one' } });
    const result = response.result as { isError?: boolean; content: Array<{ type: string; text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/\ba\b/);
    expect(result.content[0].text).toMatch(/\bb\b/);
  });

  it('a batch is -32600 on 2025-11-25, and none of it runs', async () => {
    server.send([
      { jsonrpc: '2.0', id: 'b1', method: 'ping' },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'add_note', arguments: { title: 'from a batch', body: '' } } },
    ]);
    const error = expectError(await server.nextNullIdError(), null, -32600);
    expect(error.message).toMatch(/batch/i);
    await expectStillServing(server, 'after-batch');
    const all = await server.request('read-all', 'resources/read', { uri: 'notes://all' });
    const text = (all.result as { contents: Array<{ text: string }> }).contents[0].text;
    expect((JSON.parse(text) as Array<{ title: string }>).map((n) => n.title)).toEqual(['Welcome']);
  });

  it('a 5 MB line is -32600 with id null, naming the limit', async () => {
    const pad = 'x'.repeat(5 * 1024 * 1024);
    server.writeLine(`{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"${pad}"}}`);
    const error = expectError(await server.nextNullIdError(), null, -32600);
    expect(error.message).toContain(String(4 * 1024 * 1024));
    expect(error.message).toMatch(/limit/);
    await expectStillServing(server, 'after-huge');
  });

  it('stdout carried only JSON-RPC, every message was answered as expected, stderr has the how-to', () => {
    expectOnlyJsonRpcOnStdout(server);
    expect(server.leftovers).toEqual([]);
    expect(server.stderr).toContain('Hermes quickstart: an MCP server on stdio');
    expect(server.stderr).toContain('Connect a client by having it spawn this process');
  });

  it('every other message validates against the 2025-11-25 schema', () => {
    // garbage ×2, {"hello":1}, [1,2], "str", the refused batch, the oversized line
    expect(expectSchemaValid(server, '2025-11-25')).toBe(7);
  });

  it('ending stdin ends the process with code 0', async () => {
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
  });
});

describe('quickstart over stdio: batches on a 2025-03-26 connection', () => {
  let server: RawServer;

  beforeAll(() => {
    server = new RawServer();
  });

  afterAll(() => server?.kill());

  it('negotiates 2025-03-26', async () => {
    const response = await server.initialize('2025-03-26');
    expect((response.result as { protocolVersion: string }).protocolVersion).toBe('2025-03-26');
  });

  it('a batch of 5 requests gets an array of 5 responses', async () => {
    server.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'notes://note/1' } },
      { jsonrpc: '2.0', id: 5, method: 'prompts/get', params: { name: 'summarize', arguments: { style: 'bogus' } } },
    ]);
    const batch = await server.nextBatch();
    expect(batch).toHaveLength(5);
    const byId = new Map(batch.map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect((byId.get(2)!.result as { tools: unknown[] }).tools).toHaveLength(4);
    expect(byId.get(3)!.result).toEqual({ content: [{ type: 'text', text: '{"sum":3}' }] });
    expect((byId.get(4)!.result as { contents: Array<{ uri: string }> }).contents[0].uri).toBe('notes://note/1');
    expectError(byId.get(5)!, 5, -32602);
    await expectStillServing(server, 'after-batch');
  });

  it('a batch with notifications and an invalid member answers only the requests', async () => {
    server.send([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing', reason: 'test' } },
      { jsonrpc: '2.0', id: 'ok', method: 'ping' },
      { jsonrpc: '2.0', id: 'broken' },
    ]);
    const batch = await server.nextBatch();
    expect(batch).toHaveLength(2);
    expect(batch.find((r) => r.id === 'ok')).toEqual({ jsonrpc: '2.0', id: 'ok', result: {} });
    expectError(
      batch.find((r) => r.id === 'broken')!,
      'broken',
      -32600,
    );
    await expectStillServing(server, 'after-mixed-batch');
  });

  it('stdout carried only JSON-RPC and ending stdin ends the process with code 0', async () => {
    await expect(server.end()).resolves.toEqual({ code: 0, signal: null });
    expectOnlyJsonRpcOnStdout(server);
    expect(server.leftovers).toEqual([]);
  });

  it('every message validates against the 2025-03-26 schema, batch responses included', () => {
    expect(expectSchemaValid(server, '2025-03-26')).toBe(0);
  });
});
