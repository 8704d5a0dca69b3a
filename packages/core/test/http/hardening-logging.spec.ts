/**
 * Hardening, defect 1: `ctx.log` on every transport and era. A tool, a resource, a prompt and a
 * middleware log one line at every level through `ctx.log`, with a real pino logger at `info` and
 * at `trace`; each answer must be a success (it used to be -32603 on HTTP sessions, where the
 * session's lazy child logger built lazy children of itself until the stack overflowed), and each
 * enabled level must produce exactly one line carrying the request's bindings (and the session's
 * on HTTP sessions). A tool that throws a plain Error answers `isError: true` and the error is
 * logged with its message.
 *
 * Transports: Streamable HTTP sessions (SDK v1 client), the 2024-11-05 HTTP+SSE transport (SDK v1
 * SSE client), stateless 2026-07-28 over HTTP (raw fetch) — on each HTTP adapter, on Fastify
 * through Fastify's own logger — and stdio in a spawned process, legacy and modern.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HardeningServer, LOG_LEVELS } from '../../../../test-support/fixtures/src/hardening.server';
import { LogLine, MODERN, MODERN_META, PINO_LEVELS, capturingLogger, logLinesOf, messagesOf, modernPost, spawnStdioFixture } from '../../../../test-support/hardening';
import { eventually } from '../../../../test-support/e2e';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

type Raw = Record<string, unknown>;

const WHERE = ['tool', 'resource', 'prompt', 'middleware'] as const;

/** The lines of `where` (tool, resource, …) at `level`. */
function linesOf(lines: LogLine[], where: string, level: string): LogLine[] {
  return lines.filter((l) => l.msg === `${where}-${level}`);
}

/**
 * Every enabled level logged exactly once per `where` and request method, none of the disabled
 * ones, each with the request's bindings and `extra` (the session's).
 */
function expectLogged(lines: LogLine[], threshold: string, extra: Raw): void {
  const methods: Record<string, string> = { tool: 'tools/call', resource: 'resources/read', prompt: 'prompts/get' };
  for (const where of WHERE) {
    for (const level of LOG_LEVELS) {
      const found = linesOf(lines, where, level);
      if (PINO_LEVELS[level] < PINO_LEVELS[threshold]) {
        expect({ where, level, found: found.length }).toEqual({ where, level, found: 0 });
        continue;
      }
      // The middleware runs around each of the three requests.
      const expected = where === 'middleware' ? 3 : 1;
      expect({ where, level, found: found.length }).toEqual({ where, level, found: expected });
      for (const line of found) {
        expect(line.level).toBe(PINO_LEVELS[level]);
        expect(line).toMatchObject({ where, requestId: expect.anything(), ...extra });
        if (where !== 'middleware') expect(line.method).toBe(methods[where]);
      }
    }
  }
}

/** Calls the three logging handlers and the failing tool through an SDK client; checks the answers. */
async function exercise(client: Client): Promise<void> {
  const tool = await client.callTool({ name: 'log_all', arguments: {} });
  expect(tool).toMatchObject({ content: [{ type: 'text', text: 'logged' }] });
  expect(tool.isError).toBeFalsy();
  const resource = await client.readResource({ uri: 'hardening://log' });
  expect(resource.contents).toMatchObject([{ uri: 'hardening://log', text: 'logged' }]);
  const prompt = await client.getPrompt({ name: 'log_prompt', arguments: {} });
  expect(prompt.messages).toMatchObject([{ role: 'user', content: { type: 'text', text: 'logged' } }]);
  const failed = await client.callTool({ name: 'fail', arguments: {} });
  expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool "fail" failed with an internal error.' }] });
  expect(JSON.stringify(failed)).not.toContain('internal detail');
}

/** The failing tool's error was logged at error, with its message and `extra` bindings. */
function expectFailureLogged(lines: LogLine[], extra: Raw): void {
  const logged = lines.filter((l) => l.level === 50 && JSON.stringify(l.err ?? {}).includes('boom: an internal detail'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ tool: 'fail', ...extra });
}

describe.each(ADAPTERS.flatMap((adapter) => ['info', 'trace'].map((level) => [adapter, level] as const)))('%s: ctx.log with a pino logger at %s', (adapter, level) => {
  let serving: Serving;
  let base: string;
  let lines: LogLine[];

  beforeAll(async () => {
    const captured = capturingLogger(level);
    lines = captured.lines;
    // On Fastify the plugin's sessions log through Fastify's logger (the app's logger defaults to it too).
    serving = await serveOn(adapter, HardeningServer, undefined, { logger: captured.logger, throughFastifyLogger: true });
    base = serving.url;
  });

  afterAll(async () => {
    await serving.close();
  });

  beforeEach(() => {
    lines.length = 0;
  });

  it('Streamable HTTP session (SDK v1 client): answers succeed, lines carry the session id', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(base));
    const client = new Client({ name: 'log-test', version: '1.0.0' });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    await exercise(client);
    await eventually('the failure to be logged', () => lines.some((l) => l.level === 50 && l.tool === 'fail'));
    expectLogged(lines, level, { sessionId, mcp: '/mcp' });
    expectFailureLogged(lines, { sessionId });
    await client.close();
  });

  it('HTTP+SSE session, 2024-11-05 (SDK v1 SSE client): answers succeed, lines carry the session id', async () => {
    const transport = new SSEClientTransport(new URL(`${base}/sse`));
    const client = new Client({ name: 'log-test', version: '1.0.0' });
    await client.connect(transport);
    await exercise(client);
    await eventually('the failure to be logged', () => lines.some((l) => l.level === 50 && l.tool === 'fail'));
    const sessionId = lines.find((l) => l.msg === 'tool-fatal')?.sessionId;
    expect(typeof sessionId).toBe('string');
    expectLogged(lines, level, { sessionId, mcp: '/mcp' });
    expectFailureLogged(lines, { sessionId });
    await client.close();
  });

  it('stateless 2026-07-28 requests: answers succeed, lines carry the request bindings', async () => {
    const calls: Array<[string, Raw]> = [
      ['tools/call', { name: 'log_all', arguments: {} }],
      ['resources/read', { uri: 'hardening://log' }],
      ['prompts/get', { name: 'log_prompt', arguments: {} }],
    ];
    for (const [i, [method, params]] of calls.entries()) {
      const response = await modernPost(base, i + 1, method, params);
      expect(response.status).toBe(200);
      const [answer] = await messagesOf(response);
      expect(answer).toMatchObject({ id: i + 1, result: { resultType: 'complete' } });
    }
    const failed = await messagesOf(await modernPost(base, 9, 'tools/call', { name: 'fail', arguments: {} }));
    expect(failed[0]).toMatchObject({ id: 9, result: { isError: true } });
    expectLogged(lines, level, {});
    expectFailureLogged(lines, {});
  });
});

describe.each(['info', 'trace'])('ctx.log on stdio (spawned process) at %s', (level) => {
  it.each(['2025-11-25', MODERN])('revision %s: answers succeed, every enabled level is logged once on stderr', async (revision) => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: level });
    try {
      const modern = revision === MODERN;
      if (!modern) await server.initialize(revision);
      const params = (p: Raw): Raw => (modern ? { ...p, _meta: MODERN_META } : p);
      const tool = await server.request(1, 'tools/call', params({ name: 'log_all', arguments: {} }));
      expect(tool).toMatchObject({ result: { content: [{ text: 'logged' }] } });
      const resource = await server.request(2, 'resources/read', params({ uri: 'hardening://log' }));
      expect(resource).toMatchObject({ result: { contents: [{ text: 'logged' }] } });
      const prompt = await server.request(3, 'prompts/get', params({ name: 'log_prompt', arguments: {} }));
      expect(prompt).toMatchObject({ result: { messages: [{ content: { text: 'logged' } }] } });
      const failed = await server.request(4, 'tools/call', params({ name: 'fail', arguments: {} }));
      expect(failed).toMatchObject({ result: { isError: true } });
      await eventually('the failure to be logged', () => logLinesOf(server.stderr).some((l) => l.level === 50 && l.tool === 'fail'));
      const lines = logLinesOf(server.stderr);
      expectLogged(lines, level, { name: 'hermes-mcp' });
      expectFailureLogged(lines, {});
      // Nothing but protocol on stdout.
      for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    } finally {
      await server.end();
    }
  });
});
