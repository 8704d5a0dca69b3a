// The one-file build of a package, as npm installs it (scripts/pack.mjs calls it on a staged copy).
//
// tsc's build is a module per source file: core is 80-odd files, and Node spends more time finding,
// reading and wrapping them than running them (about 30 ms of a two-tool server's start on Node 24,
// bench "Module loading by package"). The packed package keeps tsc's declarations (`.d.ts`) and
// puts all of its JavaScript in one file, `dist/<name>.bundle.js`, made by esbuild from tsc's
// output: each module stays a CommonJS module of its own, evaluated when first required, as
// before, so what runs first and what is loaded on first use do not change. A loader beside it
// (scripts/bundle-loader.cjs) compiles it with V8's code cache, kept on disk. Every subpath the
// package exports (`.`, `./adapter`, `./internal`) keeps its file, which now takes its exports
// from the bundle: one copy of each module's state whichever entry a program imports first.
// Other packages (the peers, protocol for core) stay outside, required as before.
//
// The repository itself runs tsc's build: tests, examples and the dev loop never see a bundle that
// could be older than the code. `npm run test:packages` runs the packed one as users do, and the
// bench's start section measures it.
import { buildSync, transformSync } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle's loader, written beside it (`__BUNDLE__` is the bundle's file name). */
const LOADER = fileURLToPath(new URL('./bundle-loader.cjs', import.meta.url));

/** The packages whose packed form is the one-file build. */
export const BUNDLED = ['protocol', 'core'];

/** The file each subpath of `manifest.exports` loads (`./dist/index.js`), by subpath. */
function exportedFiles(manifest) {
  const files = {};
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : target.default;
    if (typeof file === 'string' && file.startsWith('./dist/') && file.endsWith('.js')) files[subpath] = file.slice('./dist/'.length);
  }
  return files;
}

/** Every file under `folder`, relative to it. */
function filesUnder(folder, prefix = '') {
  return readdirSync(path.join(folder, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(folder, path.join(prefix, entry.name)) : [path.join(prefix, entry.name)],
  );
}

/**
 * The names each of `files` (tsc's entries of the package at `built`, which is its built copy in
 * the repository) exports, asked of Node in a process of its own.
 */
function exportNames(built, files) {
  const script = `process.stdout.write(JSON.stringify(${JSON.stringify(files)}.map((file) => Object.keys(require(require('path').join(${JSON.stringify(path.join(built, 'dist'))}, file))))))`;
  const names = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: built, encoding: 'utf8' }));
  return Object.fromEntries(files.map((file, i) => [file, names[i]]));
}

/** ASCII stand-ins of the same length (one UTF-16 unit) for what the comments use most. */
const STAND_INS = {
  '\u2014': '-',
  '\u2013': '-',
  '\u2026': '.',
  '\u2192': '>',
  '\u2190': '<',
  '\u2264': '<',
  '\u2265': '>',
  '\u00d7': 'x',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
};

/**
 * Makes the bundle at `file` ASCII, in place. esbuild writes every string, template, regular
 * expression and name in ASCII (its default `charset`), but keeps some comments as they are, and
 * one character outside Latin-1 makes V8 hold the whole source as two bytes a character: the
 * bundle's 700 KB became 1.4 MB of every process's heap, enough to bring a full garbage collection
 * into a start. So the other characters, which can only be in comments, become ASCII stand-ins of the
 * same UTF-16 length (the source map's columns still hold); that only comments changed is
 * checked: the two files without their comments and spaces are the same program text.
 */
function asciiComments(file) {
  const source = readFileSync(file, 'utf8');
  const ascii = source.replace(/[^\t\n\r\x20-\x7e]/gu, (char) => STAND_INS[char] ?? '?'.repeat(char.length));
  if (ascii === source) return;
  const code = (text) => transformSync(text, { minifyWhitespace: true, loader: 'js', format: 'cjs', logLevel: 'silent' }).code;
  if (code(ascii) !== code(source)) throw new Error(`${file}: a character outside ASCII is in the code, not only in comments (esbuild's charset should have escaped it)`);
  writeFileSync(file, ascii);
}

/**
 * Turns the staged copy of a package at `folder` (its package.json and tsc's `dist/`) into its
 * one-file build, in place; `built` is the package's folder in the repository, whose entries say
 * what each exports. Returns the bundle's path relative to `folder`, its size and module count.
 */
export function bundlePackage(folder, built) {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  const short = manifest.name.replace(/^@hermes-mcp\//, '');
  const entries = exportedFiles(manifest);
  const dist = path.join(folder, 'dist');
  const bundle = `${short}.bundle.js`;
  // One function per exported file: each entry asks for its own, so none is evaluated before a program imports it.
  const contents = Object.values(entries)
    .map((file) => `exports[${JSON.stringify(file)}] = () => require(${JSON.stringify(`./${file}`)});`)
    .join('\n');
  const result = buildSync({
    stdin: { contents, resolveDir: dist, sourcefile: `${short}.entries.js`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    outfile: path.join(dist, bundle),
    absWorkingDir: folder,
    logLevel: 'silent',
    write: true,
    metafile: true,
  });
  if (result.warnings.length) throw new Error(`esbuild warned bundling ${manifest.name}: ${result.warnings.map((w) => w.text).join('; ')}`);
  asciiComments(path.join(dist, bundle));
  // Only the bundle's own modules go: every other `.js` (a file tsc wrote that no entry reaches) stays.
  const bundled = new Set(
    Object.keys(result.metafile.inputs)
      .map((input) => path.resolve(folder, input))
      .filter((input) => input.startsWith(dist + path.sep)),
  );
  for (const file of filesUnder(dist)) {
    const full = path.join(dist, file);
    if (bundled.has(full) || (file.endsWith('.js.map') && bundled.has(full.slice(0, -'.map'.length)))) rmSync(full);
  }
  // An ES module's `import { McpServer } from '@hermes-mcp/core'` needs the names where Node's
  // CommonJS lexer finds them without running the file: the line esbuild writes for that, never run.
  const names = exportNames(built, Object.values(entries));
  // The bundle is loaded by its loader (scripts/bundle-loader.cjs: V8's code cache kept on disk).
  const loader = `${short}.load.js`;
  const digest = createHash('sha256')
    .update(readFileSync(path.join(dist, bundle)))
    .digest('hex')
    .slice(0, 16);
  writeFileSync(path.join(dist, loader), readFileSync(LOADER, 'utf8').replaceAll('__BUNDLE__', bundle).replaceAll('__DIGEST__', digest));
  for (const file of Object.values(entries)) {
    writeFileSync(
      path.join(dist, file),
      [
        '"use strict";',
        `// ${manifest.name}'s one-file build (scripts/bundle.mjs): this entry's exports are the bundle's module dist/${file}.`,
        `module.exports = require("./${loader}")(${JSON.stringify(file)});`,
        "// The names an ES module imports, for Node's CommonJS lexer (never run):",
        `0 && (module.exports = { ${names[file].join(', ')} });`,
        '',
      ].join('\n'),
    );
  }
  return { bundle: path.join('dist', bundle), size: statSync(path.join(dist, bundle)).size, modules: bundled.size };
}
