/**
 * `node --require bench/dist/load-hook.js <server>`: what loading each package's modules costs a
 * process. It wraps `Module._load` and gives each call's self time — the time inside it less the
 * time inside the loads it made, so a module's resolution, reading, compiling and top-level code,
 * not its dependencies' — to the package of the file it resolved: under node_modules the folder
 * after the last `node_modules`, elsewhere (a workspace package's real path) the nearest
 * package.json with a name; Node built-ins to `(node built-ins)`, and the main module and the
 * modules beside it (whose top-level code defines the classes and starts the server) to
 * `(the server file)`. The file name comes from Node's own `Module._resolveFilename` call inside
 * the load, wrapped too, so nothing is resolved twice; a load answered from the parent's resolve
 * cache is resolved again after its clock stops.
 *
 * Times are the main thread's wall time (`performance.now()`): loading runs on it, one module at a
 * time. At exit it writes {@link LoadProfile} as JSON to the file named by `HERMES_BENCH_LOAD_OUT`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import Module, { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** What the hook writes: per package, the self time of its loads and the module files it loaded. */
export interface LoadProfile {
  packages: Record<string, { selfMs: number; files: number }>;
  /** Time inside the outermost loads (the main module's and the preloads'), ms. */
  totalMs: number;
}

/** The module loader's internals the hook wraps (not in Node's typings). */
interface Loader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _cache: Record<string, unknown>;
}

/** A load in progress: what it resolved to, and the time its nested loads took. */
interface Frame {
  file?: string;
  fresh: boolean;
  childMs: number;
}

const loader = Module as unknown as Loader;
const load = loader._load;
const resolveFilename = loader._resolveFilename;
const stack: Frame[] = [];
const packages: LoadProfile['packages'] = {};
let totalMs = 0;

const BUILTINS = '(node built-ins)';
const MAIN = '(the server file)';
/** Folder → the name of the nearest package.json with a name. */
const packageOfDir = new Map<string, string>();

function packageOf(file: string): string {
  if (isBuiltin(file)) return BUILTINS;
  // Not the nearest manifest under node_modules: a package's nested package.json files name parts
  // of it (libphonenumber-js/build).
  const installed = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/g;
  let last: RegExpExecArray | null = null;
  for (let match = installed.exec(file); match; match = installed.exec(file)) last = match;
  if (last) return last[1].replace(/\\/g, '/');
  const start = dirname(file);
  const seen: string[] = [];
  let name: string | undefined;
  for (let dir = start; name === undefined; dir = dirname(dir)) {
    name = packageOfDir.get(dir);
    if (name !== undefined) break;
    seen.push(dir);
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof manifest.name === 'string') name = manifest.name;
    } catch {
      // no package.json here
    }
    if (dirname(dir) === dir) name ??= '(no package)';
  }
  for (const dir of seen) packageOfDir.set(dir, name);
  return name;
}

/** The folder of the main module: the server's own modules (an entry and its server module) are there, outside node_modules. */
const mainFolder = process.argv[1] === undefined ? undefined : dirname(process.argv[1]);

function serverFile(file: string): boolean {
  return mainFolder !== undefined && dirname(file) === mainFolder;
}

loader._resolveFilename = function (this: unknown, request: string, parent: unknown, isMain: boolean, options?: unknown): string {
  const file = resolveFilename.call(this, request, parent, isMain, options);
  const frame = stack[stack.length - 1];
  if (frame && frame.file === undefined) {
    frame.file = file;
    frame.fresh = !isBuiltin(file) && !(file in loader._cache);
  }
  return file;
};

loader._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
  const entered = performance.now();
  const frame: Frame = { fresh: false, childMs: 0 };
  stack.push(frame);
  const started = performance.now();
  try {
    return load.call(this, request, parent, isMain);
  } finally {
    const selfMs = performance.now() - started - frame.childMs;
    stack.pop();
    let file = frame.file;
    if (file === undefined) {
      try {
        file = isBuiltin(request) ? request : resolveFilename.call(loader, request, parent, isMain);
      } catch {
        file = request;
      }
    }
    const key = isMain || serverFile(file) ? MAIN : packageOf(file);
    const entry = (packages[key] ??= { selfMs: 0, files: 0 });
    entry.selfMs += selfMs;
    if (frame.fresh) entry.files++;
    // The parent's clock leaves out this whole call, the hook's own work included.
    const parentFrame = stack[stack.length - 1];
    if (parentFrame) parentFrame.childMs += performance.now() - entered;
    else totalMs += performance.now() - entered;
  }
};

process.once('exit', () => {
  const out = process.env.HERMES_BENCH_LOAD_OUT;
  if (out) writeFileSync(out, JSON.stringify({ packages, totalMs } satisfies LoadProfile));
});
