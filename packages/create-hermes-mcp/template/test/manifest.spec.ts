/**
 * The schema snapshot: what the server publishes (its tools with their input and output schemas,
 * resources, templates, prompts, capabilities) is what test/manifest.json says. A change to a
 * tool's schema then shows here and in review, before a client meets it; `--check` also fails on a
 * bootstrap warning (a schema looser than its validation, …).
 *
 * After a change you meant: npm run --silent inspect > test/manifest.json (and commit it). Without
 * the file, the first run writes it, as jest does with its snapshots; on CI (CI set) it fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const project = path.join(__dirname, '..');
const snapshot = path.join(__dirname, 'manifest.json');

/** `hermes-mcp inspect src/main.ts --check --json`, with this node and no shell (so on any OS). */
function inspect(): unknown {
  const pkg = require.resolve('@hermes-mcp/client/package.json');
  const { bin } = JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> };
  const cli = path.join(path.dirname(pkg), bin['hermes-mcp']);
  return JSON.parse(execFileSync(process.execPath, [cli, 'inspect', 'src/main.ts', '--check', '--json'], { cwd: project, encoding: 'utf8' }));
}

it('publishes the manifest of test/manifest.json, with no bootstrap warning', () => {
  const manifest = inspect();
  if (!existsSync(snapshot)) {
    if (process.env.CI) throw new Error('no test/manifest.json: run npm run --silent inspect > test/manifest.json, and commit it');
    writeFileSync(snapshot, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  expect(manifest).toEqual(JSON.parse(readFileSync(snapshot, 'utf8')));
}, 60_000);
