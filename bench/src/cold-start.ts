/**
 * Cold start: what a host pays each time it spawns a stdio server — process start → `initialize`
 * answered → `tools/list` answered, in wall time and in the server's CPU (from /proc, read the
 * moment the list arrives). Hosts spawn a server per session, so this is what users feel.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './cpu';
import { LEGACY_VERSION } from './mcp';

/** The servers compared: the same two tools; and the floor under any server built on class-validator. */
export const COLD_CONFIGS = [
  { key: 'hermes', label: 'Hermes, `McpFactory.create(S).listen()`', server: 'cold-hermes.server.js' },
  { key: 'sdk-v2', label: 'SDK v2 2.4.0, `serveStdio`', server: 'cold-sdk-v2.server.js' },
  { key: 'floor', label: 'floor: Node + class-validator, the two input classes, answers by hand', server: 'cold-floor.server.js' },
] as const;

/** One cold start. */
export interface ColdStart {
  wallMs: number;
  cpuMs: number;
}

const TIMEOUT_MS = 30_000;

/** Spawns `file`, initializes, lists the tools (two expected), and ends it. */
export async function coldStart(file: string): Promise<ColdStart> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(__dirname, 'servers', file)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
  const lines = answers(child.stdout);
  try {
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } } })}\n`,
    );
    await lines.next();
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
    const list = JSON.parse(await lines.next()) as { result?: { tools?: unknown[] } };
    const wallMs = performance.now() - started;
    const cpu = cpuSeconds(child.pid);
    if (list.result?.tools?.length !== 2) throw new Error(`${file}: expected two tools, got ${JSON.stringify(list).slice(0, 300)}`);
    return { wallMs, cpuMs: (cpu ?? NaN) * 1000 };
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}\n${stderr}`, { cause: error });
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** The answer lines of a stdout, one at a time (bounded wait). */
function answers(stdout: NodeJS.ReadableStream): { next(): Promise<string> } {
  let buffered = '';
  const ready: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      ready.push(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
    }
    if (waiting && ready.length) {
      const resolve = waiting;
      waiting = undefined;
      resolve(ready.shift()!);
    }
  });
  return {
    next: () =>
      ready.length
        ? Promise.resolve(ready.shift()!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
            waiting = (line) => {
              clearTimeout(timer);
              resolve(line);
            };
          }),
  };
}
