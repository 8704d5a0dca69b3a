/**
 * `npm start` (scripts/start.mjs) on the repository: the build says where it is, one line a project,
 * so the first build (about a minute) is not a silent terminal; then the quickstart serves on stdio
 * and ends with its input. The build is already done here (`npm test` runs `tsc -b` first), so
 * every project reads "up to date"; the lines are the same ones a first build prints as it goes.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../../..');

it('shows the progress of the build, one line a project, then serves the quickstart', async () => {
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: REPO_ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  child.stdin.end();
  expect(await exited).toBe(0);

  const progress = [...stderr.matchAll(/^ {2}\[(\d+)\/(\d+)\] (\S+): (.+)$/gm)];
  const total = Number(progress[0]?.[2]);
  expect(total).toBeGreaterThan(10);
  expect(progress.map((line) => Number(line[1]))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  expect(progress.map((line) => line[3])).toEqual(expect.arrayContaining(['packages/protocol', 'packages/core', 'examples/quickstart']));
  expect(stderr).toMatch(/Built in \d+\.\d s\./);
  expect(stderr).toContain('Hermes quickstart: an MCP server on stdio');
}, 180_000);

it('`npm start --silent`, as a client spawns it: stdout carries only protocol, stderr the build and the banner in one block, no log line', async () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, ['start', '--silent'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  for (let waited = 0; !stdout.includes('"id":2') && waited < 120_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  child.stdin.end();
  expect(await exited).toBe(0);

  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.map((line) => (JSON.parse(line) as { id?: number }).id)).toEqual([1, 2]);
  const banner = stderr.slice(stderr.indexOf('Hermes quickstart'));
  expect(stderr.indexOf('Built in')).toBeLessThan(stderr.indexOf('Hermes quickstart'));
  expect(banner).toMatch(/^Hermes quickstart: an MCP server on stdio[^]*Press Ctrl\+D \(end of input\) or Ctrl\+C to stop\.\n\n$/);
  expect(stderr).not.toContain('{"level"');
}, 180_000);
