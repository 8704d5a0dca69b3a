/**
 * Writes a new Hermes MCP project from the template shipped with this package: the template's
 * files, with `{{name}}` and the versions of the Hermes packages filled in.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Options of {@link scaffold}. */
export interface ScaffoldOptions {
  /** Where to create the project; must not exist, or be an empty folder. */
  directory: string;
  /** The package (and server) name; default the folder's name. */
  name?: string;
  /**
   * What each Hermes package's dependency says, by package (`core`, `testing`, `client`); default
   * `^<this package's version>`. Give `file:` paths to tarballs to try unpublished packages.
   */
  hermes?: Partial<Record<HermesPackage, string>>;
}

/** The Hermes packages a project depends on (the client for its `hermes-mcp` command). */
export type HermesPackage = 'core' | 'testing' | 'client';

/** What was written. */
export interface ScaffoldResult {
  directory: string;
  name: string;
  files: string[];
}

/** The template, next to dist/ in the installed package. */
export const TEMPLATE_DIR = path.join(__dirname, '..', 'template');

/** Files whose name npm would not publish as is: stored under another name in the template. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/** A name npm accepts for a package: lower case, no spaces, at most 214 characters. */
function packageName(raw: string): string {
  const name = raw
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  if (!name) throw new Error(`"${raw}" cannot be made into a package name: use letters, digits and dashes`);
  return name;
}

function ownVersion(): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function templateFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...templateFiles(full, path.join(prefix, entry)));
    else out.push(path.join(prefix, entry));
  }
  return out;
}

/**
 * Creates the project. Throws when the folder exists and is not empty (nothing is overwritten).
 *
 * @example
 * scaffold({ directory: 'weather-server' });   // then: cd weather-server && npm install && npm test
 */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  const directory = path.resolve(options.directory);
  if (existsSync(directory) && readdirSync(directory).length > 0) {
    throw new Error(`${directory} exists and is not empty: choose a new folder`);
  }
  const name = packageName(options.name ?? path.basename(directory));
  const version = `^${ownVersion()}`;
  const spec = (pkg: HermesPackage): string => options.hermes?.[pkg] ?? version;
  const files: string[] = [];
  for (const relative of templateFiles(TEMPLATE_DIR)) {
    const text = readFileSync(path.join(TEMPLATE_DIR, relative), 'utf8')
      .replaceAll('{{name}}', name)
      .replace(/\{\{hermes:(core|testing|client)\}\}/g, (_, pkg: HermesPackage) => spec(pkg));
    const target = path.join(directory, path.dirname(relative), RENAMED[path.basename(relative)] ?? path.basename(relative));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
    files.push(path.relative(directory, target));
  }
  return { directory, name, files };
}
