// `npm run check:dts`: type-checks the declarations the packages publish (dist/**/*.d.ts, after
// `tsc -b`) as a consumer with `skipLibCheck: false` would: every public type must resolve, so a
// declaration that names something missing (an internal type stripped, a file not shipped) fails.
//
// The consumer is a folder outside the repository whose node_modules/@hermes-mcp/* link to the
// packages, and one file that imports every published entry point by its package name, so each is
// found the way a consumer finds it (package.json `exports`, `typesVersions`, `types`). It is
// compiled with the repository's TypeScript 5 and with TypeScript 7 (the pinned release from
// scripts/cache.mjs: what `npm install typescript` gives today), under each module resolution that
// release offers a Node project: CommonJS (`node10`, which TypeScript 7 removed, on 5 only),
// `nodenext`, and `bundler`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typescriptCompiler } from './cache.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = ['protocol', 'core', 'fastify', 'testing', 'client', 'opentelemetry', 'redis', 'gateway'];
/** Every entry point the packages publish, by the name a consumer imports. */
const ENTRIES = [...PACKAGES.map((name) => `@hermes-mcp/${name}`), '@hermes-mcp/core/adapter', '@hermes-mcp/core/internal', '@hermes-mcp/protocol/internal'];

/** The compiler options every run shares: a strict consumer that checks the libraries' declarations. */
const BASE = {
  target: 'ES2022',
  lib: ['ES2022'],
  types: ['node'],
  typeRoots: [join(ROOT, 'node_modules/@types')],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
};

/** The module settings a consumer's project may have, by name. */
const MODULES = {
  commonjs: { module: 'commonjs', moduleResolution: 'node10' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
};

/** Which TypeScript runs which module settings. */
const COMPILERS = [
  { label: 'TypeScript 5', tsc: join(ROOT, 'node_modules/typescript/bin/tsc'), modules: ['commonjs', 'nodenext', 'bundler'] },
  { label: `TypeScript 7`, tsc: typescriptCompiler(7), modules: ['nodenext', 'bundler'] },
];

const dir = mkdtempSync(join(tmpdir(), 'hermes-dts-'));
let failed = false;
try {
  mkdirSync(join(dir, 'node_modules/@hermes-mcp'), { recursive: true });
  for (const name of PACKAGES) symlinkSync(join(ROOT, 'packages', name), join(dir, 'node_modules/@hermes-mcp', name), 'dir');
  // A CommonJS package; under nodenext the .cts file is CommonJS whatever the package says.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'dts-consumer', private: true, type: 'commonjs' }));
  writeFileSync(join(dir, 'consumer.cts'), ENTRIES.map((entry, i) => `import * as entry${i} from '${entry}';\nexport { entry${i} };\n`).join(''));
  for (const { label, tsc, modules } of COMPILERS) {
    for (const module of modules) {
      const config = join(dir, `tsconfig.${module}.json`);
      writeFileSync(config, JSON.stringify({ compilerOptions: { ...BASE, ...MODULES[module] }, files: ['consumer.cts'] }));
      const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: dir, encoding: 'utf8' });
      const output = `${result.stdout}${result.stderr}`;
      // Errors inside other packages' own declarations (their node_modules) are theirs, not ours;
      // ours are found through their real paths, under packages/.
      const ours = output.split('\n').filter((line) => /error TS/.test(line) && !line.includes('node_modules/'));
      if (ours.length > 0 || (result.status !== 0 && !/error TS/.test(output))) {
        failed = true;
        process.stderr.write(`[dts] ${label}, ${module}: the published declarations do not type-check:\n${ours.length > 0 ? ours.join('\n') : output}\n`);
      } else {
        process.stderr.write(`[dts] ${label}, ${module}: ${ENTRIES.length} entry points type-check with skipLibCheck: false\n`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) process.exit(1);
