/**
 * Every code snippet of README.md and docs/ compiles, so the docs cannot go stale (the reader of the
 * blocks and their markers is scripts/doc-blocks.cjs, shared with `npm run test:packages`, which
 * also runs the README's project):
 * - the TypeScript blocks marked `<!-- consumer: FILE -->` are the files of one project, compiled
 *   together with the README's ES module tsconfig (the package test compiles them as CommonJS too);
 * - every other TypeScript block compiles on its own, as a module of that project (so it may import
 *   `./weather.server.js`), unless it is marked `<!-- fragment: WHAT IT IS PART OF -->`;
 * - every JSON block parses.
 * The project is written under `<repo>/.scratch` (git-ignored) and reads the built packages'
 * declarations (`npx tsc -b` first, which `npm test` does).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

interface Block {
  file: string;
  line: number;
  lang: string;
  marker?: { kind: 'consumer' | 'fragment'; what: string };
  code: string;
}

const { blocksOf, docBlocks } = require('../../../scripts/doc-blocks.cjs') as { blocksOf(text: string): Omit<Block, 'file'>[]; docBlocks(repo: string): Block[] };

const REPO = path.resolve(__dirname, '../../..');
const COMPILED = new Set(['ts', 'js']);

/** Where a block goes in the project: a consumer block at its name, any other in src/ (beside weather.server.ts). */
function fileOf(block: Block): string {
  if (block.marker?.kind === 'consumer') return block.marker.what;
  return `src/snippet-${block.file.replace(/[^\w]+/g, '-')}-${block.line}.${block.lang === 'js' ? 'cjs' : 'ts'}`;
}

/** What is wrong with the snippets of `blocks` (README.md's ones must be among them: its tsconfig is the project's). */
function problemsOf(blocks: Block[]): string[] {
  const problems: string[] = [];
  for (const block of blocks) {
    const where = `${block.file}:${block.line}`;
    if (block.marker?.kind === 'fragment' && !block.marker.what) problems.push(`${where}: a fragment marker must say what the snippet is part of`);
    if (block.lang === 'json') {
      try {
        JSON.parse(block.code);
      } catch (error) {
        problems.push(`${where}: the JSON does not parse: ${(error as Error).message}`);
      }
    }
  }
  const tsconfig = blocks.find((b) => b.marker?.kind === 'consumer' && b.marker.what === 'tsconfig esm');
  if (!tsconfig) return [...problems, 'README.md has no block marked <!-- consumer: tsconfig esm -->'];

  mkdirSync(path.join(REPO, '.scratch'), { recursive: true });
  const dir = mkdtempSync(path.join(REPO, '.scratch', 'docs-'));
  try {
    return [...problems, ...compileProblems(dir, blocks, tsconfig)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The compiler's complaints about the TypeScript blocks of `blocks` but the fragments, as a project in `dir`. */
function compileProblems(dir: string, blocks: Block[], tsconfig: Block): string[] {
  const problems: string[] = [];
  const compiled = blocks.filter((b) => COMPILED.has(b.lang) && b.marker?.kind !== 'fragment');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const files = new Map<string, Block>();
  for (const block of compiled) {
    const file = path.join(dir, fileOf(block));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, block.code);
    files.set(file, block);
  }
  const { compilerOptions } = JSON.parse(tsconfig.code) as { compilerOptions: Record<string, unknown> };
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    { ...compilerOptions, rootDir: undefined, outDir: undefined, noEmit: true, allowJs: true, types: ['node', 'jest'] },
    dir,
  );
  if (errors.length > 0) return errors.map((e) => `tsconfig esm: ${ts.flattenDiagnosticMessageText(e.messageText, '\n')}`);
  const program = ts.createProgram([...files.keys()], options);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = diagnostic.file && files.get(path.resolve(diagnostic.file.fileName));
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!block || !diagnostic.file || diagnostic.start === undefined) {
      problems.push(`TS${diagnostic.code}: ${text}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const hint = block.marker ? '' : ' (fix the snippet; if it cannot compile on its own, mark it <!-- fragment: what it is part of -->)';
    problems.push(`${block.file}:${block.line + 1 + line}: TS${diagnostic.code}: ${text}${hint}`);
  }
  return problems;
}

describe('the code snippets of README.md and docs/', () => {
  it('compile (the TypeScript ones but the marked fragments) and parse (the JSON ones)', () => {
    expect(problemsOf(docBlocks(REPO))).toEqual([]);
  }, 120_000);

  it('fail the test when a snippet that is not marked as a fragment does not compile, naming where it is', () => {
    const readme = docBlocks(REPO).filter((b) => b.file === 'README.md');
    const doc = [
      '```ts',
      "import { McpFactory } from '@hermes-mcp/core';",
      'McpFactory.create(undeclared);',
      '```',
      '',
      '<!-- fragment: the body of an @McpServer class -->',
      '```ts',
      '@Tool() add(input: Input) { … }',
      '```',
      '',
      '<!-- fragment: -->',
      '```ts',
      'just();',
      '```',
      '',
    ].join('\n');
    const blocks = blocksOf(doc).map((b) => ({ file: 'docs/made-up.md', ...b }));
    expect(problemsOf([...readme, ...blocks])).toEqual([
      'docs/made-up.md:12: a fragment marker must say what the snippet is part of',
      expect.stringMatching(
        /^docs\/made-up\.md:3: TS2304: Cannot find name 'undeclared'\. \(fix the snippet; if it cannot compile on its own, mark it <!-- fragment: what it is part of -->\)$/,
      ),
    ]);
  }, 120_000);
});
