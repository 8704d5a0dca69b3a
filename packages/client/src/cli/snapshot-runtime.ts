/**
 * What runs inside a startup snapshot `hermes-mcp snapshot` builds (snapshot.ts): this file's
 * compiled text is put, with the bundled libraries, into the script `node --build-snapshot` runs.
 * So it imports nothing: the Node modules it uses come from `builtinRequire`, the only `require`
 * a snapshot's build script has.
 *
 * At build time it evaluates the bundle (the libraries a Hermes server loads: reflect-metadata,
 * class-validator, class-transformer, typedi, @hermes-mcp/protocol and core), runs core's library
 * self-checks (so their verdicts are in the snapshot's heap), and names the function Node runs
 * when the snapshot is restored. That function checks that every file the bundle was made from is
 * still as it was and still what the entry resolves each package to; if so it puts the restored
 * modules into Node's module cache under their own file names — the server's `require` (or
 * `import`) of them then finds them there — and runs the entry, which is never in the snapshot:
 * the user's code is always read from disk (core's schema cache is told the snapshot's code first,
 * so the server's schemas are read back as in a plain start). If not, the snapshot is stale: the process starts
 * again without it (the same arguments, nothing read from stdin yet) and a new one is built in
 * the background. `HERMES_INTEROP` in the environment (which decides the self-checks a snapshot
 * has already run) also starts the process without it.
 */

/** What snapshot.ts tells the runtime, as JSON in the build script. */
export interface SnapshotConfig {
  /** Package name → the file the entry resolved it to (the bundle's export of that name is that module). */
  libs: Record<string, string>;
  /** Every file the bundle was made from, with its size and modification time then. */
  inputs: Array<[file: string, size: number, mtimeMs: number]>;
  /** A digest of `inputs`: what core's schema cache keeps its schemas under in this snapshot. */
  code: string;
  /** Module ids the libraries resolve while the snapshot is built (`require.resolve` has no file system then) → their files. */
  resolved: Record<string, string>;
  /** Node's built-in module names (the build script's `require` loads only those). */
  builtins: string[];
  /** The CLI that rebuilds a stale snapshot: `node <cli> snapshot <entry> --quiet`. */
  cli: string;
}

/** The bundle's module function: it fills `module.exports` with the packages, by name. */
type Bundle = (require: unknown, module: { exports: Record<string, unknown> }, exports: unknown, filename: undefined, dirname: undefined) => Record<string, unknown>;

type Require = ((id: string) => unknown) & { resolve(id: string, options?: { paths?: string[] }): string };

/** Sets the snapshot up (at build time) and names what runs when it is restored. */
export function hermesSnapshot(config: SnapshotConfig, bundle: Bundle, builtinRequire: (id: string) => unknown): void {
  const fs = builtinRequire('node:fs') as typeof import('node:fs');
  const path = builtinRequire('node:path') as typeof import('node:path');
  const v8 = builtinRequire('node:v8') as typeof import('node:v8');
  const builtins = new Set(config.builtins);

  // The bundle's `require`: for what it did not include (pino, loaded when a first line is logged;
  // optional peers). Restored, it is a real `require` from core's folder; at build time only
  // built-ins, package.json files and the ids resolved beforehand are there.
  let runtime: Require | undefined;
  const bundleRequire = ((id: string) => {
    if (runtime !== undefined) return runtime(id);
    if (id.startsWith('node:') || builtins.has(id)) return builtinRequire(id);
    if (path.isAbsolute(id) && id.endsWith('.json')) return JSON.parse(fs.readFileSync(id, 'utf8')) as unknown;
    throw new Error(`hermes-mcp snapshot: ${id} was loaded while the snapshot was built, and a snapshot holds only what was bundled`);
  }) as Require;
  bundleRequire.resolve = (id, options) => {
    if (runtime !== undefined) return runtime.resolve(id, options);
    const found = config.resolved[id];
    if (found !== undefined) return found;
    throw Object.assign(new Error(`Cannot find module '${id}' while the snapshot is built`), { code: 'MODULE_NOT_FOUND' });
  };

  const libs = bundle(bundleRequire, { exports: {} }, {}, undefined, undefined);
  // Core's self-checks of the libraries it reads, now: restored, their verdicts are already there.
  (libs['@hermes-mcp/core'] as { interopStatus(): unknown }).interopStatus();

  v8.startupSnapshot.setDeserializeMainFunction(() => {
    const Module = builtinRequire('node:module') as typeof import('node:module') & {
      _cache: Record<string, unknown>;
      _nodeModulePaths(dir: string): string[];
      runMain(): void;
    };
    const entry = path.resolve(process.argv[1] ?? '');
    process.argv[1] = entry;
    // Core's self-checks ran when the snapshot was built; HERMES_INTEROP=public asks for none.
    if (process.env.HERMES_INTEROP !== undefined) return restart(undefined, entry);
    const stale = staleness(Module.createRequire(entry));
    if (stale !== undefined) return restart(stale, entry);
    for (const [name, file] of Object.entries(config.libs)) {
      const module = new Module(file) as InstanceType<typeof Module> & { loaded: boolean };
      module.filename = file;
      module.paths = Module._nodeModulePaths(path.dirname(file));
      module.exports = libs[name];
      module.loaded = true;
      Module._cache[file] = module;
    }
    const fromCore = Module.createRequire(config.libs['@hermes-mcp/core']);
    runtime = Object.assign((id: string) => (Module.isBuiltin(id) ? builtinRequire(id) : (fromCore(id) as unknown)), { resolve: fromCore.resolve });
    // The files are as they were built (staleness, above): core's schema cache may key by them.
    (libs['@hermes-mcp/core/internal'] as { useSnapshotCode?: (id: string) => void } | undefined)?.useSnapshotCode?.(config.code);
    Module.runMain();
  });

  /** Why the snapshot no longer matches the installed libraries, or undefined when it does. */
  function staleness(fromEntry: NodeJS.Require): string | undefined {
    for (const [name, file] of Object.entries(config.libs)) {
      let now: string | undefined;
      try {
        now = fromEntry.resolve(name);
      } catch {
        // gone
      }
      if (now !== file) return `${name} now resolves to ${now ?? 'nothing'}, not ${file}`;
    }
    for (const [file, size, mtimeMs] of config.inputs) {
      // No exception for a file that is gone (and, restored, a third of the time of the throwing form).
      const stats = fs.statSync(file, { throwIfNoEntry: false });
      if (stats === undefined) return `${file} is gone`;
      if (stats.size !== size || stats.mtimeMs !== mtimeMs) return `${file} changed`;
    }
    return undefined;
  }

  /** Runs the entry again without the snapshot; when it is stale (`why`), builds a new one in the background. */
  function restart(why: string | undefined, entry: string): void {
    const { spawn, spawnSync } = builtinRequire('node:child_process') as typeof import('node:child_process');
    if (why !== undefined) {
      process.stderr.write(`hermes-mcp: the startup snapshot is stale (${why}): starting without it, and building a new one\n`);
      try {
        spawn(process.execPath, [config.cli, 'snapshot', entry, '--quiet'], { detached: true, stdio: 'ignore' })
          .on('error', () => {})
          .unref();
      } catch {
        // The next start tries again.
      }
    }
    const flags: string[] = [];
    for (let i = 0; i < process.execArgv.length; i++) {
      const flag = process.execArgv[i];
      if (flag === '--snapshot-blob') i++;
      else if (!flag.startsWith('--snapshot-blob=')) flags.push(flag);
    }
    const args = [...flags, entry, ...process.argv.slice(2)];
    const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
    if (typeof execve === 'function') execve(process.execPath, [process.execPath, ...args], process.env);
    const child = spawnSync(process.execPath, args, { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
}
