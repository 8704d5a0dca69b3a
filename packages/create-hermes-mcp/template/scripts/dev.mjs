// `npm run dev`: builds once, then compiles on every change (tsc --watch) and restarts the server
// when dist/ changes (node --watch). The compiler's messages go to stderr, as the server's own
// stdout is the protocol. It ends with the first of the two that ends, and with its exit code.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

// The server runs dist/main.js and node --watch-path needs dist/ to exist: before the first build
// neither does, so build once first (type errors still emit; only a missing main.js stops here).
const first = spawnSync(process.execPath, [tsc], { stdio: ['ignore', 2, 2] });
if (!existsSync('dist/main.js')) {
  process.stderr.write(`npm run dev: the build wrote no dist/main.js (tsc exited with ${first.status ?? first.signal}); fix what it says above, then run npm run dev again.\n`);
  process.exit(1);
}

const watcher = spawn(process.execPath, [tsc, '--watch', '--preserveWatchOutput'], { stdio: ['ignore', 2, 2] });
const server = spawn(process.execPath, ['--watch-path=dist', 'dist/main.js'], { stdio: 'inherit' });
let stopped = false;
const stop = (code) => {
  if (stopped) return;
  stopped = true;
  process.exitCode = code;
  watcher.kill();
  server.kill();
};
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));
watcher.once('exit', (code) => stop(code ?? 1));
server.once('exit', (code) => stop(code ?? 1));
