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
    return { script, module: bundle, require: rememberingRequire(Module, filename), write, cache: Module._cache };
  } catch {
    return undefined;
  }
}

/**
 * Node's `require` from the bundle's file, except that a package the bundle asks for again is not
 * resolved again. Each of the bundle's modules requires what it imports (tsc writes
 * `require("reflect-metadata")` in every one that imports it: 18 in core), and Node resolves a
 * package that another file loaded first anew at every require from a new file (it keeps that
 * resolution only for modules it loads itself): ~0.1 ms and a stat of each node_modules folder on
 * the way, each time. From the second require of a package on, its module is kept and its exports
 * returned while it is loaded and in Node's cache; a module still loading (a cycle) or taken out of
 * the cache is asked of Node as before.
 */
function rememberingRequire(Module, filename) {
  const nodeRequire = Module.createRequire(filename);
  /** id → its module, from its second require on (false: one Node answers each time, a built-in or an ES module); null after its first. */
  const known = new Map();
  const bundleRequire = (id) => {
    const found = known.get(id);
    // Still Node's: loaded, and not taken out of its cache since (a reload asks Node again).
    if (found && found.loaded && Module._cache[found.id] === found) return found.exports;
    const exports = nodeRequire(id);
    if (found === undefined) known.set(id, null);
    else if (found === null) {
      const module = Module.isBuiltin(id) ? undefined : Module._cache[nodeRequire.resolve(id)];
      // Only a module whose exports are what require gave (not an ES module's namespace, say).
      known.set(id, module !== undefined && module.exports === exports ? module : false);
    }
    return exports;
  };
  bundleRequire.resolve = nodeRequire.resolve;
  bundleRequire.cache = nodeRequire.cache;
  bundleRequire.main = nodeRequire.main;
  bundleRequire.extensions = nodeRequire.extensions;
  return bundleRequire;
}
