/**
 * docs/mcp-2026.md's request by hand: its `curl` command, as written there (only the port is this
 * test's), against the task board of `npm start http` in a process of its own (the built example,
 * so `npx tsc -b` first, which `npm test` does). A 2026-07-28 request needs no session: the
 * envelope in `params._meta` and the headers that repeat the body are all it takes.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';

interface Block {
  file: string;
  lang: string;
  code: string;
}

const { docBlocks } = require('../../../scripts/doc-blocks.cjs') as { docBlocks(repo: string): Block[] };

const REPO = path.resolve(__dirname, '../../..');
const MAIN = path.resolve(__dirname, '../dist/main.js');

/** Starts the example on a free port; resolves with its origin once it says where it listens. */
function start(): Promise<{ child: ChildProcess; origin: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const listening = /MCP over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr);
      if (listening) resolve({ child, origin: listening[1] });
    });
    child.once('exit', (code) => reject(new Error(`the example exited with ${code} before listening:\n${stderr}`)));
  });
}

it("docs/mcp-2026.md's curl command calls a tool in 2026-07-28, without a session", async () => {
  const curl = docBlocks(REPO).filter((b) => b.file === 'docs/mcp-2026.md' && b.lang === 'sh' && b.code.startsWith('curl '));
  expect(curl).toHaveLength(1);
  const { child, origin } = await start();
  try {
    const command = curl[0].code.replace('http://127.0.0.1:3000', origin);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile('sh', ['-c', command], (error, out) => (error ? reject(new Error(`curl failed: ${error.message}`, { cause: error })) : resolve(out))),
    );
    expect(JSON.parse(stdout)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        structuredContent: { title: 'Write the docs', done: false },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hermes-tasks' } },
      },
    });
  } finally {
    child.kill();
  }
}, 60_000);
