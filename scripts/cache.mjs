// Tools the repository's scripts run but never depends on, installed once from the npm registry into
// .cache/ (git-ignored) at pinned versions: the Node binaries CI tests on (the npm packages
// `node-<platform>-<arch>`), TypeScript 7 for the consumer checks (`check:dts`,
// `test:packages`), the official conformance suite. One place says which version of each.
//
// As a command: `node scripts/cache.mjs node <major>` prints the folder that holds that Node's
// binary (for PATH), installing it when missing; `node scripts/cache.mjs typescript <major>`
// prints the path of that TypeScript's `tsc`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache');
const isWindows = process.platform === 'win32';

/**
 * The pinned releases (scripts/versions.json, bumped by hand like the lockfile): `node`, the Node
 * releases the repository is tested on, by major — 24 (LTS) first, 20 (end of life, what the build
 * machines ship), 22 (maintenance), 26 (current); `typescript`, the TypeScript releases consumers
 * are checked with besides the repository's own 5.
 */
const VERSIONS = JSON.parse(readFileSync(join(ROOT, 'scripts/versions.json'), 'utf8'));
export const NODE_VERSIONS = VERSIONS.node;
export const TYPESCRIPT_VERSIONS = VERSIONS.typescript;

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** `npm install --no-save --prefix <dir> <spec>`: a package in a cache folder, outside the workspaces. */
export function npmInstall(dir, spec) {
  process.stderr.write(`[cache] installing ${spec} into ${dir}\n`);
  const result = spawnSync(isWindows ? 'npm.cmd' : 'npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', dir, spec], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr], // stdout is the answer's (a path)
    shell: isWindows,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`npm install ${spec} failed (exit ${result.status})`);
}

/**
 * The package `name` at exactly `version` in `.cache/<folder>`, installed when missing or at
 * another version; returns the folder of its package.json.
 */
export function cachedPackage(folder, name, version) {
  const dir = join(CACHE, folder);
  const manifest = join(dir, 'node_modules', name, 'package.json');
  if (!existsSync(manifest) || readJson(manifest).version !== version) npmInstall(dir, `${name}@${version}`);
  return dirname(manifest);
}

/**
 * The path of a Node binary of `major` (a key of NODE_VERSIONS): this process's own when it is
 * exactly that release, else the npm package's, installed into `.cache/node-<version>`.
 */
export function nodeBinary(major) {
  const version = NODE_VERSIONS[major];
  if (!version) throw new Error(`no pinned Node ${major} (NODE_VERSIONS has ${Object.keys(NODE_VERSIONS).join(', ')})`);
  if (process.versions.node === version) return process.execPath;
  const name = `node-${isWindows ? 'win' : process.platform}-${process.arch}`;
  const dir = cachedPackage(`node-${version}`, name, version);
  return join(dir, readJson(join(dir, 'package.json')).bin.node);
}

/** The path of the `tsc` entry of TypeScript `major` (a key of TYPESCRIPT_VERSIONS), installed into `.cache/`. */
export function typescriptCompiler(major) {
  const version = TYPESCRIPT_VERSIONS[major];
  if (!version) throw new Error(`no pinned TypeScript ${major} (TYPESCRIPT_VERSIONS has ${Object.keys(TYPESCRIPT_VERSIONS).join(', ')})`);
  const dir = cachedPackage(`typescript-${version}`, 'typescript', version);
  return join(dir, readJson(join(dir, 'package.json')).bin.tsc);
}

/**
 * Whether this Node is in the range the packages' `engines` give (the root package.json's, which
 * every package repeats; only the `>=X.Y` form is read).
 */
export function nodeInEngines(version = process.versions.node) {
  const range = readJson(join(ROOT, 'package.json')).engines.node;
  const floor = /^>=(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range);
  if (!floor) throw new Error(`engines.node is "${range}"; nodeInEngines reads only ">=X.Y"`);
  const [major, minor, patch] = version.split('.').map(Number);
  const [fMajor, fMinor, fPatch = 0] = floor.slice(1).map((n) => Number(n ?? 0));
  return major !== fMajor ? major > fMajor : minor !== fMinor ? minor > fMinor : patch >= fPatch;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [what, major] = process.argv.slice(2);
  if (what === 'node') process.stdout.write(`${dirname(nodeBinary(major))}\n`);
  else if (what === 'typescript') process.stdout.write(`${typescriptCompiler(major)}\n`);
  else {
    process.stderr.write('usage: node scripts/cache.mjs node <major> | typescript <major>\n');
    process.exit(2);
  }
}
