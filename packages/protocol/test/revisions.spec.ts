import {
  LATEST_LEGACY_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
  ProtocolVersion,
  REVISIONS,
  RevisionFeatures,
  isLegacyProtocolVersion,
  isProtocolVersion,
  negotiateLegacyVersion,
} from '@hermes-mcp/protocol';

/** The revisions for which `flag` is true, oldest first. */
function having(flag: keyof RevisionFeatures): ProtocolVersion[] {
  return PROTOCOL_VERSIONS.filter((version) => REVISIONS[version][flag] === true);
}

describe('the revision list', () => {
  it('lists every revision oldest first, and the legacy ones', () => {
    expect(PROTOCOL_VERSIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(LATEST_LEGACY_VERSION).toBe('2025-11-25');
    expect([...PROTOCOL_VERSIONS].sort()).toEqual([...PROTOCOL_VERSIONS]);
  });

  it('has one row per revision, naming itself', () => {
    expect(Object.keys(REVISIONS).sort()).toEqual([...PROTOCOL_VERSIONS]);
    for (const version of PROTOCOL_VERSIONS) expect(REVISIONS[version].version).toBe(version);
  });

  it('cannot be changed at runtime', () => {
    expect(Object.isFrozen(REVISIONS)).toBe(true);
  });
});

describe('negotiateLegacyVersion', () => {
  it.each(LEGACY_PROTOCOL_VERSIONS.map((v) => [v]))('%s → itself', (version) => {
    expect(negotiateLegacyVersion(version)).toBe(version);
  });

  it.each([
    ['the modern revision', '2026-07-28'],
    ['an unknown date', '2024-01-01'],
    ['a future date', '2099-12-31'],
    ['an empty string', ''],
    ['a near miss', '2025-06-18 '],
    ['a number', 20250618],
    ['null', null],
    ['undefined', undefined],
    ['an object', { version: '2025-06-18' }],
    ['an array', ['2025-06-18']],
  ])('%s → 2025-11-25', (_label, requested) => {
    expect(negotiateLegacyVersion(requested)).toBe('2025-11-25');
  });
});

describe('isProtocolVersion / isLegacyProtocolVersion', () => {
  it('know every served revision and its era', () => {
    expect(PROTOCOL_VERSIONS.filter(isProtocolVersion)).toEqual([...PROTOCOL_VERSIONS]);
    expect(PROTOCOL_VERSIONS.filter(isLegacyProtocolVersion)).toEqual([...LEGACY_PROTOCOL_VERSIONS]);
  });

  it('reject other values, including inherited property names', () => {
    for (const value of ['2025-01-01', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 1, null, undefined, {}]) {
      expect(isProtocolVersion(value)).toBe(false);
      expect(isLegacyProtocolVersion(value)).toBe(false);
    }
  });
});

describe('feature flags', () => {
  it('era: only 2026-07-28 is modern', () => {
    expect(PROTOCOL_VERSIONS.map((v) => REVISIONS[v].era)).toEqual(['legacy', 'legacy', 'legacy', 'legacy', 'modern']);
  });

  it('batches: only 2025-03-26', () => {
    expect(having('batches')).toEqual(['2025-03-26']);
  });

  it.each(['audioContent', 'toolAnnotations', 'completions', 'progressMessage'] as const)('%s: from 2025-03-26', (flag) => {
    expect(having(flag)).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
  });

  it.each(['structuredOutput', 'elicitation', 'titles', 'resourceLinks', 'meta'] as const)('%s: from 2025-06-18', (flag) => {
    expect(having(flag)).toEqual(['2025-06-18', '2025-11-25', '2026-07-28']);
  });

  it.each(['icons', 'urlElicitation', 'samplingTools'] as const)('%s: from 2025-11-25', (flag) => {
    expect(having(flag)).toEqual(['2025-11-25', '2026-07-28']);
  });

  it('lists each era oldest first, as PROTOCOL_VERSIONS does (the client takes the last modern revision as the newest)', () => {
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(PROTOCOL_VERSIONS.filter((v) => REVISIONS[v].era === 'legacy'));
    expect(MODERN_PROTOCOL_VERSIONS).toEqual(PROTOCOL_VERSIONS.filter((v) => REVISIONS[v].era === 'modern'));
  });

  it('2024-11-05 has none of the later features', () => {
    const { version, era, ...flags } = REVISIONS['2024-11-05'];
    expect([version, era]).toEqual(['2024-11-05', 'legacy']);
    expect(Object.values(flags).every((flag) => flag === false)).toBe(true);
  });
});
