/**
 * The schema cache: what the schema builder made of an input or output class (its schema, its
 * warnings), kept on disk so that a later start of the same server on the same code reads it back
 * instead of building it again — the builder asks class-validator itself, property by property,
 * what each rule accepts, which is most of a start with many tools (docs/performance.md).
 *
 * An entry is found by a key worked out at each start from everything the builder reads of the
 * class, and of every class it reaches (its base classes, the classes `@Type` and `design:type`
 * name, discriminator subtypes): the class's source text; each class-validator rule as stored
 * (type, name, property, constraints, `each`, `always`, groups); what class-transformer's decorators
 * put on it and its default options; every `reflect-metadata` entry on the class and on each
 * property a rule or a transformer decorator names (`design:type`, `@Description`, `@JSONSchema`,
 * headers...); and, when a class has anything in its body, the own values of `new X()` (defaults
 * worked out at run time included). What the key cannot see is never kept: a class is built at
 * every start when any rule, option or value in it is a function of the user's (a custom
 * validator, `@ValidateIf`, `@Transform`, `@JSONSchema((schema) => ...)`, a function-valued field) —
 * such a function may read state the key does not hold. class-validator's own rules are made by
 * `registerDecorator` under the names class-validator exports, and are trusted by that.
 *
 * The code the schemas were built with is checked once per start: Hermes' version and Node's
 * major, and every file of core, class-validator, class-transformer and class-validator-jsonschema
 * that was loaded when the file was written, by path, size and modification time (as the interop
 * verdicts are, verdict-cache.ts). Any change rebuilds every schema, never serves an old one.
 *
 * One file per program (its main module) and Node major version (two Nodes starting the same program
 * would otherwise write over each other's), in `node_modules/.cache/hermes-mcp/schemas/`, holding the
 * entries the last start that built anything used; `HERMES_SCHEMA_CACHE=<folder>` keeps it elsewhere,
 * `HERMES_SCHEMA_CACHE=off` builds every schema at every start. A folder that cannot be written
 * leaves every start building, as without the cache.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as classValidator from 'class-validator';
import type { JsonSchemaObject } from '@hermes-mcp/protocol';
import { classValidatorRuleNames, ownRulesOf } from '../interop/class-validator';
import { transformerRecord } from '../interop/class-transformer';
import { rootOf } from '../interop/status';
import { cacheFolderOf, coreFolder, coreVersion, filesKey, loadedFiles } from '../interop/verdict-cache';
import type { SchemaWarning } from './schema-warnings';
import { isSchema } from './json-schema';
import { COMPLETE, CTX_PARAM, ENUM_TITLES, HANDLERS, SCOPES, SERVER_OPTIONS, SKILL_METHODS, USE } from '../metadata/keys';

/** What the builder made of one root class, as kept. */
export interface CachedBuild {
  /** The schema in its `$defs` form, as `build` returned it. */
  readonly schema: JsonSchemaObject;
  readonly warnings: readonly SchemaWarning[];
  /** The keys the server ignores, by schema: `''` the root, else the name of a `$defs` entry. */
  readonly ignored?: Readonly<Record<string, readonly string[]>>;
}

/** The cache file's shape. */
interface CacheFile {
  readonly format: 1;
  /** The code the entries were built with, checked at each read. */
  readonly code: ReadonlyArray<{ readonly root: string; readonly files: readonly string[] }>;
  readonly stamp: string;
  readonly entries: Record<string, CachedBuild>;
}

/** At most this many entries a file (classes made at run time, without end, stop being kept). */
const MAX_ENTRIES = 20_000;

/** The libraries whose code the schemas depend on, besides core. */
const LIBRARIES = ['class-validator', 'class-transformer', 'class-validator-jsonschema'];

/**
 * Thrown inside a key's making: the class holds something the key cannot describe. One object,
 * made on first use, no stack taken at each throw — and none at module load, where a startup
 * snapshot would have to hold it (Node 22's `--build-snapshot` aborts on a module-level Error).
 */
class Untrusted extends Error {}
let untrusted: Untrusted | undefined;
/** The one {@link Untrusted}, made the first time a class cannot be described. */
function cannotDescribe(): Untrusted {
  return (untrusted ??= new Untrusted('the class holds something a schema cache key cannot describe'));
}

/** The constructors a rule or a `design:type` names by identity: written by name. */
const BUILT_IN_CLASSES = new Map<unknown, string>(
  [Object, String, Number, Boolean, Array, Date, Function, Promise, Symbol, BigInt, Map, Set, RegExp, Error, ArrayBuffer, Uint8Array, globalThis.Buffer]
    .filter((value) => typeof value === 'function')
    .map((value) => [value, value.name]),
);

/**
 * Hermes' own metadata keys that the schema builder never reads (completion, handlers, scopes...):
 * left out of a key, so that a completer function on an input property does not keep its class
 * from the cache.
 */
const NOT_READ = new Set<unknown>([COMPLETE, ENUM_TITLES, SERVER_OPTIONS, HANDLERS, SKILL_METHODS, CTX_PARAM, SCOPES, USE]);

/** Metadata keys whose values are classes (TypeScript's `emitDecoratorMetadata`). */
const CLASS_VALUED = new Set(['design:type', 'design:paramtypes', 'design:returntype']);

/**
 * The key of `root`'s schema: a digest of everything the builder reads of it and of the classes it
 * reaches; undefined when a class holds a function of the user's (see the module's comment).
 */
export function keyOf(root: Function): string | undefined {
  const classes = new Map<Function, number>();
  const described = new Set<Function>();
  const queue: Function[] = [];
  const parts: string[] = [];
  const storage = classValidator.getMetadataStorage();

  /** A class by its number in this key; `reached`: a class whose own description follows (not a base class, which its subclass's includes). */
  const ref = (cls: unknown, reached = true): string => {
    if (typeof cls !== 'function') return serialize(cls);
    const named = BUILT_IN_CLASSES.get(cls);
    if (named !== undefined) return `#${named}`;
    let index = classes.get(cls);
    if (index === undefined) classes.set(cls, (index = classes.size));
    if (reached && !described.has(cls)) {
      described.add(cls);
      queue.push(cls);
    }
    return `@${index}`;
  };

  const serialize = (value: unknown, depth = 0): string => {
    if (depth > 16) throw cannotDescribe();
    switch (typeof value) {
      case 'undefined':
        return 'u';
      case 'boolean':
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return Object.is(value, -0) ? 'n-0' : `n${value}`;
      case 'bigint':
        return `b${value}`;
      case 'function':
        // A class named where a rule takes one (`@IsInstance(X)`) is described as any reached class.
        if (BUILT_IN_CLASSES.has(value) || /^class\b/.test(Function.prototype.toString.call(value))) return ref(value);
        throw cannotDescribe();
      case 'object': {
        if (value === null) return 'null';
        if (Array.isArray(value)) return `[${value.map((item) => serialize(item, depth + 1)).join(',')}]`;
        if (value instanceof RegExp) return `R${String(value)}`;
        if (value instanceof Date) return `D${value.getTime()}`;
        const prototype = Object.getPrototypeOf(value) as unknown;
        if (prototype !== Object.prototype && prototype !== null) throw cannotDescribe();
        let text = '{';
        for (const key of Object.keys(value)) text += `${JSON.stringify(key)}:${serialize((value as Record<string, unknown>)[key], depth + 1)},`;
        return `${text}}`;
      }
      default:
        throw cannotDescribe();
    }
  };

  /** Every metadata entry `reflect-metadata` holds on `target` itself (for `property`, when given). */
  const reflected = (target: object, property?: string): string => {
    let text = '';
    const keys = property === undefined ? Reflect.getOwnMetadataKeys(target) : Reflect.getOwnMetadataKeys(target, property);
    for (const key of keys) {
      if (NOT_READ.has(key)) continue;
      const value: unknown = property === undefined ? Reflect.getOwnMetadata(key, target) : Reflect.getOwnMetadata(key, target, property);
      const classValued = typeof key === 'string' && CLASS_VALUED.has(key);
      text += `${JSON.stringify(String(key))}=${classValued ? (Array.isArray(value) ? value.map((item) => ref(item)).join(',') : ref(value)) : serialize(value)};`;
    }
    return text;
  };

  const describe = (cls: Function): void => {
    const chain: Function[] = [];
    for (let c: Function | null = cls; c && c !== Function.prototype && c !== Object; c = Object.getPrototypeOf(c) as Function | null) chain.push(c);
    const properties = new Set<string>();
    let bodies = false;
    for (const c of chain) {
      const source = Function.prototype.toString.call(c);
      bodies ||= !emptyBody(source);
      parts.push(`${ref(c, false)} ${c.name} ${source}`, reflected(c), reflected(c, c.name));
      const record = transformerRecord(c);
      if (!record) throw cannotDescribe();
      const [types, transforms, exposes, excludes] = record.kinds;
      if (transforms.length > 0) throw cannotDescribe();
      for (const [property, meta] of types) {
        const type = meta as {
          reflectedType?: unknown;
          typeFunction: () => unknown;
          options?: { discriminator?: { property: string; subTypes: Array<{ name: string; value: unknown }> }; keepDiscriminatorProperty?: boolean };
        };
        let made: unknown;
        try {
          made = type.typeFunction();
        } catch {
          throw cannotDescribe(); // a type function that reads the object being transformed
        }
        if (typeof made !== 'function') throw cannotDescribe();
        const discriminator = type.options?.discriminator;
        const subTypes = discriminator ? discriminator.subTypes.map((sub) => `${JSON.stringify(sub.name)}:${ref(sub.value)}`).join(',') : '';
        parts.push(
          `type ${serialize(property)} ${ref(type.reflectedType)} ${ref(made)} ${serialize(discriminator?.property)} [${subTypes}] ${serialize(type.options?.keepDiscriminatorProperty)}`,
        );
        if (typeof property === 'string') properties.add(property);
      }
      for (const [kind, entries] of [
        ['expose', exposes],
        ['exclude', excludes],
      ] as const) {
        for (const [property, meta] of entries) {
          parts.push(`${kind} ${serialize(property)} ${serialize((meta as { options?: unknown }).options)}`);
          if (typeof property === 'string') properties.add(property);
        }
      }
      options ??= record.options;
    }
    // The rules of each class of the chain as stored: what class-validator's lookups are made of.
    for (const c of chain) {
      const rules = ownRulesOf(c);
      if (!rules) throw cannotDescribe();
      for (const meta of rules) {
        if ((meta as { validateIf?: unknown }).validateIf !== undefined) throw cannotDescribe();
        // `each` and `always` are true, false or undefined; `groups` an array of names, mostly empty.
        const groups = meta.groups === undefined ? 'u' : meta.groups.length === 0 ? '[]' : serialize(meta.groups);
        let rule = `${meta.type} ${meta.name ?? ''} ${meta.propertyName} ${String(meta.each)} ${String(meta.always)} ${groups}`;
        if (meta.type === classValidator.ValidationTypes.CONDITIONAL_VALIDATION) {
          // `@IsOptional()`'s condition is class-validator's; `@ValidateIf` is the user's.
          if (meta.name !== classValidator.IS_OPTIONAL) throw cannotDescribe();
        } else {
          rule += ` ${serialize(meta.constraints)}`;
        }
        if (meta.type === classValidator.ValidationTypes.CUSTOM_VALIDATION) {
          for (const constraint of storage.getTargetValidatorConstraints(meta.constraintCls)) {
            // class-validator's own rules: made by registerDecorator (a `CustomConstraint` class) under a name it exports.
            if (!classValidatorRuleNames().has(constraint.name) || constraint.target.name !== 'CustomConstraint') throw cannotDescribe();
            rule += ` ${constraint.name} ${constraint.async}`;
          }
        }
        parts.push(rule);
        properties.add(meta.propertyName);
      }
    }
    // On the prototype: `design:type`, `@Description`, headers; on the class: `@JSONSchema` (and the class's own under its name).
    for (const property of properties) for (const c of chain) parts.push(reflected(c.prototype as object, property), reflected(c, property));
    // Defaults: what `new X()` sets (a field initialiser may read the environment); nothing to see in an empty class.
    if (bodies) {
      let instance: object;
      try {
        instance = new (cls as new () => object)();
      } catch {
        throw cannotDescribe(); // the builder refuses it, with its error
      }
      parts.push(`new ${serialize({ ...instance })}`);
    }
  };

  let options: unknown;
  try {
    ref(root);
    for (let i = 0; i < queue.length; i++) describe(queue[i]);
    parts.push(`options ${serialize(options)}`);
  } catch (error) {
    if (error instanceof Untrusted) return undefined;
    throw error;
  }
  return digest(parts.join('\n'));
}

/**
 * A digest of `text`: two 53-bit hashes of it (cyrb53 with two seeds) and its length — 106 bits,
 * where node:crypto would cost a start more to load (~5 ms) than every key costs to hash.
 */
function digest(text: string): string {
  return `${hash53(text, 0x9e3779b9).toString(36)}.${hash53(text, 0x85ebca6b).toString(36)}.${text.length.toString(36)}`;
}

/** cyrb53 (a public-domain 53-bit string hash) with `seed`. */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Whether a class's source has nothing between its braces (then `new X()` sets nothing). */
function emptyBody(source: string): boolean {
  const open = source.indexOf('{');
  if (open < 0 || !source.startsWith('class') || source.charCodeAt(source.length - 1) !== 125) return false;
  for (let i = open + 1; i < source.length - 1; i++) {
    const ch = source.charCodeAt(i);
    if (ch !== 32 && ch !== 10 && ch !== 13 && ch !== 9) return false;
  }
  return true;
}

/** The file of this program, read once; what this process used and built, to write back. */
interface Store {
  readonly file: string;
  /** Core's folder; undefined in a startup snapshot (its code is {@link snapshotCode}). */
  readonly core: string | undefined;
  readonly kept: Record<string, CachedBuild>;
  readonly used: Map<string, CachedBuild>;
  dirty: boolean;
  writing?: NodeJS.Immediate;
  /** True once it writes what is left when the process exits. */
  onExit?: boolean;
}

let store: Store | null | undefined;

/**
 * The code of the startup snapshot this process was restored from (`hermes-mcp snapshot`), as its
 * runtime checked it before the server ran: every file bundled into it, unchanged since it was
 * built. A snapshot's bundle has no module cache and no folders to look at; this says the same.
 */
let snapshotCode: string | undefined;

/**
 * Tells the cache that this process runs from a startup snapshot whose code is `id` (a digest of
 * every file bundled into it, with their sizes and modification times), checked by the snapshot's
 * runtime at restore: schemas are then kept and read back under that, in a file of their own. Called
 * by the runtime before the server's entry runs (through `@hermes-mcp/core/internal`).
 */
export function useSnapshotCode(id: string): void {
  snapshotCode = id;
  store = undefined;
}

/** The store of this program, or null when the cache is off or cannot be placed. */
function storeOf(): Store | null {
  if (store !== undefined) return store;
  store = null;
  const named = process.env.HERMES_SCHEMA_CACHE;
  const validatorRoot = rootOf('class-validator');
  const folder = validatorRoot === undefined ? undefined : cacheFolderOf(validatorRoot, named);
  // Core's folder (coreFolder), and Node's module cache to read the loaded files from: none in a
  // program bundled whole, where nothing is kept — unless it is a startup snapshot, whose code is known.
  const core = coreFolder().root;
  if (folder === undefined) return store;
  if (snapshotCode === undefined && (core === undefined || typeof require === 'undefined' || !require.cache)) return store;
  const main = require.main?.filename ?? process.argv[1] ?? '';
  const file = path.join(
    folder,
    'schemas',
    `${path.basename(main).replace(/[^A-Za-z0-9_.-]/g, '_')}-${hash53(main, 0).toString(36)}-node${process.versions.node.split('.')[0]}${snapshotCode === undefined ? '' : '-snapshot'}.json`,
  );
  store = { file, core, kept: readKept(file), used: new Map(), dirty: false };
  return store;
}

/** The entries of `file` when they were built with the code installed now; none otherwise. */
function readKept(file: string): Record<string, CachedBuild> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>;
    if (parsed.format !== 1 || !Array.isArray(parsed.code) || typeof parsed.entries !== 'object' || parsed.entries === null) return {};
    return parsed.stamp === stampOf(parsed.code) ? parsed.entries : {};
  } catch {
    return {};
  }
}

/**
 * What says the code is the code a file was written with: Hermes' version, Node's major, each file
 * as it is now — or, restored from a startup snapshot, the snapshot's code.
 */
function stampOf(code: CacheFile['code']): string {
  if (snapshotCode !== undefined) return JSON.stringify(['snapshot', snapshotCode, process.versions.node.split('.')[0]]);
  return JSON.stringify([coreVersion(), process.versions.node.split('.')[0], ...code.map(({ root, files }) => [root, filesKey(root, files)])]);
}

/** The code the schemas of this process are built with: core's (at `core`) and the libraries' loaded files (none listed in a snapshot). */
function codeNow(core: string | undefined): CacheFile['code'] {
  if (core === undefined || snapshotCode !== undefined) return [];
  const roots = [core, ...LIBRARIES.map((library) => rootOf(library)).filter((root): root is string => root !== undefined)];
  return roots.map((root) => ({ root, files: loadedFiles(root) }));
}

/** Whether schemas are kept and read back in this process (the cache is not off, and has a place). */
export function schemaCacheOn(): boolean {
  return storeOf() !== null;
}

/** What the cache did in this process: schemas read back, built and kept, built without a key. @internal */
export const schemaCacheCounts = { read: 0, built: 0, unkeyed: 0 };

/** The build of `key` kept on disk, if any (and kept again when this process writes); undefined `key`: a class the cache cannot describe. */
export function cachedBuild(key: string | undefined): CachedBuild | undefined {
  if (key === undefined) {
    schemaCacheCounts.unkeyed++;
    return undefined;
  }
  const kept = storeOf();
  const found = kept && Object.prototype.hasOwnProperty.call(kept.kept, key) ? kept.kept[key] : undefined;
  // An entry of another shape (a file edited by hand, cut short and still JSON) is built over.
  const build = found && isSchema(found.schema) && Array.isArray(found.warnings) && (found.ignored === undefined || isSchema(found.ignored)) ? found : undefined;
  if (build && kept) kept.used.set(key, build);
  if (build) schemaCacheCounts.read++;
  else schemaCacheCounts.built++;
  return build;
}

/** Keeps what was built for `key`: written to disk once this turn of the event loop ends (with whatever else it built). */
export function keepBuild(key: string, build: CachedBuild): void {
  const kept = storeOf();
  if (!kept || kept.used.size >= MAX_ENTRIES) return;
  kept.used.set(key, build);
  kept.dirty = true;
  // Not unref'd: a process that ends right after its bootstrap still writes (one more turn of its
  // loop); one that calls process.exit() first writes on its way out.
  kept.writing ??= setImmediate(() => write(kept));
  if (!kept.onExit) {
    kept.onExit = true;
    process.once('exit', () => write(kept));
  }
}

/** Writes the entries this process used, whole, then renames it into place; a failure leaves the next start to build. */
function write(kept: Store): void {
  kept.writing = undefined;
  if (!kept.dirty) return;
  kept.dirty = false;
  try {
    const code = codeNow(kept.core);
    const contents: CacheFile = { format: 1, code, stamp: stampOf(code), entries: Object.fromEntries(kept.used) };
    mkdirSync(path.dirname(kept.file), { recursive: true });
    const temporary = `${kept.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(contents));
    renameSync(temporary, kept.file);
  } catch {
    // A read-only install, a full disk: the next start builds, as without the cache.
  }
}
