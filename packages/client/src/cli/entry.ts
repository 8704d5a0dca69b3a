/**
 * The user's entry file, as `hermes-mcp dev`, `inspect` and `run` start it: a .js file runs as it
 * is; a .ts file runs through SWC (swc-register.ts), which emits the decorator metadata Hermes
 * reads — tsx and esbuild do not. One place decides how an entry is started, so the three commands
 * start it alike.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** A command line of dev, inspect or run that cannot be read, or an entry that cannot be started: exit 2. */
export class EntryUsageError extends Error {}

/** An entry file, resolved, with what `node` needs to run it. */
export interface Entry {
  /** The absolute path of the file. */
  readonly file: string;
  /** The project it belongs to: the nearest folder above it with a package.json (what `dev` watches). */
  readonly root: string;
  /** Arguments of `node` before the file (the SWC hook for a .ts entry). */
  readonly nodeArgs: readonly string[];
  /** Environment of the process (where the SWC hook finds `@swc/core`). */
  readonly env: NodeJS.ProcessEnv;
}

const DIRECT = new Set(['.js', '.cjs', '.mjs']);
const TYPESCRIPT = new Set(['.ts', '.cts']);

/** How `file` is run, by its extension: by node as it is (`js`), through SWC (`ts`), or not at all (undefined). */
export function entryKind(file: string): 'js' | 'ts' | undefined {
  const extension = path.extname(file);
  return DIRECT.has(extension) ? 'js' : TYPESCRIPT.has(extension) ? 'ts' : undefined;
}

/**
 * Where `@swc/core` is for the .ts entry `file` (absolute): found from the entry's folder, its
 * project's, or this CLI's, as {@link resolveEntry} finds it each time the entry is started;
 * undefined where it cannot be found.
 */
export function swcFor(file: string): string | undefined {
  try {
    return require.resolve('@swc/core', { paths: [path.dirname(file), projectRoot(file), __dirname] });
  } catch {
    return undefined;
  }
}

/**
 * Resolves `operand` (relative to the working directory) into an {@link Entry}; throws an
 * {@link EntryUsageError} saying what is wrong — no file, an extension it cannot run, a .ts entry
 * without `@swc/core` installed — before anything is started.
 */
export function resolveEntry(operand: string | undefined, command: string): Entry {
  if (operand === undefined) throw new EntryUsageError(`${command} needs an entry file: hermes-mcp ${command} src/main.ts`);
  const file = path.resolve(operand);
  if (!existsSync(file) || !statSync(file).isFile()) throw new EntryUsageError(`${command}: no such file ${operand}`);
  const kind = entryKind(file);
  const root = projectRoot(file);
  if (kind === 'js') return { file, root, nodeArgs: [], env: process.env };
  if (kind === undefined) throw new EntryUsageError(`${command}: ${operand} is neither a .js nor a .ts file (.js, .cjs, .mjs, .ts, .cts)`);
  const swc = swcFor(file);
  if (swc === undefined)
    throw new EntryUsageError(`${command}: running a .ts entry needs @swc/core (it compiles with decorator metadata): npm i -D @swc/core — or build and give the .js file`);
  return { file, root, nodeArgs: ['--require', path.join(__dirname, 'swc-register.js')], env: { ...process.env, [SWC_PATH_ENV]: swc } };
}

/** The variable through which the parent tells the SWC hook where `@swc/core` is (resolved once, here). */
export const SWC_PATH_ENV = 'HERMES_MCP_SWC_PATH';

/** The nearest folder at or above `file`'s with a package.json; `file`'s own folder when there is none. */
function projectRoot(file: string): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.dirname(file);
  }
}

/**
 * Reads the arguments of dev, inspect or run: one operand (the entry) and the flags of `flags`
 * (`true`: takes a value). Throws an {@link EntryUsageError} for anything else.
 */
export function parseEntryArgs(argv: string[], command: string, flags: Readonly<Record<string, boolean>>): { operand?: string; flags: Map<string, string> } {
  const seen = new Map<string, string>();
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) operands.push(arg);
    else if (!(arg in flags)) throw new EntryUsageError(`${command}: unknown option ${arg} (it takes ${Object.keys(flags).join(', ') || 'none'})`);
    else if (!flags[arg]) seen.set(arg, '');
    else if (argv[i + 1] === undefined) throw new EntryUsageError(`${command}: ${arg} needs a value`);
    else seen.set(arg, argv[++i]);
  }
  if (operands.length > 1) throw new EntryUsageError(`${command} takes one entry file, not "${operands.join(' ')}"`);
  return { operand: operands[0], flags: seen };
}

/** Prints a usage error (or the usage, for --help) and returns the exit code. */
export function usage(error: unknown, text: string): number {
  if (!(error instanceof EntryUsageError)) throw error;
  process.stderr.write(`hermes-mcp: ${error.message}\n\n${text}\n`);
  return 2;
}

const RUN_USAGE = `usage: hermes-mcp run <entry>

Runs the server of <entry> (a .js file, or a .ts file compiled by SWC with decorator metadata)
on this terminal's stdin and stdout, as a host would spawn it.`;

/** `hermes-mcp run <entry>`: the entry on our stdio; resolves with its exit code. */
export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help')) return (process.stderr.write(`${RUN_USAGE}\n`), 0);
  let entry: Entry;
  try {
    entry = resolveEntry(parseEntryArgs(argv, 'run', {}).operand, 'run');
  } catch (error) {
    return usage(error, RUN_USAGE);
  }
  const child = spawn(process.execPath, [...entry.nodeArgs, entry.file], { stdio: 'inherit', env: entry.env });
  // The signals a host sends reach the server, which answers what is in flight before it ends.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}
