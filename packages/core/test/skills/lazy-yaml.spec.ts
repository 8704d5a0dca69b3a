/**
 * A server without skills never loads `yaml` (a third of what loading core costs, which every
 * stdio server pays at start): it is required the first time a SKILL.md is parsed. Checked in a
 * fresh Node process on the built package, as a user's server loads it.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempTree } from '../../../../test-support/temp-tree';

const loadsYaml = (script: string): boolean =>
  execFileSync(process.execPath, ['-e', `${script}; process.stdout.write(String(Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(k))))`], {
    cwd: join(__dirname, '..', '..'),
    encoding: 'utf8',
  }) === 'true';

describe('yaml is loaded on first use', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempTree('hermes-lazy-yaml-', { 'greet/SKILL.md': '---\nname: greet\ndescription: Greets\n---\nSay hello.\n' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('not by loading core, nor by a server without skills', () => {
    const server = `require('reflect-metadata'); const core = require('@hermes-mcp/core');
      class S {}; Reflect.decorate([core.McpServer({ name: 's', version: '1' })], S);
      core.McpFactory.create(S, { logger: core.createLogger({ level: 'silent' }) })`;
    expect(loadsYaml(`require('@hermes-mcp/core')`)).toBe(false);
    expect(loadsYaml(server)).toBe(false);
  });

  it('by a server with skills, when it reads them', () => {
    const server = `require('reflect-metadata'); const core = require('@hermes-mcp/core');
      class S {}; Reflect.decorate([core.McpServer({ name: 's', version: '1', skills: ${JSON.stringify(dir)} })], S);
      core.McpFactory.create(S, { logger: core.createLogger({ level: 'silent' }) })`;
    expect(loadsYaml(server)).toBe(true);
  });
});
