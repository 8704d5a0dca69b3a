/**
 * `node:crypto`, loaded the first time something signs, hashes or draws random bytes. A stdio
 * server may do none of that before its first answers, and the module costs about 7 ms of a cold
 * start to load (docs/performance.md, cold start).
 */
import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

/**
 * `node:crypto`, required on the first call. For the Hermes packages: import types from
 * `node:crypto` with `import type`, and call this where a value is needed.
 *
 * @example
 * const digest = nodeCrypto().createHash('sha256').update(bytes).digest('hex');
 */
export function nodeCrypto(): typeof Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('node:crypto') as typeof Crypto);
}
