// The fenced code blocks of the README and docs/, each with the marker comment right above it, if
// any. One reader for both tests of the docs: `npm run test:packages` (scripts/package-tests.mjs)
// builds and runs a project from the `consumer` blocks, and packages/core/test/docs-snippets.spec.ts
// compiles every TypeScript block. Markers:
//
//   <!-- consumer: NAME -->          a file (or an install step) of the README's project, by name
//   <!-- fragment: WHAT IT IS PART OF -->   a piece that cannot compile on its own, and where it goes
//
// A block without a marker must compile on its own.
'use strict';
// CommonJS, so that the jest specs (compiled to CommonJS) load it as the .mjs scripts do.
/* eslint-disable @typescript-eslint/no-require-imports */
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

/** The Markdown files whose snippets are tested: README.md and every file in docs/. */
function docFiles(repo) {
  const docs = readdirSync(path.join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs];
}

/**
 * The code blocks of one Markdown text: `{ line, lang, marker, code }`, `line` counting from 1 at the
 * opening fence, `marker` `{ kind: 'consumer' | 'fragment', what }` or undefined.
 */
function blocksOf(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, lang] = open;
    const close = lines.findIndex((line, j) => j > i && line.trimEnd() === `${indent}\`\`\``);
    if (close < 0) throw new Error(`the code block at line ${i + 1} is not closed`);
    let before = i - 1;
    while (before >= 0 && !lines[before].trim()) before--;
    const marker = before >= 0 ? /^\s*<!-- (consumer|fragment):\s*(.*?)\s*-->\s*$/.exec(lines[before]) : null;
    const code = lines.slice(i + 1, close).map((line) => line.slice(indent.length));
    blocks.push({ line: i + 1, lang, marker: marker ? { kind: marker[1], what: marker[2].trim() } : undefined, code: `${code.join('\n')}\n` });
    i = close;
  }
  return blocks;
}

/** Every code block of README.md and docs/, with the file it is in (relative to `repo`). */
function docBlocks(repo) {
  return docFiles(repo).flatMap((file) => blocksOf(readFileSync(path.join(repo, file), 'utf8')).map((block) => ({ file, ...block })));
}

module.exports = { blocksOf, docBlocks };
