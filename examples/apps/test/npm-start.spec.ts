/**
 * `npm start` (`node dist/main.js`, built by `tsc -b`, which `npm test` runs first): the demo says
 * where its host page is, serves it with its script, and serves the sandbox page with a policy.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const EXAMPLE = join(__dirname, '..');

it('serves the demo host page and the sandbox proxy, and stops on SIGTERM', async () => {
  expect(JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')).scripts.start).toBe('node dist/main.js');
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: EXAMPLE, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let stderr = '';
    child.stderr.setEncoding('utf8');
    const hostUrl = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        const found = /Open the demo host page in a browser: (\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.once('close', (code) => reject(new Error(`the demo exited (${code}) before it listened:\n${stderr}`)));
    });
    const sandboxUrl = /sandbox proxy on another origin: (\S+)\)/.exec(stderr)?.[1];
    expect(stderr).toContain(`MCP over Streamable HTTP at ${hostUrl}mcp`);

    const page = await fetch(hostUrl);
    expect(await page.text()).toContain('<script src="/host.js"></script>');
    const script = await fetch(new URL('/host.js', hostUrl));
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(10_000);
    const sandbox = await fetch(sandboxUrl!);
    expect(new URL(sandboxUrl!).origin).not.toBe(new URL(hostUrl).origin);
    expect(sandbox.headers.get('content-security-policy')).toMatch(/^default-src 'none'; /);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'close');
  }
  expect(child.exitCode).toBe(0);
}, 60_000);
