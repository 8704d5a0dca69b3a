/**
 * Everything Hermes reads of class-transformer beyond its public API, in one place.
 *
 * class-transformer exports no way to ask what a class's decorators say; class-validator-jsonschema
 * itself asks users to deep-import the storage. Hermes reads, none of it exported by the index:
 * - `class-transformer/cjs/storage`'s `defaultMetadataStorage`, the storage every `@Type`,
 *   `@Transform`, `@Expose` and `@Exclude` registers in (the one `plainToInstance` reads), with its
 *   private maps, one a kind of metadata: to find nested classes and renames for the schemas, and
 *   to prove `plainToInstance` would have nothing to do ({@link nothingToTransform});
 * - `class-transformer/cjs/constants/default-options.constant`, the options `plainToInstance`
 *   falls back on, to see they are untouched.
 *
 * Each is shape-checked, then checked once, on first use, against what `plainToInstance` and
 * `instanceToPlain` do with the canary classes (canary.ts). If anything is missing or disagrees,
 * {@link nothingToTransform} always says no (every input goes through `plainToInstance`), and what
 * the decorators say is found by asking `plainToInstance` and `instanceToPlain` themselves
 * ({@link publicMetadata}): slower, and it cannot see a `@Type` or `@Expose` that a `@Transform` on
 * the same property hides. {@link classTransformerStatus} says which, and why.
 */
import type { ClassTransformOptions, ExcludeMetadata, ExposeMetadata, TransformMetadata, TransformationType, TypeMetadata } from 'class-transformer';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';
import { isDeepStrictEqual } from 'node:util';
import { ruleStorage } from './class-validator';
import { PLAIN_TO_CLASS, transformerLibrary } from './transformer-library';
import { InteropStatus, canaryClasses, fastPathSwitch } from './status';
import { coreFolder } from './verdict-cache';

/**
 * What Hermes asks of class-transformer's decorators: the part of its storage it uses, and what
 * class-validator-jsonschema takes as `classTransformerMetadataStorage`.
 */
export interface TransformerMetadata {
  /** The `@Type` of a property, on the class or a base class. */
  findTypeMetadata(target: Function, propertyName: string): TypeMetadata | undefined;
  /** The `@Expose` of every property, the class's and its bases'. */
  getExposedMetadatas(target: Function): ExposeMetadata[];
  /** The `@Exclude` of a property, on the class or a base class. */
  findExcludeMetadata(target: Function, propertyName: string): ExcludeMetadata | undefined;
  /** The `@Transform` functions of a property that apply in this direction, the class's and its bases'. */
  findTransformMetadatas(target: Function, propertyName: string, transformationType: TransformationType): TransformMetadata[];
}

// ---------------------------------------------------------------------------------------------
// The switch

const paths = fastPathSwitch('class-transformer', check, typeof __filename === 'string' ? __filename : undefined);

/** Whether the fast paths are on (checked once, on the first call), and why not. */
export const classTransformerStatus: () => InteropStatus = paths.status;

const fast = paths.fast;

/** What class-transformer's decorators say: its storage, or the public derivation. @internal */
export function transformerMetadata(): TransformerMetadata {
  if (!fast()) return publicMetadata;
  return transformerUnloaded() ? noMetadata : (internals() as Internals).storage;
}

/** What class-transformer's storage says of every class while it is not loaded (see transformerUnloaded): nothing. */
const noMetadata: TransformerMetadata = {
  findTypeMetadata: () => undefined,
  getExposedMetadatas: () => [],
  findExcludeMetadata: () => undefined,
  findTransformMetadatas: () => [],
};

/**
 * True when `plainToInstance(cls, plain)` has nothing to apply to `cls` for these keys: no
 * metadata of any kind on the class or its bases (for those keys, or for the whole class), a class
 * it builds rather than converts, and its default options untouched. It then builds `new cls()` and
 * copies the keys (skipping `__proto__`, `constructor`, and keys the prototype defines without a
 * setter). False whenever that cannot be proved: the fast paths are off, a default option is not
 * one it knows the effect of, or the storage holds a kind of metadata it does not know.
 *
 * @internal
 */
export function nothingToTransform(cls: Function, keys: Iterable<string>): boolean {
  if (!fast()) return false;
  // Not loaded: no metadata anywhere and the default options as shipped; only the class itself can say no.
  if (transformerUnloaded()) return !CONVERTED.has(cls);
  return nothingToTransformWith(internals() as Internals, cls, keys);
}

function nothingToTransformWith(internal: Internals, cls: Function, keys: Iterable<string>): boolean {
  if (!untouchedClass(internal, cls)) return false;
  const { storage } = internal;
  for (const key of keys) {
    if (storage.findTypeMetadata(cls, key) !== undefined || storage.findTransformMetadatas(cls, key, PLAIN_TO_CLASS).length > 0) return false;
  }
  return true;
}

/** Nothing but its properties' @Type and @Transform for plainToInstance to apply to `cls`: it builds the class and copies keys. */
function untouchedClass({ storage, defaultOptions }: Internals, cls: Function): boolean {
  if (CONVERTED.has(cls) || !neutral(defaultOptions) || unknownKindConcerns(storage, cls)) return false;
  // Each kind it knows, ruled out but those two: class-level @Expose/@Exclude, property @Expose/@Exclude.
  return storage.getStrategy(cls) === 'none' && storage.getExposedMetadatas(cls).length === 0 && storage.getExcludedMetadatas(cls).length === 0;
}

/**
 * The class `@Type(() => X)` names for `cls`'s `key` when that is all plainToInstance applies to
 * the key (no @Transform, no discriminator, a class it builds rather than converts); undefined
 * otherwise, and whenever the fast paths are off.
 *
 * @internal
 */
export function onlyNestedType(cls: Function, key: string): Function | undefined {
  if (!fast()) return undefined;
  const internal = internals() as Internals;
  if (!untouchedClass(internal, cls) || internal.storage.findTransformMetadatas(cls, key, PLAIN_TO_CLASS).length > 0) return undefined;
  const meta = internal.storage.findTypeMetadata(cls, key);
  if (!meta || meta.options?.discriminator) return undefined;
  try {
    const type: unknown = meta.typeFunction();
    return typeof type === 'function' && !CONVERTED.has(type) ? type : undefined;
  } catch {
    return undefined; // a type function that needs the object being transformed
  }
}

/**
 * What class-transformer's decorators put on `cls` itself (not its bases), for the schema cache's
 * key: each known kind's entries, property by property as registered, and the default options; or
 * undefined when the storage cannot be read, or holds something about `cls` of a kind Hermes does
 * not know.
 *
 * @internal
 */
export function transformerRecord(cls: Function): { readonly kinds: ReadonlyArray<ReadonlyArray<[unknown, unknown]>>; readonly options: ClassTransformOptions } | undefined {
  // Not loaded: no class has anything, and the options are as shipped. Read from their own module,
  // so that the key is the one a process that has loaded class-transformer makes of the same class.
  // Nothing of its internals is read then, so its self-check is not asked for (a start whose schemas
  // are read back does not run it, nor stamp its files for it): the first input validated does.
  const options = transformerUnloaded() ? defaultOptionsAlone() : undefined;
  if (options) return { kinds: NO_KINDS, options };
  if (!fast()) return undefined;
  const internal = internals();
  if (typeof internal !== 'object' || unknownKindConcerns(internal.storage, cls)) return undefined;
  const kinds = KNOWN_KINDS.map((kind) => {
    const byProperty = (internal.storage as unknown as Record<string, Map<Function, Map<unknown, unknown>>>)[kind].get(cls);
    return byProperty ? [...byProperty] : [];
  });
  return { kinds, options: internal.defaultOptions };
}

/** Classes class-transformer converts to rather than builds. */
const CONVERTED = new Set<unknown>([String, Number, Boolean, Date, globalThis.Buffer]);

/**
 * The storage's fields that hold metadata, one a kind, each of which {@link nothingToTransform}
 * rules out through the storage's methods; and the one that holds none (a cache of base classes).
 */
const KNOWN_KINDS = ['_typeMetadatas', '_transformMetadatas', '_exposeMetadatas', '_excludeMetadatas'];
const NOT_METADATA = new Set(['_ancestorsMap']);

/**
 * True when a field of the storage that is not a known kind may hold something about `cls`: a
 * non-empty map with `cls` or a base class among its keys, or with keys that are not classes; any
 * other non-empty collection or object. Nothing, a primitive or a function says nothing.
 */
function unknownKindConcerns(storage: TransformerStorage, cls: Function): boolean {
  // Key by key rather than Object.entries: asked for every input class, it allocates nothing.
  for (const field in storage) {
    if (!Object.prototype.hasOwnProperty.call(storage, field)) continue;
    const value = (storage as unknown as Record<string, unknown>)[field];
    if (KNOWN_KINDS.includes(field) || NOT_METADATA.has(field) || value === undefined || value === null) continue;
    if (typeof value !== 'object') continue; // a flag, a method: not a collection of metadata
    if (value instanceof Map) {
      for (const key of value.keys()) if (typeof key !== 'function' || key === cls || cls.prototype instanceof key) return true;
      continue;
    }
    if ((value instanceof Set || Array.isArray(value)) && (value instanceof Set ? value.size : value.length) === 0) continue;
    return true;
  }
  return false;
}

/** The default options whose effect is known: each at the value under which nothing is transformed. */
const NEUTRAL_OPTIONS: Record<string, unknown> = {
  enableCircularCheck: false,
  enableImplicitConversion: false,
  excludeExtraneousValues: false,
  excludePrefixes: undefined,
  exposeDefaultValues: false,
  exposeUnsetFields: true,
  groups: undefined,
  ignoreDecorators: false,
  strategy: undefined,
  targetMaps: undefined,
  version: undefined,
};

/** True when every default option is one whose effect is known, at its neutral value (or `exposeAll`). */
function neutral(options: ClassTransformOptions): boolean {
  for (const key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key)) continue;
    const value = (options as Record<string, unknown>)[key];
    if (key === 'strategy' && value === 'exposeAll') continue;
    if (key === 'excludePrefixes' && Array.isArray(value) && value.length === 0) continue;
    if (!(key in NEUTRAL_OPTIONS) || NEUTRAL_OPTIONS[key] !== value) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The internals, guarded

interface Internals {
  storage: TransformerStorage;
  defaultOptions: ClassTransformOptions;
}

const STORAGE_METHODS = ['findTypeMetadata', 'findTransformMetadatas', 'findExcludeMetadata', 'getExposedMetadatas', 'getExcludedMetadatas', 'getStrategy'];

/** What {@link transformerRecord} says of every class while class-transformer is not loaded: nothing of any kind. */
const NO_KINDS: ReadonlyArray<ReadonlyArray<[unknown, unknown]>> = KNOWN_KINDS.map(() => []);

let shippedOptions: ClassTransformOptions | null | undefined;

/** class-transformer's default options, from their own module (one file, nothing else of it loaded); undefined when that cannot be read. */
function defaultOptionsAlone(): ClassTransformOptions | undefined {
  if (shippedOptions === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const found = (require('class-transformer/cjs/constants/default-options.constant') as { defaultOptions?: unknown }).defaultOptions;
      shippedOptions = typeof found === 'object' && found !== null ? found : null;
    } catch {
      shippedOptions = null;
    }
  }
  return shippedOptions ?? undefined;
}

let loaded: Internals | string | undefined;

/** class-transformer's storage module as Node's CommonJS cache names it once loaded; null where that cannot be told. */
let storageFile: string | null | undefined;

/**
 * True while this process has not loaded class-transformer's storage, the module every decorator of
 * it registers in (its index loads it): no `@Type`, `@Expose`, `@Exclude` or `@Transform` can have
 * run, nor can anything have changed its default options. There is then nothing of it to read, and
 * a server whose classes use none of its decorators never loads it (~2 ms of a start, the schema
 * cache's key and the first call's validation plan being the only askers).
 *
 * Told only where core runs from its own package (its one-file build, not a program bundled whole
 * or a startup snapshot, where class-transformer may be bundled in and Node's cache never names
 * it), and under Node's own module cache (a test runner may stand in another, empty one): there,
 * core's `require` is Node's, and the module it resolves is the one {@link internals} would load.
 * Everywhere else this is false, and the storage is read as before.
 */
function transformerUnloaded(): boolean {
  if (loaded !== undefined) return false;
  if (storageFile === undefined) {
    storageFile = null;
    // Node's own cache holds this module; a test runner's (jest's) stand-in does not, and tells nothing.
    const nodeCache = typeof require === 'function' && require.cache !== undefined && typeof __filename === 'string' && require.cache[__filename] !== undefined;
    if (coreFolder().root !== undefined && nodeCache) {
      try {
        storageFile = require.resolve('class-transformer/cjs/storage');
      } catch {
        // Not found: internals() says why when asked.
      }
    }
  }
  return storageFile !== null && require.cache[storageFile] === undefined;
}

/** The storage and default options, or why they cannot be used. */
function internals(): Internals | string {
  if (loaded === undefined) {
    try {
      // class-transformer ships these modules' code under cjs/ and their types under types/, which
      // TypeScript cannot pair by itself: the storage that knows every decorator (the one
      // plainToInstance reads), and the options plainToInstance falls back on.
      // A bundler that takes class-transformer's ES build (its `module` field: workers, browsers)
      // reads these from esm5/ instead, by the `browser` map of core's package.json: the same copy
      // as the decorators', not a second one.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const storage = (require('class-transformer/cjs/storage') as { defaultMetadataStorage?: unknown }).defaultMetadataStorage as Record<string, unknown> | undefined;
      const defaultOptions = (require('class-transformer/cjs/constants/default-options.constant') as { defaultOptions?: unknown }).defaultOptions;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const missingMethod = STORAGE_METHODS.find((name) => typeof storage?.[name] !== 'function');
      const missingKind = KNOWN_KINDS.find((name) => !(storage?.[name] instanceof Map));
      if (missingMethod || missingKind) {
        loaded = `class-transformer/cjs/storage's defaultMetadataStorage no longer has ${missingMethod ? `${missingMethod}()` : `the ${missingKind} map`}`;
      } else if (typeof defaultOptions !== 'object' || defaultOptions === null) {
        loaded = 'class-transformer/cjs/constants/default-options.constant no longer exports defaultOptions';
      } else {
        loaded = { storage: storage as unknown as TransformerStorage, defaultOptions: defaultOptions };
      }
    } catch (error) {
      loaded = `its storage cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// The public derivation

/** A key no class uses, for probing. */
const PROBE = '\u0000hermes-probe';

/**
 * What the decorators say, found through `plainToInstance` and `instanceToPlain` alone (when the
 * storage cannot be read):
 * - `@Type`: the class `plainToInstance` builds for an object under the property (or under a key
 *   of it, for a Map);
 * - `@Expose({ name })` and `@Exclude()`: the key `instanceToPlain` writes a property under, or
 *   none, for each property with class-validator rules (the only ones a schema shows). A class
 *   that excludes all by default is taken to exclude no property of its own.
 * Answers are worked out once per class and property.
 *
 * @internal
 */
export const publicMetadata: TransformerMetadata = {
  findTypeMetadata(target, propertyName) {
    let types = typesOf.get(target);
    if (!types) typesOf.set(target, (types = new Map()));
    if (!types.has(propertyName)) types.set(propertyName, derivedType(target, propertyName));
    return types.get(propertyName);
  },
  getExposedMetadatas(target) {
    const out: ExposeMetadata[] = [];
    for (const [propertyName, found] of keysOf(target)) if (found.name !== undefined) out.push({ target, propertyName, options: { name: found.name } });
    return out;
  },
  findExcludeMetadata(target, propertyName) {
    return keysOf(target).get(propertyName)?.excluded ? { target, propertyName, options: {} } : undefined;
  },
  findTransformMetadatas(target, propertyName, transformationType) {
    if (transformationType !== PLAIN_TO_CLASS || !transformedOnInput(target, propertyName)) return [];
    return [{ target, propertyName, transformFn: ({ value }) => value as unknown, options: {} }];
  },
};

/** A text most transforms change (trimmed, cased, parsed). */
const TRANSFORM_PROBE = ' \u0000Hermes-Probe 1 ';

/**
 * Whether `plainToInstance` changes a text the property's `@Type` would keep (no `@Type`, or
 * `@Type(() => String)`): then a `@Transform` did. Blind to a `@Transform` that keeps that text, or
 * on a property whose `@Type` converts it.
 */
function transformedOnInput(target: Function, propertyName: string): boolean {
  const type = publicMetadata.findTypeMetadata(target, propertyName)?.typeFunction();
  if (type !== undefined && type !== String) return false;
  const key = keysOf(target).get(propertyName)?.name ?? propertyName;
  try {
    return (transformerLibrary().plainToInstance(target as new () => object, { [key]: TRANSFORM_PROBE }) as Record<string, unknown>)[propertyName] !== TRANSFORM_PROBE;
  } catch {
    return true; // it ran code that could not take the text
  }
}

const typesOf = new WeakMap<Function, Map<string, TypeMetadata | undefined>>();
const keysFound = new WeakMap<Function, Map<string, { name?: string; excluded: boolean }>>();

function derivedType(target: Function, propertyName: string): TypeMetadata | undefined {
  const key = keysOf(target).get(propertyName)?.name ?? propertyName;
  let value: unknown;
  try {
    value = (transformerLibrary().plainToInstance(target as new () => object, { [key]: { [PROBE]: {} } }) as Record<string, unknown>)[propertyName];
  } catch {
    return undefined; // a type function that needs the object, or a constructor that needs arguments
  }
  const type = classOf(value instanceof Map ? value.get(PROBE) : value);
  if (type === undefined) return undefined;
  return { target, propertyName, reflectedType: Reflect.getMetadata('design:type', target.prototype, propertyName), typeFunction: () => type, options: {} };
}

/** The class a value was built or converted as; undefined for a plain object (nothing said) or nothing. */
function classOf(value: unknown): Function | undefined {
  if (typeof value === 'string') return String;
  if (typeof value === 'number') return Number;
  if (typeof value === 'boolean') return Boolean;
  if (typeof value !== 'object' || value === null) return undefined;
  const constructor = (Object.getPrototypeOf(value) as { constructor?: unknown } | null)?.constructor;
  return typeof constructor === 'function' && constructor !== Object ? constructor : undefined;
}

/** Each rule property of `target`: the key `instanceToPlain` writes it under, if other, or that it writes none. */
function keysOf(target: Function): Map<string, { name?: string; excluded: boolean }> {
  let found = keysFound.get(target);
  if (found) return found;
  found = new Map();
  keysFound.set(target, found);
  const written = (property: string): string[] | undefined => {
    const object = Object.create(target.prototype) as object;
    Object.defineProperty(object, property, { value: null, enumerable: true, writable: true, configurable: true });
    try {
      const plain = transformerLibrary().instanceToPlain(object) as Record<string, unknown>;
      return Object.keys(plain).filter((key) => plain[key] === null);
    } catch {
      return undefined;
    }
  };
  const excludesAll = written(PROBE)?.length === 0;
  const properties = new Set(
    ruleStorage()
      .getTargetValidationMetadatas(target, '', true, false)
      .map((meta) => meta.propertyName),
  );
  for (const property of properties) {
    const keys = written(property);
    if (keys === undefined || keys.length > 1) continue; // cannot tell
    if (keys.length === 0) found.set(property, { excluded: !excludesAll });
    else if (keys[0] !== property) found.set(property, { name: keys[0], excluded: false });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The self-check

/** Undefined when the storage agrees with what plainToInstance and instanceToPlain do on the canary classes; else the first difference. */
function check(): string | undefined {
  const found = internals();
  if (typeof found === 'string') return found;
  const { storage, defaultOptions } = found;
  if (!neutral(defaultOptions)) return 'its default options are not the ones whose effect Hermes knows';
  const { Point, Shape, pointInputs, shapeInputs } = canaryClasses();
  // Nothing to transform: plainToInstance builds `new cls()` and copies the keys.
  for (const plain of pointInputs) {
    if (!nothingToTransformWith(found, Point, Object.keys(plain))) return `nothingToTransform() finds something to do for ${Point.name}`;
    if (!isDeepStrictEqual(transformerLibrary().plainToInstance(Point, plain), Object.assign(new Point(), plain)))
      return `plainToInstance(${Point.name}) does more than build and copy`;
  }
  if (nothingToTransformWith(found, Shape, Object.keys(shapeInputs[0]))) return `nothingToTransform() misses the decorators of ${Shape.name}`;
  // What the storage says is what plainToInstance and instanceToPlain do.
  for (const property of ['at', 'tags', 'trimmed']) {
    const said = storage.findTypeMetadata(Shape, property);
    const done = publicMetadata.findTypeMetadata(Shape, property);
    if (said?.typeFunction() !== done?.typeFunction() || said?.reflectedType !== done?.reflectedType)
      return `the @Type of ${Shape.name}.${property} differs from what plainToInstance builds`;
  }
  const renames = (metadata: TransformerMetadata) =>
    metadata
      .getExposedMetadatas(Shape)
      .filter((e) => e.options?.name)
      .map((e) => `${e.propertyName}>${e.options.name}`);
  if (!isDeepStrictEqual(renames(storage), renames(publicMetadata)) || renames(storage).length !== 1)
    return `the @Expose renames of ${Shape.name} differ from what instanceToPlain writes`;
  for (const property of ['secret', 'trimmed']) {
    if (!storage.findExcludeMetadata(Shape, property) !== !publicMetadata.findExcludeMetadata(Shape, property))
      return `the @Exclude of ${Shape.name}.${property} differs from what instanceToPlain writes`;
  }
  const transformed = (metadata: TransformerMetadata, property: string) => metadata.findTransformMetadatas(Shape, property, PLAIN_TO_CLASS).length > 0;
  for (const property of ['trimmed', 'tags', 'displayName']) {
    if (transformed(storage, property) !== transformed(publicMetadata, property)) return `the @Transform of ${Shape.name}.${property} differs from what plainToInstance does`;
  }
  return undefined;
}
