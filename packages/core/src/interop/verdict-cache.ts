/**
 * The self-checks' verdicts, kept on disk so that a process does not run them again on code that
 * did not change. A self-check (status.ts) runs a library's fast paths beside its public API on the
 * canary classes: its verdict depends only on the code of that library and of Hermes, so it is
 * worked out once per installed copy, then read back at each start (~15–20 ms of every start,
 * most of it class-validator's).
 *
 * What a verdict is kept under, and checked against at each read:
 * - the library's version and every file of it that was loaded when the check passed (by
 *   `require`: the files its fast paths and its public API ran), by path, size and modification
 *   time — an upgrade, a reinstall or a file patched in place (patch-package) makes a new key;
 * - Hermes' own: core's version and the size and modification time of the module that checks;
 * - Node's major version.
 * One entry per library, Node major and checking module: two Nodes, or two installs of core,
 * beside one copy of a library each keep their own.
 * Only passes are kept: a library whose fast paths are off is checked again at each start, and
 * says why each time.
 *
 * Where: `node_modules/.cache/hermes-mcp/interop.json`, beside the libraries it describes (the
 * `node_modules` that holds the library), as other tools keep their caches; `HERMES_INTEROP_CACHE`
 * names another folder, or `off` turns the cache off. A folder that cannot be written (a read-only
 * install) leaves the checks to run each time, as they did before. What a process changes in
 * memory (a library patched at run time) is not seen here: turn the cache off for that.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** The cache file's shape. */
interface CacheFile {
  readonly format: 2;
  /** By {@link entryOf}: a library as one Hermes checker on one Node major checks it. */
  readonly verdicts: Record<string, { readonly key: string; readonly files: string[] }>;
}

const FILE = 'interop.json';

/**
 * The verdict of `check` for `library` (undefined: its fast paths pass), from the cache when the
 * code it was worked out on is still the code installed, else by running `check` (and keeping a
 * pass). `root` is the library's folder (where its package.json is), `checker` the module that
 * checks it (its `__filename`).
 */
export function cachedVerdict(library: string, root: string | undefined, checker: string | undefined, check: () => string | undefined): string | undefined {
  // No module path (a bundle for a worker) or no CommonJS cache: nothing to key a verdict by.
  if (root === undefined || checker === undefined || typeof require === 'undefined' || !require.cache) return check();
  const folder = cacheFolder(root);
  if (folder === undefined) return check();
  const file = path.join(folder, FILE);
  const entry = entryOf(library, checker);
  const kept = read(file)?.verdicts[entry];
  if (kept !== undefined && kept.key === keyOf(checker, root, kept.files)) return undefined;
  const verdict = check();
  if (verdict === undefined) keep(file, entry, checker, root);
  return verdict;
}

/**
 * Where a verdict is kept in the file: one entry per library, Node major and checking module. Two
 * Nodes (or two installs of core) starting servers beside one copy of the library each keep their
 * own verdict: under one entry, each start after the other's found a key not its own, checked
 * again (~25–50 ms) and wrote over it.
 */
function entryOf(library: string, checker: string): string {
  return `${library} node${process.versions.node.split('.')[0]} ${checker}`;
}

/** The folder the verdicts of the library at `root` are kept in, or undefined when the cache is off. */
function cacheFolder(root: string): string | undefined {
  return cacheFolderOf(root, process.env.HERMES_INTEROP_CACHE);
}

/**
 * Where Hermes keeps what it worked out about the code installed beside the library at `root`:
 * `named` (an environment variable's value) when it names a folder, nothing when it is `off`, else
 * `.cache/hermes-mcp` in the node_modules that holds the library. @internal
 */
export function cacheFolderOf(root: string, named: string | undefined): string | undefined {
  if (named === 'off' || named === '0' || named === 'false') return undefined;
  if (named) return path.resolve(named);
  // The node_modules that holds the library (a scoped one sits one level deeper).
  let modules = path.dirname(root);
  if (path.basename(modules).startsWith('@')) modules = path.dirname(modules);
  return path.basename(modules) === 'node_modules' ? path.join(modules, '.cache', 'hermes-mcp') : undefined;
}

/** The key of a verdict: Hermes' checker, Node's major, and each of `files` (relative to `root`) as it is now. */
function keyOf(checker: string, root: string, files: readonly string[]): string {
  return JSON.stringify([coreVersion(), process.versions.node.split('.')[0], stamp(checker), ...filesKey(root, files)]);
}

/**
 * Each of `files` (relative to `root`) and its size and modification time now, or null for one
 * that is gone: what says the code is still the code a cache entry was worked out on. @internal
 */
export function filesKey(root: string, files: readonly string[]): unknown[] {
  const parts: unknown[] = [];
  for (const file of files) parts.push(file, stamp(path.join(root, file)));
  return parts;
}

/** The files under `root` that are loaded now (relative to it, sorted), `package.json` first. @internal */
export function loadedFiles(root: string): string[] {
  const prefix = root + path.sep;
  const files = Object.keys(require.cache)
    .filter((loaded) => loaded.startsWith(prefix))
    .map((loaded) => loaded.slice(prefix.length))
    .sort();
  return ['package.json', ...files.filter((file) => file !== 'package.json')];
}

/** Each file's stamp, read once a process (the interop verdicts and the schema cache stamp the same library files). */
const stamps = new Map<string, [number, number] | null>();

/** A file's size and modification time, or null when it is gone. */
function stamp(file: string): [number, number] | null {
  let found = stamps.get(file);
  if (found === undefined) {
    try {
      const { size, mtimeMs } = statSync(file);
      found = [size, mtimeMs];
    } catch {
      found = null;
    }
    stamps.set(file, found);
  }
  return found;
}

function read(file: string): CacheFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>;
    return parsed.format === 2 && typeof parsed.verdicts === 'object' && parsed.verdicts !== null ? (parsed as CacheFile) : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a pass as `entry`, keyed by the files of the library at `root` loaded now; whatever fails is left (the check runs again next time). */
function keep(file: string, entry: string, checker: string, root: string): void {
  try {
    const files = loadedFiles(root);
    const verdicts = { ...read(file)?.verdicts, [entry]: { key: keyOf(checker, root, files), files } };
    mkdirSync(path.dirname(file), { recursive: true });
    // Written whole, then renamed: a process that reads it meanwhile sees the old file or the new one.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ format: 2, verdicts } satisfies CacheFile));
    renameSync(temporary, file);
  } catch {
    // A read-only install, a full disk: the check runs again at the next start.
  }
}

/** Core's own folder and version, found once. */
let own: { readonly root: string | undefined; readonly version: string } | undefined;

/**
 * Core's folder (where its package.json is) and version, found once a process: the nearest folder
 * at or above this module's whose package.json names `@hermes-mcp/core` — `dist/` itself in the
 * one-file build npm installs (scripts/bundle.mjs), `dist/<part>/` or `src/<part>/` in the build
 * of the repository. A program bundled whole (a startup snapshot's, a worker's) has none: the root
 * is undefined there and the version `unknown`, and nothing is kept on disk. @internal
 */
export function coreFolder(): { readonly root: string | undefined; readonly version: string } {
  if (own === undefined) {
    own = { root: undefined, version: 'unknown' };
    let folder = typeof __dirname === 'string' ? __dirname : undefined;
    for (let up = 0; folder !== undefined && up < 3; up++, folder = path.dirname(folder)) {
      try {
        const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
        if (manifest.name === '@hermes-mcp/core') {
          own = { root: folder, version: String(manifest.version) };
          break;
        }
      } catch {
        // No package.json here (or not one to read): look one folder up.
      }
    }
  }
  return own;
}

/** This package's version (a new Hermes checks anew), read once. @internal */
export function coreVersion(): string {
  return coreFolder().version;
}
