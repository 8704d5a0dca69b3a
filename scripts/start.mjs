// `npm start` runs the stdio quickstart; `npm start http` runs the HTTP example. Built by `tsc -b` first.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const which = process.argv[2] ?? 'stdio';
const demos = { stdio: '../examples/quickstart/dist/main.js', http: '../examples/http-server/dist/main.js' };
if (!(which in demos)) {
  process.stderr.write(`unknown demo "${which}": use "npm start" (stdio) or "npm start http"\n`);
  process.exit(2);
}
require(demos[which]);
