/**
 * Modules loaded the first time they are needed, not with the package: `node:crypto` here (a
 * stdio server may never sign, hash or draw a random byte before its first answers, and the module
 * costs about 7 ms of a cold start, docs/performance.md), and any other through {@link onFirstUse}.
 */
import type * as Crypto from 'node:crypto';

/**
 * A getter for what `load` returns, calling it once, the first time the getter is called. Pass a
 * function that calls `require` itself, so the module is resolved from the caller's package.
 *
 * @example
 * // eslint-disable-next-line @typescript-eslint/no-require-imports
 * const yaml = onFirstUse(() => require('yaml') as typeof import('yaml'));
 */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}

/**
 * `node:crypto`, required on the first call. For the Hermes packages: import types from
 * `node:crypto` with `import type`, and call this where a value is needed.
 *
 * @example
 * const digest = nodeCrypto().createHash('sha256').update(bytes).digest('hex');
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const nodeCrypto: () => typeof Crypto = onFirstUse(() => require('node:crypto') as typeof Crypto);
