/**
 * A server bundled into one file (esbuild, as for a worker, a single-file deployment or a startup
 * snapshot) and run where no node_modules is: every fast path stays on — validator.js's tables are
 * the copy the bundle holds (there is no folder to resolve them from) — and it serves on stdio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';

const REPO = path.resolve(__dirname, '../../../..');

const SERVER = `
require('reflect-metadata');
const { IsAlpha, IsNumber } = require('class-validator');
const core = require('@hermes-mcp/core');
class Input {}
Reflect.decorate([IsAlpha('de-DE'), Reflect.metadata('design:type', String)], Input.prototype, 'word');
Reflect.decorate([IsNumber(), Reflect.metadata('design:type', Number)], Input.prototype, 'times');
class S { repeat(input) { return input.word.repeat(input.times); } }
Reflect.decorate([core.Tool({ description: 'Repeats a word' }), Reflect.metadata('design:paramtypes', [Input])], S.prototype, 'repeat', Object.getOwnPropertyDescriptor(S.prototype, 'repeat'));
Reflect.decorate([core.McpServer({ name: 'bundled', version: '1.0.0' })], S);
process.stderr.write('status:' + JSON.stringify(core.interopStatus().map(({ library, fast }) => [library, fast])) + '\\n');
void core.McpFactory.create(S).listen();
`;

it('a bundled server run away from node_modules keeps every fast path and serves', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hermes-bundled-'));
  try {
    const file = path.join(dir, 'server.js');
    const built = buildSync({ stdin: { contents: SERVER, resolveDir: REPO, loader: 'js' }, bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent' });
    writeFileSync(file, built.outputFiles[0].text);
    const lines = [
      { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { method: 'notifications/initialized' },
      { id: 2, method: 'tools/call', params: { name: 'repeat', arguments: { word: 'Größe', times: 2 } } },
    ].map((message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const run = spawnSync(process.execPath, [file], { cwd: dir, input: lines.join(''), encoding: 'utf8', env: { ...process.env, HERMES_LOG_LEVEL: 'warn' } });
    expect(run.status).toBe(0);
    expect(/status:(.*)/.exec(run.stderr)?.[1]).toBe(
      JSON.stringify([
        ['class-validator', true],
        ['class-transformer', true],
        ['class-validator-jsonschema', true],
        ['validator', true],
      ]),
    );
    expect(run.stderr).not.toContain('HERMES_INTEROP_FALLBACK');
    const answers = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { content: unknown } });
    expect(answers[1].result.content).toEqual([{ type: 'text', text: 'GrößeGröße' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
