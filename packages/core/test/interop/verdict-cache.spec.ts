/**
 * The self-checks' verdicts on disk (verdict-cache.ts): a process that finds a pass kept for the
 * code installed does not check again; a changed library file, `HERMES_INTEROP_CACHE=off` or a
 * folder it cannot write make it check each time, and the status is the same either way.
 *
 * Each start is a process of its own on the built packages (`tsc -b`, as `npm test` runs first):
 * it loads class-validator and core, asks `interopStatus()`, and says how many classes class-
 * validator's storage gained meanwhile — the self-checks decorate the canary classes, so a start
 * that checked gains some and one that read the cache gains none.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const PACKAGE = path.resolve(__dirname, '../..');
const ROOT = path.resolve(PACKAGE, '../..');

/** A start's script, with core at `core` (its package folder) and class-validator as found from the script's folder. */
const script = (core: string) => `
require('reflect-metadata');
const { getMetadataStorage } = require('class-validator');
const targets = () => getMetadataStorage().validationMetadatas.size;
const before = targets();
const { interopStatus } = require(${JSON.stringify(path.join(core, 'dist/index.js'))});
const status = interopStatus().map(({ library, fast }) => [library, fast]);
const canary = Object.keys(require.cache).some((file) => file.endsWith('canary.js'));
process.stdout.write(JSON.stringify({ checked: targets() > before, canary, status }));
`;

const LIBRARIES = ['class-validator', 'class-transformer', 'class-validator-jsonschema', 'validator'];

interface Start {
  checked: boolean;
  status: Array<[string, boolean]>;
}

/** One process start with `HERMES_INTEROP_CACHE` set to `cache`; in `project` (core and the libraries installed there), the repository's packages by default. */
function start(cache: string, project = PACKAGE): Start {
  const core = project === PACKAGE ? PACKAGE : path.join(project, 'node_modules/@hermes-mcp/core');
  const stdout = execFileSync(process.execPath, ['-e', script(core)], { cwd: project, env: { ...process.env, HERMES_INTEROP_CACHE: cache }, encoding: 'utf8' });
  const { canary, ...start } = JSON.parse(stdout) as Start & { canary: boolean };
  // The canary classes' module is loaded by a check, and only then.
  expect(canary).toBe(start.checked);
  return start;
}

const everyFast = LIBRARIES.map((library) => [library, true]);

describe('the self-checks, kept on disk', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'hermes-interop-cache-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** The kept verdicts, by entry: `<library> node<major> <checking module>`. */
  const kept = (): Record<string, { key: string; files: string[] }> => JSON.parse(readFileSync(path.join(folder, 'interop.json'), 'utf8')).verdicts;
  const major = process.versions.node.split('.')[0];

  it('a first start checks and keeps every pass; the next one reads them and does not check', () => {
    const first = start(folder);
    expect(first).toEqual({ checked: true, status: everyFast });
    const entries = Object.keys(kept());
    expect(entries.map((entry) => entry.split(' ')[0]).sort()).toEqual([...LIBRARIES].sort());
    for (const entry of entries) expect(entry).toMatch(new RegExp(`^[a-z-]+ node${major} ${PACKAGE}/dist/interop/[a-z-]+\\.js$`));
    // Keyed by the files each check ran: class-validator's executor among them.
    expect(kept()[entries.find((entry) => entry.startsWith('class-validator '))!].files).toEqual(expect.arrayContaining(['package.json', 'cjs/validation/ValidationExecutor.js']));
    expect(start(folder)).toEqual({ checked: false, status: everyFast });
  });

  it("another Node major's verdicts are kept beside this one's, not written over", () => {
    start(folder);
    const others = Object.fromEntries(Object.entries(kept()).map(([entry, verdict]) => [entry.replace(` node${major} `, ' node99 '), { ...verdict, key: '["other"]' }]));
    writeFileSync(path.join(folder, 'interop.json'), JSON.stringify({ format: 2, verdicts: { ...kept(), ...others } }));
    expect(start(folder)).toEqual({ checked: false, status: everyFast });
    expect(kept()).toMatchObject(others);
    rmSync(path.join(folder, 'interop.json'));
    writeFileSync(path.join(folder, 'interop.json'), JSON.stringify({ format: 2, verdicts: others }));
    // Only the other Node's: this one checks, and keeps its own beside them.
    expect(start(folder)).toEqual({ checked: true, status: everyFast });
    expect(Object.keys(kept())).toHaveLength(2 * LIBRARIES.length);
    expect(kept()).toMatchObject(others);
    expect(start(folder)).toEqual({ checked: false, status: everyFast });
  });

  it('a library file changed since (its modification time) makes the next start check again', () => {
    // A project of its own, with its own copy of core and of class-validator: the repository's files
    // are read by other suites meanwhile (a startup snapshot built from them is stale once one changes).
    const project = mkdtempSync(path.join(tmpdir(), 'hermes-interop-project-'));
    try {
      const modules = path.join(project, 'node_modules');
      mkdirSync(path.join(modules, '@hermes-mcp/core'), { recursive: true });
      for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
        if (name !== '@hermes-mcp' && name !== 'class-validator' && !name.startsWith('.')) symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
      }
      symlinkSync(path.join(ROOT, 'node_modules/@hermes-mcp/protocol'), path.join(modules, '@hermes-mcp/protocol'));
      cpSync(path.join(ROOT, 'node_modules/class-validator'), path.join(modules, 'class-validator'), { recursive: true, dereference: true });
      cpSync(path.join(PACKAGE, 'package.json'), path.join(modules, '@hermes-mcp/core/package.json'));
      cpSync(path.join(PACKAGE, 'dist'), path.join(modules, '@hermes-mcp/core/dist'), { recursive: true });
      expect(start(folder, project)).toEqual({ checked: true, status: everyFast });
      expect(start(folder, project)).toEqual({ checked: false, status: everyFast });
      const file = path.join(modules, 'class-validator/cjs/validation/ValidationExecutor.js');
      const { atime, mtime } = statSync(file);
      utimesSync(file, atime, new Date(mtime.getTime() + 60_000));
      expect(start(folder, project)).toEqual({ checked: true, status: everyFast });
      expect(start(folder, project)).toEqual({ checked: false, status: everyFast });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('a cache file that is not one is checked over, and written anew', () => {
    const checker = path.join(PACKAGE, 'dist/interop/class-validator.js');
    writeFileSync(path.join(folder, 'interop.json'), JSON.stringify({ format: 2, verdicts: { [`class-validator node${major} ${checker}`]: { key: '[]', files: [] } } }));
    expect(start(folder)).toEqual({ checked: true, status: everyFast });
    // An earlier version's file (one verdict a library, whichever Node wrote it last).
    writeFileSync(path.join(folder, 'interop.json'), '{"format": 1, "verdicts": {"class-validator": {"key": "[]", "files": []}}}');
    expect(start(folder)).toEqual({ checked: true, status: everyFast });
    writeFileSync(path.join(folder, 'interop.json'), 'not json');
    expect(start(folder)).toEqual({ checked: true, status: everyFast });
    expect(start(folder)).toEqual({ checked: false, status: everyFast });
  });

  it('HERMES_INTEROP_CACHE=off, or a folder that cannot be written: every start checks, the same status', () => {
    expect(start('off')).toEqual({ checked: true, status: everyFast });
    expect(start('off')).toEqual({ checked: true, status: everyFast });
    const unwritable = path.join(folder, 'interop.json', 'below-a-file');
    expect(start(unwritable)).toEqual({ checked: true, status: everyFast });
    expect(start(unwritable)).toEqual({ checked: true, status: everyFast });
  });
});
