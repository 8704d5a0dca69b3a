/**
 * Everything Hermes reads of class-validator-jsonschema beyond its public API, in one place.
 *
 * Its `targetConstructorToSchema(X)` groups every rule it is given by class and by property, copies
 * its table of ~100 converters for each property, and deep-merges each property twice, which made
 * it 40 % of `McpFactory.create` with 1,000 tools; and it deep-merges a property's rule schemas,
 * keeping only the last of two rules using one keyword, where Hermes wants every rule to hold. So
 * the schema builder (schema/class-properties.ts) converts each rule itself, with the library's
 * converters, and combines them. What that reads, none of it exported by the index:
 * - `build/defaultConverters`: the library's converter of each rule type;
 * - `build/decorators`'s `getMetadataSchema`: what `@JSONSchema` put on a property or class;
 * - `build/options`'s `defaultOptions`: the options its converters are given.
 *
 * Each is shape-checked, then checked once, on first use, on the canary classes (canary.ts): the
 * library's own `targetConstructorToSchema` must give what the converters and `@JSONSchema` give
 * when merged as it merges them. If anything is missing or disagrees, the same three questions are
 * answered through its public `validationMetadataArrayToSchemas` ({@link convertRule},
 * {@link withPropertySchema}): slower (one call per rule), same schemas. {@link jsonSchemaStatus}
 * says which, and why.
 */
import { ValidationTypes, getMetadataStorage } from 'class-validator';
import type { MetadataStorage } from 'class-validator';
import { targetConstructorToSchema, validationMetadataArrayToSchemas } from 'class-validator-jsonschema';
import merge from 'lodash.merge';
import { isDeepStrictEqual } from 'node:util';
import { TransformerMetadata, transformerMetadata } from './class-transformer';
import type { ValidationMetadata } from './class-validator';
import { InteropStatus, canaryClasses, fastPathSwitch } from './status';

/** A JSON Schema object. */
type Schema = Record<string, unknown>;
/** A converter as class-validator-jsonschema takes it: a schema, or a function of the rule. */
export type Converter = Schema | ((meta: ValidationMetadata, options: ConversionOptions) => Schema | undefined);
/** The options class-validator-jsonschema passes its converters. */
export type ConversionOptions = Parameters<typeof targetConstructorToSchema>[1] & object;

// ---------------------------------------------------------------------------------------------
// The switch

const paths = fastPathSwitch('class-validator-jsonschema', check, typeof __filename === 'string' ? __filename : undefined);

/** Whether the fast paths are on (checked once, on the first call), and why not. */
export const jsonSchemaStatus: () => InteropStatus = paths.status;

const fast = paths.fast;

// ---------------------------------------------------------------------------------------------
// What the rest of Hermes uses

/**
 * What the library makes of one rule, before an `each: true` rule is wrapped for the elements:
 * the converter of its type in `options.additionalConverters` (Hermes's), else the library's own,
 * else the custom-validation one, called as the library calls it. `meta.type` is the rule type as
 * the library sees it (a constraint's name).
 *
 * @internal
 */
export function convertRule(meta: ValidationMetadata, options: ConversionOptions): Schema | undefined {
  if (fast()) return fastConvert(meta, options, (internals() as Internals).defaultConverters);
  const additional = (options.additionalConverters ?? {}) as Record<string, Converter>;
  return hasOwn(additional, meta.type) ? apply(additional[meta.type], meta, options) : libraryConversion(meta, options);
}

/**
 * A property's schema with its `@JSONSchema` applied as the library applies it: the keywords
 * merged in, or the function called on it.
 *
 * @internal
 */
export function withPropertySchema(cls: Function, name: string, schema: Schema, options: ConversionOptions): Schema {
  return fast() ? fastWithProperty(cls, name, schema, options, (internals() as Internals).getMetadataSchema) : publicWithProperty(cls, name, schema, options);
}

/**
 * Whether `@JSONSchema` is on the class itself; undefined when that cannot be read (the fast paths
 * are off), in which case the class must go through the library.
 *
 * @internal
 */
export function hasClassSchema(cls: Function): boolean | undefined {
  return fast() ? !isEmpty((internals() as Internals).getMetadataSchema(cls.prototype, cls.name)) : undefined;
}

/** A class-level `@JSONSchema`: keywords merged into the class's schema, or a function of it. */
export type ClassSchema = Schema | ((schema: Schema, options: ConversionOptions) => Schema);

/**
 * The class-level `@JSONSchema` of `cls` and of every class it extends, the furthest base first,
 * each class's own only; undefined when that cannot be read (the fast paths are off). The library
 * itself finds one by the name of the nearest class of the chain that has rules of its own, so a
 * base's is lost on a subclass that adds a property, and a subclass's own on one that adds none.
 *
 * @internal
 */
export function classSchemasOf(cls: Function): ClassSchema[] | undefined {
  if (!fast()) return undefined;
  const { getMetadataSchema } = internals() as Internals;
  const found: ClassSchema[] = [];
  for (let c: Function | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    if (!c.name || c.prototype === undefined) continue;
    const schema = getMetadataSchema(c.prototype as object, c.name);
    // Reflect.getMetadata looks up the chain: a base of the same name would answer for `c` too.
    const parent = Object.getPrototypeOf(c) as Function | null;
    const inherited = parent && parent !== Function.prototype && parent.prototype !== undefined ? getMetadataSchema(parent.prototype as object, c.name) : undefined;
    if (schema !== inherited && (typeof schema === 'function' || !isEmpty(schema))) found.unshift(schema);
  }
  return found;
}

/** `schema` with a class-level `@JSONSchema` applied as the library applies it: merged in, or the function called on it. @internal */
export function withClassSchema(schema: Schema, extra: ClassSchema, options: ConversionOptions): Schema {
  return typeof extra === 'function' ? extra(schema, options) : merge({}, schema, extra);
}

/** The options the library gives its converters by default (none known when the fast paths are off). @internal */
export function jsonSchemaDefaults(): Partial<ConversionOptions> {
  return fast() ? (internals() as Internals).defaultOptions : {};
}

/** The rule types the library has a converter for (none known when the fast paths are off). @internal */
export function libraryRuleTypes(): readonly string[] {
  return fast() ? Object.keys((internals() as Internals).defaultConverters) : [];
}

/** True while the library's own converters and `@JSONSchema` reader are used (the fast paths are on). @internal */
export function readsInternals(): boolean {
  return fast();
}

// ---------------------------------------------------------------------------------------------
// The internals, guarded

/** What `targetConstructorToSchema` uses from modules the package's index does not export. */
interface Internals {
  defaultConverters: Record<string, Converter>;
  getMetadataSchema: (target: object, key: string) => Schema | ((schema: Schema, options: ConversionOptions) => Schema);
  defaultOptions: Partial<ConversionOptions>;
}

let loaded: Internals | string | undefined;

/** Rule types every release's table has had a converter for. */
const TABLE_KEYS = [ValidationTypes.CUSTOM_VALIDATION, ValidationTypes.NESTED_VALIDATION, ValidationTypes.WHITELIST];

function internals(): Internals | string {
  if (loaded === undefined) {
    try {
      /* eslint-disable @typescript-eslint/no-require-imports */
      const found = {
        defaultConverters: require('class-validator-jsonschema/build/defaultConverters').defaultConverters,
        getMetadataSchema: require('class-validator-jsonschema/build/decorators').getMetadataSchema,
        defaultOptions: require('class-validator-jsonschema/build/options').defaultOptions,
      } as Record<keyof Internals, unknown>;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const converters = found.defaultConverters as Record<string, unknown> | undefined;
      const table = typeof converters === 'object' && converters !== null && Object.getPrototypeOf(converters) === Object.prototype;
      if (
        !table ||
        !TABLE_KEYS.every((key) => hasOwn(converters, key)) ||
        !Object.values(converters).every((c) => typeof c === 'function' || (typeof c === 'object' && c !== null))
      ) {
        loaded = 'build/defaultConverters no longer exports a table of converters';
      } else if (typeof found.getMetadataSchema !== 'function') {
        loaded = 'build/decorators no longer exports getMetadataSchema()';
      } else if (typeof found.defaultOptions !== 'object' || found.defaultOptions === null) {
        loaded = 'build/options no longer exports defaultOptions';
      } else {
        loaded = found as unknown as Internals;
      }
    } catch (error) {
      loaded = `its build/ modules cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
  }
  return loaded;
}

function fastConvert(meta: ValidationMetadata, options: ConversionOptions, defaults: Record<string, Converter>): Schema | undefined {
  const additional = (options.additionalConverters ?? {}) as Record<string, Converter>;
  const converterOf = (type: string) => (hasOwn(additional, type) ? additional[type] : defaults[type]);
  return apply(converterOf(meta.type) || converterOf(ValidationTypes.CUSTOM_VALIDATION), meta, options);
}

function fastWithProperty(cls: Function, name: string, schema: Schema, options: ConversionOptions, getMetadataSchema: Internals['getMetadataSchema']): Schema {
  const extra = getMetadataSchema(cls.prototype, name);
  return typeof extra === 'function' ? extra(schema, options) : isEmpty(extra) ? schema : merge(schema, extra);
}

// ---------------------------------------------------------------------------------------------
// The public path

/** A rule type no converter has: the library hands it to the one given for it in a call. */
const GIVEN = '\u0000hermes-given';

/**
 * The library's conversion of one rule, through `validationMetadataArrayToSchemas` on a stand-in
 * class: one that inherits the real one's prototype (so `design:type` is found) but not its
 * `@JSONSchema` (keyed by the constructor), with class-transformer's answers about the real one.
 * A rule the library has no converter for goes to Hermes's custom-validation one, if given.
 */
function libraryConversion(meta: ValidationMetadata, options: ConversionOptions): Schema | undefined {
  const target = meta.target as Function;
  const additional = (options.additionalConverters ?? {}) as Record<string, Converter>;
  const custom = additional[ValidationTypes.CUSTOM_VALIDATION];
  const stand = standIn(target);
  const schemas = validationMetadataArrayToSchemas([{ ...meta, target: stand, each: false }], {
    ...options,
    additionalConverters: custom === undefined ? {} : { [ValidationTypes.CUSTOM_VALIDATION]: (_stand: ValidationMetadata, given: ConversionOptions) => apply(custom, meta, given) },
    classTransformerMetadataStorage: redirected(options.classTransformerMetadataStorage, stand, target),
  } as ConversionOptions) as Record<string, Schema>;
  return propertyOf(schemas, meta.propertyName);
}

/** The schema `@JSONSchema` makes of `schema` for this property, asked of the library with a rule that converts to `schema`. */
function publicWithProperty(cls: Function, name: string, schema: Schema, options: ConversionOptions): Schema {
  const rule = { type: GIVEN, target: cls, propertyName: name, constraints: [], each: false } as unknown as ValidationMetadata;
  const schemas = validationMetadataArrayToSchemas([rule], {
    ...options,
    additionalConverters: { [GIVEN]: () => schema },
    classTransformerMetadataStorage: undefined,
  }) as Record<string, Schema>;
  return propertyOf(schemas, name) ?? schema;
}

const standIns = new WeakMap<Function, Function>();

function standIn(target: Function): Function {
  let stand = standIns.get(target);
  if (!stand) {
    stand = function HermesStandIn() {};
    stand.prototype = Object.create(target.prototype, { constructor: { value: stand, writable: true, configurable: true } });
    standIns.set(target, stand);
  }
  return stand;
}

/** class-transformer's answers about `target` for its stand-in: its `@Type`s; no renames or exclusions (one rule, as is). */
function redirected(metadata: TransformerMetadata | undefined, stand: Function, target: Function): TransformerMetadata | undefined {
  if (!metadata) return undefined;
  return {
    findTypeMetadata: (cls, property) => metadata.findTypeMetadata(cls === stand ? target : cls, property),
    getExposedMetadatas: () => [],
    findExcludeMetadata: () => undefined,
    findTransformMetadatas: () => [],
  };
}

function propertyOf(schemas: Record<string, Schema>, name: string): Schema | undefined {
  const properties = Object.values(schemas)[0]?.properties as Record<string, Schema> | undefined;
  return properties && hasOwn(properties, name) ? properties[name] : undefined;
}

// ---------------------------------------------------------------------------------------------
// The self-check

/**
 * Undefined when, on the canary classes, the library's converters and `@JSONSchema` reader give
 * what its own `targetConstructorToSchema` gives (merged as it merges); else the first difference.
 */
function check(): string | undefined {
  const found = internals();
  if (typeof found === 'string') return found;
  const { Point, Doc, Tagged } = canaryClasses();
  if (Object.keys(found.defaultOptions).length === 0) return 'build/options exports empty defaultOptions';
  if (hasOwn(found.defaultConverters, GIVEN)) return 'its converters know a rule type Hermes uses as a marker';
  const storage = getMetadataStorage();
  const options = {
    ...found.defaultOptions,
    classValidatorMetadataStorage: storage,
    classTransformerMetadataStorage: transformerMetadata(),
    additionalConverters: {},
  } as ConversionOptions;
  for (const cls of [Point, Doc]) {
    const expected = (targetConstructorToSchema(cls, options) as Schema).properties;
    const replayed = replay(cls, storage, options, found);
    if (!isDeepStrictEqual(replayed, expected)) return `the schema of ${cls.name} differs from targetConstructorToSchema()`;
  }
  if (isEmpty(found.getMetadataSchema(Tagged.prototype, Tagged.name)) || !isEmpty(found.getMetadataSchema(Point.prototype, Point.name))) {
    return 'getMetadataSchema() does not find a class-level @JSONSchema';
  }
  return undefined;
}

/** The properties of `cls` built from the converters and `@JSONSchema` as the library merges them. */
function replay(cls: Function, storage: MetadataStorage, options: ConversionOptions, found: Internals): Record<string, Schema> {
  const byProperty: Record<string, ValidationMetadata[]> = {};
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    const constraints = meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls) : [];
    (byProperty[meta.propertyName] ??= []).push(constraints.length > 0 ? { ...meta, type: constraints[0].name } : { ...meta });
  }
  const properties: Record<string, Schema> = {};
  for (const [name, metas] of Object.entries(byProperty)) {
    const schemas = metas.map((meta) => {
      const items = fastConvert(meta, options, found.defaultConverters);
      return meta.each ? { items, type: 'array' } : items;
    });
    properties[name] = fastWithProperty(cls, name, merge({}, ...schemas), options, found.getMetadataSchema);
  }
  return properties;
}

function apply(converter: Converter | undefined, meta: ValidationMetadata, options: ConversionOptions): Schema | undefined {
  return typeof converter === 'function' ? converter(meta, options) : converter;
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}
