/**
 * The servers of the `start` section, generated once per run for each size: the same tools on
 * every side — `tool_N`, a description, input `{ a: number, b: number >= 0, note?: string of
 * length 1–40 }` — as class-validator classes for Hermes and the floor, as zod schemas for the
 * SDKs.
 *
 * Hermes' and the floor's sources are written in TypeScript, as a user writes them (one input
 * class per tool, one server class with a method per tool), and compiled by the repository's
 * TypeScript with its compiler options (tsconfig.base.json: CommonJS, `experimentalDecorators`,
 * `emitDecoratorMetadata`, `useDefineForClassFields: false`): what runs is what tsc emits — class
 * bodies with their methods, then `__decorate` calls — not a loop that defines methods one by one.
 * The SDKs' servers are plain CommonJS, one `registerTool` statement per tool, as their READMEs
 * show. The files go into a folder of bench/dist, so their packages resolve from the repository's
 * node_modules as a user's project would — except Hermes' own: `@hermes-mcp/core` and
 * `@hermes-mcp/protocol` are packed (`npm run pack`, their one-file build) and unpacked into the
 * folder's node_modules, so what starts is what npm installs, not the repository's tsc build.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';

/** The tool counts each server is started with. */
export const START_SIZES = [2, 50, 1000];

/** The servers compared at every size. */
export const START_SERVERS = [
  {
    key: 'hermes',
    label:
      'Hermes, `McpFactory.create(S).listen()`, laid out as `npm create hermes-mcp` does: the entry imports `@hermes-mcp/core`, then the server module (its classes, class-validator)',
  },
  { key: 'hermes-one-file', label: 'Hermes, the same server as one file that imports class-validator before `@hermes-mcp/core`' },
  { key: 'hermes-first', label: 'Hermes, the same file, a first start: no schema cache (`HERMES_SCHEMA_CACHE=off`)' },
  { key: 'hermes-snapshot', label: 'Hermes, the same file as `hermes-mcp install` starts it: the launcher of its startup snapshot (`hermes-mcp snapshot`)' },
  { key: 'sdk-v2', label: 'SDK v2 2.4.0, `serveStdio`' },
  { key: 'sdk-v1', label: 'SDK v1 1.32.2, `McpServer` + `StdioServerTransport`' },
  { key: 'floor', label: 'floor: Node + reflect-metadata + class-validator, the same input classes, answers by hand' },
] as const;

/** A key of {@link START_SERVERS}. */
export type StartServerKey = (typeof START_SERVERS)[number]['key'];

/** Where the generated servers are written, under bench/dist. */
export const START_SERVER_DIR = join(__dirname, 'start-servers');

/** The generated file of one server at one size, the one Node starts (the snapshot's and the first start's server is Hermes' entry). */
export function startServerFile(key: StartServerKey, size: number): string {
  return join(START_SERVER_DIR, `${key === 'hermes-snapshot' || key === 'hermes-first' ? 'hermes' : key}-${size}.js`);
}

/** Every tool's description, `{i}` its number: the same text on every side. */
const DESCRIPTION = 'Tool {i}: adds a and b';
const description = (i: number) => DESCRIPTION.replace('{i}', String(i));

/** The input classes, one per tool, with the decorators a Hermes user writes. */
function inputClasses(count: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(`class Tool${i}Input {`, '  @IsNumber() a!: number;', '  @IsNumber() @Min(0) b!: number;', '  @IsOptional() @IsString() @Length(1, 40) note?: string;', '}', '');
  }
  return lines;
}

const VALIDATOR_IMPORTS = ["import 'reflect-metadata';", "import { IsNumber, IsOptional, IsString, Length, Min } from 'class-validator';"];

/** Hermes' server class, with a `@Tool` method per tool. */
function serverClass(count: number, exported: boolean): string[] {
  const lines = ["@McpServer({ name: 'bench-start', version: '1.0.0' })", `${exported ? 'export ' : ''}class StartServer {`];
  for (let i = 0; i < count; i++) {
    lines.push(`  @Tool({ description: '${description(i)}' })`, `  tool_${i}(input: Tool${i}Input) {`, '    return input.a + input.b;', '  }', '');
  }
  lines.push('}', '');
  return lines;
}

/**
 * Hermes as the scaffolded project is laid out (packages/create-hermes-mcp/template): a server
 * module with the input classes and the server class, and an entry that imports
 * `@hermes-mcp/core`, then the server module, and calls `listen()` with every default. So core
 * loads before class-validator, which the server module imports: the order decides whether V8
 * runs a full collection during the start (docs/performance.md, "Cold start").
 */
function hermesSources(count: number, serverModule: string): { server: string; entry: string } {
  const server = [...VALIDATOR_IMPORTS, "import { McpServer, Tool } from '@hermes-mcp/core';", '', ...inputClasses(count), ...serverClass(count, true)];
  const entry = [
    "import 'reflect-metadata';",
    "import { McpFactory } from '@hermes-mcp/core';",
    `import { StartServer } from './${serverModule}';`,
    '',
    'void McpFactory.create(StartServer).listen();',
    '',
  ];
  return { server: server.join('\n'), entry: entry.join('\n') };
}

/** The same server as one file whose imports put class-validator before `@hermes-mcp/core`. */
function hermesOneFileSource(count: number): string {
  const lines = [...VALIDATOR_IMPORTS, "import { McpFactory, McpServer, Tool } from '@hermes-mcp/core';", '', ...inputClasses(count), ...serverClass(count, false)];
  lines.push('void McpFactory.create(StartServer).listen();', '');
  return lines.join('\n');
}

/**
 * The floor: the same input classes decorated, as a Hermes user's server does before Hermes runs
 * a line; the list of tools (one page, the schema Hermes derives from those classes) and both
 * answers written by hand.
 */
function floorSource(count: number): string {
  const lines = [...VALIDATOR_IMPORTS, '', ...inputClasses(count)];
  lines.push(
    "/** The classes a server would read its tools' schemas from. */",
    `export const INPUTS = [${Array.from({ length: count }, (_, i) => `Tool${i}Input`).join(', ')}];`,
    '',
    'const TOOLS = INPUTS.map((_, i) => ({',
    '  name: `tool_${i}`,',
    `  description: \`${DESCRIPTION.replace('{i}', '${i}')}\`,`,
    '  inputSchema: {',
    "    type: 'object',",
    "    properties: { a: { type: 'number' }, b: { type: 'number', minimum: 0 }, note: { type: 'string', minLength: 1, maxLength: 40 } },",
    "    required: ['a', 'b'],",
    '  },',
    '}));',
    '',
    "let buffered = '';",
    "process.stdin.setEncoding('utf8').on('data', (chunk: string) => {",
    '  buffered += chunk;',
    "  for (let at = buffered.indexOf('\\n'); at !== -1; at = buffered.indexOf('\\n')) {",
    '    const message = JSON.parse(buffered.slice(0, at)) as { id?: number; method: string; params?: { protocolVersion?: string } };',
    '    buffered = buffered.slice(at + 1);',
    '    if (message.id === undefined) continue;',
    '    const result =',
    "      message.method === 'initialize'",
    "        ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench-start', version: '1.0.0' } }",
    '        : { tools: TOOLS };',
    "    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\\n`);",
    '  }',
    '});',
    '',
  );
  return lines.join('\n');
}

/** The zod shape of every tool's input (a fresh one per tool, as a user writes them). */
const ZOD_SHAPE = '{ a: z.number(), b: z.number().min(0), note: z.string().min(1).max(40).optional() }';
const HANDLER = "async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })";

/** SDK v2 (`@modelcontextprotocol/server`): `serveStdio(factory)`, a `registerTool` per tool, as cold-sdk-v2 did. */
function sdkV2Source(count: number): string {
  const lines = [
    "'use strict';",
    "const { McpServer } = require('@modelcontextprotocol/server');",
    "const { serveStdio } = require('@modelcontextprotocol/server/stdio');",
    "const { z } = require('zod');",
    '',
    'serveStdio(() => {',
    "  const server = new McpServer({ name: 'bench-start', version: '1.0.0' });",
  ];
  for (let i = 0; i < count; i++) lines.push(`  server.registerTool('tool_${i}', { description: '${description(i)}', inputSchema: z.object(${ZOD_SHAPE}) }, ${HANDLER});`);
  lines.push('  return server;', '});', '');
  return lines.join('\n');
}

/** SDK v1 (`@modelcontextprotocol/sdk` 1.x): `McpServer.registerTool` per tool, then `StdioServerTransport`. */
function sdkV1Source(count: number): string {
  const lines = [
    "'use strict';",
    "const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');",
    "const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');",
    "const { z } = require('zod');",
    '',
    "const server = new McpServer({ name: 'bench-start', version: '1.0.0' });",
  ];
  for (let i = 0; i < count; i++) lines.push(`server.registerTool('tool_${i}', { description: '${description(i)}', inputSchema: ${ZOD_SHAPE} }, ${HANDLER});`);
  lines.push('server.connect(new StdioServerTransport()).catch((error) => {', '  process.stderr.write(`${error.stack}\\n`);', '  process.exit(1);', '});', '');
  return lines.join('\n');
}

/** The repository's compiler options (tsconfig.base.json), for one CommonJS file. */
function compilerOptions(): ts.CompilerOptions {
  const root = resolve(__dirname, '..', '..');
  const path = join(root, 'tsconfig.base.json');
  const read = ts.readConfigFile(path, (file) => ts.sys.readFile(file));
  if (read.error) throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const { options, errors } = ts.convertCompilerOptionsFromJson(read.config.compilerOptions, root);
  if (errors.length) throw new Error(`${path}: ${errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('; ')}`);
  return { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, declaration: false, declarationMap: false, composite: false };
}

/** What tsc emits for `source`; fails on a syntax error. */
function compile(source: string, fileName: string, options: ts.CompilerOptions): string {
  const output = ts.transpileModule(source, { compilerOptions: options, fileName, reportDiagnostics: true });
  if (output.diagnostics?.length) throw new Error(`${fileName}: ${output.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  return output.outputText;
}

/**
 * Packs Hermes' `names` as npm would install them (scripts/pack.mjs) and unpacks each into
 * {@link START_SERVER_DIR}'s node_modules; the libraries they require resolve further up, from the
 * repository's node_modules, one copy each.
 */
function installPacked(names: readonly string[]): void {
  const root = resolve(__dirname, '..', '..');
  const packs = mkdtempSync(join(tmpdir(), 'hermes-bench-packs-'));
  try {
    const line = execFileSync(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--dest', packs, ...names], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    for (const name of names) {
      const tarball = line.split(' ').find((word) => word.includes(`hermes-mcp-${name}-`));
      if (tarball === undefined) throw new Error(`scripts/pack.mjs printed no tarball of ${name}: ${line}`);
      const into = join(START_SERVER_DIR, 'node_modules', '@hermes-mcp', name);
      mkdirSync(into, { recursive: true });
      execFileSync('tar', ['-xzf', tarball.trim(), '--strip-components=1', '-C', into]);
    }
  } finally {
    rmSync(packs, { recursive: true, force: true });
  }
}

/**
 * Writes every server at every size into {@link START_SERVER_DIR} (emptied first), the
 * TypeScript sources beside what tsc made of them.
 */
export function writeStartServers(sizes: readonly number[] = START_SIZES): void {
  rmSync(START_SERVER_DIR, { recursive: true, force: true });
  mkdirSync(START_SERVER_DIR, { recursive: true });
  installPacked(['protocol', 'core']);
  const options = compilerOptions();
  const write = (file: string, source: string) => {
    writeFileSync(file.replace(/\.js$/, '.ts'), source);
    writeFileSync(file, compile(source, basename(file).replace(/\.js$/, '.ts'), options));
  };
  for (const size of sizes) {
    const entry = startServerFile('hermes', size);
    const serverModule = basename(entry).replace(/\.js$/, '.server');
    const hermes = hermesSources(size, serverModule);
    write(join(START_SERVER_DIR, `${serverModule}.js`), hermes.server);
    write(entry, hermes.entry);
    write(startServerFile('hermes-one-file', size), hermesOneFileSource(size));
    write(startServerFile('floor', size), floorSource(size));
    writeFileSync(startServerFile('sdk-v2', size), sdkV2Source(size));
    writeFileSync(startServerFile('sdk-v1', size), sdkV1Source(size));
  }
}
