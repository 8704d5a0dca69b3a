// `npm run dev`: compiles on every change (tsc --watch) and restarts the server when dist/ changes
// (node --watch). The compiler's messages go to stderr, as the server's own stdout is the protocol.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '--watch', '--preserveWatchOutput'], { stdio: ['ignore', 2, 2] });
const server = spawn(process.execPath, ['--watch-path=dist', 'dist/main.js'], { stdio: 'inherit' });
const stop = () => {
  tsc.kill();
  server.kill();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
tsc.once('exit', stop);
server.once('exit', stop);
