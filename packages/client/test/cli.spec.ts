/**
 * The `hermes-mcp` command, run as a user runs it (the built dist/cli.js in a child process)
 * against our everything example over stdio and the Fastify plugin over HTTP.
 */
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { splitCommandLine } from '../src/cli';

const root = path.join(__dirname, '../../..');
const cli = path.join(root, 'packages/client/dist/cli.js');
const everything = `"${process.execPath}" "${path.join(root, 'examples/everything/dist/main.js')}"`;

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
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

  it('prints the usage for --help and exits 0', () => {
    const { code, stderr } = run('--help');
    expect(code).toBe(0);
    expect(stderr).toMatch(/^usage: hermes-mcp <command>/);
  });

  it('exits 2 with the usage for a command line it cannot read', () => {
    for (const args of [
      [],
      ['tools'],
      ['tools', '--url', 'http://x', '--stdio', 'y'],
      ['call', 'x', '--args', '[1]', '--stdio', everything],
      ['frobnicate', '--stdio', 'node'],
      ['tools', '--bogus'],
    ]) {
      const { code, stderr } = run(...args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toContain('usage: hermes-mcp <command>');
    }
  });
});

describe('hermes-mcp over HTTP', () => {
  it('reads the list of an HTTP server, with headers', async () => {
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
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`;
      // spawnSync would block the event loop this server answers on: run the CLI asynchronously.
      const { execFile } = await import('node:child_process');
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [cli, 'tools', '--url', url, '--header', 'X-Trace: abc'], { encoding: 'utf8' }, (error, out) =>
          error ? reject(new Error(error.message)) : resolve(out),
        ),
      );
      expect((JSON.parse(stdout) as Array<{ name: string }>).map((t) => t.name)).toEqual(['one']);
      expect(seen).toBe('abc');
    } finally {
      await app.close();
    }
  });
});

describe('splitCommandLine', () => {
  it('splits on spaces and keeps quoted words whole', () => {
    expect(splitCommandLine(`node "my server.js" --name 'a b' c\\ d ""`)).toEqual(['node', 'my server.js', '--name', 'a b', 'c d', '']);
    expect(() => splitCommandLine('node "open')).toThrow(/unclosed/);
  });
});
