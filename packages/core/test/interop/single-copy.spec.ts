/**
 * Two copies of a library that keeps registries in module state (typedi, class-transformer,
 * class-validator, reflect-metadata) are found in Node's module cache and refused with a message
 * that names both copies and the fix. The module caches here are made up; the consumer test
 * (scripts/consumer-test.mjs) installs the packages from a folder for real.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { HermesError } from '@hermes-mcp/core';
import { assertSingleCopies, loadedCopies } from '../../src/interop/single-copy';

function fakeInstall(root: string, name: string, version: string): string {
  const dir = path.join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version }));
  return path.join(dir, 'cjs', 'index.js');
}

describe('single-copy libraries', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'hermes-single-copy-'));
  const app = fakeInstall(path.join(base, 'app'), 'typedi', '0.10.0');
  const linked = fakeInstall(path.join(base, 'repo'), 'typedi', '0.10.0');
  const transformer = fakeInstall(path.join(base, 'app'), 'class-transformer', '0.5.1');

  it('finds each loaded copy with its version; other packages do not count', () => {
    const copies = loadedCopies({ [app]: {}, [linked]: {}, [transformer]: {}, [path.join(base, 'app/node_modules/pino/index.js')]: {} });
    expect(copies.get('typedi')).toEqual([
      { root: path.join(base, 'app/node_modules/typedi'), version: '0.10.0' },
      { root: path.join(base, 'repo/node_modules/typedi'), version: '0.10.0' },
    ]);
    expect(copies.get('class-transformer')).toHaveLength(1);
    expect(copies.has('pino')).toBe(false);
  });

  it('refuses two copies with HERMES_DUPLICATE_LIBRARY, naming both and the fix', () => {
    let error: unknown;
    try {
      assertSingleCopies({ [app]: {}, [linked]: {}, [transformer]: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HermesError);
    expect((error as HermesError).code).toBe('HERMES_DUPLICATE_LIBRARY');
    const message = (error as Error).message;
    expect(message).toContain(`typedi is loaded twice: 0.10.0 at ${path.join(base, 'app/node_modules/typedi')} and 0.10.0 at ${path.join(base, 'repo/node_modules/typedi')}`);
    expect(message).toMatch(/--install-links/);
    expect(message).toMatch(/npm dedupe/);
    expect(message).not.toMatch(/class-transformer is loaded twice/);
  });

  it('lets one copy of each go', () => {
    expect(() => assertSingleCopies({ [app]: {}, [transformer]: {} })).not.toThrow();
  });

  it('finds nothing to check without a module cache (a bundle: its require has none), and lets it go', () => {
    expect(loadedCopies(null).size).toBe(0);
    expect(() => assertSingleCopies(null)).not.toThrow();
  });
});
