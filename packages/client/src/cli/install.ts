/**
 * `hermes-mcp install <host> <entry>` and `hermes-mcp uninstall <host> <name>`: adds (or removes)
 * a server's entry in an MCP host's config file, found in the table of hosts.ts. The file is
 * edited in place, not rewritten: only the entry's own text changes, and every other key, server,
 * comment and the indentation stay as they were (jsonc-parser, the parser VS Code reads these files
 * with, finds where). A file that does not parse is refused, never replaced; a server of the same
 * name is replaced only with --force.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Node, ParseError, findNodeAtLocation, parseTree, printParseErrorCode } from 'jsonc-parser';
import { HOSTS, Host, HostPlatform, currentPlatform } from './hosts';
import { entryKind, swcFor } from './entry';
import { SnapshotError, buildSnapshot, launcherCommand } from './snapshot';

/** A mistake in the command line: exit 2, with the usage. */
export class InstallUsageError extends Error {}

/** What cannot be done to the file (or entry) named: exit 1, nothing written. */
export class InstallError extends Error {}

/** An entry the host could not start (a .ts file with no @swc/core to compile it): exit 2, nothing written. */
export class UnrunnableEntryError extends Error {}

/** The usage of both commands, shown with a command line it cannot read. */
export const INSTALL_USAGE = `usage: hermes-mcp install <host> <entry> [--name <name>] [--env KEY=VALUE]… [--scope user|project] [--config <file>] [--force] [--dry-run]
       hermes-mcp uninstall <host> <name> [--scope user|project] [--config <file>] [--dry-run]

hosts: ${Object.entries(HOSTS)
  .map(([name, host]) => `${name} (${host.title})`)
  .join(', ')}

  <entry>          the server's built .js file (run with this node), or a .ts file (run with hermes-mcp run,
                   which needs @swc/core installed in the server's project)
  --name <name>    the server's name in the host (default: the nearest package.json's name, else the file's)
  --env KEY=VALUE  an environment variable for the server (repeatable)
  --scope          user (default): the user's file; project: the project file in this folder
  --config <file>  this file instead of the host's own
  --force          replace a server of the same name
  --no-snapshot    start the entry itself; by default a Hermes server's .js entry is started from a
                   startup snapshot of its libraries (hermes-mcp snapshot; needs esbuild and /bin/sh)
  --dry-run        print what would be written, write nothing`;

/** This CLI, to run a .ts entry with `hermes-mcp run` (dist/cli/install.js → dist/cli.js). */
const CLI = path.join(__dirname, '..', 'cli.js');

/** A server's name as hosts use it in tool names (`mcp__name__tool`, `mcp_name_tool`). */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** An environment variable's name, as a shell would take it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A command line of install or uninstall, read and checked whole before any file is touched. */
interface Request {
  command: 'install' | 'uninstall';
  hostName: string;
  host: Host;
  operand: string;
  name?: string;
  env: Record<string, string>;
  scope: 'user' | 'project';
  config?: string;
  force: boolean;
  dryRun: boolean;
  /** False with --no-snapshot: the host runs the entry itself, without a startup snapshot. */
  snapshot: boolean;
}

function parseRequest(argv: string[]): Request {
  const [command, ...rest] = argv as ['install' | 'uninstall', ...string[]];
  const positional: string[] = [];
  const request: Omit<Request, 'hostName' | 'host' | 'operand'> = { command, env: {}, scope: 'user', force: false, dryRun: false, snapshot: true };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = () => {
      const next = rest[++i];
      if (next === undefined) throw new InstallUsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--force' && command === 'install') request.force = true;
    else if (arg === '--dry-run') request.dryRun = true;
    else if (arg === '--no-snapshot' && command === 'install') request.snapshot = false;
    else if (arg === '--name' && command === 'install') request.name = value();
    else if (arg === '--config') request.config = value();
    else if (arg === '--scope') {
      const scope = value();
      if (scope !== 'user' && scope !== 'project') throw new InstallUsageError(`--scope ${scope}: user or project`);
      request.scope = scope;
    } else if (arg === '--env' && command === 'install') {
      const pair = value();
      const eq = pair.indexOf('=');
      const key = pair.slice(0, eq);
      if (eq < 0 || !ENV_NAME.test(key)) throw new InstallUsageError(`--env ${pair} is not KEY=VALUE (a KEY of letters, digits and _, not starting with a digit)`);
      request.env[key] = pair.slice(eq + 1);
    } else if (arg.startsWith('--')) throw new InstallUsageError(`${command} takes no option ${arg}`);
    else positional.push(arg);
  }
  const [hostName, operand, ...extra] = positional;
  const what = command === 'install' ? 'entry file' : 'server name';
  if (hostName === undefined) throw new InstallUsageError(`${command} needs a host: ${Object.keys(HOSTS).join(', ')}`);
  const host = Object.prototype.hasOwnProperty.call(HOSTS, hostName) ? HOSTS[hostName] : undefined;
  if (host === undefined) throw new InstallUsageError(`unknown host ${hostName}: ${Object.keys(HOSTS).join(', ')}`);
  if (operand === undefined) throw new InstallUsageError(`${command} ${hostName} needs the ${what}`);
  if (extra.length > 0) throw new InstallUsageError(`${command} takes one host and one ${what}, not also "${extra.join(' ')}"`);
  if (request.scope === 'project' && host.project === undefined) throw new InstallUsageError(`${host.title} has no project file: --scope user, or --config <file>`);
  return { ...request, hostName, host, operand };
}

/** The file to edit: --config, else the host's project file in this folder or the user's file. */
function configFile({ host, hostName, scope, config }: Request, where: HostPlatform): string {
  if (config !== undefined) return path.resolve(config);
  if (scope === 'project') return path.resolve(host.project!);
  const file = host.user(where);
  if (file === undefined)
    throw new InstallError(`${host.title} documents no config file on ${where.platform}: give the file with --config <file> (hermes-mcp install ${hostName} … --config <file>)`);
  return file;
}

/** The server's name by default: its nearest package.json's (without a scope), else the file's. */
function defaultName(entry: string): string {
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && name) return name.replace(/^@[^/]+\//, '');
    }
    if (path.dirname(dir) === dir) return path.basename(entry).replace(/\.[cm]?[jt]s$/, '');
  }
}

/**
 * The host's entry for the server. The command is the absolute path of the node running this
 * CLI, not `node`: hosts start servers with a PATH of their own (Claude Desktop's finds no
 * nvm-installed node). A .ts entry is run by this CLI's `run` (it transpiles with decorator
 * metadata), by its absolute path too: `npx hermes-mcp` would depend on the host's working folder.
 * The environment turns Node's compile cache on (`NODE_COMPILE_CACHE`, {@link compileCacheOf}):
 * a host starts the server many times a day, and each start then compiles only code that changed
 * (Node checks each file's hash, so a changed file is never served from the cache); `--env`
 * wins over it. With a `launcher` (a startup snapshot's, {@link snapshotLauncher}) the command is
 * `/bin/sh -c <program> …`: it starts the entry from the snapshot, or itself (and rebuilds the
 * snapshot) when the snapshot is stale or gone.
 */
function serverEntry(host: Host, entry: string, env: Record<string, string>, launcher?: { command: string; args: string[] }): Record<string, unknown> {
  const ts = entryKind(entry) === 'ts';
  return {
    ...(host.typed && { type: 'stdio' }),
    command: launcher?.command ?? process.execPath,
    args: launcher?.args ?? (ts ? [CLI, 'run', entry] : [entry]),
    env: { NODE_COMPILE_CACHE: compileCacheOf(entry), ...env },
  };
}

/**
 * The launcher of the startup snapshot of the server at `entry` (snapshot.ts), built now, when
 * the entry is a Hermes server's .js file on a POSIX system; undefined (the host starts the
 * entry itself) for anything else, and when it cannot be built — then stderr says why.
 */
function snapshotLauncher(entry: string, dryRun: boolean): { command: string; args: string[] } | undefined {
  if (entryKind(entry) !== 'js' || process.platform === 'win32' || !isHermesServer(entry)) return undefined;
  try {
    if (!dryRun) buildSnapshot(entry);
    return launcherCommand(entry);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    process.stderr.write(`hermes-mcp: no startup snapshot (${error.message}); the host starts ${path.basename(entry)} itself\n`);
    return undefined;
  }
}

/** Whether @hermes-mcp/core is found from the entry's folder (a snapshot holds it and its libraries). */
function isHermesServer(entry: string): boolean {
  try {
    createRequire(entry).resolve('@hermes-mcp/core');
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the compile cache of the server at `entry` is kept: `node_modules/.cache/node-compile-cache`
 * of its project (the nearest folder above it with a node_modules), as other tools keep their
 * caches, else Node's own default (`node-compile-cache` in the system's temporary folder).
 */
export function compileCacheOf(entry: string): string {
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules'))) return path.join(dir, 'node_modules', '.cache', 'node-compile-cache');
    if (path.dirname(dir) === dir) return path.join(tmpdir(), 'node-compile-cache');
  }
}

/**
 * Refuses an entry the host could not start, as `run` decides it (entry.ts): a file that is neither
 * .js nor .ts, and a .ts file where `@swc/core` cannot be found — from the entry's project or this
 * CLI's folder, where `hermes-mcp run` looks for it each time the host starts the server.
 */
function checkRunnable(file: string, operand: string, hostName: string): void {
  const kind = entryKind(file);
  if (kind === undefined) throw new InstallUsageError(`${operand} is neither a .js nor a .ts file (.js, .cjs, .mjs, .ts, .cts): the host runs the entry with node`);
  if (kind === 'ts' && swcFor(file) === undefined)
    throw new UnrunnableEntryError(
      `${operand} is TypeScript: the host would start it with hermes-mcp run, which compiles it with @swc/core, and @swc/core cannot be found from ${path.dirname(file)}. ` +
        `Install it in the server's project (npm install --save-dev @swc/core), or build the server and install its .js (hermes-mcp install ${hostName} dist/main.js). Nothing was written.`,
    );
}

/** The indentation unit and line end the file already has (two spaces and \n for a new one). */
function formattingOf(text: string): { unit: string; eol: string } {
  return { unit: /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** Line and column (from 1) of an offset, for an error a person can find in the file. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

/** One change to the text: `length` characters at `offset` replaced by `content`. */
type Edit = { offset: number; length: number; content: string };

/**
 * The edits of one property of an object node at `depth` (the root is 0): set to `value`, or
 * removed. Only the property's own text changes: its siblings, comments and spacing are never
 * rewritten (a formatter would reflow a sibling on the same line), so an uninstall after an
 * install gives back the file as it was.
 */
function propertyEdit(object: Node, name: string, value: unknown, depth: number, { unit, eol }: { unit: string; eol: string }): Edit {
  const pretty = (json: unknown) =>
    JSON.stringify(json, null, unit)
      .split('\n')
      .join(eol + unit.repeat(depth + 1));
  const properties = object.children ?? [];
  const index = properties.findIndex((property) => property.children?.[0]?.value === name);
  const property = properties[index];
  const end = (node: Node) => node.offset + node.length;
  if (value === undefined) {
    if (properties.length === 1) return { offset: object.offset + 1, length: object.length - 2, content: '' };
    // `, "name": …` after the previous property, or `"name": …, ` before the next one.
    if (index > 0) return { offset: end(properties[index - 1]), length: end(property) - end(properties[index - 1]), content: '' };
    return { offset: property.offset, length: properties[1].offset - property.offset, content: '' };
  }
  if (property) {
    const old = property.children![1];
    return { offset: old.offset, length: old.length, content: pretty(value) };
  }
  const added = `${eol}${unit.repeat(depth + 1)}${JSON.stringify(name)}: ${pretty(value)}`;
  if (properties.length > 0) return { offset: end(properties[properties.length - 1]), length: 0, content: `,${added}` };
  return { offset: object.offset + 1, length: object.length - 2, content: `${added}${eol}${unit.repeat(depth)}` };
}

/**
 * The file's new text with the server's entry set (or, with `entry` undefined, removed). Throws
 * InstallError, before anything is written, for a file that does not parse as the host reads it, a
 * root or server map that is not an object, a server of the same name without `force`, and a
 * server to remove that is not there.
 */
function editConfig(host: Host, file: string, text: string | undefined, name: string, entry: Record<string, unknown> | undefined, force: boolean): string {
  const fresh = text === undefined || text.trim() === '';
  const source = fresh ? '{}' : text;
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { disallowComments: !host.jsonc, allowTrailingComma: host.jsonc });
  if (errors.length > 0) {
    const [first] = errors;
    throw new InstallError(
      `${file} is not valid ${host.jsonc ? 'JSON with comments' : 'JSON'} (${printParseErrorCode(first.error)} at ${lineColumn(source, first.offset)}): nothing was written; fix the file (${host.title} cannot read it either), or name another with --config`,
    );
  }
  if (root?.type !== 'object') throw new InstallError(`${file} holds no JSON object: nothing was written`);
  const servers = findNodeAtLocation(root, [host.key]);
  if (servers !== undefined && servers.type !== 'object') throw new InstallError(`${file}: "${host.key}" is not an object: nothing was written`);
  const names = (servers?.children ?? []).map((property) => property.children![0].value as string);
  const taken = names.includes(name);
  if (entry !== undefined && taken && !force) throw new InstallError(`${file} already has a server named ${name}: --force replaces it, --name <name> adds this one beside it`);
  if (entry === undefined && !taken) throw new InstallError(`${file} has no server named ${name}${servers === undefined ? '' : ` (it has: ${names.join(', ') || 'none'})`}`);
  const formatting = formattingOf(fresh ? '' : source);
  const edit = servers === undefined ? propertyEdit(root, host.key, { [name]: entry }, 0, formatting) : propertyEdit(servers, name, entry, 1, formatting);
  const edited = source.slice(0, edit.offset) + edit.content + source.slice(edit.offset + edit.length);
  return fresh ? `${edited}${formatting.eol}` : edited;
}

/**
 * Writes beside the file, then renames over it: a reader (the host) never sees half a file. A
 * symbolic link (a config kept with one's dotfiles) is followed, so the link stays a link.
 */
function writeAtomically(link: string, text: string): void {
  const file = existsSync(link) ? realpathSync(link) : link;
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.hermes-mcp-${process.pid}.tmp`;
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, file);
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InstallError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Runs `install` or `uninstall` (argv from the command on); resolves with the exit code: 0 done
 * (JSON on stdout saying what was written, or with --dry-run what would be), 1 the file or entry
 * refused it (nothing written), 2 a command line it cannot read or an entry the host could not
 * start (nothing written).
 */
export function installMain(argv: string[], where: HostPlatform = currentPlatform()): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(`${INSTALL_USAGE}\n`);
    return 0;
  }
  try {
    const request = parseRequest(argv);
    const { host, hostName, command, operand } = request;
    let name = operand;
    let entry: Record<string, unknown> | undefined;
    if (command === 'install') {
      const file = path.resolve(operand);
      if (!existsSync(file) || !statSync(file).isFile()) throw new InstallError(`no file at ${file}: give the server's entry (its built .js, or a .ts file)`);
      checkRunnable(file, operand, hostName);
      name = request.name ?? defaultName(file);
      entry = serverEntry(host, file, request.env, request.snapshot ? snapshotLauncher(file, request.dryRun) : undefined);
    }
    if (!NAME.test(name)) throw new InstallUsageError(`the server name "${name}" is not 1 to 64 letters, digits, _, . or - (hosts put it in tool names): give one with --name`);
    const file = configFile(request, where);
    const text = editConfig(host, file, readIfThere(file), name, entry, request.force);
    if (!request.dryRun) writeAtomically(file, text);
    const result = { [command === 'install' ? 'installed' : 'uninstalled']: name, host: hostName, file, ...(entry && { entry }), ...(request.dryRun && { dryRun: true }) };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InstallUsageError) {
      process.stderr.write(`hermes-mcp: ${error.message}\n\n${INSTALL_USAGE}\n`);
      return 2;
    }
    if (error instanceof UnrunnableEntryError) {
      process.stderr.write(`hermes-mcp: ${error.message}\n`);
      return 2;
    }
    if (error instanceof InstallError) {
      process.stderr.write(`hermes-mcp: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
