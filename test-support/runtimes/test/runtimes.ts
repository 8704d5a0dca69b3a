/**
 * The real runtimes the Web handler promises, installed from npm as devDependencies, each serving
 * the decorated notes server (../notes.server.ts) on 127.0.0.1 at a free port: `Bun.serve`,
 * `Deno.serve`, and workerd (Cloudflare's Workers runtime) serving an esbuild bundle. Used by the
 * specs beside this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { build, type Plugin } from 'esbuild';

const HERE = path.resolve(__dirname, '..');
const ROOT = path.resolve(HERE, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');

/** A runtime serving the notes server: its MCP URL and port, what it printed on stderr, and how to stop it. */
export interface Served {
  url: string;
  port: number;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Spawns `command`, resolving once `port(line)` finds the port in a line of `from` (stdout, or another pipe). */
async function serve(
  command: string,
  args: string[],
  options: { cwd: string; portIn?: 'stdout' | 3; port: (line: string) => number | undefined; cleanup?: () => void },
): Promise<Served> {
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const source = (options.portIn === 3 ? child.stdio[3] : child.stdout) as Readable;
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    source.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        const found = options.port(line);
        if (found !== undefined) resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill();
        await once(child, 'exit');
      }
      options.cleanup?.();
    },
  };
}

/** The port in the fixtures' `listening <port>` line. */
function listeningLine(line: string): number | undefined {
  const match = /^listening (\d+)$/.exec(line.trim());
  return match ? Number(match[1]) : undefined;
}

/** Bun runs the TypeScript as it is, with decorator metadata (test-support/runtimes/tsconfig.json). */
export function bun(): Promise<Served> {
  return serve(path.join(BIN, 'bun'), ['bun.ts'], { cwd: HERE, port: listeningLine });
}

/**
 * Deno runs the TypeScript from a project of its own, as a user's: a package.json, a deno.json
 * with the decorator flags, and node_modules (the repository's, linked).
 */
export function deno(): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hermes-deno-'));
  writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  writeFileSync(path.join(dir, 'deno.json'), JSON.stringify({ compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } }));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const file of ['notes.server.ts', 'websocket.ts', 'deno.ts']) copyFileSync(path.join(HERE, file), path.join(dir, file));
  return serve(path.join(BIN, 'deno'), ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', 'deno.ts'], {
    cwd: dir,
    port: listeningLine,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

/**
 * Node's built-in modules as a Workers bundle takes them: external (the runtime's `nodejs_compat`
 * provides them), and a CommonJS `require()` of one turned into an import, since an ES module
 * bundle has no `require` (wrangler does the same).
 */
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(build) {
    const names = new RegExp(`^(node:)?(${builtinModules.join('|').replace(/\//g, '\\/')})$`);
    build.onResolve({ filter: names }, (args) => {
      const name = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return args.kind === 'require-call' ? { path: name, namespace: 'required-builtin' } : { path: name, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, (args) => ({ contents: `import m from '${args.path}'; module.exports = m;`, resolveDir: HERE }));
  },
};

/** workerd serves the worker (../worker.ts) bundled as wrangler would: esbuild, the browser builds, ES modules. */
export async function workerd(): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hermes-workerd-'));
  await build({
    entryPoints: [path.join(HERE, 'worker.ts')],
    outfile: path.join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    tsconfig: path.join(HERE, 'tsconfig.json'),
    plugins: [nodeBuiltins],
    logLevel: 'error',
  });
  writeFileSync(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  // workerd tells the port it listens on as a JSON line on the control fd (3).
  return serve(path.join(BIN, 'workerd'), ['serve', 'config.capnp', '--control-fd=3'], {
    cwd: dir,
    portIn: 3,
    port: (line) => {
      if (!line.startsWith('{')) return undefined;
      const event = JSON.parse(line) as { event?: string; port?: number };
      return event.event === 'listen' ? event.port : undefined;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}
