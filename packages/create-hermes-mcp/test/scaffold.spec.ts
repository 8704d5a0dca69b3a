/**
 * scaffold() writes the template with the name and the Hermes versions filled in, and refuses to
 * write into a folder that is not empty. (scripts/package-tests.mjs installs a scaffolded project
 * from the packed tarballs and runs its npm test and npm start.)
 */
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scaffold } from '../src/scaffold';

describe('scaffold', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'create-hermes-mcp-'));

  it('writes a project: name and versions filled in, no placeholder left, .gitignore restored', () => {
    const result = scaffold({ directory: path.join(base, 'My Weather Server'), hermes: { testing: 'file:/tmp/testing.tgz', client: 'file:/tmp/client.tgz' } });
    expect(result.name).toBe('my-weather-server');
    expect(result.files.sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'jest.config.js',
        'package.json',
        'src/main.ts',
        'src/server.ts',
        'test/manifest.json',
        'test/manifest.spec.ts',
        'test/server.spec.ts',
        'tsconfig.json',
      ].sort(),
    );
    const pkg = JSON.parse(readFileSync(path.join(result.directory, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('my-weather-server');
    expect(pkg.dependencies['@hermes-mcp/core']).toBe('^0.1.0');
    expect(pkg.devDependencies['@hermes-mcp/testing']).toBe('file:/tmp/testing.tgz');
    // The hermes-mcp command, and SWC for it to run src/*.ts with decorator metadata.
    expect(pkg.devDependencies['@hermes-mcp/client']).toBe('file:/tmp/client.tgz');
    expect(pkg.devDependencies['@swc/core']).toEqual(expect.stringMatching(/^\^1\./));
    // TypeScript 7, what `npm install typescript` gives; the tests compiled by SWC (@swc/jest),
    // since ts-jest needs TypeScript's compiler API, which 7 does not have.
    expect(pkg.devDependencies.typescript).toEqual(expect.stringMatching(/^\^7\./));
    expect(pkg.devDependencies['@swc/jest']).toBeDefined();
    expect(pkg.devDependencies['ts-jest']).toBeUndefined();
    expect(readFileSync(path.join(result.directory, 'jest.config.js'), 'utf8')).toContain("'@swc/jest'");
    expect(pkg.engines).toEqual({ node: JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')).engines.node });
    expect(pkg.scripts).toEqual({
      build: 'tsc',
      start: 'tsc && node dist/main.js',
      dev: 'hermes-mcp dev src/main.ts',
      inspect: 'hermes-mcp inspect src/main.ts --check --json',
      test: 'jest',
    });
    // The README shows the loop: dev, inspect and the snapshot, call key=value, install into a host.
    const readme = readFileSync(path.join(result.directory, 'README.md'), 'utf8');
    for (const shown of [
      'npm run dev',
      'npm run inspect',
      'npm run --silent inspect > test/manifest.json',
      'npx hermes-mcp call greet person.name=Ada',
      'npx hermes-mcp install claude-desktop dist/main.js',
      'npx hermes-mcp uninstall claude-desktop my-weather-server',
    ])
      expect(readme).toContain(shown);
    const tsconfig = JSON.parse(readFileSync(path.join(result.directory, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions).toMatchObject({ experimentalDecorators: true, emitDecoratorMetadata: true });
    for (const file of result.files) expect({ file, placeholder: /\{\{/.test(readFileSync(path.join(result.directory, file), 'utf8')) }).toEqual({ file, placeholder: false });
    expect(readFileSync(path.join(result.directory, 'src/server.ts'), 'utf8')).toContain("name: 'my-weather-server'");
  });

  it('refuses a folder that is not empty, and writes nothing there', () => {
    const taken = path.join(base, 'taken');
    mkdirSync(taken);
    writeFileSync(path.join(taken, 'keep.txt'), 'mine');
    expect(() => scaffold({ directory: taken })).toThrow(/exists and is not empty/);
    expect(readFileSync(path.join(taken, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
