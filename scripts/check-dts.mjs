// `npm run check:dts`: type-checks the declarations the packages publish (dist/**/*.d.ts, after
// `tsc -b`) as a consumer with `skipLibCheck: false` would: every public type must resolve, so a
// declaration that names something missing (an internal type stripped, a file not shipped) fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = {
  '@hermes-mcp/protocol': 'packages/protocol/dist/index.d.ts',
  '@hermes-mcp/core': 'packages/core/dist/index.d.ts',
  '@hermes-mcp/core/adapter': 'packages/core/dist/adapter.d.ts',
  '@hermes-mcp/core/internal': 'packages/core/dist/internal.d.ts',
  '@hermes-mcp/fastify': 'packages/fastify/dist/index.d.ts',
  '@hermes-mcp/testing': 'packages/testing/dist/index.d.ts',
  '@hermes-mcp/client': 'packages/client/dist/index.d.ts',
  '@hermes-mcp/opentelemetry': 'packages/opentelemetry/dist/index.d.ts',
  '@hermes-mcp/redis': 'packages/redis/dist/index.d.ts',
};

const dir = mkdtempSync(join(tmpdir(), 'hermes-dts-'));
const config = join(dir, 'tsconfig.json');
writeFileSync(
  config,
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'commonjs',
      moduleResolution: 'node10',
      lib: ['ES2022'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
      baseUrl: ROOT,
      paths: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, [file]])),
    },
    files: Object.values(ENTRIES).map((file) => join(ROOT, file)),
  }),
);
const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: ROOT, encoding: 'utf8' });
rmSync(dir, { recursive: true, force: true });
// Errors inside other packages' own declarations (node_modules) are theirs, not ours.
const ours = (result.stdout + result.stderr).split('\n').filter((line) => /error TS/.test(line) && !line.includes('node_modules/'));
if (ours.length > 0) {
  process.stderr.write(`[dts] the published declarations do not type-check:\n${ours.join('\n')}\n`);
  process.exit(1);
}
process.stderr.write(`[dts] the declarations of ${Object.keys(ENTRIES).join(', ')} type-check with skipLibCheck: false\n`);
