/**
 * Hermes on stdio with the add server mounted remotely (`mountRemote(app, 'math', spec)` of
 * `@hermes-mcp/gateway`), the tool called as `math_add`. With `HERMES_BENCH_UPSTREAM=http` the upstream is
 * the Hermes HTTP add server (hermes-http.server.ts, forked here, mounted by its URL, Streamable
 * HTTP); otherwise the Hermes stdio add server (hermes-stdio.server.ts, spawned by the mount). The
 * runner's CPU reading of this process includes its upstream's. Ends when stdin closes.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { McpFactory, McpServer, createLogger } from '@hermes-mcp/core';
import { mountRemote } from '@hermes-mcp/gateway';
import type { UpstreamSpec } from '@hermes-mcp/gateway';
import { fail } from './lifeline';
import type { ReadyMessage } from './lifeline';

/** Nothing of its own: the upstream's tool under the namespace `math`. */
@McpServer({ name: 'bench-remote-mount', version: '1.0.0' })
class RemoteMountServer {}

/** The HTTP add server in a process of its own, and its /mcp URL once it listens. */
function httpUpstream(): Promise<string> {
  const child = fork(join(__dirname, 'hermes-http.server.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    child.once('message', (message: ReadyMessage) => resolve(`http://127.0.0.1:${message.port}/mcp`));
    child.once('exit', (code) => reject(new Error(`the HTTP upstream ended (${String(code)}) before it listened`)));
  });
}

async function main(): Promise<void> {
  process.once('SIGTERM', () => process.exit(0));
  const spec: UpstreamSpec =
    process.env.HERMES_BENCH_UPSTREAM === 'http' ? { url: await httpUpstream() } : { command: process.execPath, args: [join(__dirname, 'hermes-stdio.server.js')] };
  const app = McpFactory.create(RemoteMountServer, { logger: createLogger({ level: 'silent' }) });
  await mountRemote(app, 'math', spec);
  await app.listen();
}

main().catch(fail);
