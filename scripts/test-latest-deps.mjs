// `npm run test:latest-deps`: the suites that compare Hermes's fast paths with the libraries' public
// APIs, run against the newest releases of the libraries whose internals Hermes reads
// (docs/interop.md): class-validator, class-transformer, class-validator-jsonschema, validator.
//
// In a copy of the repository outside it (the files git knows, as they are in the work tree), it
// installs the lockfile's tree, then the newest release of each library over it (`npm view <pkg>
// version`), checks that exactly those are the copies loaded, builds, and runs the interop suites
// (self-checks on, a moved internal changes nothing), the schema ⇔ validation agreement of every
// decorator, the validation fast path and the schema conversion. The repository's own package.json
// and package-lock.json are never touched. Prints the versions tested; exits non-zero if a suite
// fails. `--keep` leaves the copy for a look.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const LIBRARIES = ['class-validator', 'class-transformer', 'class-validator-jsonschema', 'validator'];
const SUITES = [
  'packages/core/test/interop/',
  'packages/core/test/schema/decorator-agreement.spec.ts',
  'packages/core/test/schema/class-properties.spec.ts',
  'packages/core/test/schema/validator-patterns.spec.ts',
  'packages/core/test/validation/',
];

function step(text) {
  process.stdout.write(`\n[latest-deps] ${text}\n`);
}

function run(command, args, cwd, capture = false) {
  return execFileSync(command, args, { cwd, stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8' });
}

/** Every copy of `name` installed under `root` (and the workspace packages), as `version at path`. */
function installedCopies(root, name) {
  const found = [];
  const visit = (dir, depth) => {
    const modules = path.join(dir, 'node_modules');
    if (!existsSync(modules) || depth > 6) return;
    const manifest = path.join(modules, name, 'package.json');
    if (existsSync(manifest)) found.push(`${JSON.parse(readFileSync(manifest, 'utf8')).version} at ${path.relative(root, path.dirname(manifest))}`);
    for (const entry of readdir(modules)) visit(path.join(modules, entry), depth + 1);
  };
  visit(root, 0);
  for (const pkg of ['packages/core', 'packages/fastify', 'packages/testing']) visit(path.join(root, pkg), 0);
  return [...new Set(found)];
}

/** The packages in a node_modules folder (scoped ones as `@scope/name`), links left out. */
function readdir(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => (entry.name.startsWith('@') ? readdir(path.join(dir, entry.name)).map((inner) => `${entry.name}/${inner}`) : [entry.name]));
}

function main() {
  const versions = Object.fromEntries(LIBRARIES.map((name) => [name, run(npm, ['view', name, 'version'], repo, true).trim()]));
  const current = Object.fromEntries(LIBRARIES.map((name) => [name, JSON.parse(readFileSync(path.join(repo, 'node_modules', name, 'package.json'), 'utf8')).version]));
  step(`newest releases: ${LIBRARIES.map((name) => `${name} ${versions[name]} (repo: ${current[name]})`).join(', ')}`);

  const work = mkdtempSync(path.join(tmpdir(), 'hermes-latest-deps-'));
  let failed = false;
  try {
    step(`copying the repository to ${work}`);
    const files = run('git', ['ls-files', '-co', '--exclude-standard', '-z'], repo, true).split('\0').filter(Boolean);
    for (const file of files) {
      if (!existsSync(path.join(repo, file))) continue; // deleted in the work tree
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      cpSync(path.join(repo, file), path.join(work, file));
    }

    step('installing the lockfile, then the newest releases over it');
    run(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], work);
    run(
      npm,
      ['install', '--no-save', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error', ...LIBRARIES.map((name) => `${name}@${versions[name]}`)],
      work,
    );
    for (const name of LIBRARIES) {
      const copies = installedCopies(work, name);
      const expected = `${versions[name]} at node_modules/${name}`;
      if (copies.length !== 1 || copies[0] !== expected) throw new Error(`${name}: expected one copy, ${expected}; found ${copies.join(', ') || 'none'}`);
    }

    step('building');
    run(process.execPath, [path.join(work, 'node_modules/typescript/bin/tsc'), '-b'], work);

    step(`running ${SUITES.join(', ')}`);
    try {
      run(process.execPath, [path.join(work, 'node_modules/jest/bin/jest.js'), ...SUITES, '--selectProjects', 'core'], work);
    } catch {
      failed = true;
    }
  } finally {
    if (keep) step(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  step(`${failed ? 'FAILED' : 'passed'} with ${LIBRARIES.map((name) => `${name} ${versions[name]}`).join(', ')}`);
  process.exitCode = failed ? 1 : 0;
}

main();
