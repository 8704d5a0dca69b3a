/**
 * A server run the ways a newcomer runs it, in processes of their own (the built packages, so
 * `npx tsc -b` first, which `npm test` does):
 *
 * - compiled without decorator metadata, as tsx, esbuild and Vite compile (each file on its own,
 *   `emitDecoratorMetadata` off): a server whose constructor takes a service is refused at
 *   bootstrap with HERMES_UNRESOLVED_DEPENDENCIES, instead of starting and failing every call;
 *   the explicit injection that message offers (`@Inject(() => Service)` on a property) works;
 * - the `.ts` file run directly with ts-node (`npx ts-node src/main.ts`, the README's "Run the .ts
 *   file directly"), which compiles with the project's tsconfig and so keeps constructor injection;
 * - the README's stdio `main.ts`, as written there, when bootstrap fails: its `.catch` reports the
 *   error (McpFactory.create throws at once, so a `.catch` chained on `listen()` would not see it).
 *
 * The projects are written under `<repo>/.scratch` (git-ignored), so they resolve the workspace's
 * packages as an installed project would.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as ts from 'typescript';

const { docBlocks } = require('../../../scripts/doc-blocks.cjs') as {
  docBlocks(repo: string): Array<{ file: string; marker?: { kind: string; what: string }; code: string }>;
};

const REPO = path.resolve(__dirname, '../../..');

const SERVERS = `import 'reflect-metadata';
import { Inject, Service } from 'typedi';
import { McpServer, Tool } from '@hermes-mcp/core';

@Service()
export class Greeter {
  hello(): string {
    return 'Hello from the service';
  }
}

@McpServer({ name: 'by-constructor', version: '1.0.0' })
export class ByConstructor {
  constructor(private readonly greeter: Greeter) {}

  @Tool({ description: 'Greets' })
  greet() {
    return this.greeter.hello();
  }
}

@McpServer({ name: 'by-property', version: '1.0.0' })
export class ByProperty {
  @Inject(() => Greeter) private readonly greeter!: Greeter;

  @Tool({ description: 'Greets' })
  greet() {
    return this.greeter.hello();
  }
}
`;

const MAIN = `import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { ByConstructor, ByProperty } from './servers';

async function main(): Promise<void> {
  await McpFactory.create(process.env.SERVER === 'by-property' ? ByProperty : ByConstructor).listen();
}

main().catch((error: unknown) => {
  console.error(String(error));
  process.exit(1);
});
`;

const projects: string[] = [];
afterAll(() => projects.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A new project folder under `<repo>/.scratch`, removed after the tests. */
function project(name: string): string {
  mkdirSync(path.join(REPO, '.scratch'), { recursive: true });
  const dir = mkdtempSync(path.join(REPO, '.scratch', `${name}-`));
  projects.push(dir);
  return dir;
}

/** Writes `files` (name → TypeScript) as JavaScript, each file compiled on its own, without decorator metadata: what tsx and esbuild do. */
function transpileWithoutMetadata(dir: string, files: Record<string, string>): void {
  for (const [name, source] of Object.entries(files)) {
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: false },
    });
    writeFileSync(path.join(dir, name.replace(/\.ts$/, '.js')), outputText);
  }
}

/** Runs a process with stdin closed at once, until it exits. */
function runToExit(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end();
  });
}

/** Connects the official SDK client over stdio, calls `greet`, and returns its text. */
async function greet(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'runners-spec', version: '1.0.0' });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'greet', arguments: {} });
    const content = result.content as Array<{ type: string; text?: string }>;
    return content.map((c) => c.text ?? `[${c.type}]`).join('') + (result.isError ? ` (isError; stderr: ${stderr})` : '');
  } finally {
    await client.close();
  }
}

describe('a server compiled without decorator metadata (tsx, esbuild, Vite)', () => {
  const dir = project('no-metadata');
  transpileWithoutMetadata(dir, { 'servers.ts': SERVERS, 'main.ts': MAIN });

  it('is refused at bootstrap when its constructor takes a service, naming the class and both ways out', async () => {
    const { code, stderr } = await runToExit(['main.js'], dir, { SERVER: 'by-constructor' });
    expect({ code, refused: stderr.includes('HERMES_UNRESOLVED_DEPENDENCIES') }).toEqual({ code: 1, refused: true });
    expect(stderr).toContain("ByConstructor's constructor takes parameters");
    expect(stderr).toContain('emitDecoratorMetadata');
    expect(stderr).toContain('@Inject(() => TheService)');
  }, 60_000);

  it('serves with the explicit injection the message offers (@Inject on a property)', async () => {
    await expect(greet(['main.js'], dir, { SERVER: 'by-property' })).resolves.toBe('Hello from the service');
  }, 60_000);
});

describe('the .ts file run directly with ts-node (npx ts-node src/main.ts)', () => {
  it('keeps constructor injection: ts-node compiles with the tsconfig, so the metadata is there', async () => {
    const dir = project('ts-node');
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/servers.ts'), SERVERS);
    writeFileSync(path.join(dir, 'src/main.ts'), MAIN);
    // The README's CommonJS tsconfig.
    const tsconfig = readmeBlock('tsconfig cjs');
    writeFileSync(path.join(dir, 'tsconfig.json'), tsconfig);
    const tsNode = require.resolve('ts-node/dist/bin.js');
    await expect(greet([tsNode, 'src/main.ts'], dir, { SERVER: 'by-constructor' })).resolves.toBe('Hello from the service');
  }, 120_000);
});

describe("the README's stdio main.ts", () => {
  it('reports a bootstrap error through its own .catch (exit code 1, the error on stderr, no uncaught exception)', async () => {
    const dir = project('readme-main');
    // A server class the README's main imports, without @McpServer: McpFactory.create refuses it.
    transpileWithoutMetadata(dir, { 'weather.server.ts': 'export class WeatherServer {}\n', 'main.ts': readmeBlock('src/main.ts') });
    const { code, stderr } = await runToExit(['main.js'], dir);
    expect(code).toBe(1);
    expect(stderr).toContain('HERMES_NOT_A_SERVER');
    // What Node prints for an exception nobody caught ends with its version.
    expect(stderr).not.toContain(`Node.js ${process.version}`);
  }, 60_000);
});

/** The README's code block marked `<!-- consumer: NAME -->` (scripts/doc-blocks.cjs reads them). */
function readmeBlock(name: string): string {
  const block = docBlocks(REPO).find((b) => b.file === 'README.md' && b.marker?.kind === 'consumer' && b.marker.what === name);
  if (!block) throw new Error(`README.md has no block marked <!-- consumer: ${name} -->`);
  return block.code;
}
