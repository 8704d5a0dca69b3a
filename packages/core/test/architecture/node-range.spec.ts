/**
 * The Node range, held by a test: every package.json of the repository (the root, each package, the
 * scaffolder's template) states the same `engines.node`, and every package the lockfile installs
 * takes the lowest Node of that range and every pinned Node the tests run on inside it
 * (scripts/versions.json), so `npm install` warns of no engine (EBADENGINE) on any of them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as semver from 'semver';

const ROOT = path.resolve(__dirname, '../../../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

const range: string = readJson('package.json').engines.node;
const manifests = [
  'package.json',
  ...fs
    .readdirSync(path.join(ROOT, 'packages'))
    .map((name) => `packages/${name}/package.json`)
    .filter((file) => fs.existsSync(path.join(ROOT, file))),
  'packages/create-hermes-mcp/template/package.json',
];
const pinned = Object.values(readJson('scripts/versions.json').node as Record<string, string>);

describe('the Node range', () => {
  it('is one range, stated by every package.json', () => {
    expect(semver.validRange(range)).not.toBeNull();
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    expect(Object.fromEntries(manifests.map((file) => [file, readJson(file).engines?.node]))).toEqual(Object.fromEntries(manifests.map((file) => [file, range])));
  });

  it('includes Node 22, 24 and 26 and not Node 20 (end of life)', () => {
    expect(['22.23.5', '24.0.0', '26.0.0'].filter((version) => !semver.satisfies(version, range))).toEqual([]);
    expect(semver.satisfies('20.20.2', range)).toBe(false);
  });

  it('is taken by every package the lockfile installs, at its lowest Node and at each pinned one inside it', () => {
    const nodes = [semver.minVersion(range)!.version, ...pinned.filter((version) => semver.satisfies(version, range))];
    expect(nodes.length).toBeGreaterThanOrEqual(4);
    const packages = Object.entries(readJson('package-lock.json').packages as Record<string, { engines?: { node?: string } | string[] }>);
    expect(packages.length).toBeGreaterThan(500);
    const refusing = packages.flatMap(([where, meta]) => {
      const wanted = Array.isArray(meta.engines) ? undefined : meta.engines?.node;
      if (!wanted) return [];
      return nodes.filter((node) => !semver.satisfies(node, wanted)).map((node) => `${where || '(root)'} wants ${wanted}, not ${node}`);
    });
    expect(refusing).toEqual([]);
  });
});
