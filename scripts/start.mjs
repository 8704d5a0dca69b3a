// `npm start` builds (tsc -b), then runs the stdio quickstart; `npm start http` runs the HTTP example.
// Everything it says goes to stderr: in the stdio demo, stdout belongs to the protocol.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const which = process.argv[2] ?? 'stdio';
const demos = { stdio: '../examples/quickstart/dist/main.js', http: '../examples/http-server/dist/main.js' };
if (!(which in demos)) {
  process.stderr.write(`unknown demo "${which}": use "npm start" (stdio) or "npm start http"\n`);
  process.exit(2);
}

// The first build compiles every package and example (about 30 s on a small machine); later ones
// only what changed. Said first, so a silent terminal does not look hung.
const started = Date.now();
process.stderr.write('Building Hermes and the examples with `tsc -b` (the first build takes a little while)…\n');
const tsc = require.resolve('typescript/bin/tsc');
const build = spawnSync(process.execPath, [tsc, '-b'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 2, 2] });
if (build.status !== 0) {
  process.stderr.write(`The build failed (tsc exited with ${build.status ?? build.signal}); see the errors above.\n`);
  process.exit(1);
}
process.stderr.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
require(demos[which]);
