// `npm run pack -- [package…]`: Hermes for a project, from a clone, before (or instead of) npm.
// Builds (tsc -b), packs the named packages (core, fastify, testing, client, redis, opentelemetry,
// protocol; default: all of them) and the Hermes packages they depend on into .packs/
// (git-ignored), and prints the `npm install` line that installs those tarballs in a project. They
// are installed together, in one command, so that npm finds each Hermes dependency among them
// (@hermes-mcp/core needs @hermes-mcp/protocol at its exact version, which the registry may not
// have); the libraries Hermes takes as peers are named on the same line, as the README installs them.
// `--dest <folder>` packs elsewhere. scripts/package-tests.mjs packs with it too, and runs the line.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED, bundlePackage } from './bundle.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Every package of the repository, by its folder under packages/ (create-hermes-mcp is run, not installed). */
export const PACKAGES = ['protocol', 'core', 'fastify', 'testing', 'client', 'redis', 'opentelemetry', 'gateway', 'create-hermes-mcp'];

/** The packages a project installs: what `npm run pack` takes. */
const PROJECT_PACKAGES = PACKAGES.filter((name) => name !== 'create-hermes-mcp');

/** The peers a project installs with each package, as the README's install lines name them. */
const PEERS = {
  core: ['reflect-metadata', 'class-validator', 'class-transformer', 'typedi'],
  fastify: ['fastify'],
};

function manifest(name) {
  return JSON.parse(readFileSync(path.join(REPO, 'packages', name, 'package.json'), 'utf8'));
}

/** `names` and every Hermes package they depend on, in PACKAGES' order. */
export function withDependencies(names) {
  const wanted = new Set();
  const visit = (name) => {
    if (!PROJECT_PACKAGES.includes(name)) throw new Error(`no package "${name}" to install in a project: pack takes ${PROJECT_PACKAGES.join(', ')}`);
    if (wanted.has(name)) return;
    wanted.add(name);
    for (const dependency of Object.keys(manifest(name).dependencies ?? {})) {
      const hermes = /^@hermes-mcp\/(.+)$/.exec(dependency);
      if (hermes) visit(hermes[1]);
    }
  };
  for (const name of names) visit(name);
  return PACKAGES.filter((name) => wanted.has(name));
}

/**
 * Packs `names` (already built) into `destination`; returns each package's tarball path and the
 * files npm put in it, by name. The packages of BUNDLED are packed from a staged copy turned into
 * their one-file build (scripts/bundle.mjs); the others as they are.
 */
export function packPackages(names, destination) {
  mkdirSync(destination, { recursive: true });
  const packed = {};
  for (const name of names) {
    const folder = BUNDLED.includes(name) ? stage(name) : path.join(REPO, 'packages', name);
    try {
      const [result] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', destination, '--loglevel=error'], { cwd: folder, encoding: 'utf8' }));
      packed[name] = { tarball: path.join(destination, result.filename), files: result.files.map((file) => file.path), size: result.size };
    } finally {
      if (folder !== path.join(REPO, 'packages', name)) rmSync(folder, { recursive: true, force: true });
    }
  }
  return packed;
}

/**
 * A copy of package `name` as npm would pack it (its manifest, README, LICENSE and dist/), in its
 * one-file build: in `folder` (made), or in a new temporary folder. Returns the folder.
 */
export function stage(name, folder = mkdtempSync(path.join(tmpdir(), `hermes-pack-${name}-`))) {
  const from = path.join(REPO, 'packages', name);
  mkdirSync(folder, { recursive: true });
  for (const file of ['package.json', 'README.md', 'LICENSE', 'dist'])
    cpSync(path.join(from, file), path.join(folder, file), { recursive: true, filter: (source) => !source.endsWith('.tsbuildinfo') });
  bundlePackage(folder, from);
  return folder;
}

/** The arguments of the `npm install` that installs `packed` tarballs (with the peers of `names`) in a project. */
export function installArguments(names, packed) {
  const peers = [...new Set(names.flatMap((name) => PEERS[name] ?? []))];
  return ['install', ...Object.values(packed).map(({ tarball }) => tarball), ...peers];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--dest');
  const destination = path.resolve(at >= 0 ? args.splice(at, 2)[1] : path.join(REPO, '.packs'));
  const asked = args.length > 0 ? args : PROJECT_PACKAGES;
  try {
    const names = withDependencies(asked);
    process.stderr.write(`[pack] building (tsc -b), then packing ${names.join(', ')} into ${destination}\n`);
    execFileSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: REPO, stdio: 'inherit' });
    const packed = packPackages(names, destination);
    process.stderr.write('[pack] in your project, install them together (npm then finds each Hermes dependency among them):\n');
    process.stdout.write(`npm ${installArguments(names, packed).join(' ')}\n`);
  } catch (error) {
    process.stderr.write(`[pack] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
