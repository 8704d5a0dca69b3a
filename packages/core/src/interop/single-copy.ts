/**
 * The libraries whose state must be one copy in the process. Decorators register metadata in the
 * copy the user's code imports (typedi's container, class-transformer's `@Type` storage,
 * class-validator's rules, reflect-metadata's registry); Hermes reads the copy its own code
 * imports. When those are two copies — a folder install or `npm link` (core resolves the
 * libraries next to its own real path), mismatched versions that npm cannot dedupe — nothing
 * registered is found, and the errors point at the wrong cause. Bootstrap therefore looks at what
 * Node has loaded and refuses to go on with two copies of one of them, naming both.
 *
 * A bundle (a worker's, esbuild's, webpack's) has no module cache to look at: its `require` is the
 * bundler's, and which file each import became was settled when it was built. There is nothing to
 * check at run time then, and the check is skipped.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { HermesError } from '../errors';

/** The libraries that must be one copy: they keep registries in module state. */
export const SINGLE_COPY_LIBRARIES = ['reflect-metadata', 'class-validator', 'class-transformer', 'typedi'] as const;

const ROOT = new RegExp(`^(.*[\\\\/]node_modules[\\\\/](${SINGLE_COPY_LIBRARIES.join('|')}))[\\\\/]`);

/** One loaded copy of a library: where it lives and its version. */
export interface LoadedCopy {
  root: string;
  version: string;
}

/** Node's module cache (Bun and Deno keep one too); undefined in a bundle, whose `require` has none. */
function moduleCache(): Record<string, unknown> | undefined {
  return typeof require === 'function' && typeof require.cache === 'object' && require.cache !== null ? require.cache : undefined;
}

/**
 * The copies of each single-copy library that the module cache holds (modules loaded so far);
 * none without a cache (`null`, or a bundle's `require`).
 */
export function loadedCopies(cache: Record<string, unknown> | null | undefined = moduleCache()): Map<string, LoadedCopy[]> {
  const roots = new Map<string, Set<string>>();
  for (const file of Object.keys(cache ?? {})) {
    const match = ROOT.exec(file);
    if (!match) continue;
    let set = roots.get(match[2]);
    if (!set) roots.set(match[2], (set = new Set()));
    set.add(match[1]);
  }
  const copies = new Map<string, LoadedCopy[]>();
  for (const [name, set] of roots)
    copies.set(
      name,
      [...set].sort().map((root) => ({ root, version: versionAt(root) })),
    );
  return copies;
}

function versionAt(root: string): string {
  try {
    return String((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

/**
 * Throws `HERMES_DUPLICATE_LIBRARY` when two copies of one of {@link SINGLE_COPY_LIBRARIES} are
 * loaded, naming each copy and the fix.
 */
export function assertSingleCopies(cache?: Record<string, unknown> | null): void {
  const problems: string[] = [];
  for (const [name, copies] of loadedCopies(cache)) {
    if (copies.length < 2) continue;
    problems.push(`${name} is loaded twice: ${copies.map((c) => `${c.version} at ${c.root}`).join(' and ')}`);
  }
  if (problems.length === 0) return;
  throw new HermesError(
    'HERMES_DUPLICATE_LIBRARY',
    `${problems.join('; ')}. Decorators register in the copy your code imports while Hermes reads its own, so ` +
      `@Service() classes and @Type() properties would not be found. Make it one copy: install the Hermes packages ` +
      `as packages, not links (\`npm install --install-links <folder>\`, or the packed tarballs), run \`npm dedupe\`, ` +
      `and use versions of ${SINGLE_COPY_LIBRARIES.join(', ')} that satisfy the peerDependencies of @hermes-mcp/core.`,
  );
}
