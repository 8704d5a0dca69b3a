/**
 * `hermes-mcp snapshot <entry>`: a V8 startup snapshot of what a Hermes stdio server loads before
 * it can answer — reflect-metadata, class-validator, class-transformer, typedi,
 * @hermes-mcp/protocol and @hermes-mcp/core, loaded and self-checked — and a launcher that starts
 * the server from it. A host spawns a stdio server for every session; restored from the snapshot,
 * Node skips loading and compiling some 500 module files (docs/performance.md, the bench's start
 * section).
 *
 * What is in it, and what keeps it from being served stale:
 * - Only the libraries, bundled into one script by esbuild (a snapshot holds one script). The
 *   server's own code — the entry and everything it imports besides those packages — is read from
 *   disk at every start, so a change to it needs no rebuild.
 * - Restored, the snapshot first checks every file the bundle was made from (size and modification
 *   time) and that the entry still resolves each package to the same file; anything else, and the
 *   process starts again without the snapshot while a new one is built (snapshot-runtime.ts).
 * - A snapshot loads only in the Node binary that built it (another one refuses to start): the
 *   launcher, a shell script, starts the server without it when that binary changed after the
 *   snapshot was written (its status-change time is newer), and builds a new one.
 *
 * Files: `node_modules/.cache/hermes-mcp/snapshot/<name>-<hash>/` of the entry's project —
 * `snapshot.blob`, `start.sh` (the host's command), `build.js` (the script the blob was built from).
 * POSIX systems only (the launcher is `/bin/sh`); `hermes-mcp install` uses it when it can build
 * one and falls back to the plain entry otherwise.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import * as path from 'node:path';
import type { SnapshotConfig } from './snapshot-runtime';

/** The packages a snapshot holds, in the order they load; core is required, the others when the entry finds them. */
export const SNAPSHOT_PACKAGES = ['reflect-metadata', 'class-validator', 'class-transformer', 'typedi', '@hermes-mcp/protocol', '@hermes-mcp/core'] as const;

/** What the bundle leaves to be loaded from disk when first used: the logger (with its worker transports) and optional peers. */
const LEFT_OUT = ['pino', 'pino-*', 'thread-stream', '@opentelemetry/*', 'ws', 'fastify', '@fastify/*', 'redis', '@redis/*', 'jose'];

/** This CLI (dist/cli/snapshot.js → dist/cli.js): what rebuilds a stale snapshot. */
const CLI = path.join(__dirname, '..', 'cli.js');

/** Core's internal entry, bundled beside the packages for the runtime (not put in Node's module cache). */
const INTERNAL = '@hermes-mcp/core/internal';

/** The name esbuild gives the generated module that requires each package (not a file). */
const ENTRY_NAME = '<hermes-mcp snapshot entry>';

/** The usage of `hermes-mcp snapshot`. */
export const SNAPSHOT_USAGE = `usage: hermes-mcp snapshot <entry> [--quiet]

Builds a startup snapshot of the libraries the server at <entry> (its built .js) loads, and a
launcher that starts it from the snapshot: use that launcher as the host's command (hermes-mcp
install does). The server's own code is read from disk at every start; a snapshot whose libraries
or Node changed is not used, and is rebuilt. Needs esbuild (npm install --save-dev esbuild) and a
POSIX shell.

  --quiet   print nothing (the launcher's background rebuilds)`;

/** A snapshot that cannot be built: why, for the person who asked (the CLI prints it and exits 1, like install's errors). */
export class SnapshotError extends Error {}

/** The files of the snapshot of the server at `entry`. */
export interface SnapshotFiles {
  /** The folder that holds them. */
  folder: string;
  /** The V8 startup snapshot. */
  blob: string;
  /** The shell script a host runs: `/bin/sh <launcher> [args…]`. */
  launcher: string;
  /** The script the blob is built from. */
  script: string;
}

/**
 * Where the snapshot of the server at `entry` (an absolute path) is kept: under
 * `node_modules/.cache/hermes-mcp/snapshot` of the nearest folder above it with a node_modules,
 * one folder per entry and Node binary.
 */
export function snapshotFiles(entry: string, node: string = process.execPath): SnapshotFiles {
  let root = path.dirname(entry);
  while (!existsSync(path.join(root, 'node_modules')) && path.dirname(root) !== root) root = path.dirname(root);
  const hash = createHash('sha256').update(`${entry}\0${node}`).digest('hex').slice(0, 12);
  const folder = path.join(root, 'node_modules', '.cache', 'hermes-mcp', 'snapshot', `${path.basename(entry).replace(/\.[cm]?js$/, '')}-${hash}`);
  return { folder, blob: path.join(folder, 'snapshot.blob'), launcher: path.join(folder, 'start.sh'), script: path.join(folder, 'build.js') };
}

/** What a build did. */
export interface SnapshotBuilt extends SnapshotFiles {
  /** The server's entry (absolute). */
  entry: string;
  /** The packages it holds → the file each resolved to. */
  packages: Record<string, string>;
  /** Files bundled. */
  inputs: number;
  /** The blob's size, bytes. */
  bytes: number;
  /** How long the build took, ms. */
  ms: number;
}

/**
 * Builds the snapshot of the server at `entry` (a .js file) with the Node at `node`, and its
 * launcher. Throws a {@link SnapshotError} saying what is missing (esbuild, @hermes-mcp/core
 * from the entry's folder) or what Node refused.
 */
export function buildSnapshot(entry: string, node: string = process.execPath): SnapshotBuilt {
  const started = Date.now();
  entry = path.resolve(entry);
  if (!/\.[cm]?js$/.test(entry) || !existsSync(entry)) throw new SnapshotError(`${entry} is not a built .js file: a snapshot is made for the server's compiled entry`);
  if (process.platform === 'win32') throw new SnapshotError('a snapshot is started by a POSIX shell script, and this is Windows: install the plain entry');
  const fromEntry = createRequire(entry);
  const packages: Record<string, string> = {};
  for (const name of SNAPSHOT_PACKAGES) {
    try {
      packages[name] = fromEntry.resolve(name);
    } catch {
      if (name === '@hermes-mcp/core') throw new SnapshotError(`@hermes-mcp/core cannot be found from ${path.dirname(entry)}: a snapshot is made for a Hermes server`);
    }
  }
  const esbuild = loadEsbuild(entry);
  const files = snapshotFiles(entry, node);
  mkdirSync(files.folder, { recursive: true });

  // Core's internal entry too (the same modules as core's, in one bundle): the runtime tells its
  // schema cache what code the snapshot holds (useSnapshotCode).
  const source = `module.exports = {\n${[...Object.keys(packages), INTERNAL].map((name) => `  ${JSON.stringify(name)}: require(${JSON.stringify(name)}),`).join('\n')}\n};\n`;
  const result = bundle(esbuild, {
    stdin: { contents: source, resolveDir: path.dirname(entry), sourcefile: ENTRY_NAME, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: LEFT_OUT,
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  // Every file bundled, and the package.json of each package they came from (esbuild reads those
  // to resolve, and does not list them): a new version, or a patched file, makes the snapshot stale.
  const bundled = Object.keys(result.metafile!.inputs)
    .filter((input) => !input.startsWith('<stdin>') && path.basename(input) !== ENTRY_NAME)
    .map((input) => path.resolve(process.cwd(), input));
  const manifests = new Set<string>();
  const manifestOf = new Map<string, string | undefined>();
  for (const file of bundled) {
    const manifest = packageJsonOf(path.dirname(file), manifestOf);
    if (manifest !== undefined) manifests.add(manifest);
  }
  const inputs: SnapshotConfig['inputs'] = [...bundled, ...manifests].map((file) => {
    const { size, mtimeMs } = statSync(file);
    return [file, size, mtimeMs];
  });
  const code = createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 32);
  const config: SnapshotConfig = { libs: packages, inputs, code, resolved: buildTimeResolutions(packages), builtins: [...builtinModules], cli: CLI };
  const runtime = readFileSync(path.join(__dirname, 'snapshot-runtime.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, '');
  const script =
    `'use strict';\n` +
    `const { hermesSnapshot } = (function (module, exports) {\n${runtime}\nreturn module.exports;\n})(...((m) => [m, m.exports])({ exports: {} }));\n` +
    `hermesSnapshot(${JSON.stringify(config)}, function (require, module, exports, __filename, __dirname) {\n${result.outputFiles![0].text}\nreturn module.exports;\n}, require);\n`;
  // Each build writes files of its own and renames them into place: a host may start several
  // servers at once, each rebuilding a stale snapshot, and each start reads a whole blob.
  const partial = `${files.blob}.${process.pid}.tmp`;
  const partialScript = `${files.script}.${process.pid}.tmp`;
  writeFileSync(partialScript, script);
  const built = spawnSync(node, ['--snapshot-blob', partial, '--build-snapshot', partialScript], {
    cwd: files.folder,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  renameSync(partialScript, files.script);
  if (built.status !== 0 || !existsSync(partial)) {
    rmSync(partial, { force: true });
    throw new SnapshotError(
      `node --build-snapshot failed (${built.error?.message ?? `exit ${built.status ?? built.signal}`}): ${(built.stderr || '').trim().split('\n').slice(-5).join(' | ')}`,
    );
  }
  renameSync(partial, files.blob);
  // Renamed into place too: a start by hand (`/bin/sh start.sh`) while a background rebuild
  // rewrote the script in place could read it cut short, and exit at once.
  const partialLauncher = `${files.launcher}.${process.pid}.tmp`;
  writeFileSync(partialLauncher, launcherScript(node, entry, files.blob, config.cli));
  chmodSync(partialLauncher, 0o755);
  renameSync(partialLauncher, files.launcher);
  return { ...files, entry, packages, inputs: inputs.length, bytes: statSync(files.blob).size, ms: Date.now() - started };
}

/** The package.json nearest above `dir` (the package a bundled file belongs to), remembered per folder. */
function packageJsonOf(dir: string, known: Map<string, string | undefined>): string | undefined {
  if (known.has(dir)) return known.get(dir);
  const here = path.join(dir, 'package.json');
  const found = existsSync(here) ? here : path.dirname(dir) === dir || path.basename(dir) === 'node_modules' ? undefined : packageJsonOf(path.dirname(dir), known);
  known.set(dir, found);
  return found;
}

/**
 * The ids the libraries resolve while the snapshot is built (core's self-checks find each
 * library's package.json; its validator.js check finds class-validator): resolved now, from where
 * each is asked.
 */
function buildTimeResolutions(packages: Record<string, string>): Record<string, string> {
  const resolved: Record<string, string> = {};
  const core = packages['@hermes-mcp/core'];
  const validator = packages['class-validator'];
  const from = [core, validator].filter((file): file is string => file !== undefined).map((file) => createRequire(file));
  const ids = ['class-validator', 'class-validator/package.json', 'class-transformer/package.json', 'class-validator-jsonschema/package.json', 'validator/package.json'];
  for (const id of ids)
    for (const require of from) {
      try {
        resolved[id] ??= require.resolve(id);
      } catch {
        // not installed: the self-check says so
      }
    }
  return resolved;
}

/**
 * The launcher's program, for `/bin/sh -c`: its arguments are the node, the entry, the blob and
 * this CLI, then the server's own. The snapshot when the Node that built it is unchanged, else a
 * plain start and a rebuild in the background.
 */
const LAUNCHER = `node=$1 entry=$2 blob=$3 cli=$4; shift 4
# A snapshot loads only in the Node that built it: when that binary changed since (its status changed
# after the snapshot was written), or this cannot be checked, start without it and build a new one.
# find is looked for in the system's folders too: hosts start servers with a PATH of their own.
PATH="\${PATH:+$PATH:}/usr/bin:/bin"
if [ -f "$blob" ] && newer=$(find "$node" -prune -cnewer "$blob" 2>/dev/null) && [ -z "$newer" ]; then
  exec "$node" --snapshot-blob "$blob" "$entry" "$@"
fi
"$node" "$cli" snapshot "$entry" --quiet </dev/null >/dev/null 2>&1 &
exec "$node" "$entry" "$@"`;

/**
 * The command a host runs to start the server at `entry` from its snapshot: `/bin/sh -c
 * <program> …`, the program in the command itself, so that a wiped cache (`npm ci` empties
 * node_modules) costs one plain start and a rebuild, never a command that no longer exists.
 */
export function launcherCommand(entry: string, node: string = process.execPath): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', LAUNCHER, 'hermes-mcp-snapshot', node, path.resolve(entry), snapshotFiles(path.resolve(entry), node).blob, CLI] };
}

/** The same program as a script file (`start.sh` beside the blob), to run by hand: `/bin/sh start.sh`. */
function launcherScript(node: string, entry: string, blob: string, cli: string): string {
  const q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh
# Written by hermes-mcp snapshot: starts ${path.basename(entry)} from its startup snapshot.
set -- ${q(node)} ${q(entry)} ${q(blob)} ${q(cli)} "$@"
${LAUNCHER}
`;
}

/** esbuild's build, its failure a {@link SnapshotError} with esbuild's first messages. */
function bundle(esbuild: Esbuild, options: Record<string, unknown>): ReturnType<Esbuild['buildSync']> {
  try {
    return esbuild.buildSync(options);
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location?: { file: string } | null }> }).errors;
    const said = errors?.length
      ? errors
          .slice(0, 3)
          .map((e) => `${e.location ? `${e.location.file}: ` : ''}${e.text}`)
          .join('; ')
      : String(error);
    throw new SnapshotError(`esbuild could not bundle the libraries: ${said}`);
  }
}

interface Esbuild {
  buildSync(options: Record<string, unknown>): { metafile?: { inputs: Record<string, unknown> }; outputFiles?: Array<{ text: string }> };
}

/** esbuild, from the entry's project or else from this CLI's. */
function loadEsbuild(entry: string): Esbuild {
  for (const from of [entry, __filename]) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(createRequire(from).resolve('esbuild')) as Esbuild;
    } catch {
      // next
    }
  }
  throw new SnapshotError(`esbuild cannot be found from ${path.dirname(entry)}: a snapshot bundles the libraries with it (npm install --save-dev esbuild)`);
}

/** Runs `hermes-mcp snapshot` (argv from the command on); resolves with the exit code. */
export function snapshotMain(argv: string[]): number {
  const args = argv.slice(1);
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(`${SNAPSHOT_USAGE}\n`);
    return 0;
  }
  const quiet = args.includes('--quiet');
  const positional = args.filter((arg) => arg !== '--quiet');
  const unknown = positional.find((arg) => arg.startsWith('-'));
  if (positional.length !== 1 || unknown !== undefined) {
    process.stderr.write(`hermes-mcp: ${unknown !== undefined ? `snapshot takes no option ${unknown}` : 'snapshot takes one entry'}\n\n${SNAPSHOT_USAGE}\n`);
    return 2;
  }
  try {
    const built = buildSnapshot(positional[0]);
    if (!quiet)
      process.stdout.write(
        `${JSON.stringify({ ...launcherCommand(built.entry), launcher: built.launcher, blob: built.blob, packages: Object.keys(built.packages), files: built.inputs, bytes: built.bytes, ms: built.ms }, null, 2)}\n`,
      );
    return 0;
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    if (!quiet) process.stderr.write(`hermes-mcp: ${error.message}\n`);
    return 1;
  }
}
