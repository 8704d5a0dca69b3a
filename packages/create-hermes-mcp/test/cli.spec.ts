/**
 * The command a newcomer runs first, and the first commands of the project it writes, in processes
 * of their own (the built cli, so `npx tsc -b` first, which `npm test` does):
 * - `--help` lists every option the command accepts;
 * - what it prints names the project once when the folder has the same name;
 * - `npm run dev` in a project that was never built builds it first, then serves (the official SDK
 *   client calls a tool through it).
 *
 * The project is written under `<repo>/.scratch` (git-ignored), so it resolves the workspace's
 * packages as an installed project would.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = path.resolve(__dirname, '../../..');
const CLI = path.resolve(__dirname, '../dist/cli.js');

const scratches: string[] = [];
afterAll(() => scratches.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A new folder under `<repo>/.scratch`, removed after the tests. */
function scratch(name: string): string {
  mkdirSync(path.join(REPO, '.scratch'), { recursive: true });
  const dir = mkdtempSync(path.join(REPO, '.scratch', `${name}-`));
  scratches.push(dir);
  return dir;
}

function cli(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
}

describe('create-hermes-mcp', () => {
  it('lists every option it accepts in --help', () => {
    const { status, stdout } = cli(['--help'], REPO);
    expect(status).toBe(0);
    for (const option of ['--name <package name>', '--hermes-core <spec>', '--hermes-testing <spec>', '--help']) expect(stdout).toContain(option);
  });

  it('refuses an unknown option, and an option without its value, saying which', () => {
    // In a folder of its own: a command that accepted them would scaffold a project there.
    const base = scratch('cli');
    expect(cli(['--hermes-fastify', 'x'], base)).toMatchObject({ status: 1, stderr: 'create-hermes-mcp: unknown option --hermes-fastify (see --help)\n' });
    expect(cli(['lib', '--name'], base)).toMatchObject({ status: 1, stderr: 'create-hermes-mcp: --name needs a value: --name <package name>\n' });
  });

  it('names the project once when its folder has the same name, and the folder when it differs', () => {
    const base = scratch('cli');
    expect(cli(['lib-a'], base).stdout).toMatch(/^Created lib-a \(\d+ files\)\.\n\nNext:\n {2}cd lib-a\n/);
    expect(cli(['lib-b', '--name', 'weather'], base).stdout).toMatch(/^Created weather in lib-b \(\d+ files\)\./);
  });
});

describe('npm run dev in a new project', () => {
  it('builds it first when it was never built, then serves it on stdio', async () => {
    const project = path.join(scratch('dev'), 'greeter');
    expect(cli([project], REPO).status).toBe(0);
    expect(existsSync(path.join(project, 'dist'))).toBe(false);
    const transport = new StdioClientTransport({ command: process.execPath, args: ['scripts/dev.mjs'], cwd: project, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'dev-spec', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('greet');
    } catch (error) {
      throw new Error(`${String(error)}; npm run dev said:\n${stderr}`, { cause: error });
    } finally {
      await client.close();
    }
  }, 180_000);
});
