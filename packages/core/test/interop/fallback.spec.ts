/**
 * A library release that moves what Hermes reads of its internals must cost speed, never the
 * server: McpFactory.create works, every schema and every validation result (accepted or refused,
 * with the same field paths, the same instance) is what the fast paths give, and one warning with
 * HERMES_INTEROP_FALLBACK names the library and why.
 *
 * Each release is played in a process of its own running the interop probe (test-support/fixtures/
 * src/interop): the real libraries, with the module paths Hermes deep-requires made unresolvable
 * (the libraries' own relative requires still work), or class-validator's private rule map renamed
 * (its own methods reading the new field). Each run is compared with a run on the libraries as they are.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const FIXTURES = path.resolve(__dirname, '../../../../test-support/fixtures');
const PROBE = path.join(FIXTURES, 'dist/interop/probe.js');
const HIDE = path.join(FIXTURES, 'dist/interop/hide-internals.js');

interface Status {
  library: string;
  fast: boolean;
  reason?: string;
}

interface ProbeRun {
  status: Status[];
  warnings: Array<Record<string, unknown>>;
  tools: Array<Record<string, unknown>>;
  calls: Array<{ tool: string; input: unknown; result: { isError?: boolean; content: Array<{ text: string }> } }>;
  validations: Array<{ tool: string; input: unknown; ok: boolean; issues?: Array<{ path: string }> }>;
}

/** Runs the probe with these variables (`HERMES_HIDE`, `HERMES_SIMULATE`, `HERMES_INTEROP`). */
function probe(env: Record<string, string> = {}): Promise<ProbeRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-r', HIDE, PROBE], { env: { ...process.env, HERMES_LOG_LEVEL: 'warn', ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the probe failed (${JSON.stringify(env)}):\n${stderr}`));
      else resolve(JSON.parse(stdout) as ProbeRun);
    });
  });
}

const RELEASES: Array<[string, string, Record<string, string>]> = [
  ['class-validator renamed its private rule map', 'class-validator', { HERMES_SIMULATE: 'rule-map' }],
  ['class-validator moved ValidationExecutor', 'class-validator', { HERMES_HIDE: 'class-validator/cjs/validation/ValidationExecutor' }],
  ['class-transformer moved its storage', 'class-transformer', { HERMES_HIDE: 'class-transformer/cjs/storage' }],
  ['class-transformer moved its default options', 'class-transformer', { HERMES_HIDE: 'class-transformer/cjs/constants/default-options.constant' }],
  [
    'class-validator-jsonschema moved build/',
    'class-validator-jsonschema',
    { HERMES_HIDE: ['defaultConverters', 'decorators', 'options'].map((file) => `class-validator-jsonschema/build/${file}`).join(',') },
  ],
  ['class-validator-jsonschema moved getMetadataSchema', 'class-validator-jsonschema', { HERMES_HIDE: 'class-validator-jsonschema/build/decorators' }],
  ['validator moved its locale tables', 'validator', { HERMES_HIDE: 'validator/lib/alpha' }],
];

describe('a library release that moved the internals Hermes reads', () => {
  let fast: ProbeRun;
  const runs = new Map<string, ProbeRun>();

  beforeAll(async () => {
    const [baseline, ...others] = await Promise.all([probe(), ...RELEASES.map(([, , env]) => probe(env))]);
    fast = baseline;
    RELEASES.forEach(([label], i) => runs.set(label, others[i]));
  }, 120_000);

  it('is not what the baseline plays: every fast path is on there, nothing is logged', () => {
    expect(fast.status.filter((s) => !s.fast)).toEqual([]);
    expect(fast.warnings).toEqual([]);
    // The corpus has both outcomes, and refusals with field paths in base, nested and `each` properties.
    const refused = fast.validations.filter((v) => !v.ok);
    expect(fast.validations.some((v) => v.ok)).toBe(true);
    const paths = refused.flatMap((v) => v.issues!.map((issue) => issue.path));
    expect(paths).toEqual(expect.arrayContaining(['level', 'id', 'address.city', 'stops[1].city', 'byName.home.city', 'tags[1]', 'word', 'fullName', 'due', 'amount']));
  });

  describe.each(RELEASES.map(([label, library]) => [label, library] as const))('%s', (label, library) => {
    const run = () => runs.get(label)!;

    it(`turns the ${library} fast paths off, and only those`, () => {
      expect(
        run()
          .status.filter((s) => !s.fast)
          .map((s) => s.library),
      ).toEqual([library]);
      expect(run().status.find((s) => s.library === library)!.reason).toEqual(expect.any(String));
    });

    it('logs HERMES_INTEROP_FALLBACK at warn once (for two apps), naming the library and why', () => {
      expect(run().warnings).toHaveLength(1);
      const [warning] = run().warnings;
      expect(warning).toMatchObject({ level: 40, code: 'HERMES_INTEROP_FALLBACK', library, reason: run().status.find((s) => s.library === library)!.reason });
      expect(String(warning.msg)).toContain('public API');
    });

    it('publishes the same tools and schemas', () => {
      expect(run().tools).toEqual(fast.tools);
    });

    it('accepts and refuses the same inputs, with the same field paths and messages and the same instances', () => {
      expect(run().validations).toEqual(fast.validations);
      expect(run().calls).toEqual(fast.calls);
    });
  });

  it('all at once (HERMES_INTEROP=public): every fast path off, one warning each, the same server', async () => {
    const run = await probe({ HERMES_INTEROP: 'public' });
    expect(run.status.every((s) => !s.fast)).toBe(true);
    expect(run.warnings.map((w) => w.library).sort()).toEqual(['class-transformer', 'class-validator', 'class-validator-jsonschema', 'validator']);
    expect(isDeepStrictEqual(run.tools, fast.tools)).toBe(true);
    expect(run.validations).toEqual(fast.validations);
    expect(run.calls).toEqual(fast.calls);
  }, 60_000);
});
