/**
 * class-validator-jsonschema's conversion of one class, in one pass over that class's rules.
 *
 * Its `targetConstructorToSchema(X)` groups every rule it is given by class and by property, copies
 * its table of ~100 converters for each property, and deep-merges each property twice, which made it
 * 40 % of `McpFactory.create` with 1,000 tools. For the common class — its rules all its own, no
 * class-transformer renames, no `@JSONSchema` on the class itself — the same steps are run here
 * directly: the same converters (its defaults, overridden by ours), the same `@JSONSchema` property
 * metadata, in the same order. Any other class goes through `targetConstructorToSchema` itself, and
 * so does every class if a release of the library no longer has the modules read here.
 *
 * One step differs, on both paths: the library deep-merges a property's rule schemas, which keeps
 * only the last of two rules using one keyword; they are combined with {@link conjoin} instead, so
 * that every rule holds (the library's own output is redone from the rules it converted).
 */
import { ValidationTypes } from 'class-validator';
import type { MetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import merge from 'lodash.merge';
import { transformerStorage } from '../transformer-storage';
import { conjoin } from './conjoin';

type Schema = Record<string, unknown>;
/** A converter as class-validator-jsonschema takes it: a schema, or a function of the rule. */
export type Converter = Schema | ((meta: ValidationMetadata, options: ConversionOptions) => Schema | undefined);
/** The options class-validator-jsonschema passes its converters. */
export type ConversionOptions = Parameters<typeof targetConstructorToSchema>[1] & object;

/** What `targetConstructorToSchema` uses from modules the package's index does not export. */
interface Internals {
  defaultConverters: Record<string, Converter>;
  getMetadataSchema: (target: object, key: string) => Schema | ((schema: Schema, options: ConversionOptions) => Schema);
  defaultOptions: ConversionOptions;
}

/** Undefined if a release of class-validator-jsonschema moved them: every class then goes through the library. */
const internals: Internals | undefined = (() => {
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const found = {
      defaultConverters: require('class-validator-jsonschema/build/defaultConverters').defaultConverters,
      getMetadataSchema: require('class-validator-jsonschema/build/decorators').getMetadataSchema,
      defaultOptions: require('class-validator-jsonschema/build/options').defaultOptions,
    } as Internals;
    /* eslint-enable @typescript-eslint/no-require-imports */
    const complete = typeof found.defaultConverters === 'object' && typeof found.getMetadataSchema === 'function' && typeof found.defaultOptions === 'object';
    return complete ? found : undefined;
  } catch {
    return undefined;
  }
})();

/** False when the library's modules were not found and every class goes through it. @internal */
export const convertsInOnePass = internals !== undefined;

/** The rule types class-validator-jsonschema has a converter for (empty if its modules moved). @internal */
export const defaultConverterTypes: readonly string[] = Object.freeze(Object.keys(internals?.defaultConverters ?? {}));

/**
 * The options `targetConstructorToSchema` runs with, given these converters (over its defaults)
 * and this class-validator storage; class-transformer's is the global one.
 */
export function conversionOptions(additionalConverters: Record<string, Converter>, storage: MetadataStorage): ConversionOptions {
  return { ...internals?.defaultOptions, classTransformerMetadataStorage: transformerStorage, classValidatorMetadataStorage: storage, additionalConverters } as ConversionOptions;
}

/**
 * What class-validator-jsonschema's `targetConstructorToSchema(cls)` returns, `{ properties,
 * type, ...the class's @JSONSchema }`, without its `required`: the schema builder works that out
 * by asking class-validator (see its probe).
 */
export function convertClass(cls: Function, options: ConversionOptions): Schema {
  const storage = options.classValidatorMetadataStorage as MetadataStorage;
  const metadatas: ValidationMetadata[] = storage.getTargetValidationMetadatas(cls, '', true, false);
  if (!internals || !isCommon(cls, metadatas, internals)) {
    if (!internals) {
      const { required: _required, ...schema } = targetConstructorToSchema(cls, options) as Schema;
      return schema;
    }
    const recorded = new Map<string, Array<Schema | undefined>>();
    const { required: _required, ...schema } = targetConstructorToSchema(cls, recording(options, recorded, internals.defaultConverters)) as Schema;
    // Each property redone from its rules (which the library converts once per class of the chain:
    // equal ones are dropped), except those @Expose renames, which the library keeps as it made them.
    const properties = schema.properties as Record<string, Schema> | undefined;
    const renamed = new Set(transformerStorage.getExposedMetadatas(cls).map((expose) => expose.options?.name));
    for (const [name, rules] of recorded) {
      if (properties && Object.prototype.hasOwnProperty.call(properties, name) && !renamed.has(name)) {
        properties[name] = withExtra(cls, name, conjoin(rules), options, internals);
      }
    }
    return schema;
  }
  if (metadatas.length === 0) return {}; // no group, so no schema of that name
  // Grouped as lodash.groupby groups them: a plain object's key order (integer-like names first).
  const byProperty: Record<string, ValidationMetadata[]> = Object.create(null);
  for (const meta of metadatas) {
    const name = meta.propertyName;
    if (transformerStorage.findExcludeMetadata(cls, name)) continue;
    (byProperty[name] ??= []).push(withConstraintName(storage, meta));
  }
  const properties: Record<string, Schema> = {};
  for (const name of Object.keys(byProperty)) {
    const schema = conjoin(byProperty[name].map((meta) => convert(meta, options, internals.defaultConverters)));
    properties[name] = withExtra(cls, name, schema, options, internals);
  }
  return { properties, type: 'object' };
}

/** A property's schema with its `@JSONSchema` keywords merged in (or its function applied), as the library does. */
function withExtra(cls: Function, name: string, schema: Schema, options: ConversionOptions, { getMetadataSchema }: Internals): Schema {
  const extra = getMetadataSchema(cls.prototype, name);
  return typeof extra === 'function' ? extra(schema, options) : isEmpty(extra) ? schema : merge(schema, extra);
}

/**
 * The options with every converter (the library's and ours) wrapped to also note, by property,
 * the schema each rule gave (wrapped in an array for `each`, as the library wraps it).
 */
function recording(options: ConversionOptions, recorded: Map<string, Array<Schema | undefined>>, defaults: Record<string, Converter>): ConversionOptions {
  const additional = options.additionalConverters as Record<string, Converter>;
  const wrapped: Record<string, Converter> = {};
  for (const type of new Set([...Object.keys(defaults), ...Object.keys(additional)])) {
    const converter = converterOf(type, options, defaults);
    wrapped[type] = (meta, opts) => {
      const items = typeof converter === 'function' ? converter(meta, opts) : converter;
      const rules = recorded.get(meta.propertyName);
      if (rules) rules.push(eachOf(meta, items));
      else recorded.set(meta.propertyName, [eachOf(meta, items)]);
      return items;
    };
  }
  return { ...options, additionalConverters: wrapped } as ConversionOptions;
}

/** One class's own rules only, its name its schema's key, nothing renamed, no class-level `@JSONSchema`. */
function isCommon(cls: Function, metadatas: ValidationMetadata[], { getMetadataSchema }: Internals): boolean {
  if (!cls.name) return false; // the library finds a schema by the class's name
  for (const meta of metadatas) if (meta.target !== cls) return false;
  if (transformerStorage.getExposedMetadatas(cls).some((expose) => expose.options?.name)) return false;
  return isEmpty(getMetadataSchema(cls.prototype, cls.name));
}

/** The rule as class-validator-jsonschema hands it to converters: typed by its constraint's name. */
function withConstraintName(storage: MetadataStorage, meta: ValidationMetadata): ValidationMetadata {
  const constraints = meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls) : [];
  return constraints.length > 0 ? { ...meta, type: constraints[0].name } : { ...meta };
}

function convert(meta: ValidationMetadata, options: ConversionOptions, defaults: Record<string, Converter>): Schema | undefined {
  const converter = converterOf(meta.type, options, defaults) || converterOf(ValidationTypes.CUSTOM_VALIDATION, options, defaults);
  const items = typeof converter === 'function' ? converter(meta, options) : converter;
  return eachOf(meta, items);
}

/** An `each: true` rule's schema applies to the elements: of an array, or the values of a Map. */
function eachOf(meta: ValidationMetadata, items: Schema | undefined): Schema | undefined {
  if (!meta.each) return items;
  const reflected = transformerStorage.findTypeMetadata(meta.target as Function, meta.propertyName)?.reflectedType as (new () => unknown) | undefined;
  if (reflected && new reflected() instanceof Map) return { additionalProperties: { ...items }, type: 'object' };
  return { items, type: 'array' };
}

/** The converter a rule type has in `{ ...defaultConverters, ...additionalConverters }`, without making that table. */
function converterOf(type: string, options: ConversionOptions, defaults: Record<string, Converter>): Converter | undefined {
  const additional = options.additionalConverters as Record<string, Converter>;
  return Object.prototype.hasOwnProperty.call(additional, type) ? additional[type] : defaults[type];
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}
