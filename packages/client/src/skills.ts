/**
 * The host side of the Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), behind
 * McpClient's `listSkills`, `getSkill`, `loadSkill` and `readSkillDirectory`: every entry a
 * server lists is checked against the extension's rules, and every skill file read is verified
 * against the entry the client holds — listed, then size, then digest, and for SKILL.md its
 * frontmatter field by field — before anything of it is handed over. Nothing is read ahead of
 * need: listing and getting read no file, loading reads SKILL.md only, and a supporting file is
 * read when asked for, through the loaded skill (the spec's "acting window": only files the held
 * entry lists).
 */
import { createHash } from 'node:crypto';
import { parseDocument } from 'yaml';
import {
  ErrorCode,
  McpError,
  SKILLS_EXTENSION,
  canonicalUri,
  frontmatterDifferences,
  isRecord,
  isWithin,
  resolveSkillRef,
  skillFileKey,
  skillRootUri,
  splitFrontmatter,
  validateSkillEntry,
} from '@hermes-mcp/protocol';
import type { ReadResourceResult, Resource, ServerCapabilities, Skill, SkillResource } from '@hermes-mcp/protocol';
import type { CallOptions, ListPage, Listing } from './client-api';
import { listing } from './paging';

/** What McpClient lends the functions here: its requests, and the era (the response cache is 2026-07-28's). */
export interface SkillsRequester {
  readonly era?: 'legacy' | 'modern';
  request(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
}

/** Options of `listSkills` and `listAllSkills`. */
export interface SkillListOptions extends CallOptions {
  /**
   * `true`: leave out the entries that break the extension's rules, and name them in the page's
   * `invalid`. Default false: one such entry fails the call (-32603 naming each, `data.invalid`).
   */
  skipInvalid?: boolean;
}

/** An entry of `skills/list` the client refused, and why. */
export interface InvalidSkillEntry {
  /** Its place in the page. */
  index: number;
  uri?: string;
  reason: string;
}

/** One page of `skills/list`: the valid entries (`skills`, also `items`), and those refused with `skipInvalid`. */
export type SkillsPage = ListPage<Skill, 'skills'> & { invalid: InvalidSkillEntry[] };

/** A skill from `skills/get`, with the result's caching hints (2026-07-28). */
export interface GotSkill {
  skill: Skill;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** A skill file as read and verified. */
export interface SkillFile {
  /** The URI read: the entry's spelling of it (for a `"dynamic"` skill, the resolved reference). */
  uri: string;
  mimeType?: string;
  /** Exactly the bytes the entry's size and digest cover. */
  bytes: Uint8Array;
  /** The file as text, when the server sent text. */
  text?: string;
  /** Size and digest checked against the entry; false only for a `"dynamic"` skill's files. */
  verified: boolean;
  /** SKILL.md only: its frontmatter, equal to the entry's. */
  frontmatter?: Record<string, unknown>;
  /** SKILL.md only: the markdown after the frontmatter. */
  body?: string;
}

/**
 * A skill whose SKILL.md was read and verified: what a host may act on. `read` reads a file the
 * held entry lists, verified; any other is refused unsent (`unlisted`), even one a directory
 * read shows.
 */
export interface LoadedSkill {
  /** The entry it was loaded from, the one its files are verified against. */
  readonly entry: Skill;
  /** SKILL.md, verified, with its `frontmatter` and `body`. */
  readonly manifest: SkillFile & { text: string; frontmatter: Record<string, unknown>; body: string };
  /** The URIs of its other files, as the entry lists them (none for a `"dynamic"` skill). */
  readonly files: readonly string[];
  /** Reads one of its files (a path relative to the skill's folder, or a URI), verified. */
  read(ref: string, options?: CallOptions): Promise<SkillFile>;
}

/** Why a skill file was refused: not listed in the entry, or its size, digest or frontmatter differs from the entry's. */
export type SkillVerificationReason = 'unlisted' | 'size' | 'digest' | 'frontmatter';

/**
 * A skill file that failed verification against the skill's entry: a host must not use it, and
 * for SKILL.md must not load the skill. Local (code `SKILL_VERIFICATION`, docs/errors.md): the
 * server answered, and what it sent is not what it listed.
 */
export class SkillVerificationError extends Error {
  /** Always `SKILL_VERIFICATION` (docs/errors.md, "Local errors"). */
  readonly code = 'SKILL_VERIFICATION';

  constructor(
    readonly reason: SkillVerificationReason,
    /** The file refused. */
    readonly uri: string,
    detail: string,
    /** `frontmatter`: one line per field that differs. */
    readonly differences: readonly string[] = [],
  ) {
    super(`${uri} failed verification (${reason}): ${detail}`);
    this.name = 'SkillVerificationError';
  }
}

/** True when `capabilities` declare the Skills extension (a settings object, `{}` at least). */
export function declaresSkills(capabilities: ServerCapabilities): boolean {
  return isRecord(capabilities.extensions) && isRecord(capabilities.extensions[SKILLS_EXTENSION]);
}

/** One page of `skills/list`, every entry checked: refused (or, with `skipInvalid`, left out) when it breaks a rule. */
export async function listSkills(client: SkillsRequester, cursor: string | undefined, options: SkillListOptions = {}): Promise<SkillsPage> {
  const result = await client.request('skills/list', cursor === undefined ? {} : { cursor }, options);
  const entries = Array.isArray(result.skills) ? (result.skills as unknown[]) : [];
  const skills: Skill[] = [];
  const invalid: InvalidSkillEntry[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const uri = isRecord(entry) && typeof entry.uri === 'string' ? entry.uri : undefined;
    const problems = entryProblems(entry);
    const key = uri === undefined ? undefined : (canonicalUri(uri) ?? uri);
    if (key !== undefined && seen.has(key)) problems.push('the same uri is listed twice');
    if (key !== undefined) seen.add(key);
    if (problems.length === 0) skills.push(entry as Skill);
    else invalid.push({ index, ...(uri !== undefined && { uri }), reason: problems.join('; ') });
  });
  if (invalid.length > 0 && options.skipInvalid !== true) {
    const lines = invalid.map((entry) => `#${entry.index} ${entry.uri ?? '(no uri)'}: ${entry.reason}`).join('\n');
    throw new McpError(ErrorCode.InternalError, `Invalid response to skills/list (skipInvalid leaves such entries out):\n${lines}`, { invalid });
  }
  const page: SkillsPage = { skills, items: skills, invalid };
  if (typeof result.nextCursor === 'string') page.nextCursor = result.nextCursor;
  return page;
}

/** Every skill, page after page (each page checked as {@link listSkills} does). */
export function listAllSkills(client: SkillsRequester, options?: SkillListOptions): Listing<Skill> {
  return listing<Skill>('skills/list', (cursor) => listSkills(client, cursor, options));
}

/** `skills/get`: the entry checked, and checked to be the skill asked for. */
export async function getSkill(client: SkillsRequester, uri: string, options?: CallOptions): Promise<GotSkill> {
  const result = await client.request('skills/get', { uri }, options);
  const problems = entryProblems(result.skill);
  if (problems.length > 0) throw new McpError(ErrorCode.InternalError, `Invalid response to skills/get for ${uri}: ${problems.join('; ')}`, { uri });
  const skill = result.skill as Skill;
  if (canonicalUri(skill.uri) !== canonicalUri(uri))
    throw new McpError(ErrorCode.InternalError, `Invalid response to skills/get for ${uri}: it answered with ${skill.uri}`, { uri });
  return {
    skill,
    ...(typeof result.ttlMs === 'number' && { ttlMs: result.ttlMs }),
    ...((result.cacheScope === 'public' || result.cacheScope === 'private') && { cacheScope: result.cacheScope }),
  };
}

/** Reads and verifies a skill's SKILL.md: the skill, loaded (see {@link LoadedSkill}). */
export async function loadSkill(client: SkillsRequester, skill: Skill, options?: CallOptions): Promise<LoadedSkill> {
  const manifest = (await readSkillFile(client, skill, undefined, options)) as LoadedSkill['manifest'];
  const files = skill.resources === 'dynamic' ? [] : skill.resources.filter((resource) => canonicalUri(resource.uri) !== canonicalUri(skill.uri)).map((resource) => resource.uri);
  return { entry: skill, manifest, files, read: (ref, readOptions) => readSkillFile(client, skill, ref, readOptions) };
}

/** The direct children of a skill directory (`resources/directory/read`), page after page. */
export function readSkillDirectory(client: SkillsRequester, uri: string, options?: CallOptions): Listing<Resource> {
  return listing<Resource>('resources/directory/read', async (cursor) => {
    const result = await client.request('resources/directory/read', cursor === undefined ? { uri } : { uri, cursor }, options);
    return { items: result.resources as Resource[], ...(typeof result.nextCursor === 'string' && { nextCursor: result.nextCursor }) };
  });
}

/** What a read targets: the URI to ask for, its key among the entry's files, its listing, whether it is SKILL.md. */
interface Target {
  uri: string;
  root: string;
  key: string;
  listed?: SkillResource;
  manifest: boolean;
}

/**
 * Reads one file of `skill` (`ref`: relative to the skill's folder, or a URI; default SKILL.md)
 * and verifies it. A copy from the response cache that fails is asked for once more, uncached:
 * the server may have changed the file since.
 */
async function readSkillFile(client: SkillsRequester, skill: Skill, ref: string | undefined, options: CallOptions = {}): Promise<SkillFile> {
  const problems = entryProblems(skill);
  if (problems.length > 0) throw new TypeError(`${String((skill as { uri?: unknown })?.uri)} is not a valid skill entry: ${problems.join('; ')}`);
  const target = targetOf(skill, ref);
  const read = (readOptions: CallOptions) => client.request('resources/read', { uri: target.uri }, readOptions);
  const result = await read(options);
  try {
    return verify(skill, target, result as unknown as ReadResourceResult);
  } catch (error) {
    const mayBeCached = client.era === 'modern' && options.cache !== false && typeof result.ttlMs === 'number' && result.ttlMs > 0;
    if (!(error instanceof SkillVerificationError) || !mayBeCached) throw error;
    return verify(skill, target, (await read({ ...options, cache: false })) as unknown as ReadResourceResult);
  }
}

/**
 * The file `ref` names in `skill`, found among the entry's files however either side
 * percent-encodes its name (`skillFileKey`); `unlisted`, before any request, when the entry does
 * not list it (a `"dynamic"` skill lists none: any file inside its folder).
 */
function targetOf(skill: Skill, ref: string | undefined): Target {
  const root = skillRootUri(skill.uri)!;
  let uri: string;
  try {
    const resolved = new URL(resolveSkillRef(skill.uri, ref));
    resolved.hash = '';
    uri = resolved.href;
  } catch {
    throw new SkillVerificationError('unlisted', ref ?? '', 'not a URI reference');
  }
  const key = skillFileKey(root, uri) ?? uri;
  const manifest = key === skillFileKey(root, skill.uri);
  if (skill.resources === 'dynamic') {
    if (!manifest && !isWithin(root, key)) throw new SkillVerificationError('unlisted', uri, `not a file of the skill ${skill.uri}`);
    return { uri, root, key, manifest };
  }
  const listed = skill.resources.find((resource) => skillFileKey(root, resource.uri) === key);
  if (listed === undefined) throw new SkillVerificationError('unlisted', uri, `the entry of ${skill.uri} does not list it`);
  return { uri: listed.uri, root, key, listed, manifest };
}

/** Checks a `resources/read` answer against the entry: size first (no hashing of the wrong length), then digest, then SKILL.md's frontmatter. */
function verify(skill: Skill, target: Target, result: ReadResourceResult): SkillFile {
  const { uri, root, key, listed } = target;
  const content = (Array.isArray(result.contents) ? result.contents : []).find(
    (item) => isRecord(item) && typeof item.uri === 'string' && (skillFileKey(root, item.uri) ?? item.uri) === key,
  );
  if (content === undefined) throw new McpError(ErrorCode.InternalError, `Invalid response to resources/read: no contents for ${uri}`, { uri });
  const text = 'text' in content && typeof content.text === 'string' ? content.text : undefined;
  const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : undefined;
  if (text === undefined && blob === undefined)
    throw new McpError(ErrorCode.InternalError, `Invalid response to resources/read: the contents of ${uri} have no text or blob`, { uri });
  const bytes = text !== undefined ? Buffer.from(text, 'utf8') : Buffer.from(blob!, 'base64');
  if (listed !== undefined) {
    if (bytes.byteLength !== listed.size) throw new SkillVerificationError('size', uri, `${bytes.byteLength} bytes; the entry lists ${listed.size}`);
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (digest !== listed.digest) throw new SkillVerificationError('digest', uri, `its digest is ${digest}; the entry lists ${listed.digest}`);
  }
  const file: SkillFile = {
    uri,
    ...(typeof content.mimeType === 'string' && { mimeType: content.mimeType }),
    bytes: new Uint8Array(bytes),
    ...(text !== undefined && { text }),
    verified: listed !== undefined,
  };
  if (!target.manifest) return file;
  const markdown = text ?? decodeUtf8(bytes);
  if (markdown === undefined) throw new SkillVerificationError('frontmatter', uri, 'SKILL.md is not UTF-8');
  const { frontmatter, body } = parseSkillMarkdown(uri, markdown);
  const differences = frontmatterDifferences(skill.frontmatter, frontmatter);
  if (differences.length > 0) throw new SkillVerificationError('frontmatter', uri, `its frontmatter differs from the entry's: ${differences.join('; ')}`, differences);
  return { ...file, text: markdown, frontmatter, body };
}

/** The bytes as UTF-8 text, or undefined when they are not UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** SKILL.md split and its frontmatter parsed as YAML; a frontmatter that cannot be read fails verification. */
function parseSkillMarkdown(uri: string, markdown: string): { frontmatter: Record<string, unknown>; body: string } {
  const split = splitFrontmatter(markdown);
  if (split === undefined) throw new SkillVerificationError('frontmatter', uri, 'SKILL.md does not begin with a --- frontmatter block');
  const document = parseDocument(split.block, { version: '1.2', schema: 'core', uniqueKeys: true });
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem !== undefined) throw new SkillVerificationError('frontmatter', uri, `its frontmatter is not YAML: ${problem.message}`);
  const frontmatter: unknown = document.toJS();
  if (!isRecord(frontmatter)) throw new SkillVerificationError('frontmatter', uri, 'its frontmatter is not a mapping');
  return { frontmatter, body: split.body };
}

/** What is wrong with an entry received from a server (none: it is a {@link Skill}). */
function entryProblems(value: unknown): string[] {
  if (!isRecord(value) || typeof value.uri !== 'string') return ['an entry must be an object with a string uri'];
  return validateSkillEntry(value as Skill);
}
