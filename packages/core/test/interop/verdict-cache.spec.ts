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
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const CORE = path.resolve(__dirname, '../../dist/index.js');

const SCRIPT = `
require('reflect-metadata');
const { getMetadataStorage } = require('class-validator');
const targets = () => getMetadataStorage().validationMetadatas.size;
const before = targets();
const { interopStatus } = require(${JSON.stringify(CORE)});
const status = interopStatus().map(({ library, fast }) => [library, fast]);
const canary = Object.keys(require.cache).some((file) => file.endsWith('canary.js'));
process.stdout.write(JSON.stringify({ checked: targets() > before, canary, status }));
`;

const LIBRARIES = ['class-validator', 'class-transformer', 'class-validator-jsonschema', 'validator'];

interface Start {
  checked: boolean;
  status: Array<[string, boolean]>;
}

/** One process start with `HERMES_INTEROP_CACHE` set to `cache`. */
function start(cache: string): Start {
  const stdout = execFileSync(process.execPath, ['-e', SCRIPT], { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, HERMES_INTEROP_CACHE: cache }, encoding: 'utf8' });
  const { canary, ...start } = JSON.parse(stdout) as Start & { canary: boolean };
  // The canary classes' module is loaded by a check, and only then.
  expect(canary).toBe(start.checked);
  return start;
}

const everyFast = LIBRARIES.map((library) => [library, true]);

describe('the self-checks, kept on disk', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'hermes-interop-cache-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('a first start checks and keeps every pass; the next one reads them and does not check', () => {
    const first = start(folder);
    expect(first).toEqual({ checked: true, status: everyFast });
    const kept = JSON.parse(readFileSync(path.join(folder, 'interop.json'), 'utf8'));
    expect(Object.keys(kept.verdicts).sort()).toEqual([...LIBRARIES].sort());
    // Keyed by the files each check ran: class-validator's executor among them.
    expect(kept.verdicts['class-validator'].files).toEqual(expect.arrayContaining(['package.json', 'cjs/validation/ValidationExecutor.js']));
    expect(start(folder)).toEqual({ checked: false, status: everyFast });
  });

  it('a library file changed since (its modification time) makes the next start check again', () => {
    start(folder);
    const file = require.resolve('class-validator/cjs/validation/ValidationExecutor');
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(mtime.getTime() + 60_000));
      expect(start(folder)).toEqual({ checked: true, status: everyFast });
      expect(start(folder)).toEqual({ checked: false, status: everyFast });
    } finally {
      utimesSync(file, atime, mtime);
    }
  });

  it('a cache file that is not one is checked over, and written anew', () => {
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
