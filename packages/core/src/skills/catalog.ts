/**
 * The skills catalog: every served skill's entry, file, directory and listed SKILL.md, built once
 * (at bootstrap, and again on reload) from the skills the sources give, then frozen. Digests and
 * sizes are computed here and nowhere else; requests only look URIs up in its maps, so no request
 * ever names a path on disk. A skill breaking a rule is left out, with the {@link SkillProblem} that
 * says why; what is served but worth a warning comes back as notes.
 */
import {
  DIRECTORY_MIME_TYPE,
  SKILL_LIMITS,
  SKILL_MD_MIME_TYPE,
  canonicalUri,
  compareUris,
  encodeSegment,
  lastSegmentOf,
  nodeCrypto,
  skillUri,
  validateSkillEntry,
  type Resource,
  type Skill,
  type SkillResource,
} from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import type { SkillLimits } from '../metadata/options';
import { parseSkillMarkdown } from './frontmatter';
import { skillMimeType } from './mime';
import { SkillProblem } from './problem';

/** The limits with their defaults filled in. */
export type ResolvedLimits = Required<SkillLimits>;

/** The default limits: the extension's per skill, 16 MiB a file, 64 KiB of frontmatter. */
export function resolveLimits(limits: SkillLimits = {}): ResolvedLimits {
  const resolved = { files: SKILL_LIMITS.files, bytes: SKILL_LIMITS.bytes, fileBytes: SKILL_LIMITS.bytes, frontmatterBytes: 64 * 1024, ...limits };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new HermesError('HERMES_INVALID_OPTIONS', `skills.limits.${key} must be a positive integer, not ${String(value)}.`);
  }
  return resolved;
}

/** One file of a skill as its source gives it: where it is in the skill, its size, and how to read its bytes. */
export interface SourceFile {
  /** Its path inside the skill, by segment (`['references', 'FORMS.md']`). */
  readonly path: readonly string[];
  /** Its size as the source knows it before reading (a folder: `lstat`). */
  readonly size: number;
  /** Its bytes; a folder source re-opens the file without following links, and refuses what is not a regular file. */
  readonly read: () => Uint8Array;
}

/** One skill as its source gives it. */
export interface SourceSkill {
  /** Its skill path, by segment, without the prefix (`['billing', 'refunds']`). */
  readonly path: readonly string[];
  /** Where it comes from, for messages: its folder, or `skills.inline["…"]`. */
  readonly origin: string;
  readonly files: readonly SourceFile[];
  /** What the source already found wrong (a symlink, a special file, too many files). */
  readonly problem?: SkillProblem;
}

/** A file the catalog serves. */
export interface CatalogFile {
  readonly uri: string;
  readonly size: number;
  readonly digest: string;
  readonly mimeType: string;
  readonly read: () => Uint8Array;
  /** Where it comes from, for log lines. */
  readonly origin: string;
}

/** A frozen snapshot of what is served. */
export interface SkillCatalog {
  /** The entries, by URI (code-unit order): `skills/list`'s pages. */
  readonly entries: readonly Skill[];
  /** Each entry by its SKILL.md's canonical URI. */
  readonly skills: ReadonlyMap<string, Skill>;
  /** Each file by its canonical URI. */
  readonly files: ReadonlyMap<string, CatalogFile>;
  /** Each directory (a skill root, a folder inside one) by its canonical URI: its direct children. */
  readonly dirs: ReadonlyMap<string, readonly Resource[]>;
  /** What `resources/list` adds: one resource per SKILL.md. */
  readonly listed: readonly Resource[];
}

/** A skill left out of the catalog, and why. */
export interface SkippedSkill {
  readonly origin: string;
  readonly problem: SkillProblem;
}

/** The `digest` of bytes: `sha256:` and the lowercase hex SHA-256. */
export const digestOf = (bytes: Uint8Array): string => `sha256:${nodeCrypto().createHash('sha256').update(bytes).digest('hex')}`;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of bytes that decode as UTF-8 without loss (a BOM kept), else undefined. */
export function losslessText(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A built skill: its entry and its files. */
interface Built {
  readonly skill: Skill;
  readonly files: CatalogFile[];
  readonly listed: Resource;
  readonly root: string;
  readonly paths: ReadonlyArray<readonly string[]>;
  /** What is served but should not be (reserved metadata keys), for a warning. */
  readonly notes: string[];
}

/** Builds one skill, or throws the {@link SkillProblem} that keeps it out. */
function buildSkill(source: SourceSkill, prefix: readonly string[], limits: ResolvedLimits): Built {
  if (source.problem) throw source.problem;
  const segments = [...prefix, ...source.path];
  if (segments.length === 0)
    throw new SkillProblem('HERMES_SKILL_INVALID', 'a SKILL.md at the root of a skills folder has no skill path: put it in a folder named after the skill');
  // Sizes as the source knows them before reading (a folder: lstat): a huge file is never opened.
  for (const file of source.files) {
    if (file.size > limits.fileBytes) throw new SkillProblem('HERMES_SKILL_UNSAFE', `"${file.path.join('/')}" is ${file.size} bytes, over limits.fileBytes (${limits.fileBytes})`);
  }
  if (source.files.length > limits.files) throw new SkillProblem('HERMES_SKILL_TOO_LARGE', `it has ${source.files.length} files, over limits.files (${limits.files})`);
  const total = source.files.reduce((sum, file) => sum + file.size, 0);
  if (total > limits.bytes) throw new SkillProblem('HERMES_SKILL_TOO_LARGE', `its files add up to ${total} bytes, over limits.bytes (${limits.bytes})`);
  let uriOf: (path: readonly string[]) => string;
  try {
    skillUri([...segments, 'SKILL.md']);
    uriOf = (path) => skillUri([...segments, ...path]);
    for (const file of source.files) uriOf(file.path);
  } catch {
    throw new SkillProblem('HERMES_SKILL_UNSAFE', 'a file or folder name has no URI form (a lone surrogate)');
  }
  const root = skillUri(segments);
  let manifest: Uint8Array | undefined;
  const files = source.files.map((file): CatalogFile => {
    const label = file.path.join('/');
    const bytes = file.read();
    if (bytes.byteLength !== file.size) throw new SkillProblem('HERMES_SKILL_UNSAFE', `"${label}" changed size while it was read`);
    if (file.path.length === 1 && file.path[0] === 'SKILL.md') manifest = bytes;
    const name = file.path[file.path.length - 1];
    return { uri: uriOf(file.path), size: bytes.byteLength, digest: digestOf(bytes), mimeType: skillMimeType(name), read: file.read, origin: `${source.origin}/${label}` };
  });
  if (!manifest) throw new SkillProblem('HERMES_SKILL_INVALID', 'it has no SKILL.md');
  const text = losslessText(manifest);
  if (text === undefined) throw new SkillProblem('HERMES_SKILL_INVALID', 'SKILL.md is not valid UTF-8');
  const { frontmatter } = parseSkillMarkdown(text, limits.frontmatterBytes);
  const name = lastSegmentOf(root);
  if (frontmatter.name !== name) throw new SkillProblem('HERMES_SKILL_INVALID', `SKILL.md name "${String(frontmatter.name)}" must equal its folder's name "${name}"`);
  const resources: SkillResource[] = files.map(({ uri, digest, size }) => ({ uri, digest, size })).sort((a, b) => compareUris(a.uri, b.uri));
  const skill = { uri: `${root}/SKILL.md`, frontmatter, resources } as Skill;
  const problems = validateSkillEntry(skill);
  if (problems.length > 0) throw new SkillProblem('HERMES_SKILL_INVALID', problems.join('; '));
  const listed: Resource = { uri: skill.uri, name, description: frontmatter.description as string, mimeType: SKILL_MD_MIME_TYPE, size: manifest.byteLength };
  // Keys under `io.modelcontextprotocol/` in metadata are the protocol's: served, but warned about.
  const reserved = Object.keys((frontmatter.metadata as Record<string, unknown> | undefined) ?? {}).filter((key) => key.startsWith('io.modelcontextprotocol/'));
  const notes = reserved.map((key) => `${source.origin}: metadata key "${key}" is reserved for the protocol (io.modelcontextprotocol/)`);
  return { skill, files, listed, root, paths: source.files.map((file) => file.path), notes };
}

/** Adds the directories of a skill: its root and each folder inside it, with their direct children. */
function addDirectories(dirs: Map<string, Map<string, Resource>>, built: Built): void {
  const childrenOf = (uri: string) => {
    const key = canonicalUri(uri) ?? uri;
    let children = dirs.get(key);
    if (!children) dirs.set(key, (children = new Map<string, Resource>()));
    return children;
  };
  childrenOf(built.root);
  built.paths.forEach((path, index) => {
    let parent = built.root;
    for (let depth = 0; depth < path.length; depth++) {
      const name = path[depth];
      const uri = `${parent}/${encodeSegment(name)}`;
      const isFile = depth === path.length - 1;
      const file = isFile ? built.files[index] : undefined;
      childrenOf(parent).set(uri, file ? { uri, name, mimeType: file.mimeType, size: file.size } : { uri, name, mimeType: DIRECTORY_MIME_TYPE });
      if (!isFile) childrenOf(uri);
      parent = uri;
    }
  });
}

/** Freezes a value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * Builds the catalog of `sources` under `prefix`. A skill breaking a rule is skipped and reported;
 * two skills with one URI are an error (`HERMES_SKILL_DUPLICATE`), whatever their sources.
 */
export function buildCatalog(
  sources: readonly SourceSkill[],
  prefix: readonly string[],
  limits: ResolvedLimits,
): { catalog: SkillCatalog; skipped: SkippedSkill[]; notes: string[] } {
  const skipped: SkippedSkill[] = [];
  const built: Built[] = [];
  const origins = new Map<string, string>();
  for (const source of sources) {
    let one: Built;
    try {
      one = buildSkill(source, prefix, limits);
    } catch (error) {
      if (!(error instanceof SkillProblem)) throw error;
      skipped.push({ origin: source.origin, problem: error });
      continue;
    }
    const first = origins.get(one.skill.uri);
    if (first !== undefined) {
      throw new HermesError(
        'HERMES_SKILL_DUPLICATE',
        `the skill ${one.skill.uri} is given twice: by ${first} and by ${source.origin}. Rename one of the folders, or give one a prefix.`,
      );
    }
    origins.set(one.skill.uri, source.origin);
    built.push(one);
  }
  built.sort((a, b) => compareUris(a.skill.uri, b.skill.uri));
  const files = new Map<string, CatalogFile>();
  for (const one of built) for (const file of one.files) files.set(canonicalUri(file.uri) ?? file.uri, file);
  const dirs = new Map<string, Map<string, Resource>>();
  for (const one of built) addDirectories(dirs, one);
  const catalog: SkillCatalog = {
    entries: deepFreeze(built.map((one) => one.skill)),
    skills: new Map(built.map((one) => [canonicalUri(one.skill.uri) ?? one.skill.uri, one.skill])),
    files,
    dirs: new Map([...dirs].map(([uri, children]) => [uri, deepFreeze([...children.values()].sort((a, b) => compareUris(a.uri, b.uri)))])),
    listed: deepFreeze(built.map((one) => one.listed)),
  };
  return { catalog, skipped, notes: built.flatMap((one) => one.notes) };
}
