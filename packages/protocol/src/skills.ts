/**
 * The Skills extension's (SEP-2640) rules that server and client must apply alike: how a skill's
 * URIs are spelled and compared, what makes a `Skill` entry valid, where a SKILL.md's frontmatter
 * block is, and how an entry's frontmatter is compared with the one parsed from the file. Pure
 * functions over strings: the YAML parse itself is the caller's (protocol depends on nothing). They
 * follow the official SDK v2's semantics (`core-internal/src/ext/skills/{uri,entry}.ts`), so an
 * entry Hermes builds is one the SDK's client accepts, and the other way round.
 */
import { SKILL_DIGEST_PATTERN, SKILL_NAME_MAX, SKILL_NAME_PATTERN } from './extensions';
import type { Skill } from './types';

// WHATWG URL's path percent-encode set (with `^`, which Node 20 leaves raw), plus `%`, `/` and `\`.
const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

const encodePathText = (text: string): string => text.replace(ENCODED_IN_SEGMENT, (char) => encodeURIComponent(char));

/**
 * One path segment as a URI spells it: percent-encoded as WHATWG URL does, plus `%`, `/`, `\`, and
 * the dots of `.` and `..` (so a segment never walks up). Throws `URIError` on a lone surrogate: such
 * a name has no URI.
 */
export function encodeSegment(segment: string): string {
  if (segment === '.' || segment === '..') return segment.replace(/\./g, '%2E');
  return encodePathText(segment);
}

/**
 * The URI of a skill file: `skill://` + the authority (the first segment, encoded strictly) + the
 * other segments, each {@link encodeSegment}ed.
 *
 * @example
 * skillUri(['acme', 'billing', 'refunds', 'SKILL.md']); // 'skill://acme/billing/refunds/SKILL.md'
 */
export function skillUri(segments: readonly string[]): string {
  const [authority, ...path] = segments;
  if (authority === undefined) return 'skill://';
  return [`skill://${encodeURIComponent(authority)}`, ...path.map(encodeSegment)].join('/');
}

/** The WHATWG-serialised form of `uri` (the one spelling lookups use), or undefined when it does not parse. */
export function canonicalUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

const MANIFEST_SUFFIX = '/SKILL.md';

/**
 * The skill's root directory URI (no trailing slash) of a SKILL.md URI, or undefined when `uri` is
 * not a `…/SKILL.md` URI inside a named directory.
 */
export function skillRootUri(uri: string): string | undefined {
  const canonical = canonicalUri(uri);
  if (canonical === undefined || !canonical.endsWith(MANIFEST_SUFFIX)) return undefined;
  const root = canonical.slice(0, -MANIFEST_SUFFIX.length);
  // `scheme:/`, `scheme://` and `…//SKILL.md` name no directory.
  return root.endsWith('/') ? undefined : root;
}

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The decoded last segment of a directory URI (its authority when the path is empty): a skill root's is the skill's name. */
export function lastSegmentOf(rootUri: string): string {
  const url = new URL(rootUri);
  const path = url.pathname;
  return safeDecode(path === '' || path === '/' ? url.host : path.slice(path.lastIndexOf('/') + 1));
}

/** True when `uri` is strictly inside `rootUri` and no segment below it decodes to empty, `.`, `..`, or a name holding `/` or NUL. */
export function isWithin(rootUri: string, uri: string): boolean {
  const canonical = canonicalUri(uri);
  if (canonical === undefined || !canonical.startsWith(`${rootUri}/`)) return false;
  return canonical
    .slice(rootUri.length + 1)
    .split('/')
    .every((segment) => {
      const decoded = safeDecode(segment);
      return decoded !== '' && decoded !== '.' && decoded !== '..' && !decoded.includes('/') && !decoded.includes('\0');
    });
}

const utf8Width = (lead: number): number => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1);

// A run of `%XX` escapes: each valid UTF-8 sequence decoded and re-encoded; a `%XX` starting none is a literal `%`.
function keyOfEscapes(run: string): string {
  let key = '';
  for (let at = 0; at < run.length;) {
    const width = 3 * utf8Width(Number.parseInt(run.slice(at + 1, at + 3), 16));
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(run.slice(at, at + width));
    } catch {
      decoded = undefined;
    }
    if (decoded === undefined) {
      key += `%25${run.slice(at + 1, at + 3)}`;
      at += 3;
    } else {
      key += encodePathText(decoded);
      at += width;
    }
  }
  return key;
}

// Splitting on this puts the runs of `%XX` escapes at odd indexes.
const ESCAPE_RUN = /((?:%[\dA-Fa-f]{2})+)/;

const keyOfSegment = (segment: string): string =>
  segment
    .split(ESCAPE_RUN)
    .map((part, index) => (index % 2 === 0 ? encodePathText(part) : keyOfEscapes(part)))
    .join('');

/**
 * The one spelling every way of writing a file's URI below `rootUri` shares (`Q&A.md`, `Q%26A.md`,
 * with or without a fragment), to match a URI against an entry's resources; undefined when it does
 * not parse.
 */
export function skillFileKey(rootUri: string, uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  url.hash = '';
  const canonical = url.href;
  // A canonical path never holds a raw `?`: one here starts a query.
  if (canonical.includes('?') || !canonical.startsWith(`${rootUri}/`)) return canonical;
  return `${rootUri}/${canonical
    .slice(rootUri.length + 1)
    .split('/')
    .map(keyOfSegment)
    .join('/')}`;
}

/** `ref` (default `SKILL.md`) resolved against the skill's root, as a browser resolves a link. Throws a TypeError when `skillMdUri` is no SKILL.md URI. */
export function resolveSkillRef(skillMdUri: string, ref?: string): string {
  const root = skillRootUri(skillMdUri);
  if (root === undefined) throw new TypeError(`${skillMdUri} is not a SKILL.md URI inside a named directory`);
  return new URL(ref ?? 'SKILL.md', `${root}/`).href;
}

/** Code-unit order of two URIs: the one order of entries, directory children and pages. */
export function compareUris(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True for a `digest` of the extension's form (`sha256:` + 64 lowercase hex digits). */
export function isSkillDigest(value: unknown): value is string {
  return typeof value === 'string' && SKILL_DIGEST_PATTERN.test(value);
}

/** True for a name the Agent Skills rule allows: {@link SKILL_NAME_PATTERN}, 1–64 characters. */
export function isSkillName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= SKILL_NAME_MAX && SKILL_NAME_PATTERN.test(value);
}

const isStringMap = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');

// Agent Skills limits count characters (code points), not UTF-16 code units.
const characters = (text: string): number => [...text].length;

/**
 * What is wrong with a `Skill` entry, by the extension's and Agent Skills' rules (an empty array:
 * valid): the URI a `…/SKILL.md` in a named directory whose last segment is `frontmatter.name`; the
 * name's rule; description 1–1024 characters; `compatibility` a string of 1–500; `metadata` a map of
 * strings; every resource a valid URI with no query or fragment, inside the skill, listed once, with
 * a digest of the right form and a byte size; the entry's own SKILL.md among them.
 */
export function validateSkillEntry(skill: Skill): string[] {
  const root = skillRootUri(skill.uri);
  if (root === undefined) return [`uri "${skill.uri}" must be a URI ending in /SKILL.md inside a named directory`];
  const problems: string[] = [];
  const frontmatter = skill.frontmatter as Record<string, unknown> | null;
  if (typeof frontmatter !== 'object' || frontmatter === null || Array.isArray(frontmatter)) return ['frontmatter must be an object'];
  const { name, description, compatibility, metadata } = frontmatter;
  if (!isSkillName(name)) problems.push(`frontmatter name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single hyphens`);
  else if (lastSegmentOf(root) !== name) problems.push(`frontmatter name "${name}" must match the last path segment "${lastSegmentOf(root)}"`);
  if (typeof description !== 'string' || description === '' || characters(description) > 1024) problems.push('frontmatter description must be a string of 1-1024 characters');
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > 500)) {
    problems.push('frontmatter compatibility must be a string of 1-500 characters');
  }
  if (metadata !== undefined && !isStringMap(metadata)) problems.push('frontmatter metadata must map strings to strings');
  if (skill.resources === 'dynamic') return problems;
  if (!Array.isArray(skill.resources)) return [...problems, 'resources must be an array or "dynamic"'];
  const self = canonicalUri(skill.uri);
  const seen = new Set<string>();
  let hasSelf = false;
  for (const resource of skill.resources) {
    const canonical = typeof resource?.uri === 'string' ? canonicalUri(resource.uri) : undefined;
    if (canonical === undefined) {
      problems.push(`resource ${JSON.stringify(resource?.uri)} is not a valid URI`);
      continue;
    }
    // A canonical URI holds a raw `?` or `#` only as a query or fragment, even an empty one.
    if (/[#?]/.test(canonical)) {
      problems.push(`resource "${resource.uri}" must not have a query or fragment`);
      continue;
    }
    const key = skillFileKey(root, canonical) ?? canonical;
    if (seen.has(key)) problems.push(`resource "${resource.uri}" is listed more than once`);
    seen.add(key);
    if (canonical === self) hasSelf = true;
    else if (!isWithin(root, resource.uri)) problems.push(`resource "${resource.uri}" is outside the skill directory ${root}`);
    if (!isSkillDigest(resource.digest)) problems.push(`resource "${resource.uri}" digest must be sha256: and 64 lowercase hex digits`);
    if (!Number.isSafeInteger(resource.size) || resource.size < 0) problems.push(`resource "${resource.uri}" size must be a non-negative integer`);
  }
  if (!hasSelf) problems.push(`resources must include ${skill.uri}`);
  return problems;
}

/**
 * The frontmatter block of a SKILL.md and the body after it, or undefined when the text does not
 * begin with a `---` fence closed by another (a leading BOM and CRLF line ends allowed, as the
 * conformance suite reads it).
 */
export function splitFrontmatter(text: string): { block: string; body: string } | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? { block: match[1], body: text.slice(match[0].length) } : undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/**
 * The field-level differences between an entry's frontmatter and the one parsed from its SKILL.md:
 * every key both ways, objects in any key order, arrays in order, no type coercion. Empty: the
 * same. A host must not load a skill whose frontmatter differs.
 */
export function frontmatterDifferences(entry: unknown, parsed: unknown, path = ''): string[] {
  const label = path === '' ? '(frontmatter)' : path;
  if (Array.isArray(entry) && Array.isArray(parsed)) {
    if (entry.length !== parsed.length) return [`${label}: the entry has ${entry.length} items, SKILL.md has ${parsed.length}`];
    return entry.flatMap((item, index) => frontmatterDifferences(item, parsed[index], `${path}[${index}]`));
  }
  if (isPlainObject(entry) && isPlainObject(parsed)) {
    const keys = [...new Set([...Object.keys(entry), ...Object.keys(parsed)])].sort();
    return keys.flatMap((key) =>
      frontmatterDifferences(
        Object.prototype.hasOwnProperty.call(entry, key) ? entry[key] : undefined,
        Object.prototype.hasOwnProperty.call(parsed, key) ? parsed[key] : undefined,
        path === '' ? key : `${path}.${key}`,
      ),
    );
  }
  return entry === parsed ? [] : [`${label}: the entry has ${show(entry)}, SKILL.md has ${show(parsed)}`];
}
