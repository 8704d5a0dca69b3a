// `npm start` builds (tsc -b), then runs the stdio quickstart; `npm start http` runs the HTTP example.
// Everything it says goes to stderr: in the stdio demo, stdout belongs to the protocol.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const which = process.argv[2] ?? 'stdio';
const demos = { stdio: '../examples/quickstart/dist/main.js', http: '../examples/http-server/dist/main.js' };
if (!(which in demos)) {
  process.stderr.write(`unknown demo "${which}": use "npm start" (stdio) or "npm start http"\n`);
  process.exit(2);
}

// The first build compiles every package and example (about a minute on a small machine); later
// ones only what changed. tsc -b says nothing until it is done, so it runs with --verbose and each
// project is shown as it is reached ("[3/18] packages/fastify: building"), and a terminal that
// stays quiet for long does not look hung. The compiler's errors pass through as they are.
const started = Date.now();
process.stderr.write('Building Hermes and the examples with `tsc -b` (the first build takes about a minute)…\n');
const tsc = require.resolve('typescript/bin/tsc');
const build = spawn(process.execPath, [tsc, '-b', '--verbose'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 2] });
const exited = new Promise((resolve) => build.once('close', (...exit) => resolve(exit)));
let projects = 0;
let reached = 0;
for await (const line of createInterface({ input: build.stdout })) {
  const listed = /^\s+\* (.+)$/.exec(line);
  const project = /^.*? - Project '([^']+)' (.*)$/.exec(line);
  // The root tsconfig.json only lists the others: tsc says nothing about it.
  if (listed) projects += listed[1] === 'tsconfig.json' ? 0 : 1;
  else if (project) {
    const status = project[2].startsWith('is up to date') ? 'up to date' : project[2].startsWith('is out of date') ? 'building' : project[2];
    process.stderr.write(`  [${++reached}/${projects}] ${project[1].replace(/\/?tsconfig\.json$/, '') || '.'}: ${status}\n`);
  } else if (!/^.*? - (Projects in this build|Building project|Updating output timestamps|Updating unchanged output timestamps)/.test(line) && line.trim()) {
    process.stderr.write(`${line}\n`);
  }
}
const [code, signal] = await exited;
if (code !== 0) {
  process.stderr.write(`The build failed (tsc exited with ${code ?? signal}); see the errors above.\n`);
  process.exit(1);
}
process.stderr.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
require(demos[which]);
