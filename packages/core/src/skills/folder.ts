/**
 * Skills from folders on disk: each folder below a root that holds a regular file named `SKILL.md`
 * is a skill. Walked synchronously (errors surface in `McpFactory.create`), in code-unit order,
 * names starting with `.` skipped. Nothing is ever followed out of a skill: a symlink (to anywhere),
 * a FIFO, socket or device makes the whole skill refused, a file over `limits.fileBytes` is refused
 * from its `lstat` before it is opened, and every read opens the file with `O_NOFOLLOW` from the
 * root's real path and checks it is still a regular file of the size it had.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HermesError } from '../errors';
import type { ResolvedLimits, SourceFile, SourceSkill } from './catalog';
import { SkillProblem } from './problem';

const sorted = (names: string[]): string[] => names.filter((name) => !name.startsWith('.')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The bytes of a regular file, opened without following a link; refused when it is no longer a regular file of at most `max` bytes. */
function readRegularFile(file: string, max: number): Uint8Array {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${file} is no longer a regular file`);
    if (stats.size > max) throw new Error(`${file} is over ${max} bytes`);
    // The folder holding it must still be where it was: no folder on its way was swapped for a link.
    if (realpathSync(path.dirname(file)) !== path.dirname(file)) throw new Error(`a folder on the way to ${file} is now a link`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

const kindOf = (stats: Stats): string =>
  stats.isSymbolicLink() ? 'a symlink (symlinks are not followed)' : stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device or special file';

/** The files of the skill in `dir` (nested skills' files included: they are its content too). */
function skillFiles(dir: string, limits: ResolvedLimits): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (folder: string, at: readonly string[]): void => {
    for (const name of sorted(readdirSync(folder))) {
      const file = path.join(folder, name);
      const where = [...at, name];
      const stats = lstatSync(file);
      if (stats.isDirectory()) walk(file, where);
      else if (!stats.isFile()) throw new SkillProblem('HERMES_SKILL_UNSAFE', `"${where.join('/')}" is ${kindOf(stats)}`);
      else {
        files.push({ path: where, size: stats.size, read: () => readRegularFile(file, limits.fileBytes) });
        // Checked while walking: a folder of a million files is refused without listing them all.
        if (files.length > limits.files) throw new SkillProblem('HERMES_SKILL_TOO_LARGE', `it has more than limits.files (${limits.files}) files`);
      }
    }
  };
  walk(dir, []);
  return files;
}

/** The real path of a `skills.folders` entry; `HERMES_SKILL_FOLDER` when it is not a directory. */
function realFolder(folder: string | URL): string {
  const given = folder instanceof URL ? fileURLToPath(folder) : folder;
  if (typeof given !== 'string' || given === '') throw new HermesError('HERMES_SKILL_FOLDER', 'skills.folders takes paths (strings) or file: URLs.');
  let real: string;
  try {
    real = realpathSync(path.resolve(given));
  } catch {
    throw new HermesError('HERMES_SKILL_FOLDER', `the skills folder ${given} does not exist (relative paths resolve against ${process.cwd()}; use join(__dirname, …)).`);
  }
  if (!statSync(real).isDirectory()) throw new HermesError('HERMES_SKILL_FOLDER', `the skills folder ${given} is not a directory.`);
  return real;
}

/**
 * The skills of one folder of skill folders, and what is noticed on the way that is not a skill's
 * fault (a misnamed `skill.md`, a root `SKILL.md`, a link between skills), for the caller to log.
 */
export function folderSkills(folder: string | URL, limits: ResolvedLimits): { skills: SourceSkill[]; notes: string[] } {
  const root = realFolder(folder);
  const skills: SourceSkill[] = [];
  const notes: string[] = [];
  const visit = (dir: string, at: readonly string[], inSkill: boolean): void => {
    const names = sorted(readdirSync(dir));
    const origin = path.join(root, ...at);
    for (const name of names)
      if (name !== 'SKILL.md' && name.toLowerCase() === 'skill.md') notes.push(`${path.join(origin, name)} is not named SKILL.md (exactly): its folder is not a skill`);
    const isSkill = names.includes('SKILL.md') && lstatSync(path.join(dir, 'SKILL.md')).isFile();
    if (isSkill) {
      if (at.length === 0) notes.push(`${path.join(root, 'SKILL.md')} is at the root of the skills folder, so it has no skill path: skipped`);
      else {
        let files: SourceFile[] = [];
        let problem: SkillProblem | undefined;
        try {
          files = skillFiles(dir, limits);
        } catch (error) {
          if (!(error instanceof SkillProblem)) throw error;
          problem = error;
        }
        skills.push({ path: at, origin, files, problem });
      }
    }
    for (const name of names) {
      const stats = lstatSync(path.join(dir, name));
      if (stats.isDirectory()) visit(path.join(dir, name), [...at, name], inSkill || (isSkill && at.length > 0));
      else if (stats.isSymbolicLink() && !inSkill && !isSkill) notes.push(`${path.join(origin, name)} is a symlink: not followed`);
    }
  };
  visit(root, [], false);
  return { skills, notes };
}
