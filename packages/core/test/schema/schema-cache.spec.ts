/**
 * The schema cache (schema/schema-cache.ts): a start that finds a class's schema kept for the same
 * class on the same code reads it back instead of building it — the same schemas (every form) and
 * the same warnings as a start that builds; a class whose decorators or values changed is built
 * again, as is every class when Hermes' or a library's code changed; a class the key cannot
 * describe (a function of the user's in its rules) is built at every start.
 *
 * Each start is a process of its own on core's dist (`tsc -b`, as `npm test` runs first), over the
 * classes of fixtures/cache-classes.js and the DTOs of three examples (compiled by `tsc -b`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const CORE = path.join(ROOT, 'packages/core/dist/index.js');
const MODULES = [
  path.join(__dirname, 'fixtures/cache-classes.js'),
  path.join(ROOT, 'examples/everything/dist/dto.js'),
  path.join(ROOT, 'examples/conformance-server/dist/dto.js'),
  path.join(ROOT, 'examples/quickstart/dist/dto.js'),
];
/** The fixture's classes the cache cannot describe: custom validators (registerDecorator, `@Validate`), `@ValidateIf`, `@Transform`, `@JSONSchema(fn)`, a function-valued field. */
const UNKEYED = ['Even', 'Validated', 'Conditional', 'Transformed', 'Schematic', 'Handled'];

const SCRIPT = `
const core = require(${JSON.stringify(CORE)});
const builder = require(${JSON.stringify(path.join(ROOT, 'packages/core/dist/schema/schema-builder.js'))});
const { schemaCacheCounts } = require(${JSON.stringify(path.join(ROOT, 'packages/core/dist/schema/schema-cache.js'))});
const out = {};
const how = {};
for (const file of ${JSON.stringify(MODULES)}) {
  for (const [name, cls] of Object.entries(require(file))) {
    if (typeof cls !== 'function' || !/^class\\b/.test(String(cls))) continue;
    const key = path.basename(path.dirname(path.dirname(file))) + '/' + name;
    const before = { ...schemaCacheCounts };
    try {
      out[key] = {
        inline: builder.buildObjectSchema(cls),
        defs: builder.buildObjectSchema(cls, { nested: 'defs' }),
        closed: builder.closedObjectSchema(cls),
        warnings: builder.schemaWarningsFor(cls),
      };
    } catch (error) {
      out[key] = { error: error.code + ': ' + error.message };
    }
    // How its schema came: the first lookup is the class's own (the classes it reaches are built with it).
    how[key] = Object.keys(before).find((count) => schemaCacheCounts[count] > before[count]);
  }
}
process.stdout.write(JSON.stringify({ out, how, counts: schemaCacheCounts }));
`;

interface Start {
  out: Record<string, { inline?: unknown; defs?: unknown; closed?: unknown; warnings?: unknown[]; error?: string }>;
  how: Record<string, 'read' | 'built' | 'unkeyed' | undefined>;
  counts: { read: number; built: number; unkeyed: number };
}

const work = mkdtempSync(path.join(tmpdir(), 'hermes-schema-cache-'));
const script = path.join(work, 'server.js');
writeFileSync(script, `const path = require('node:path');\n${SCRIPT}`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** One start with `HERMES_SCHEMA_CACHE` set to `cache`, and `env` besides. */
function start(cache: string, env: Record<string, string> = {}): Start {
  const stdout = execFileSync(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, HERMES_SCHEMA_CACHE: cache, HERMES_CORE: CORE, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as Start;
}

/** What every class gave, without the counts. */
const schemas = (s: Start) => s.out;

describe('the schema cache', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(work, 'cache-'));
  });

  it('a first start builds and keeps each schema; the next reads them back: the same schemas, in every form, and the same warnings', () => {
    const cold = start('off');
    const total = Object.keys(cold.out).length;
    expect(total).toBeGreaterThan(40);
    expect(cold.counts.read).toBe(0);
    // Warnings are part of what is kept: the fixture has some (a looser rule, an optional nested object).
    expect(cold.out['schema/Loose'].warnings!.map((w: any) => w.code).sort()).toEqual(['HERMES_OPTIONAL_NESTED', 'HERMES_SCHEMA_LOOSER']);
    const first = start(folder);
    expect(schemas(first)).toEqual(schemas(cold));
    expect(first.counts.read).toBe(0);
    const files = readdirSync(path.join(folder, 'schemas'));
    // One file for the program on this Node major (another Node keeps its own, and does not write over it).
    expect(files).toEqual([expect.stringMatching(new RegExp(`^server\\.js-[0-9a-z]+-node${process.versions.node.split('.')[0]}\\.json$`))]);
    const second = start(folder);
    expect(schemas(second)).toEqual(schemas(cold));
    expect(second.counts).toEqual({ read: first.counts.built, built: 0, unkeyed: first.counts.unkeyed });
    expect(second.counts.read).toBeGreaterThan(40);
  });

  it("a class with a function of the user's in its rules is built at every start; every other one is read back", () => {
    start(folder);
    const again = start(folder);
    for (const [name, how] of Object.entries(again.how)) {
      if (UNKEYED.includes(name.replace('schema/', '')) && name.startsWith('schema/')) expect([name, how]).toEqual([name, 'unkeyed']);
      else if (again.out[name].error === undefined) expect([name, how]).toEqual([name, 'read']);
    }
    expect(Object.values(again.how).filter((how) => how === 'unkeyed')).toHaveLength(UNKEYED.length);
  });

  it('a value read at decoration or construction (a constraint, a default, a description) is part of the key: a changed one is built again', () => {
    start(folder, { LIMIT: '10', PAGE: '1', LABEL: 'the city' });
    const changed = start(folder, { LIMIT: '7', PAGE: '3', LABEL: 'where' });
    expect(changed.counts.built).toBe(3);
    expect(schemas(changed)).toEqual(schemas(start('off', { LIMIT: '7', PAGE: '3', LABEL: 'where' })));
    expect(JSON.stringify(changed.out['schema/Limited'].defs)).toContain('"maximum":7');
    expect(JSON.stringify(changed.out['schema/Paged'].defs)).toContain('"default":3');
    expect(JSON.stringify(changed.out['schema/Described'].defs)).toContain('"description":"where"');
    // Both kept now? Only what the last start used is kept: back to the first values, built again.
    expect(start(folder, { LIMIT: '10', PAGE: '1', LABEL: 'the city' }).counts.built).toBe(3);
  });

  it('a changed file of a library the schemas are built with rebuilds every schema', () => {
    const first = start(folder);
    const file = require.resolve('class-validator-jsonschema/build/defaultConverters');
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(mtime.getTime() + 60_000));
      const after = start(folder);
      expect(after.counts).toEqual({ read: 0, built: first.counts.built, unkeyed: first.counts.unkeyed });
      expect(start(folder).counts.built).toBe(0);
    } finally {
      utimesSync(file, atime, mtime);
    }
  });

  it('a file that is not a cache, of another format, or with entries of another shape is built over and written anew', () => {
    const first = start(folder);
    const file = path.join(folder, 'schemas', readdirSync(path.join(folder, 'schemas'))[0]);
    // Entries of another shape under a good stamp: each is built over.
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    for (const entry of Object.values(kept.entries as Record<string, Record<string, unknown>>)) entry.schema = null;
    writeFileSync(file, JSON.stringify(kept));
    expect(start(folder).counts).toEqual(first.counts);
    writeFileSync(file, 'not json');
    expect(start(folder).counts.built).toBe(first.counts.built);
    writeFileSync(file, JSON.stringify({ format: 2, code: [], stamp: '', entries: {} }));
    expect(start(folder).counts.built).toBe(first.counts.built);
    expect(start(folder).counts.built).toBe(0);
  });

  it('HERMES_SCHEMA_CACHE=off, or a folder that cannot be written: every start builds, the same schemas', () => {
    const cold = start('off');
    expect(start('off').counts.read).toBe(0);
    // A folder under a file cannot be made.
    const blocked = path.join(work, 'a-file');
    writeFileSync(blocked, '');
    const unwritable = start(path.join(blocked, 'cache'));
    expect(schemas(unwritable)).toEqual(schemas(cold));
    expect(start(path.join(blocked, 'cache')).counts.read).toBe(0);
  });
});
