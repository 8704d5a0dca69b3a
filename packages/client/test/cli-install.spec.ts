/**
 * `hermes-mcp install` and `uninstall`, run as a user runs them (the built dist/cli.js in a child
 * process) with HOME and XDG_CONFIG_HOME pointing at a temporary folder, so each host's own file is
 * written where the host reads it on this OS (Linux); the macOS and Windows paths are checked from
 * the table. Each host's expected shape is written out here, from its documentation (hosts.ts cites
 * it), not derived from the code under test.
 */
import * as path from 'node:path';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HOSTS } from '../src/cli/hosts';
import { compileCacheOf } from '../src/cli/install';

const root = path.join(__dirname, '../../..');
const cli = path.join(root, 'packages/client/dist/cli.js');
const everything = path.join(root, 'examples/everything/dist/main.js');

type Outcome = { code: number | null; stdout: string; stderr: string };

let home: string;

/** The environment an entry gets for the server at `file` (under home): Node's compile cache. */
const cacheOf = (file: string) => ({ NODE_COMPILE_CACHE: compileCacheOf(path.join(home, file)) });
beforeEach(() => (home = mkdtempSync(path.join(tmpdir(), 'hermes-install-'))));
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** The CLI with HOME (and XDG_CONFIG_HOME) in the temporary folder, run from `cwd` (default: a project folder in it). */
function run(args: string[], cwd = project()): Outcome {
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') };
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, env, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A project folder in the temporary home with a package.json and a built entry. */
function project(): string {
  const dir = path.join(home, 'weather');
  mkdirSync(path.join(dir, 'dist'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@acme/weather', version: '1.0.0' }));
  writeFileSync(path.join(dir, 'dist/main.js'), '');
  writeFileSync(path.join(dir, 'main.ts'), '');
  return dir;
}

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return text;
}

/**
 * Each host: its file on Linux, relative to the temporary home; the key of its server map; what a
 * stdio entry looks like there; and a file as a user might have it, with other settings and another
 * server, in the host's own style (comments where the host reads them).
 */
const CASES: Array<{ host: string; file: string; key: string; typed: boolean; before: string }> = [
  {
    host: 'claude-code',
    file: '.claude.json',
    key: 'mcpServers',
    typed: true,
    before:
      '{\n  "numStartups": 12,\n  "mcpServers": {\n    "other": {\n      "type": "stdio",\n      "command": "npx",\n      "args": ["-y", "other-server"]\n    }\n  },\n  "projects": {}\n}\n',
  },
  {
    host: 'cursor',
    file: '.cursor/mcp.json',
    key: 'mcpServers',
    typed: false,
    before: '{\n    "mcpServers": {\n        "other": { "command": "uvx", "args": ["other"] }\n    }\n}',
  },
  {
    host: 'vscode',
    file: 'xdg/Code/User/mcp.json',
    key: 'servers',
    typed: true,
    before: '{\n\t// my servers\n\t"servers": {\n\t\t"other": { "type": "http", "url": "https://example.com/mcp" },\n\t},\n\t"inputs": []\n}\n',
  },
  {
    host: 'gemini',
    file: '.gemini/settings.json',
    key: 'mcpServers',
    typed: false,
    before: '{\n  "theme": "GitHub",\n  // local tools\n  "mcpServers": {\n    "other": { "command": "node", "args": ["/opt/other.js"], "trust": true }\n  }\n}\n',
  },
];

describe('hermes-mcp install / uninstall', () => {
  it.each(CASES)(
    '$host: writes the entry in its documented file and shape, keeps the rest, and uninstall gives the file back byte for byte',
    ({ host, file, key, typed, before }) => {
      const config = path.join(home, file);
      write(config, before);
      const installed = run(['install', host, 'dist/main.js', '--env', 'API_KEY=k=1', '--env', 'EMPTY=']);
      expect(installed).toMatchObject({ code: 0, stderr: '' });
      const entry = {
        ...(typed && { type: 'stdio' }),
        command: process.execPath,
        args: [path.join(home, 'weather/dist/main.js')],
        env: { NODE_COMPILE_CACHE: compileCacheOf(path.join(home, 'weather/dist/main.js')), API_KEY: 'k=1', EMPTY: '' },
      };
      expect(JSON.parse(installed.stdout)).toEqual({ installed: 'weather', host, file: config, entry });
      const after = readFileSync(config, 'utf8');
      // The host's reading of the file: the new server beside the other one, every other key kept.
      const parse = (text: string) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1')) as Record<string, Record<string, unknown>>;
      const read = parse(after);
      expect(read[key]).toEqual({ ...parse(before)[key], weather: entry });
      expect({ ...read, [key]: undefined }).toEqual({ ...parse(before), [key]: undefined });
      // The text before the new entry is untouched (comments, indentation, the other server).
      expect(after.startsWith(before.slice(0, before.indexOf('"other"')))).toBe(true);
      const removed = run(['uninstall', host, 'weather']);
      expect(removed).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(removed.stdout)).toEqual({ uninstalled: 'weather', host, file: config });
      expect(readFileSync(config, 'utf8')).toBe(before);
    },
  );

  it('follows a symbolic link to the config file: the link stays a link, its target gets the entry', () => {
    const target = path.join(home, 'dotfiles/cursor-mcp.json');
    write(target, '{"mcpServers":{}}');
    mkdirSync(path.join(home, '.cursor'));
    symlinkSync(target, path.join(home, '.cursor/mcp.json'));
    expect(run(['install', 'cursor', 'dist/main.js']).code).toBe(0);
    expect(lstatSync(path.join(home, '.cursor/mcp.json')).isSymbolicLink()).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(target, 'utf8')).mcpServers)).toEqual(['weather']);
  });

  it('creates the file (and its folders) where there is none, in the host’s shape', () => {
    expect(run(['install', 'vscode', 'dist/main.js']).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(home, 'xdg/Code/User/mcp.json'), 'utf8'))).toEqual({
      servers: { weather: { type: 'stdio', command: process.execPath, args: [path.join(home, 'weather/dist/main.js')], env: cacheOf('weather/dist/main.js') } },
    });
    expect(run(['install', 'cursor', 'dist/main.js', '--name', 'wx']).code).toBe(0);
    const cursor = readFileSync(path.join(home, '.cursor/mcp.json'), 'utf8');
    expect(cursor).toBe(
      `{\n  "mcpServers": {\n    "wx": {\n      "command": ${JSON.stringify(process.execPath)},\n      "args": [\n        ${JSON.stringify(path.join(home, 'weather/dist/main.js'))}\n      ],\n      "env": {\n        "NODE_COMPILE_CACHE": ${JSON.stringify(compileCacheOf(path.join(home, 'weather/dist/main.js')))}\n      }\n    }\n  }\n}\n`,
    );
  });

  it('writes the project file with --scope project (.mcp.json for Claude Code, .vscode/mcp.json, .cursor/mcp.json, .gemini/settings.json)', () => {
    const dir = project();
    for (const [host, file, key] of [
      ['claude-code', '.mcp.json', 'mcpServers'],
      ['vscode', '.vscode/mcp.json', 'servers'],
      ['cursor', '.cursor/mcp.json', 'mcpServers'],
      ['gemini', '.gemini/settings.json', 'mcpServers'],
    ]) {
      expect({ host, ...run(['install', host, 'dist/main.js', '--scope', 'project'], dir) }).toMatchObject({ host, code: 0 });
      expect(Object.keys(JSON.parse(readFileSync(path.join(dir, file), 'utf8'))[key])).toEqual(['weather']);
    }
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);
  });

  it('refuses to replace a server of the same name without --force, and replaces it with --force', () => {
    const config = path.join(home, '.cursor/mcp.json');
    const before = write(config, '{"mcpServers":{"weather":{"command":"old"}}}');
    const refused = run(['install', 'cursor', 'dist/main.js']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`hermes-mcp: ${config} already has a server named weather: --force replaces it, --name <name> adds this one beside it\n`);
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect(run(['install', 'cursor', 'dist/main.js', '--force']).code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8')).mcpServers.weather.command).toBe(process.execPath);
  });

  it('refuses a file that is not valid JSON as the host reads it, and leaves it as it was', () => {
    for (const [host, file, text, said] of [
      ['cursor', '.cursor/mcp.json', '{\n  // mine\n  "mcpServers": {}\n}', 'is not valid JSON (InvalidCommentToken at line 2, column 3)'],
      ['claude-code', '.claude.json', '{"mcpServers": {},}', 'is not valid JSON (PropertyNameExpected at line 1, column 19)'],
      ['vscode', 'xdg/Code/User/mcp.json', '{ "servers": { ', 'is not valid JSON with comments (CloseBraceExpected at line 1, column 16)'],
      ['gemini', '.gemini/settings.json', '[]', 'holds no JSON object'],
      ['claude-code', '.claude.json', '{"mcpServers": []}', '"mcpServers" is not an object'],
    ]) {
      const config = path.join(home, file);
      write(config, text);
      const { code, stderr } = run(['install', host, 'dist/main.js']);
      expect({ host, text, code, stderr }).toEqual({ host, text, code: 1, stderr: expect.stringContaining(`hermes-mcp: ${config}`) });
      expect(stderr).toContain(said);
      expect(stderr).toContain('nothing was written');
      expect(readFileSync(config, 'utf8')).toBe(text);
    }
  });

  it('--dry-run prints the entry and the file, and writes nothing', () => {
    const { code, stdout } = run(['install', 'gemini', 'dist/main.js', '--dry-run']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      installed: 'weather',
      host: 'gemini',
      file: path.join(home, '.gemini/settings.json'),
      entry: { command: process.execPath, args: [path.join(home, 'weather/dist/main.js')], env: cacheOf('weather/dist/main.js') },
      dryRun: true,
    });
    expect(existsSync(path.join(home, '.gemini'))).toBe(false);
  });

  it("turns on Node's compile cache for the server: in its project's node_modules/.cache when it has one, else in the temporary folder; --env wins", () => {
    mkdirSync(path.join(home, 'weather/node_modules'), { recursive: true });
    try {
      const { stdout } = run(['install', 'gemini', 'dist/main.js', '--dry-run']);
      expect(JSON.parse(stdout).entry.env).toEqual({ NODE_COMPILE_CACHE: path.join(home, 'weather/node_modules/.cache/node-compile-cache') });
      const own = run(['install', 'gemini', 'dist/main.js', '--dry-run', '--env', 'NODE_COMPILE_CACHE=/elsewhere']);
      expect(JSON.parse(own.stdout).entry.env).toEqual({ NODE_COMPILE_CACHE: '/elsewhere' });
    } finally {
      rmSync(path.join(home, 'weather/node_modules'), { recursive: true, force: true });
    }
    expect(compileCacheOf('/nowhere/at/all/main.js')).toBe(path.join(tmpdir(), 'node-compile-cache'));
  });

  it('runs a .ts entry with this CLI’s run command, by absolute paths', () => {
    const { code, stdout } = run(['install', 'claude-code', 'main.ts', '--dry-run']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).entry).toEqual({ type: 'stdio', command: process.execPath, args: [cli, 'run', path.join(home, 'weather/main.ts')], env: cacheOf('weather/main.ts') });
  });

  it('refuses a .ts entry where @swc/core cannot be found, which the host could not start: exit 2, says what to do, writes nothing', () => {
    // The CLI as a project installs it (node_modules/@hermes-mcp/client), in a folder with no @swc/core above it.
    const elsewhere = path.join(home, 'no-swc');
    const installed = path.join(elsewhere, 'node_modules/@hermes-mcp/client');
    cpSync(path.join(root, 'packages/client/dist'), path.join(installed, 'dist'), { recursive: true });
    symlinkSync(path.join(root, 'packages/protocol'), path.join(elsewhere, 'node_modules/@hermes-mcp/protocol'), 'dir');
    symlinkSync(path.join(root, 'node_modules/jsonc-parser'), path.join(elsewhere, 'node_modules/jsonc-parser'), 'dir');
    symlinkSync(path.dirname(require.resolve('yaml/package.json', { paths: [path.join(root, 'packages/client')] })), path.join(elsewhere, 'node_modules/yaml'), 'dir');
    write(path.join(elsewhere, 'package.json'), JSON.stringify({ name: 'notes', version: '1.0.0' }));
    write(path.join(elsewhere, 'src/main.ts'), 'export {};\n');
    write(path.join(elsewhere, 'src/main.mts'), 'export {};\n');
    write(path.join(elsewhere, 'dist/main.js'), '');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') };
    const install = (...args: string[]): Outcome => {
      const result = spawnSync(process.execPath, [path.join(installed, 'dist/cli.js'), 'install', ...args], { cwd: elsewhere, env, encoding: 'utf8', timeout: 20_000 });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    for (const args of [
      ['claude-code', 'src/main.ts'],
      ['claude-code', 'src/main.ts', '--dry-run'],
    ]) {
      expect(install(...args)).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `hermes-mcp: src/main.ts is TypeScript: the host would start it with hermes-mcp run, which compiles it with @swc/core, and @swc/core cannot be found from ${path.join(elsewhere, 'src')}. ` +
          "Install it in the server's project (npm install --save-dev @swc/core), or build the server and install its .js (hermes-mcp install claude-code dist/main.js). Nothing was written.\n",
      });
      expect(existsSync(path.join(home, '.claude.json'))).toBe(false);
    }
    // An extension `run` does not start (.mts) is refused as well, with the usage.
    const mts = install('claude-code', 'src/main.mts');
    expect(mts).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('hermes-mcp: src/main.mts is neither a .js nor a .ts file (.js, .cjs, .mjs, .ts, .cts)') });
    expect(mts.stderr).toContain('usage: hermes-mcp install <host> <entry>');
    // The built .js of the same project installs.
    expect(install('claude-code', 'dist/main.js')).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(JSON.parse(readFileSync(path.join(home, '.claude.json'), 'utf8')).mcpServers)).toEqual(['notes']);
  });

  it('Claude Desktop: no documented file on Linux, so --config names it; the entry is plain mcpServers', () => {
    const refused = run(['install', 'claude-desktop', 'dist/main.js']);
    expect(refused).toMatchObject({
      code: 1,
      stderr: 'hermes-mcp: Claude Desktop documents no config file on linux: give the file with --config <file> (hermes-mcp install claude-desktop … --config <file>)\n',
    });
    const config = path.join(home, 'claude_desktop_config.json');
    write(config, '{\n  "globalShortcut": "Ctrl+Space"\n}\n');
    expect(run(['install', 'claude-desktop', 'dist/main.js', '--config', config]).code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      globalShortcut: 'Ctrl+Space',
      mcpServers: { weather: { command: process.execPath, args: [path.join(home, 'weather/dist/main.js')], env: cacheOf('weather/dist/main.js') } },
    });
  });

  it('finds each host’s user file where its documentation puts it on macOS and Windows', () => {
    const mac = { platform: 'darwin' as const, home: '/Users/ada', env: {} };
    const windows = { platform: 'win32' as const, home: 'C:\\Users\\ada', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' } };
    const linux = { platform: 'linux' as const, home: '/home/ada', env: {} };
    expect(Object.fromEntries(Object.entries(HOSTS).map(([name, host]) => [name, [host.user(mac), host.user(windows), host.user(linux)]]))).toEqual({
      'claude-desktop': [
        '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
        'C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
        undefined,
      ],
      'claude-code': ['/Users/ada/.claude.json', 'C:\\Users\\ada\\.claude.json', '/home/ada/.claude.json'],
      cursor: ['/Users/ada/.cursor/mcp.json', 'C:\\Users\\ada\\.cursor\\mcp.json', '/home/ada/.cursor/mcp.json'],
      vscode: ['/Users/ada/Library/Application Support/Code/User/mcp.json', 'C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json', '/home/ada/.config/Code/User/mcp.json'],
      gemini: ['/Users/ada/.gemini/settings.json', 'C:\\Users\\ada\\.gemini\\settings.json', '/home/ada/.gemini/settings.json'],
    });
  });

  it('refuses a command line it cannot read with exit 2 and the usage, and an uninstall of a server that is not there with exit 1', () => {
    for (const [args, said] of [
      [['install', 'zed', 'dist/main.js'], 'unknown host zed: claude-desktop, claude-code, cursor, vscode, gemini'],
      [['install', 'cursor'], 'install cursor needs the entry file'],
      [['install', 'cursor', 'dist/main.js', '--env', '1X=2'], '--env 1X=2 is not KEY=VALUE'],
      [['install', 'cursor', 'dist/main.js', '--name', 'a b'], 'the server name "a b" is not 1 to 64 letters'],
      [['install', 'claude-desktop', 'dist/main.js', '--scope', 'project'], 'Claude Desktop has no project file'],
      [['uninstall', 'cursor', 'weather', '--force'], 'uninstall takes no option --force'],
    ] as Array<[string[], string]>) {
      const { code, stderr } = run(args);
      expect({ args, code, said: stderr.split('\n')[0] }).toEqual({ args, code: 2, said: expect.stringContaining(said) });
      expect(stderr).toContain('usage: hermes-mcp install <host> <entry>');
    }
    expect(run(['install', '--help'])).toMatchObject({ code: 0, stdout: '', stderr: expect.stringContaining('usage: hermes-mcp install <host> <entry>') });
    expect(run(['install', 'cursor', 'dist/nope.js'])).toMatchObject({
      code: 1,
      stderr: `hermes-mcp: no file at ${path.join(home, 'weather/dist/nope.js')}: give the server's entry (its built .js, or a .ts file)\n`,
    });
    write(path.join(home, '.cursor/mcp.json'), '{"mcpServers":{"other":{}}}');
    expect(run(['uninstall', 'cursor', 'weather'])).toMatchObject({
      code: 1,
      stderr: `hermes-mcp: ${path.join(home, '.cursor/mcp.json')} has no server named weather (it has: other)\n`,
    });
  });

  it('writes a command the host can start: the official SDK client spawns the entry as written and lists its tools', async () => {
    expect(run(['install', 'claude-code', everything, '--env', 'HERMES_TEST=1']).code).toBe(0);
    const { command, args, env } = JSON.parse(readFileSync(path.join(home, '.claude.json'), 'utf8')).mcpServers['example-everything'];
    const client = new Client({ name: 'install-spec', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args, env: { ...env, PATH: '' }, stderr: 'ignore' }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
  });
});
