/**
 * The skills a server offers while it runs: the `skills` option resolved, the catalog built at
 * bootstrap and swapped whole on reload, and the lookups the skills methods answer from. A request
 * only ever looks a URI up in the catalog's maps: `..`, `%2e%2e`, `%2F`, a backslash or an absolute
 * path in a URI is simply not found.
 */
import { ErrorCode, McpError, canonicalUri, type Resource, type ResourceContents, type Skill } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import type { Logger } from '../logger';
import type { CacheHints, SkillFiles, SkillsOptions } from '../metadata/options';
import { buildCatalog, digestOf, losslessText, resolveLimits, type ResolvedLimits, type SkillCatalog, type SourceSkill } from './catalog';
import { folderSkills } from './folder';

/** What a reload changed, by SKILL.md URI. */
export interface SkillsReload {
  readonly added: string[];
  readonly removed: string[];
  /** Skills whose entry differs (a file, a digest, the frontmatter). */
  readonly changed: string[];
  /** Whether `resources/list` changed (a skill added or removed, a name or description changed): clients were told. */
  readonly listChanged: boolean;
}

/** The segments of a path given in options (`'reports/weekly'`), refused when one is empty, `.` or `..`. */
function segmentsOf(text: string, what: string): string[] {
  const segments = text.split('/');
  if (text === '' || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${what} "${text}" must be a relative path of non-empty segments, none "." or "..".`);
  }
  return segments;
}

/** The skills of `skills.inline`, their files in memory. */
function inlineSkills(inline: Readonly<Record<string, SkillFiles>>): SourceSkill[] {
  return Object.entries(inline).map(([skillPath, files]) => {
    const origin = `skills.inline["${skillPath}"]`;
    if (typeof files !== 'object' || files === null) throw new HermesError('HERMES_INVALID_OPTIONS', `${origin} must be an object of files (path → string or bytes).`);
    return {
      path: segmentsOf(skillPath, 'a skills.inline path'),
      origin,
      files: Object.entries(files).map(([filePath, content]) => {
        if (typeof content !== 'string' && !(content instanceof Uint8Array))
          throw new HermesError('HERMES_INVALID_OPTIONS', `${origin}["${filePath}"] must be a string or a Uint8Array.`);
        const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
        return { path: segmentsOf(filePath, `a file of ${origin}`), size: bytes.byteLength, read: () => bytes };
      }),
    };
  });
}

/** The `skills` option, resolved. For the Hermes packages. */
export class SkillsHost {
  /** Whether `resources/directory/read` is served (and `directoryRead` declared). */
  readonly directoryRead: boolean;
  /** Caching hints of the skills' results (MCP 2026-07-28), when set. */
  readonly cache?: CacheHints;
  /** Called when a reload changed `resources/list`. */
  onListChanged?: () => void;
  private readonly folders: Array<string | URL>;
  private readonly inline: Readonly<Record<string, SkillFiles>>;
  private readonly prefix: string[];
  private readonly limits: ResolvedLimits;
  private readonly strict: boolean;
  private current: SkillCatalog;
  private reloading: Promise<unknown> = Promise.resolve();

  /** Resolves `option` and builds the catalog: throws a {@link HermesError} for bad options, a missing folder, a duplicate, or (under `strict`) any skipped skill. */
  constructor(
    option: string | URL | SkillsOptions,
    private readonly logger: Logger,
  ) {
    const options: SkillsOptions = typeof option === 'string' || option instanceof URL ? { folders: [option] } : option;
    if (typeof options !== 'object' || options === null) throw new HermesError('HERMES_INVALID_OPTIONS', '`skills` takes a folder (a path or file: URL) or an object of options.');
    this.folders = options.folders === undefined ? [] : Array.isArray(options.folders) ? options.folders : [options.folders];
    this.inline = options.inline ?? {};
    this.prefix = options.prefix === undefined ? [] : segmentsOf(options.prefix, 'skills.prefix');
    this.limits = resolveLimits(options.limits);
    this.strict = options.strict === true;
    this.directoryRead = options.directoryRead !== false;
    this.cache = options.cache;
    this.current = this.build();
  }

  /** The catalog now served. */
  get catalog(): SkillCatalog {
    return this.current;
  }

  /** The entry whose SKILL.md is at `uri` (any spelling of it). */
  skill(uri: string): Skill | undefined {
    const key = canonicalUri(uri);
    return key === undefined ? undefined : this.current.skills.get(key);
  }

  /** The children of the directory at `uri` (a skill root or a folder inside one). */
  directory(uri: string): readonly Resource[] | undefined {
    const key = canonicalUri(uri);
    return key === undefined ? undefined : this.current.dirs.get(key);
  }

  /**
   * The contents of the skill file at `uri`, read again and checked against its digest: `text` when
   * the bytes are UTF-8 (a BOM kept: the digest covers it), else a base64 `blob`. Undefined when no
   * skill file is there; ResourceNotFound for a directory; -32603 (and `HERMES_SKILL_CHANGED` in the
   * log) when the file no longer matches what the catalog published.
   */
  read(uri: string, log: Logger): ResourceContents | undefined {
    const key = canonicalUri(uri);
    const file = key === undefined ? undefined : this.current.files.get(key);
    if (!file) {
      if (key !== undefined && this.current.dirs.has(key)) throw new McpError(ErrorCode.ResourceNotFound, `${uri} is a directory; use resources/directory/read`, { uri });
      return undefined;
    }
    let bytes: Uint8Array | undefined;
    try {
      bytes = file.read();
    } catch (error) {
      log.warn(
        { code: 'HERMES_SKILL_CHANGED', file: file.origin, err: error },
        `the skill file ${file.origin} could not be read again; call app.skills.reload() after changing skills`,
      );
    }
    if (bytes === undefined || bytes.byteLength !== file.size || digestOf(bytes) !== file.digest) {
      if (bytes !== undefined)
        log.warn({ code: 'HERMES_SKILL_CHANGED', file: file.origin }, `the skill file ${file.origin} changed since the skills were loaded; call app.skills.reload()`);
      throw McpError.internalError(`${uri} changed since the skills were loaded`);
    }
    const text = losslessText(bytes);
    return text === undefined ? { uri: file.uri, mimeType: file.mimeType, blob: Buffer.from(bytes).toString('base64') } : { uri: file.uri, mimeType: file.mimeType, text };
  }

  /**
   * Builds the catalog again from the same folders and inline skills and swaps it in whole; clients
   * are told when `resources/list` changed. On failure (under `strict`, a duplicate, a folder gone)
   * the promise rejects and the old catalog keeps being served. Reloads run one at a time.
   */
  reload(): Promise<SkillsReload> {
    const next = this.reloading.then(() => {
      const before = this.current;
      const after = this.build();
      const old = new Map(before.entries.map((skill) => [skill.uri, skill]));
      const now = new Map(after.entries.map((skill) => [skill.uri, skill]));
      const added = [...now.keys()].filter((uri) => !old.has(uri));
      const removed = [...old.keys()].filter((uri) => !now.has(uri));
      const changed = [...now.keys()].filter((uri) => old.has(uri) && JSON.stringify(old.get(uri)) !== JSON.stringify(now.get(uri)));
      const listing = (catalog: SkillCatalog) => JSON.stringify(catalog.listed.map(({ uri, name, description }) => [uri, name, description]));
      const listChanged = listing(before) !== listing(after);
      this.current = after;
      if (listChanged) this.onListChanged?.();
      return { added, removed, changed, listChanged };
    });
    this.reloading = next.catch(() => undefined);
    return next;
  }

  /** Builds a catalog from the sources, logging (or, under `strict`, throwing) what is skipped. */
  private build(): SkillCatalog {
    const sources: SourceSkill[] = [];
    for (const folder of this.folders) {
      const { skills, notes } = folderSkills(folder, this.limits);
      sources.push(...skills);
      for (const note of notes) this.logger.warn({ code: 'HERMES_SKILL_INVALID' }, note);
    }
    const fromFolders = sources.length;
    sources.push(...inlineSkills(this.inline));
    const { catalog, skipped } = buildCatalog(sources, this.prefix, this.limits);
    const line = ({ origin, problem }: (typeof skipped)[number]) => `${origin}: ${problem.message}`;
    // A skill given in code is code: its problem is a bug, never skipped.
    const inlineProblem = skipped.find((skip) => sources.findIndex((source) => source.origin === skip.origin) >= fromFolders);
    if (inlineProblem) throw new HermesError(inlineProblem.problem.code, line(inlineProblem));
    if (skipped.length > 0 && this.strict)
      throw new HermesError(skipped[0].problem.code, `${skipped.length} skill(s) break a rule (skills.strict): ${skipped.map(line).join('; ')}`);
    for (const skip of skipped) this.logger.warn({ code: skip.problem.code, skill: skip.origin }, `skill skipped: ${line(skip)}`);
    if (catalog.entries.length === 0) this.logger.warn({ code: 'HERMES_SKILL_INVALID' }, 'the skills option gives no skill to serve: skills/list is empty');
    return catalog;
  }
}
