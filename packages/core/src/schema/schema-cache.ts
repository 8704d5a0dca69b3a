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
import { isClassValidatorRuleName, ownRulesOf } from '../interop/class-validator';
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
  const key = new KeyWriter();
  try {
    key.ref(root);
    for (let i = 0; i < key.queue.length; i++) key.describe(key.queue[i]);
    key.unit(Tag.Options);
    key.value(key.options, 0);
  } catch (error) {
    if (error instanceof Untrusted) return undefined;
    throw error;
  }
  return key.digest();
}

/**
 * What each unit fed to a key's digest begins with: every value is fed as its tag, then what that
 * tag says follows (a count before a list, a length before text), so that no two different
 * descriptions feed the same units.
 */
const enum Tag {
  Class = 1,
  Reflected,
  ReflectedEnd,
  Type,
  Expose,
  Exclude,
  Rule,
  New,
  Options,
  Undefined,
  True,
  False,
  Null,
  Text,
  Int,
  Number,
  MinusZero,
  BigInt,
  Array,
  RegExp,
  Date,
  Object,
  BuiltIn,
  Ref,
}

/**
 * The making of one key: the classes it numbers, those still to describe, and a digest fed value
 * by value as the classes are read — four 32-bit lanes of cyrb53's step, finished as two 53-bit
 * hashes, with the count of units fed. No text is built on the way: at 1,000 tools, building a
 * key's text and hashing it after cost more than reading the classes.
 */
class KeyWriter {
  /** Each class met, by its number in this key. */
  private readonly classes = new Map<Function, number>();
  /** The classes whose own description is (or will be) fed. */
  private readonly described = new Set<Function>();
  /** Those, in the order they are described. */
  readonly queue: Function[] = [];
  /** class-transformer's default options, as the first class of the chain gave them. */
  options: unknown;
  private a = 0xdeadbeef ^ 0x9e3779b9;
  private b = 0x41c6ce57 ^ 0x9e3779b9;
  private c = 0xdeadbeef ^ 0x85ebca6b;
  private d = 0x41c6ce57 ^ 0x85ebca6b;
  private units = 0;

  /** Feeds one 32-bit unit: a tag, a count, a number, a character. */
  unit(x: number): void {
    this.a = Math.imul(this.a ^ x, 2654435761);
    this.b = Math.imul(this.b ^ x, 1597334677);
    this.c = Math.imul(this.c ^ x, 2246822519);
    this.d = Math.imul(this.d ^ x, 3266489917);
    this.units++;
  }

  /** Feeds a text: its length, then each UTF-16 unit. */
  text(text: string): void {
    const length = text.length;
    this.unit(length);
    // unit()'s step, inline: a call a character would cost more than the step.
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    for (let i = 0; i < length; i++) {
      const ch = text.charCodeAt(i);
      a = Math.imul(a ^ ch, 2654435761);
      b = Math.imul(b ^ ch, 1597334677);
      c = Math.imul(c ^ ch, 2246822519);
      d = Math.imul(d ^ ch, 3266489917);
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    this.units += length;
  }

  /** The first pair of lanes, finished: a short hash. */
  short(): string {
    return finish(this.a, this.b).toString(36);
  }

  /** The key: each pair of lanes finished as cyrb53 finishes, and the count of units. */
  digest(): string {
    return `${finish(this.a, this.b).toString(36)}.${finish(this.c, this.d).toString(36)}.${this.units.toString(36)}`;
  }

  /** A class by its number in this key; `reached`: a class whose own description follows (not a base class, which its subclass's includes). */
  ref(cls: unknown, reached = true): void {
    if (typeof cls !== 'function') return this.value(cls, 0);
    const named = BUILT_IN_CLASSES.get(cls);
    if (named !== undefined) {
      this.unit(Tag.BuiltIn);
      this.text(named);
      return;
    }
    let index = this.classes.get(cls);
    if (index === undefined) this.classes.set(cls, (index = this.classes.size));
    if (reached && !this.described.has(cls)) {
      this.described.add(cls);
      this.queue.push(cls);
    }
    this.unit(Tag.Ref);
    this.unit(index);
  }

  /** A value of a rule, an option, a metadata entry or a default, as far as it is data (a class, when it names one). */
  value(value: unknown, depth: number): void {
    if (depth > 16) throw cannotDescribe();
    switch (typeof value) {
      case 'undefined':
        return this.unit(Tag.Undefined);
      case 'boolean':
        return this.unit(value ? Tag.True : Tag.False);
      case 'string':
        this.unit(Tag.Text);
        return this.text(value);
      case 'number':
        if (Object.is(value, -0)) return this.unit(Tag.MinusZero);
        if ((value | 0) === value) {
          this.unit(Tag.Int);
          return this.unit(value);
        }
        this.unit(Tag.Number);
        return this.text(String(value));
      case 'bigint':
        this.unit(Tag.BigInt);
        return this.text(String(value));
      case 'function':
        // A class named where a rule takes one (`@IsInstance(X)`) is described as any reached class.
        if (BUILT_IN_CLASSES.has(value) || /^class\b/.test(Function.prototype.toString.call(value))) return this.ref(value);
        throw cannotDescribe();
      case 'object': {
        if (value === null) return this.unit(Tag.Null);
        if (Array.isArray(value)) {
          this.unit(Tag.Array);
          this.unit(value.length);
          for (let i = 0; i < value.length; i++) this.value(value[i], depth + 1);
          return;
        }
        if (value instanceof RegExp) {
          this.unit(Tag.RegExp);
          return this.text(String(value));
        }
        if (value instanceof Date) {
          this.unit(Tag.Date);
          return this.text(String(value.getTime()));
        }
        const prototype = Object.getPrototypeOf(value) as unknown;
        if (prototype !== Object.prototype && prototype !== null) throw cannotDescribe();
        const keys = Object.keys(value);
        this.unit(Tag.Object);
        this.unit(keys.length);
        for (const key of keys) {
          this.text(key);
          this.value((value as Record<string, unknown>)[key], depth + 1);
        }
        return;
      }
      default:
        throw cannotDescribe();
    }
  }

  /** Every metadata entry `reflect-metadata` holds on `target` itself (for `property`, when given). */
  reflected(target: object, property?: string): void {
    const keys = property === undefined ? Reflect.getOwnMetadataKeys(target) : Reflect.getOwnMetadataKeys(target, property);
    for (const key of keys) {
      if (NOT_READ.has(key)) continue;
      const value: unknown = property === undefined ? Reflect.getOwnMetadata(key, target) : Reflect.getOwnMetadata(key, target, property);
      this.unit(Tag.Reflected);
      this.text(String(key));
      if (typeof key === 'string' && CLASS_VALUED.has(key)) {
        if (Array.isArray(value)) {
          this.unit(Tag.Array);
          this.unit(value.length);
          for (const item of value) this.ref(item);
        } else {
          this.ref(value);
        }
      } else {
        this.value(value, 0);
      }
    }
    this.unit(Tag.ReflectedEnd);
  }

  /** Feeds what the builder reads of `cls` and its base classes. */
  describe(cls: Function): void {
    const chain: Function[] = [];
    for (let c: Function | null = cls; c && c !== Function.prototype && c !== Object; c = Object.getPrototypeOf(c) as Function | null) chain.push(c);
    const properties = new Set<string>();
    let bodies = false;
    for (const c of chain) {
      const source = Function.prototype.toString.call(c);
      bodies ||= !emptyBody(source);
      this.unit(Tag.Class);
      this.ref(c, false);
      this.text(c.name);
      this.text(source);
      this.reflected(c);
      this.reflected(c, c.name);
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
        this.unit(Tag.Type);
        this.value(property, 0);
        this.ref(type.reflectedType);
        this.ref(made);
        this.value(discriminator?.property, 0);
        const subTypes = discriminator?.subTypes ?? [];
        this.unit(subTypes.length);
        for (const sub of subTypes) {
          this.value(sub.name, 0);
          this.ref(sub.value);
        }
        this.value(type.options?.keepDiscriminatorProperty, 0);
        if (typeof property === 'string') properties.add(property);
      }
      for (const [property, meta] of exposes) {
        this.unit(Tag.Expose);
        this.value(property, 0);
        this.value((meta as { options?: unknown }).options, 0);
        if (typeof property === 'string') properties.add(property);
      }
      for (const [property, meta] of excludes) {
        this.unit(Tag.Exclude);
        this.value(property, 0);
        this.value((meta as { options?: unknown }).options, 0);
        if (typeof property === 'string') properties.add(property);
      }
      this.options ??= record.options;
    }
    // The rules of each class of the chain as stored: what class-validator's lookups are made of.
    const storage = classValidator.getMetadataStorage();
    for (const c of chain) {
      const rules = ownRulesOf(c);
      if (!rules) throw cannotDescribe();
      for (const meta of rules) {
        if ((meta as { validateIf?: unknown }).validateIf !== undefined) throw cannotDescribe();
        this.unit(Tag.Rule);
        this.text(meta.type);
        this.value(meta.name, 0);
        this.text(meta.propertyName);
        // `each` and `always` are true, false or undefined; `groups` an array of names, mostly empty.
        this.value(meta.each, 0);
        this.value(meta.always, 0);
        this.value(meta.groups, 0);
        if (meta.type === classValidator.ValidationTypes.CONDITIONAL_VALIDATION) {
          // `@IsOptional()`'s condition is class-validator's; `@ValidateIf` is the user's.
          if (meta.name !== classValidator.IS_OPTIONAL) throw cannotDescribe();
        } else {
          this.value(meta.constraints, 0);
        }
        if (meta.type === classValidator.ValidationTypes.CUSTOM_VALIDATION) {
          const constraints = storage.getTargetValidatorConstraints(meta.constraintCls);
          this.unit(constraints.length);
          for (const constraint of constraints) {
            // class-validator's own rules: made by registerDecorator (a `CustomConstraint` class) under a name it exports.
            if (!isClassValidatorRuleName(constraint.name) || constraint.target.name !== 'CustomConstraint') throw cannotDescribe();
            this.text(constraint.name);
            this.value(constraint.async, 0);
          }
        }
        properties.add(meta.propertyName);
      }
    }
    // On the prototype: `design:type`, `@Description`, headers; on the class: `@JSONSchema` (and the class's own under its name).
    for (const property of properties) {
      for (const c of chain) {
        this.reflected(c.prototype as object, property);
        this.reflected(c, property);
      }
    }
    // Defaults: what `new X()` sets (a field initialiser may read the environment); nothing to see in an empty class.
    if (bodies) {
      let instance: object;
      try {
        instance = new (cls as new () => object)();
      } catch {
        throw cannotDescribe(); // the builder refuses it, with its error
      }
      this.unit(Tag.New);
      this.value({ ...instance }, 0);
    }
  }
}

/** Two of cyrb53's lanes, finished as it finishes them: a 53-bit number. */
function finish(h1: number, h2: number): number {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A short hash of `text`, as a key's first pair of lanes would have it: names the cache's file. */
function shortHash(text: string): string {
  const writer = new KeyWriter();
  writer.text(text);
  return writer.short();
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
    `${path.basename(main).replace(/[^A-Za-z0-9_.-]/g, '_')}-${shortHash(main)}-node${process.versions.node.split('.')[0]}${snapshotCode === undefined ? '' : '-snapshot'}.json`,
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
