'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file, and the loader of one */
/* global setImmediate */
// Loads __BUNDLE__ (this package's one-file build, scripts/bundle.mjs) for the entries beside it,
// with V8's code cache kept on disk: a start compiles from the cache what the last start compiled
// (10-14 ms less CPU at a two-tool stdio server's start on the machine this was measured on). The cache is
// `node_modules/.cache/hermes-mcp/code/`, one file per bundle, Node version and architecture,
// named after the bundle's digest (written here when it was built: V8 itself checks only the
// source's length) and its size and modification time now (a file patched in place); V8 checks
// its own version and flags, and a cache it refuses is written again. HERMES_CODE_CACHE=<folder> keeps it elsewhere, HERMES_CODE_CACHE=off turns it
// off. Anywhere this is not Node's own CommonJS loader (a test runner's module registry, Bun, Deno,
// a bundler, a startup snapshot), with --enable-source-maps (Node's loader maps stack traces), or
// where anything of this goes wrong before the bundle runs, the bundle is required as any module is.
let exported;

/** The exports of `file` (an entry's module, by its path under dist/), the bundle loaded once. */
module.exports = (file) => (exported ??= load())[file]();

function load() {
  const compiled = compile();
  if (compiled === undefined) return require('./__BUNDLE__');
  const { script, module: bundle, require: bundleRequire, write, cache } = compiled;
  try {
    script.runInThisContext().call(bundle.exports, bundle.exports, bundleRequire, bundle, bundle.filename, __dirname);
  } catch (error) {
    // As Node's loader does: a module that threw is not kept, and the next require runs it again.
    delete cache[bundle.filename];
    throw error;
  }
  bundle.loaded = true;
  write();
  return bundle.exports;
}

/** The bundle compiled (from the cache when there is one) into a module of Node's cache, or undefined where that is not done. */
function compile() {
  try {
    const named = process.env.HERMES_CODE_CACHE;
    if (named === 'off' || typeof __dirname !== 'string' || process.versions.bun !== undefined || process.versions.deno !== undefined) return undefined;
    // --enable-source-maps: Node's own loader maps the bundle's stack traces to the sources.
    if (process.sourceMapsEnabled) return undefined;
    const Module = require('node:module');
    // Only under Node's own loader: another registry (jest's) must load the bundle's dependencies itself.
    if (!(module instanceof Module) || require.cache !== Module._cache || typeof Module.wrap !== 'function') return undefined;
    // A snapshot build (`node --build-snapshot`, `--build-snapshot-config`): asked of node:v8 only then,
    // since loading it loads Node's streams and heap tools (~1-3 ms of a start).
    if (process.execArgv.some((flag) => flag.startsWith('--build-snapshot')) && require('node:v8').startupSnapshot?.isBuildingSnapshot?.()) return undefined;
    const fs = require('node:fs');
    const path = require('node:path');
    const vm = require('node:vm');
    const filename = path.join(__dirname, '__BUNDLE__');
    const { size, mtimeMs } = fs.statSync(filename);
    const modules = path.resolve(__dirname, '..', '..', '..');
    const folder = named ? path.resolve(named) : path.basename(modules) === 'node_modules' ? path.join(modules, '.cache', 'hermes-mcp', 'code') : undefined;
    if (folder === undefined) return undefined;
    const cacheFile = path.join(folder, `__BUNDLE__-__DIGEST__-${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`);
    let cachedData;
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // none yet: this start writes it
    }
    const script = new vm.Script(Module.wrap(fs.readFileSync(filename, 'utf8')), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const bundle = new Module(filename, module);
    bundle.filename = filename;
    bundle.paths = Module._nodeModulePaths(__dirname);
    Module._cache[filename] = bundle;
    const write = () => {
      if (cachedData !== undefined && !script.cachedDataRejected) return;
      // Once what starting ran is compiled: the cache then holds it too.
      setImmediate(() => {
        try {
          fs.mkdirSync(folder, { recursive: true });
          const partial = `${cacheFile}.${process.pid}.tmp`;
          fs.writeFileSync(partial, script.createCachedData());
          fs.renameSync(partial, cacheFile);
        } catch {
          // A read-only install, a full disk: the next start compiles again.
        }
      });
    };
    return { script, module: bundle, require: Module.createRequire(filename), write, cache: Module._cache };
  } catch {
    return undefined;
  }
}
