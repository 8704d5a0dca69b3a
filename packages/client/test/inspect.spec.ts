/**
 * `hermes-mcp inspect` and `run`, run as a user runs them (the built dist/cli.js in a child
 * process) on a temporary project with a .ts entry (SWC), on an entry that only exports its
 * server class, and on the quickstart example, built (.js) and as source (.ts).
 */
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { McpClient } from '../src/client';
import { StdioClientTransport } from '../src/stdio';
import { EntryProject, entryProject, serverSource } from './fixtures/entry-project';

const root = path.join(__dirname, '../../..');
const cli = path.join(__dirname, '../dist/cli.js');

function inspect(cwd: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  return inspectWith({}, cwd, ...args);
}

function inspectWith(env: Record<string, string>, cwd: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, 'inspect', ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let project: EntryProject;
beforeEach(() => (project = entryProject()));
afterEach(() => project.remove());

describe('hermes-mcp inspect', () => {
  it('prints the manifest of a .ts entry that calls listen() as JSON, without serving it', () => {
    const { code, stdout, stderr } = inspect(project.dir, 'src/main.ts');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const manifest = JSON.parse(stdout) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      serverInfo: { name: 'dev-fixture', version: '1.0.0' },
      capabilities: { tools: { listChanged: true } },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
      resources: [],
      resourceTemplates: [],
      prompts: [],
      warnings: [],
    });
    // The input class comes from decorator metadata (design:paramtypes), which SWC emitted.
    expect(manifest.tools).toEqual([
      expect.objectContaining({
        name: 'greet',
        description: 'Greets someone',
        inputSchema: expect.objectContaining({ properties: { name: { type: 'string' } }, required: ['name'] }),
      }),
      expect.objectContaining({ name: 'crash' }),
    ]);
  });

  it('gives the same manifest for the quickstart built by tsc (.js) and run from its source through SWC (.ts), with resources, templates, prompts and output schemas', () => {
    const built = inspect(root, 'examples/quickstart/dist/main.js');
    const source = inspect(root, 'examples/quickstart/src/main.ts');
    expect([built.code, source.code]).toEqual([0, 0]);
    expect(source.stdout).toBe(built.stdout);
    const manifest = JSON.parse(built.stdout) as { tools: Array<{ name: string; outputSchema?: unknown }>; resources: unknown[]; resourceTemplates: unknown[]; prompts: unknown[] };
    expect(manifest.tools.find((tool) => tool.name === 'add')?.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    expect([manifest.resources.length, manifest.resourceTemplates.length, manifest.prompts.length]).toEqual([1, 1, 1]);
  });

  it('prints Markdown with --markdown', () => {
    const { code, stdout } = inspect(root, 'examples/quickstart/dist/main.js', '--markdown');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^# hermes-quickstart 0\.1\.0\n/);
    expect(stdout).toContain('## Extensions\n\n- `io.modelcontextprotocol/tasks`');
    expect(stdout).toContain('## Tools (4)');
    expect(stdout).toMatch(/### `add`\n\nAdd two numbers\n\nInput schema:\n\n```json\n\{/);
    expect(stdout).toContain('Output schema:');
    expect(stdout).toContain('## Resources (1)\n\n| URI | name | MIME type | description |');
    expect(stdout).toContain('## Resource templates (1)');
    expect(stdout).toContain('## Prompts (1)');
  });

  it('--check exits 1 on a bootstrap warning (HERMES_SCHEMA_LOOSER), which the manifest lists; 0 without one', () => {
    expect(inspect(project.dir, 'src/main.ts', '--check').code).toBe(0);
    project.write(
      'src/server.ts',
      serverSource(`\n  @Tool() pay(input: CardInput) {\n    return input.card;\n  }\n`, 'IsCreditCard').replace(
        '@McpServer',
        'export class CardInput {\n  @IsCreditCard() card!: string;\n}\n\n@McpServer',
      ),
    );
    const { code, stdout, stderr } = inspect(project.dir, 'src/main.ts', '--check');
    expect(code).toBe(1);
    expect((JSON.parse(stdout) as { warnings: Array<{ code: string; message: string }> }).warnings).toEqual([
      { code: 'HERMES_SCHEMA_LOOSER', message: expect.stringContaining("CardInput.card @IsCreditCard(): a card number's Luhn checksum") as string },
    ]);
    expect(stderr).toContain('hermes-mcp inspect: HERMES_SCHEMA_LOOSER: the published schema accepts more than validation');
    expect(stderr).toContain('hermes-mcp inspect: --check: 1 bootstrap warning(s)');
    expect(inspect(project.dir, 'src/main.ts').code).toBe(0); // without --check, a warning is only shown
  });

  it('--check reports the same warning when the schemas are read back from the schema cache', () => {
    project.write(
      'src/server.ts',
      serverSource(`\n  @Tool() pay(input: CardInput) {\n    return input.card;\n  }\n`, 'IsCreditCard').replace(
        '@McpServer',
        'export class CardInput {\n  @IsCreditCard() card!: string;\n}\n\n@McpServer',
      ),
    );
    const env = { HERMES_SCHEMA_CACHE: path.join(project.dir, 'schema-cache') };
    const first = inspectWith(env, project.dir, 'src/main.ts', '--check');
    expect(readdirSync(path.join(project.dir, 'schema-cache', 'schemas'))).toHaveLength(1);
    const second = inspectWith(env, project.dir, 'src/main.ts', '--check');
    expect(first.code).toBe(1);
    expect(second.code).toBe(1);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect((JSON.parse(second.stdout) as { warnings: Array<{ code: string }> }).warnings.map((w) => w.code)).toEqual(['HERMES_SCHEMA_LOOSER']);
  });

  it('takes an entry that exports its @McpServer class and never listens', () => {
    project.write('src/exported.ts', "import 'reflect-metadata';\nexport { Greeter, DevServer } from './server';\n");
    const { code, stdout } = inspect(project.dir, 'src/exported.ts');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['greet', 'crash']);
  });

  it('an entry that prints on stdout while it loads: the manifest is still read', () => {
    project.write('src/noisy.ts', "process.stdout.write('loading\\n');\nrequire('./main');\n");
    const { code, stdout } = inspect(project.dir, 'src/noisy.ts');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { serverInfo: { name: string } }).serverInfo.name).toBe('dev-fixture');
  });

  it("an entry that does not compile: SWC's error, exit 1", () => {
    project.write('src/server.ts', serverSource('  @Tool() broken( {'));
    const { code, stdout, stderr } = inspect(project.dir, 'src/main.ts');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`hermes-mcp: SWC could not compile ${path.join(project.dir, 'src/server.ts')}:\n  x Expected`);
    expect(stderr).toContain(`hermes-mcp inspect: ${project.entry} did not load (exit code 1)`);
  });

  it('an entry that neither listens nor exports a server: says so, exit 1', () => {
    project.write('src/empty.ts', 'export const nothing = 1;\n');
    const { code, stderr } = inspect(project.dir, 'src/empty.ts');
    expect(code).toBe(1);
    expect(stderr).toContain('neither calls listen() nor exports an @McpServer class');
  });

  it('a .ts entry where @swc/core cannot be found: says to install it, exit 2', () => {
    // The CLI as a project installs it (node_modules/@hermes-mcp/client), in a folder with no @swc/core above it.
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'hermes-no-swc-'));
    try {
      cpSync(path.join(root, 'packages/client/dist'), path.join(elsewhere, 'node_modules/@hermes-mcp/client/dist'), { recursive: true });
      symlinkSync(path.join(root, 'packages/protocol'), path.join(elsewhere, 'node_modules/@hermes-mcp/protocol'), 'dir');
      // Its other dependencies, as npm installs them beside it (yaml: the client's own copy, its version).
      symlinkSync(path.join(root, 'node_modules/jsonc-parser'), path.join(elsewhere, 'node_modules/jsonc-parser'), 'dir');
      symlinkSync(path.dirname(require.resolve('yaml/package.json', { paths: [path.join(root, 'packages/client')] })), path.join(elsewhere, 'node_modules/yaml'), 'dir');
      writeFileSync(path.join(elsewhere, 'main.ts'), 'export {};\n');
      const result = spawnSync(process.execPath, [path.join(elsewhere, 'node_modules/@hermes-mcp/client/dist/cli.js'), 'inspect', 'main.ts'], {
        cwd: elsewhere,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('inspect: running a .ts entry needs @swc/core (it compiles with decorator metadata): npm i -D @swc/core');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it.each([
    [[], /inspect needs an entry file/],
    [['src/main.ts', '--json', '--markdown'], /inspect: give --json or --markdown, not both/],
    [['src/main.ts', '--yaml'], /inspect: unknown option --yaml \(it takes --json, --markdown, --check\)/],
  ])('a command line it cannot take: %j (exit 2)', (args, said) => {
    const { code, stderr } = inspect(project.dir, ...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(said);
  });
});

describe('hermes-mcp run', () => {
  it('serves a .ts entry on stdio, as a host spawns it', async () => {
    const client = new McpClient(new StdioClientTransport({ command: process.execPath, args: [cli, 'run', project.entry], onStderr: () => undefined }));
    try {
      await client.connect();
      const result = await client.callTool('greet', { name: 'ada' });
      expect(result.content).toEqual([{ type: 'text', text: 'hello ada' }]);
    } finally {
      await client.close();
    }
  });
});
