/**
 * The Skills rules (src/skills.ts, src/extensions.ts) against the official SDK v2: the same ids and
 * limits, the same URI spellings for odd file names, entries the SDK builds valid here, and the
 * refusals of entries a host must not trust.
 */
import { createHash } from 'node:crypto';
import * as sdkCore from '@modelcontextprotocol/core/ext/skills';
import { skillEntry } from '@modelcontextprotocol/server/ext/skills';
import {
  DIRECTORY_MIME_TYPE,
  SKILLS_EXTENSION,
  SKILL_DIGEST_PATTERN,
  SKILL_LIMITS,
  canonicalUri,
  frontmatterDifferences,
  isSkillName,
  isWithin,
  lastSegmentOf,
  resolveSkillRef,
  skillFileKey,
  skillRootUri,
  skillUri,
  splitFrontmatter,
  validateSkillEntry,
  type Skill,
} from '@hermes-mcp/protocol';

const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const MD = '---\nname: q-a\ndescription: Answers\n---\nBody';

/** A valid entry for `skill://acme/q-a` with the given extra files. */
function entry(extra: Record<string, string> = {}): Skill {
  const files: Record<string, string> = { 'SKILL.md': MD, ...extra };
  return {
    uri: 'skill://acme/q-a/SKILL.md',
    frontmatter: { name: 'q-a', description: 'Answers' },
    resources: Object.entries(files).map(([path, text]) => ({ uri: skillUri(['acme', 'q-a', ...path.split('/')]), digest: digest(text), size: Buffer.byteLength(text) })),
  };
}

describe('the Skills constants', () => {
  it('are the SDK v2 ones', () => {
    expect(SKILLS_EXTENSION).toBe(sdkCore.SKILLS_EXTENSION_ID);
    expect(DIRECTORY_MIME_TYPE).toBe(sdkCore.DIRECTORY_MIME_TYPE);
    expect({ ...SKILL_LIMITS }).toEqual({ ...sdkCore.SKILL_LIMITS });
    for (const value of [digest('x'), digest('x').toUpperCase(), `${digest('x')}0`, 'sha256:', 'sha512:00']) {
      expect({ value, ours: SKILL_DIGEST_PATTERN.test(value) }).toEqual({ value, ours: sdkCore.SKILL_DIGEST_PATTERN.test(value) });
    }
  });
});

describe('skillUri', () => {
  it('spells odd file names as the SDK v2 does (percent-encoding, %, spaces, non-ASCII, dots)', async () => {
    const files = { 'SKILL.md': MD, 'Q&A %.md': 'x', 'sub dir/é.md': 'y', 'a#b?.md': 'z', 'x\\y.md': 'w', '...md': 'v' };
    const sdk = await skillEntry('acme/q-a', files);
    const ours = entry(files);
    expect([...(ours.resources as { uri: string }[])].map((r) => r.uri).sort()).toEqual((sdk.resources as { uri: string }[]).map((r) => r.uri));
    expect(validateSkillEntry(sdk)).toEqual([]);
  });

  it('encodes . and .. as the SDK does; a URI still walking up collapses on parsing (a lookup key names only what is served)', () => {
    expect(skillUri(['a', '..', 'SKILL.md'])).toBe('skill://a/%2E%2E/SKILL.md');
    expect(canonicalUri('skill://a/b/../x')).toBe('skill://a/x');
    expect(canonicalUri('skill://a/b/%2e%2E/x')).toBe('skill://a/x');
  });
});

describe('the URI rules', () => {
  it('find the root and name of a skill, and nothing for a URI that is not a SKILL.md in a named directory', () => {
    expect(skillRootUri('skill://acme/billing/refunds/SKILL.md')).toBe('skill://acme/billing/refunds');
    expect(lastSegmentOf('skill://acme/billing/refunds')).toBe('refunds');
    expect(lastSegmentOf('skill://git-workflow')).toBe('git-workflow');
    expect(skillRootUri('skill://SKILL.md')).toBeUndefined();
    expect(skillRootUri('skill://a//SKILL.md')).toBeUndefined();
    expect(skillRootUri('skill://a/README.md')).toBeUndefined();
    expect(skillRootUri('not a uri')).toBeUndefined();
  });

  it('keep a file within its skill, whatever its spelling tries', () => {
    const root = 'skill://acme/q-a';
    expect(isWithin(root, 'skill://acme/q-a/ref/a.md')).toBe(true);
    expect(isWithin(root, 'skill://acme/q-a/../x/SKILL.md')).toBe(false);
    expect(isWithin(root, 'skill://acme/q-a/%2e%2e/x')).toBe(false);
    expect(isWithin(root, 'skill://acme/q-a/a%2Fb')).toBe(false);
    expect(isWithin(root, 'skill://acme/q-a/a%00b')).toBe(false);
    expect(isWithin(root, 'skill://acme/q-ab/x')).toBe(false);
    expect(isWithin(root, 'skill://acme/q-a')).toBe(false);
  });

  it('give every spelling of a file one key, and resolve a reference as a browser would', () => {
    const root = 'skill://acme/q-a';
    expect(skillFileKey(root, 'skill://acme/q-a/Q%26A.md#top')).toBe(skillFileKey(root, 'skill://acme/q-a/Q&A.md'));
    expect(skillFileKey(root, 'skill://acme/q-a/%C3%A9.md')).toBe(skillFileKey(root, 'skill://acme/q-a/é.md'));
    expect(resolveSkillRef('skill://acme/q-a/SKILL.md')).toBe('skill://acme/q-a/SKILL.md');
    expect(resolveSkillRef('skill://acme/q-a/SKILL.md', 'references/FORMS.md')).toBe('skill://acme/q-a/references/FORMS.md');
    expect(() => resolveSkillRef('skill://acme/q-a/README.md')).toThrow(TypeError);
  });
});

describe('validateSkillEntry', () => {
  it('accepts a complete entry', () => {
    expect(validateSkillEntry(entry({ 'references/FORMS.md': 'forms' }))).toEqual([]);
    expect(validateSkillEntry({ ...entry(), resources: 'dynamic' })).toEqual([]);
  });

  it('says what is wrong with an entry a host must not trust', () => {
    const good = entry();
    const [self] = good.resources as { uri: string; digest: string; size: number }[];
    const cases: [Skill, RegExp][] = [
      [{ ...good, frontmatter: { name: 'other', description: 'x' } }, /must match the last path segment "q-a"/],
      [{ ...good, frontmatter: { name: 'Q_A', description: 'x' } }, /1-64 lowercase/],
      [{ ...good, frontmatter: { name: 'q-a', description: '' } }, /description/],
      [{ ...good, frontmatter: { name: 'q-a', description: 'x', compatibility: 3 } }, /compatibility/],
      [{ ...good, frontmatter: { name: 'q-a', description: 'x', metadata: { v: 2 } } }, /metadata must map strings to strings/],
      [{ ...good, resources: [] }, /resources must include skill:\/\/acme\/q-a\/SKILL.md/],
      [{ ...good, resources: [self, self] }, /listed more than once/],
      [{ ...good, resources: [self, { ...self, uri: 'skill://acme/other/x.md' }] }, /outside the skill directory/],
      [{ ...good, resources: [self, { ...self, uri: 'skill://acme/q-a/x.md?v=1' }] }, /query or fragment/],
      [{ ...good, resources: [{ ...self, digest: 'sha256:ABC' }] }, /digest must be sha256/],
      [{ ...good, resources: [{ ...self, size: -1 }] }, /size must be a non-negative integer/],
      [{ ...good, uri: 'skill://acme/q-a/README.md' }, /must be a URI ending in \/SKILL.md/],
    ];
    for (const [skill, problem] of cases) expect(validateSkillEntry(skill).join('\n')).toMatch(problem);
  });

  it('counts a name of 65 characters out', () => {
    expect(isSkillName('a'.repeat(64))).toBe(true);
    expect(isSkillName('a'.repeat(65))).toBe(false);
    expect(isSkillName('a--b')).toBe(false);
    expect(isSkillName('-a')).toBe(false);
  });
});

describe('splitFrontmatter and frontmatterDifferences', () => {
  it('find the block behind a BOM and CRLF line ends, and nothing without a closing fence', () => {
    expect(splitFrontmatter('\uFEFF---\r\nname: a\r\n---\r\nbody')).toEqual({ block: 'name: a', body: 'body' });
    expect(splitFrontmatter('---\nname: a\n---')).toEqual({ block: 'name: a', body: '' });
    expect(splitFrontmatter('---\nname: a\n')).toBeUndefined();
    expect(splitFrontmatter('name: a')).toBeUndefined();
  });

  it('compare every key both ways, with no coercion', () => {
    expect(frontmatterDifferences({ name: 'a', metadata: { v: '1' } }, { metadata: { v: '1' }, name: 'a' })).toEqual([]);
    expect(frontmatterDifferences({ name: 'a', version: '1' }, { name: 'a', version: 1 })).toEqual(['version: the entry has "1", SKILL.md has 1']);
    expect(frontmatterDifferences({ name: 'a' }, { name: 'a', extra: true })).toEqual(['extra: the entry has nothing, SKILL.md has true']);
    expect(frontmatterDifferences({ tags: ['a', 'b'] }, { tags: ['b', 'a'] })).toHaveLength(2);
  });
});
