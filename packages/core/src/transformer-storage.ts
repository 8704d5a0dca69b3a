/**
 * What class-transformer knows about a class, for the places that skip `plainToInstance` when it
 * would have nothing to do (the validation fast path, the schema builder's probe).
 */
import { ClassTransformOptions, TransformationType } from 'class-transformer';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';

// class-transformer ships these modules' code under cjs/ and their types under types/, which
// TypeScript cannot pair by itself: the storage that knows every decorator (the one
// plainToInstance reads), and the options plainToInstance falls back on.
/** class-transformer's metadata storage: every `@Type`, `@Transform`, `@Expose`, `@Exclude`. @internal */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const transformerStorage: TransformerStorage = require('class-transformer/cjs/storage').defaultMetadataStorage;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const defaultOptions: ClassTransformOptions = require('class-transformer/cjs/constants/default-options.constant').defaultOptions;

/** Classes class-transformer converts to rather than builds. */
const CONVERTED = new Set<unknown>([String, Number, Boolean, Date, globalThis.Buffer]);

/**
 * True when `plainToInstance(cls, plain)` has nothing to apply to `cls` for these keys: no
 * `@Type`, `@Transform`, `@Expose` or `@Exclude` on the class or its bases (for those keys, or for
 * the whole class), a class it builds rather than converts, and its default options untouched.
 * It then builds `new cls()` and copies the keys (skipping `__proto__`, `constructor`, and keys the
 * prototype defines without a setter). @internal
 */
export function nothingToTransform(cls: Function, keys: Iterable<string>): boolean {
  const { strategy, excludeExtraneousValues, excludePrefixes } = defaultOptions;
  if ((strategy !== undefined && strategy !== 'exposeAll') || excludeExtraneousValues || excludePrefixes?.length || CONVERTED.has(cls)) return false;
  if (transformerStorage.getStrategy(cls) !== 'none' || transformerStorage.getExposedMetadatas(cls).length > 0 || transformerStorage.getExcludedMetadatas(cls).length > 0) return false;
  for (const key of keys) {
    if (transformerStorage.findTypeMetadata(cls, key) !== undefined || transformerStorage.findTransformMetadatas(cls, key, TransformationType.PLAIN_TO_CLASS).length > 0) return false;
  }
  return true;
}
