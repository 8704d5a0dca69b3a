/**
 * A stdio server never loads `node:crypto` to start and answer (about 7 ms of a cold start,
 * docs/performance.md): sessions ids, cursors, request states, task ids, DPoP and skill digests
 * require it the first time they need it (`nodeCrypto()` of @hermes-mcp/protocol). Checked in a
 * fresh Node process started from a script file (`node -e` loads `node:crypto` itself), on the
 * built packages, as a host starts a server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CORE = join(__dirname, '..');

/** Runs `body` (a server on stdio) with `input` on its stdin; its stdout, and whether it loaded node:crypto. */
async function run(dir: string, body: string, input: string): Promise<{ stdout: string; crypto: boolean }> {
  const file = join(dir, `server-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(
    file,
    `const from = (name) => require(require.resolve(name, { paths: [${JSON.stringify(CORE)}] }));
     from('reflect-metadata');
     const { IsNumber } = from('class-validator');
     const core = from('@hermes-mcp/core');
     process.on('exit', () => process.stderr.write('crypto:' + process.moduleLoadList.includes('NativeModule crypto')));
     ${body}`,
  );
  const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  await new Promise((resolve) => child.once('close', resolve));
  const flag = /crypto:(true|false)/.exec(stderr);
  if (!flag) throw new Error(`no verdict from the server: ${stderr}`);
  return { stdout, crypto: flag[1] === 'true' };
}

const SERVER = `
  class AddInput {}
  Reflect.decorate([IsNumber(), Reflect.metadata('design:type', Number)], AddInput.prototype, 'a');
  Reflect.decorate([IsNumber(), Reflect.metadata('design:type', Number)], AddInput.prototype, 'b');
  class S { add(input) { return input.a + input.b; } }
  Reflect.decorate([core.Tool({ description: 'Adds' }), Reflect.metadata('design:paramtypes', [AddInput])], S.prototype, 'add', Object.getOwnPropertyDescriptor(S.prototype, 'add'));
  Reflect.decorate([core.McpServer({ name: 's', version: '1' })], S);
  void core.McpFactory.create(S, { logger: core.createLogger({ level: 'silent' }) }).listen();`;

const lines = (...messages: object[]) => messages.map((message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`).join('');
const INITIALIZE = { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('node:crypto is loaded on first use', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-lazy-crypto-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('not by a stdio server that starts, lists its tools and answers a call', async () => {
    const { stdout, crypto } = await run(
      dir,
      SERVER,
      lines(
        INITIALIZE,
        { method: 'notifications/initialized' },
        { id: 2, method: 'tools/list' },
        { id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      ),
    );
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(answers[2].result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(crypto).toBe(false);
  }, 30_000);

  it('by one that seals a cursor (its HMAC), when it does', async () => {
    const paged = SERVER.replace("logger: core.createLogger({ level: 'silent' })", "logger: core.createLogger({ level: 'silent' }), pageSize: 1");
    const withTwoTools = paged.replace(
      'class S { add(input) { return input.a + input.b; } }',
      "class S { add(input) { return input.a + input.b; } twice(input) { return 2 * input.a; } }\n  Reflect.decorate([core.Tool({ description: 'Twice' }), Reflect.metadata('design:paramtypes', [AddInput])], S.prototype, 'twice', Object.getOwnPropertyDescriptor(S.prototype, 'twice'));",
    );
    const { stdout, crypto } = await run(dir, withTwoTools, lines(INITIALIZE, { method: 'notifications/initialized' }, { id: 2, method: 'tools/list' }));
    const list = JSON.parse(stdout.trim().split('\n')[1]) as { result: { tools: unknown[]; nextCursor?: string } };
    expect(list.result.tools).toHaveLength(1);
    expect(typeof list.result.nextCursor).toBe('string');
    expect(crypto).toBe(true);
  }, 30_000);
});
