/**
 * The instances the schema builder's probe validates, built as class-transformer builds every
 * input (`plainToInstance`), without its per-key metadata look-ups when it has nothing to apply.
 */
import { nothingToTransform } from '../interop/class-transformer';
import { transformerLibrary } from '../interop/transformer-library';

/**
 * `plainToInstance(cls, plain)` for a `plain` whose values are all `null` (`{}` included).
 *
 * When class-transformer has nothing to apply — no `@Type`, `@Transform`, `@Expose` or `@Exclude`
 * on the class or its bases, for those keys, and its default options — `plainToInstance` builds
 * `new cls()` and sets each key to `null`, except `__proto__`, `constructor`, the keys the
 * prototype defines without a setter (methods, getters) and those whose value is a function. This
 * does the same, in the same order, without the dozen metadata look-ups per key (a tenth of
 * `McpFactory.create` with 1,000 tools). Anything else goes to `plainToInstance` itself.
 *
 * @internal
 */
export function probeInstance(cls: new () => object, plain: Readonly<Record<string, null>>): Record<string, unknown> {
  const keys = Object.keys(plain);
  if (!keys.every((key) => plain[key] === null) || !nothingToTransform(cls, keys)) return transformerLibrary().plainToInstance(cls, plain) as Record<string, unknown>;
  const instance = new cls() as Record<string, unknown>;
  for (const key of keys) {
    if (key === '__proto__' || key === 'constructor') continue;
    // Read as class-transformer reads it: the own property of the constructor's prototype.
    const prototype = instance.constructor.prototype as object | undefined;
    if (prototype) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      if ((descriptor && !descriptor.set) || instance[key] instanceof Function) continue;
    }
    instance[key] = null;
  }
  return instance;
}
