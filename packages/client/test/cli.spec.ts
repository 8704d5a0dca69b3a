/**
 * The `hermes-mcp` command, run as a user runs it (the built dist/cli.js in a child process)
 * against our everything example over stdio (2026-07-28 by default, a legacy session with
 * `--protocol`), the Fastify plugin over HTTP and the official SDK v2 server (2026-07-28); on a
 * real pseudo-terminal (util-linux `script`) where what it does depends on one.
 */
import * as path from 'node:path';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { createMcpHandler, McpServer as V2Server } from '@modelcontextprotocol/server';
import { DISPATCHED_COMMANDS, splitCommandLine } from '../src/cli';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { closeServers, serveFetch } from './fixtures/http-servers';
import { entryOf, skillsServer } from './fixtures/skills-server';

const root = path.join(__dirname, '../../..');
const cli = path.join(root, 'packages/client/dist/cli.js');
const everythingMain = path.join(root, 'examples/everything/dist/main.js');
const everything = `"${process.execPath}" "${everythingMain}"`;

type Outcome = { code: number | null; stdout: string; stderr: string };

function run(...args: string[]): Outcome {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** {@link run} without blocking the event loop (an HTTP server in this process answers the CLI). */
function runAsync(...args: string[]): Promise<Outcome> {
  return new Promise((resolve) =>
    execFile(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    ),
  );
}

const terminals: ChildProcess[] = [];
afterEach(() => {
  for (const child of terminals.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * The CLI on a real pseudo-terminal (`script -qec`): its stdin, stdout and stderr are a TTY, and
 * what it writes comes back merged, as a person sees it. `answer` waits (20 s at most) until the
 * screen shows a pattern after the last one waited for, then types a line.
 */
function onTerminal(...args: string[]): { answer(shown: RegExp, typed: string): Promise<void>; end(): Promise<{ code: number | null; screen: string }> } {
  if (spawnSync('script', ['--version']).status !== 0) throw new Error('these tests need `script` (util-linux; Debian: bsdutils) on PATH');
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const child = spawn('script', ['-qec', [process.execPath, cli, ...args].map(quote).join(' '), '/dev/null'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  terminals.push(child);
  let screen = '';
  let seen = 0;
  let changed: (() => void) | undefined;
  child.stdout.setEncoding('utf8').on('data', (text: string) => ((screen += text), changed?.()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => (resolve(code), changed?.())));
  return {
    async answer(shown, typed) {
      const bound = setTimeout(() => changed?.(), 20_000);
      const started = Date.now();
      try {
        for (let match = shown.exec(screen.slice(seen)); ; match = shown.exec(screen.slice(seen))) {
          if (match) {
            seen += match.index + match[0].length;
            break;
          }
          if (child.exitCode !== null || Date.now() - started >= 20_000) throw new Error(`the terminal never showed ${String(shown)}:\n${screen}`);
          await new Promise<void>((resolve) => (changed = resolve));
        }
      } finally {
        clearTimeout(bound);
      }
      child.stdin.write(typed);
    },
    async end() {
      child.stdin.end();
      return { code: await exited, screen };
    },
  };
}

/** A Hermes server with one tool on the Fastify plugin at 127.0.0.1: its URL, and what it saw of `X-Trace`. */
async function httpServer(): Promise<{ app: FastifyInstance; url: string; seen: () => string | undefined }> {
  @McpServer({ name: 'cli-http', version: '1.0.0' })
  class CliServer {
    @Tool({ description: 'One' }) one() {
      return 1;
    }
  }
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let seen: string | undefined;
  app.addHook('onRequest', async (request) => void (seen = request.headers['x-trace'] as string | undefined));
  await app.register(hermesMcp, { server: CliServer, path: '/mcp', appOptions: { logger: createLogger({ level: 'silent' }) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`, seen: () => seen };
}

describe('hermes-mcp over stdio', () => {
  it('lists tools as JSON', () => {
    const { code, stdout } = run('tools', '--stdio', everything);
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain('echo');
  });

  it('calls a tool with --args and prints its result', () => {
    const { code, stdout } = run('call', 'echo', '--args', '{"message":"hi there"}', '--stdio', everything, '--protocol', '2025-11-25');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ content: [{ type: 'text', text: 'hi there' }] });
  });

  it('says what the server is', () => {
    const { code, stdout } = run('info', '--stdio', everything);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', serverInfo: { name: 'hermes-everything' } });
  });

  it('exits 1 with the server’s error for an unknown tool', () => {
    const { code, stderr, stdout } = run('call', 'nope', '--stdio', everything);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    // The server’s own log lines (its stderr) come first.
    expect(stderr).toMatch(/^hermes-mcp: Invalid params: Unknown tool: nope \(-32602\)$/m);
  });

  it('exits 1 for a tool that answers with isError, and still prints the result', () => {
    const { code, stdout, stderr } = run('call', 'guarded', '--args', '{"token":"wrong"}', '--stdio', everything);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ isError: true, content: [{ type: 'text', text: 'access denied: wrong token' }] });
    expect(stderr).toMatch(/^hermes-mcp: the tool answered with an error \(isError\): access denied: wrong token$/m);
  });

  it('pings a 2026-07-28 server with server/discover (that revision has no ping), a legacy session with ping', () => {
    const modern = run('ping', '--stdio', everything);
    expect(modern.code).toBe(0);
    expect(JSON.parse(modern.stdout)).toEqual({ ok: true, protocolVersion: '2026-07-28', ms: expect.any(Number) });
    const legacy = run('ping', '--stdio', everything, '--protocol', '2025-11-25');
    expect(legacy.code).toBe(0);
    expect(JSON.parse(legacy.stdout)).toEqual({ ok: true, protocolVersion: '2025-11-25', ms: expect.any(Number) });
  });

  it('checks the whole command line before it spawns the server', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hermes-cli-'));
    try {
      const marker = path.join(dir, 'spawned');
      // The everything server, which first leaves a file behind: proof that it was started.
      const marking = `"${process.execPath}" -e "require('node:fs').writeFileSync('${marker}', ''); require('${everythingMain}')"`;
      expect(run('tools', '--stdio', marking).code).toBe(0);
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      for (const [args, said] of [
        [['call', 'echo', '--args', '[1]'], '--args must be a JSON object'],
        [['call', 'echo', '--args', '{nope'], '--args is not JSON'],
        [['call'], 'call needs a tool name'],
        [['prompt', 'greet', '--args', '{"n":1}'], '--args of a prompt are strings: "n" is not one'],
        [['tools', 'extra'], 'tools takes no operand, not also "extra"'],
        [['tools', '--args', '{}'], 'tools takes no --args'],
        [['tools', '--timeout', 'soon'], '--timeout soon is not a number of milliseconds above 0'],
        [['tools', '--protocol', '2030-01-01'], '--protocol 2030-01-01 is not a revision'],
      ] as Array<[string[], string]>) {
        const { code, stderr } = run(...args, '--stdio', marking);
        expect({ args, code, said: stderr.split('\n')[0] }).toEqual({ args, code: 2, said: expect.stringContaining(said) });
        expect({ args, spawned: existsSync(marker) }).toEqual({ args, spawned: false });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a terminal, says that the server asked a question it could not put, and exits 1', () => {
    for (const era of [[], ['--protocol', '2025-11-25']]) {
      const { code, stderr } = run('call', 'ask_name', '--stdio', everything, ...era);
      expect({ era, code }).toEqual({ era, code: 1 });
      expect(stderr).toMatch(/^hermes-mcp: Cannot use elicitation: .* \(-32021\)/m);
      expect(stderr).toMatch(/^hermes-mcp: the server asks a question: run hermes-mcp on a terminal to answer it$/m);
    }
  });

  it('shows no progress when stderr is not a terminal', () => {
    const { code, stderr } = run('call', 'slow', '--args', '{"steps":3,"delayMs":5}', '--stdio', everything);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/progress/);
  });

  it('on a terminal, asks the server’s question there (2026-07-28 input rounds) and sends the answer', async () => {
    const tty = onTerminal('call', 'ask_name', '--stdio', everything);
    await tty.answer(/The server asks: Please tell us about yourself\s+Answer\? \[Y\]es, \[n\]o \(decline\), \[c\]ancel: /, 'y\n');
    await tty.answer(/name — Your name \[string, required\]: /, '\n');
    await tty.answer(/name is required\s+name — Your name \[string, required\]: /, 'Ada\n');
    await tty.answer(/age — Your age \[integer, Enter to leave out\]: /, 'old\n');
    await tty.answer(/not an integer\s+age — Your age \[integer, Enter to leave out\]: /, '36\n');
    await tty.answer(/color — Favourite colour \[one of: red \(Red\), green \(Green\), blue \(Blue\), default "blue"\]: /, 'green\n');
    await tty.answer(/subscribe — Subscribe to news \[y\/n, default false\]: /, 'y\n');
    const { code, screen } = await tty.end();
    expect(code).toBe(0);
    expect(screen).toContain('"text": "Hello Ada (36), who likes green and news"');
  });

  it('on a terminal, a question declined there is declined to the server (a legacy session)', async () => {
    const tty = onTerminal('call', 'ask_name', '--stdio', everything, '--protocol', '2025-11-25');
    await tty.answer(/The server asks: Please tell us about yourself\s+Answer\? /, 'n\n');
    const { code, screen } = await tty.end();
    expect(code).toBe(0);
    expect(screen).toContain('"text": "no answer: decline"');
  });

  it('on a terminal, shows the progress of a call on stderr, and erases it before the result', async () => {
    const tty = onTerminal('call', 'slow', '--args', '{"steps":3,"delayMs":20}', '--stdio', everything);
    const { code, screen } = await tty.end();
    expect(code).toBe(0);
    for (const step of [1, 2, 3]) expect(screen).toContain(`\r\x1b[2Kprogress ${step}/3 (${Math.round((100 * step) / 3)}%) step ${step} of 3`);
    // The terminal turns each \n into \r\n.
    expect(screen).toContain('\r\x1b[2K{\r\n  "content"');
  });

  it('prints the usage for --help and exits 0', () => {
    const { code, stderr } = run('--help');
    expect(code).toBe(0);
    expect(stderr).toMatch(/^usage: hermes-mcp <command>/);
  });

  it('--help lists every command it dispatches, one line each (dev, inspect, run, install and uninstall too), and each answers its own --help', () => {
    const { code, stderr } = run('--help');
    expect(code).toBe(0);
    // The command lines: two spaces, then the command's name (options start with --, prose at the margin).
    const listed = stderr
      .slice(0, stderr.indexOf('\noptions'))
      .split('\n')
      .flatMap((line) => /^ {2}([a-z][a-z-]*)(?: |$)/.exec(line)?.[1] ?? []);
    expect(listed).toEqual(expect.arrayContaining(['call', 'dev', 'inspect', 'run', 'install', 'uninstall']));
    expect(listed).toEqual(DISPATCHED_COMMANDS); // each once, in the order dispatched
    for (const command of listed) {
      const own = run(command, '--help');
      expect({ command, code: own.code, said: own.stderr.split('\n')[0] }).toEqual({ command, code: 0, said: expect.stringMatching(/^usage: hermes-mcp /) });
    }
  });

  it('exits 2 with the usage for a command line it cannot read', () => {
    for (const args of [
      [],
      ['tools'],
      ['tools', '--url', 'http://x', '--stdio', 'y'],
      ['call', 'x', '--args', '[1]', '--stdio', everything],
      ['frobnicate', '--stdio', 'node'],
      ['toString', '--stdio', 'node'],
      ['tools', '--bogus'],
      ['skills', '--file', 'x', '--stdio', everything],
      ['skill-read', '--stdio', everything],
    ]) {
      const { code, stderr } = run(...args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toContain('usage: hermes-mcp <command>');
    }
  });
});

describe('hermes-mcp over HTTP', () => {
  it('reads the list of an HTTP server, with headers', async () => {
    const { app, url, seen } = await httpServer();
    try {
      const { code, stdout } = await runAsync('tools', '--url', url, '--header', 'X-Trace: abc');
      expect(code).toBe(0);
      expect((JSON.parse(stdout) as Array<{ name: string }>).map((t) => t.name)).toEqual(['one']);
      expect(seen()).toBe('abc');
    } finally {
      await app.close();
    }
  });

  it('pings a server that speaks 2026-07-28 with server/discover, and a legacy session with ping', async () => {
    const { app, url } = await httpServer();
    try {
      const modern = await runAsync('ping', '--url', url);
      expect({ code: modern.code, stderr: modern.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(modern.stdout)).toEqual({ ok: true, protocolVersion: '2026-07-28', ms: expect.any(Number) });
      const legacy = await runAsync('ping', '--url', url, '--protocol', '2025-11-25');
      expect(legacy.code).toBe(0);
      expect(JSON.parse(legacy.stdout)).toEqual({ ok: true, protocolVersion: '2025-11-25', ms: expect.any(Number) });
    } finally {
      await app.close();
    }
  });
});

describe('hermes-mcp and the official SDK v2 server (createMcpHandler, MCP 2026-07-28: no ping)', () => {
  it('pings it with server/discover, and exits 1 for its tool that answers with isError', async () => {
    const { server, origin } = await serveFetch(
      createMcpHandler(() => {
        const v2 = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
        v2.registerTool('fails', { description: 'Always fails' }, () => ({ isError: true, content: [{ type: 'text', text: 'no luck' }] }));
        return v2;
      }),
    );
    try {
      const ping = await runAsync('ping', '--url', `${origin}/mcp`);
      expect({ code: ping.code, stderr: ping.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(ping.stdout)).toEqual({ ok: true, protocolVersion: '2026-07-28', ms: expect.any(Number) });
      const failed = await runAsync('call', 'fails', '--url', `${origin}/mcp`);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no luck' }] });
      expect(failed.stderr).toBe('hermes-mcp: the tool answered with an error (isError): no luck\n');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('hermes-mcp and skills (the Skills extension, SEP-2640)', () => {
  const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract PDF text\n---\nRead references/FORMS.md.\n';

  it('lists, gets and reads skills of the official SDK v2 server, each file verified, and reads a skill directory', async () => {
    const catalog = await SkillsExtension.load(
      memorySkillFiles({ 'pdf-processing/SKILL.md': SKILL_MD, 'pdf-processing/references/FORMS.md': 'Fields.\n', 'pdf-processing/logo.png': new Uint8Array([0x89, 0xff]) }),
    );
    const { server, origin } = await serveFetch(
      createMcpHandler(() => {
        const v2 = new V2Server({ name: 'sdk-v2-skills', version: '2.0.0' });
        catalog.attach(v2);
        return v2;
      }),
    );
    const uri = 'skill://pdf-processing/SKILL.md';
    try {
      const skills = await runAsync('skills', '--url', `${origin}/mcp`);
      expect(skills.code).toBe(0);
      expect((JSON.parse(skills.stdout) as Array<{ uri: string }>).map((skill) => skill.uri)).toEqual([uri]);
      const skill = await runAsync('skill', uri, '--url', `${origin}/mcp`);
      expect(JSON.parse(skill.stdout)).toMatchObject({ uri, frontmatter: { name: 'pdf-processing', description: 'Extract PDF text' } });
      const manifest = await runAsync('skill-read', uri, '--url', `${origin}/mcp`, '--protocol', '2025-11-25');
      expect({ code: manifest.code, stderr: manifest.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(manifest.stdout)).toEqual({
        uri,
        mimeType: 'text/markdown',
        verified: true,
        text: SKILL_MD,
        frontmatter: { name: 'pdf-processing', description: 'Extract PDF text' },
      });
      const forms = await runAsync('skill-read', uri, '--file', 'references/FORMS.md', '--url', `${origin}/mcp`);
      expect(JSON.parse(forms.stdout)).toEqual({ uri: 'skill://pdf-processing/references/FORMS.md', mimeType: 'text/markdown', verified: true, text: 'Fields.\n' });
      const logo = await runAsync('skill-read', uri, '--file', 'logo.png', '--url', `${origin}/mcp`);
      expect(JSON.parse(logo.stdout)).toEqual({ uri: 'skill://pdf-processing/logo.png', mimeType: 'image/png', verified: true, base64: 'if8=' });
      const dir = await runAsync('skill-dir', 'skill://pdf-processing', '--url', `${origin}/mcp`);
      expect((JSON.parse(dir.stdout) as Array<{ uri: string; mimeType: string }>).map((child) => [child.uri, child.mimeType])).toEqual([
        [uri, 'text/markdown'],
        ['skill://pdf-processing/logo.png', 'image/png'],
        ['skill://pdf-processing/references', 'inode/directory'],
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('exits 1 for a file that fails verification, saying why, and for one the entry does not list, unsent', async () => {
    const uri = 'skill://pdf-processing/SKILL.md';
    const tampered = `${SKILL_MD}and more\n`;
    const served = await skillsServer('2026-07-28', {
      skills: [entryOf(uri, { name: 'pdf-processing', description: 'Extract PDF text' }, { [uri]: SKILL_MD })],
      files: new Map([[uri, tampered]]),
    });
    try {
      const sized = await runAsync('skill-read', uri, '--url', served.url);
      expect({ code: sized.code, stdout: sized.stdout }).toEqual({ code: 1, stdout: '' });
      expect(sized.stderr).toBe(
        `hermes-mcp: ${uri} failed verification (size): ${Buffer.byteLength(tampered)} bytes; the entry lists ${Buffer.byteLength(SKILL_MD)} (SKILL_VERIFICATION)\n`,
      );
      served.data.files.set(uri, SKILL_MD);
      const unlisted = await runAsync('skill-read', uri, '--file', 'secrets.md', '--url', served.url);
      expect(unlisted.code).toBe(1);
      expect(unlisted.stderr).toContain('skill://pdf-processing/secrets.md failed verification (unlisted)');
      expect(served.reads()).toEqual([uri, uri]);
    } finally {
      await closeServers([served.server]);
    }
  });
});

describe('hermes-mcp and a server it cannot reach', () => {
  it('exits 1, saying where it could not reach', async () => {
    const { app, url } = await httpServer();
    await app.close(); // nothing listens at its port now
    const { code, stdout, stderr } = await runAsync('tools', '--url', url);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toContain(`hermes-mcp: Could not reach ${url}`);
  });
});

describe('splitCommandLine', () => {
  it('splits on spaces and keeps quoted words whole', () => {
    expect(splitCommandLine(`node "my server.js" --name 'a b' c\\ d ""`)).toEqual(['node', 'my server.js', '--name', 'a b', 'c d', '']);
    expect(() => splitCommandLine('node "open')).toThrow(/unclosed/);
  });
});
