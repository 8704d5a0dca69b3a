/**
 * The command a newcomer runs first, and the first commands of the project it writes, in processes
 * of their own (the built cli, so `npx tsc -b` first, which `npm test` does):
 * - `--help` lists every option the command accepts;
 * - what it prints names the project once when the folder has the same name;
 * - the loop of the project it writes: `npm run dev` (`hermes-mcp dev src/main.ts`) serves a
 *   project never built (the official SDK client lists its tools through it); `npm run --silent
 *   inspect` writes the manifest its schema-snapshot test compares; on a build, `hermes-mcp call`
 *   with key=value and `hermes-mcp install`, as its README shows.
 *
 * The project is written under `<repo>/.scratch` (git-ignored), so it resolves the workspace's
 * packages as an installed project would.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    for (const option of ['--name <package name>', '--hermes-core <spec>', '--hermes-testing <spec>', '--hermes-client <spec>', '--help']) expect(stdout).toContain(option);
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

/** npm on this OS, run with a project's scripts (its node_modules/.bin, and the repository's, on PATH). */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The hermes-mcp command of the workspace's @hermes-mcp/client, as a project's devDependency gives it. */
const HERMES = path.join(REPO, 'packages/client/dist/cli.js');

/**
 * The environment of a project's npm scripts with `hermes-mcp` on PATH, as the project's
 * devDependency puts it in node_modules/.bin. The workspace's own bin link cannot stand in: npm
 * links a bin only if its file exists when it installs, and a fresh clone builds dist/ after.
 */
function withHermesOnPath(): NodeJS.ProcessEnv {
  const bin = scratch('bin');
  writeFileSync(path.join(bin, 'hermes-mcp'), `#!/bin/sh\nexec "${process.execPath}" "${HERMES}" "$@"\n`, { mode: 0o755 });
  return { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
}

describe('the loop of a new project (hermes-mcp dev, inspect)', () => {
  it('npm run dev serves src/main.ts on stdio, never built', async () => {
    const project = path.join(scratch('dev'), 'greeter');
    expect(cli([project], REPO).status).toBe(0);
    // --silent: npm would print its own lines on stdout, which is the protocol here.
    const transport = new StdioClientTransport({ command: NPM, args: ['run', '--silent', 'dev'], cwd: project, stderr: 'pipe', env: withHermesOnPath() as Record<string, string> });
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

  it('npm run --silent inspect writes the manifest its schema-snapshot test compares, and a changed schema fails that test', () => {
    const project = path.join(scratch('inspect'), 'greeter');
    expect(cli([project], REPO).status).toBe(0);
    const manifest = spawnSync(NPM, ['run', '--silent', 'inspect'], { cwd: project, encoding: 'utf8', env: withHermesOnPath() });
    expect({ status: manifest.status, stderr: manifest.stderr }).toMatchObject({ status: 0 });
    writeFileSync(path.join(project, 'test/manifest.json'), manifest.stdout);
    const jest = (env: Record<string, string>) =>
      spawnSync(process.execPath, [path.join(REPO, 'node_modules/jest/bin/jest.js'), 'test/manifest.spec.ts'], { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
    expect(jest({ CI: 'true' })).toMatchObject({ status: 0 });
    const server = path.join(project, 'src/server.ts');
    writeFileSync(server, readFileSync(server, 'utf8').replace('@ArrayMaxSize(20)', '@ArrayMaxSize(30)'));
    const changed = jest({ CI: 'true' });
    expect(changed.status).toBe(1);
    expect(changed.stderr).toContain('"maxItems": 30');
  }, 180_000);
});

describe('the loop of a new project, built (call key=value, install into a host)', () => {
  it('calls its tools with key=value and installs it into a host, as its README shows', async () => {
    const project = path.join(scratch('loop'), 'greeter');
    expect(cli([project], REPO).status).toBe(0);
    expect(spawnSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc')], { cwd: project, encoding: 'utf8' })).toMatchObject({ status: 0 });
    const call = (...args: string[]) => spawnSync(process.execPath, [HERMES, 'call', ...args, '--stdio', `"${process.execPath}" dist/main.js`], { cwd: project, encoding: 'utf8' });
    const one = call('greet', 'person.name=Ada', 'person.language=fr');
    expect({ status: one.status, text: JSON.parse(one.stdout).content[0].text }).toEqual({ status: 0, text: 'Bonjour, Ada!' });
    const all = call('greet_all', 'people=[{"name":"Ada"},{"name":"Alan"}]');
    expect({ status: all.status, text: JSON.parse(all.stdout).content[0].text }).toEqual({ status: 0, text: 'Hello, Ada!\nHello, Alan!' });
    const home = scratch('home');
    const install = spawnSync(process.execPath, [HERMES, 'install', 'cursor', 'dist/main.js'], { cwd: project, encoding: 'utf8', env: { ...process.env, HOME: home } });
    expect(install.status).toBe(0);
    expect(JSON.parse(readFileSync(path.join(home, '.cursor/mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        greeter: {
          // The server's startup snapshot through its launcher (install built it: esbuild is found).
          command: '/bin/sh',
          args: [
            '-c',
            expect.stringContaining('--snapshot-blob'),
            'hermes-mcp-snapshot',
            process.execPath,
            path.join(project, 'dist/main.js'),
            expect.stringMatching(/node_modules\/\.cache\/hermes-mcp\/snapshot\/main-[0-9a-f]{12}\/snapshot\.blob$/),
            HERMES,
          ],
          env: { NODE_COMPILE_CACHE: expect.stringMatching(/node_modules\/\.cache\/node-compile-cache$/) },
        },
      },
    });
    // The host's command starts the server, from another folder, as a host spawns it.
    const { command, args, env } = JSON.parse(readFileSync(path.join(home, '.cursor/mcp.json'), 'utf8')).mcpServers.greeter;
    const client = new Client({ name: 'scaffold-spec', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args, env, cwd: home, stderr: 'ignore' }));
    try {
      const greeting = await client.callTool({ name: 'greet', arguments: { person: { name: 'Ada' } } });
      expect((greeting.content as Array<{ text: string }>)[0].text).toBe('Hello, Ada!');
    } finally {
      await client.close();
    }
  }, 180_000);
});
