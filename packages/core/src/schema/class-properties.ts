/**
 * class-validator-jsonschema's conversion of one class, each property's rules combined so that
 * all of them hold.
 *
 * Its `targetConstructorToSchema(X)` groups every rule it is given by class and by property, copies
 * its table of ~100 converters for each property, and deep-merges each property twice, which made it
 * 40 % of `McpFactory.create` with 1,000 tools. For the common class — its rules all its own, no
 * class-transformer renames, no `@JSONSchema` on the class itself — the same steps are run here
 * directly: the same converters (its defaults, overridden by ours), the same `@JSONSchema` property
 * metadata, in the same order. Any other class goes through `targetConstructorToSchema` itself, and
 * so does every class when the library's internals cannot be read (interop/class-validator-jsonschema.ts).
 *
 * One step differs, on both paths: the library deep-merges a property's rule schemas, which keeps
 * only the last of two rules using one keyword; they are combined with {@link conjoin} instead, so
 * that every rule holds (the library's own output is redone from the rules it converted).
 */
import type { MetadataStorage } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { transformerMetadata } from '../interop/class-transformer';
import { type ValidationMetadata, withConstraintName } from '../interop/class-validator';
import {
  ConversionOptions,
  Converter,
  classSchemasOf,
  convertRule,
  hasClassSchema,
  jsonSchemaDefaults,
  withClassSchema,
  withPropertySchema,
} from '../interop/class-validator-jsonschema';
import { ValidationTypes } from 'class-validator';
import { conjoin, withTypes } from './conjoin';

export type { ConversionOptions, Converter } from '../interop/class-validator-jsonschema';

type Schema = Record<string, unknown>;

/**
 * The options `targetConstructorToSchema` runs with, given these converters (over its defaults)
 * and this class-validator storage; class-transformer's is the global one.
 */
export function conversionOptions(additionalConverters: Record<string, Converter>, storage: MetadataStorage): ConversionOptions {
  return { ...jsonSchemaDefaults(), classTransformerMetadataStorage: transformerMetadata(), classValidatorMetadataStorage: storage, additionalConverters } as ConversionOptions;
}

/**
 * What class-validator-jsonschema's `targetConstructorToSchema(cls)` returns, `{ properties,
 * type, ...the class's @JSONSchema }`, without its `required`: the schema builder works that out
 * by asking class-validator (see its probe).
 *
 * One difference: the class-level `@JSONSchema` of every class of the chain applies, the furthest
 * base first, so that a subclass's own keywords win. The library applies only that of the nearest
 * class with rules of its own, so `@JSONSchema({ additionalProperties: false })` on a base was lost
 * on a subclass that adds a property, and a subclass's own was lost when it adds none. (Where the
 * library's internals cannot be read, the library decides, as it always did.)
 */
export function convertClass(cls: Function, options: ConversionOptions): Schema {
  const found = ownProperties(cls, options);
  const chain = classSchemasOf(cls);
  if (chain === undefined || chain.length === 0) return found;
  // The library applied (at most) the nearest class's: started again from the properties alone.
  const base: Schema = { properties: found.properties ?? {}, type: 'object' };
  return chain.reduce<Schema>((schema, extra) => withClassSchema(schema, extra, options), base);
}

/** {@link convertClass} but the class-level `@JSONSchema` of the chain (the library may apply the nearest one). */
function ownProperties(cls: Function, options: ConversionOptions): Schema {
  const storage = options.classValidatorMetadataStorage as MetadataStorage;
  const metadatas: ValidationMetadata[] = storage.getTargetValidationMetadatas(cls, '', true, false);
  if (!isCommon(cls, metadatas))
    return throughLibrary(
      cls,
      options,
      metadatas.map((meta) => withConstraintName(storage, meta)),
    );
  if (metadatas.length === 0) return {}; // no group, so no schema of that name
  // Grouped as lodash.groupby groups them: a plain object's key order (integer-like names first).
  const byProperty = Object.create(null) as Record<string, ValidationMetadata[]>;
  for (const meta of metadatas) {
    const name = meta.propertyName;
    if (transformerMetadata().findExcludeMetadata(cls, name)) continue;
    (byProperty[name] ??= []).push(withConstraintName(storage, meta));
  }
  const properties: Record<string, Schema> = {};
  for (const name of Object.keys(byProperty)) {
    const rules = byProperty[name];
    const schema = propertySchema(
      rules,
      rules.map((meta) => convertRule(meta, options)),
    );
    properties[name] = withPropertySchema(cls, name, schema, options);
  }
  return { properties, type: 'object' };
}

/**
 * `targetConstructorToSchema(cls)` itself, each property redone from the rules it converted (which
 * it converts once per class of the chain: equal ones are dropped), except those @Expose renames,
 * which the library keeps as it made them.
 */
function throughLibrary(cls: Function, options: ConversionOptions, metadatas: ValidationMetadata[]): Schema {
  const recorded = new Map<string, Recorded>();
  const { required: _required, ...schema } = targetConstructorToSchema(cls, recording(options, recorded, metadatas)) as Schema;
  const properties = schema.properties as Record<string, Schema> | undefined;
  const renamed = new Set(
    transformerMetadata()
      .getExposedMetadatas(cls)
      .map((expose) => expose.options?.name),
  );
  for (const [name, rules] of recorded) {
    if (properties && Object.prototype.hasOwnProperty.call(properties, name) && !renamed.has(name)) {
      properties[name] = withPropertySchema(cls, name, propertySchema(rules.metas, rules.schemas), options);
    }
  }
  return schema;
}

/**
 * The options with the converter of every rule type of the class (and every one of ours) wrapped
 * to also note, by property, the schema each rule gave (wrapped in an array for `each`, as the
 * library wraps it).
 */
function recording(options: ConversionOptions, recorded: Map<string, Recorded>, metadatas: ValidationMetadata[]): ConversionOptions {
  const additional = options.additionalConverters as Record<string, Converter>;
  const wrapped: Record<string, Converter> = {};
  for (const type of new Set([...metadatas.map((meta) => meta.type), ...Object.keys(additional)])) {
    wrapped[type] = (meta, given) => {
      const items = convertRule(meta, { ...given, additionalConverters: additional });
      let rules = recorded.get(meta.propertyName);
      if (!rules) recorded.set(meta.propertyName, (rules = { metas: [], schemas: [] }));
      rules.metas.push(meta);
      rules.schemas.push(items);
      return items;
    };
  }
  return { ...options, additionalConverters: wrapped };
}

/**
 * One class's own rules only, its name its schema's key, nothing renamed; and the library's
 * internals readable (else its class-level `@JSONSchema` is the library's to apply).
 */
function isCommon(cls: Function, metadatas: ValidationMetadata[]): boolean {
  if (!cls.name) return false; // the library finds a schema by the class's name
  for (const meta of metadatas) if (meta.target !== cls) return false;
  if (
    transformerMetadata()
      .getExposedMetadatas(cls)
      .some((expose) => expose.options?.name)
  )
    return false;
  return hasClassSchema(cls) !== undefined;
}

/** A property's rules, as the library converted them (in order, one schema per rule). */
interface Recorded {
  metas: ValidationMetadata[];
  schemas: Array<Schema | undefined>;
}

/** Rules that refuse anything but an array: beside one of them, an `each: true` rule only ever sees elements. */
const ARRAY_RULES = new Set(['isArray', 'arrayMinSize', 'arrayMaxSize', 'arrayNotEmpty', 'arrayUnique', 'arrayContains', 'arrayNotContains']);

/**
 * One property's schema from its rules (`schemas[i]` is what `metas[i]` converts to): all of them
 * hold. class-validator applies an `each: true` rule to a value that is not an array (nor a Set or
 * Map) as to one element, so unless another rule refuses every non-array (`@IsArray()`...), the
 * property takes either an array of such elements or one value that passes every rule:
 * `anyOf: [one value, the array]`, each branch exact. (`@ValidateNested({ each: true })` is left
 * to its declared shape: the server refuses the other one, see validation/declared-shape.ts.)
 */
function propertySchema(metas: ValidationMetadata[], schemas: Array<Schema | undefined>): Schema {
  const whole = conjoin(metas.map((meta, i) => eachOf(meta, schemas[i])));
  const unconditional = metas.filter((meta) => !meta.validateIf);
  const lone =
    unconditional.some((meta) => meta.each && meta.type !== ValidationTypes.NESTED_VALIDATION) && !unconditional.some((meta) => !meta.each && ARRAY_RULES.has(meta.type));
  if (!lone) return whole;
  const wrapper = metas.map((meta, i) => eachOf(meta, schemas[i])).find((schema, i) => metas[i].each && schema)?.type;
  const one = withTypes(conjoin(metas.map((meta, i) => (meta.validateIf ? undefined : schemas[i]))));
  if (Object.keys(one).length === 0) return {}; // no rule says anything of a value: nor of an array's elements
  // The branch of one value must not take what the other branch judges element by element.
  const single = typeof one.type === 'string' && one.type !== wrapper ? one : conjoin([one, { not: { type: wrapper } }]);
  return { anyOf: [single, whole] };
}

/**
 * An `each: true` rule's schema applies to the elements: of an array, or the values of a Map. A
 * rule with its own `validateIf` condition says nothing: its condition is code, so the schema
 * leaves the rule out (looser; the schema builder warns).
 */
function eachOf(meta: ValidationMetadata, items: Schema | undefined): Schema | undefined {
  if (meta.validateIf) return undefined;
  if (!meta.each) return items;
  const reflected = transformerMetadata().findTypeMetadata(meta.target as Function, meta.propertyName)?.reflectedType as (new () => unknown) | undefined;
  if (reflected && new reflected() instanceof Map) return { additionalProperties: { ...items }, type: 'object' };
  return { items, type: 'array' };
}
