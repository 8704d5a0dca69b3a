/**
 * The schema builder: a class-validator decorated class becomes a self-contained JSON Schema
 * 2020-12 object schema (the `inputSchema`/`outputSchema` of a tool).
 *
 * class-validator-jsonschema walks the decorators; this file corrects it wherever its output would
 * accept what class-validator refuses or refuse what it accepts (see FIXED_CONVERTERS and
 * classSchema), puts nested classes under `$defs`, and caches one frozen schema per class. It runs
 * at bootstrap, never on the hot path.
 *
 * Known, documented gaps (class-validator is more lenient than the declared shape, and the schema
 * follows the declared shape): `each: true` validators also accept a single non-array value,
 * `@ValidateNested()` also accepts an array (of arrays...) of objects where one object is
 * declared, and `@IsEnum` of a numeric enum also accepts the member names. Formats (email, uri,
 * date-time) are checked by validator.js on one side and by the client's JSON Schema library on
 * the other, which differ on edge cases. Custom validators cannot be described at all.
 */
import 'reflect-metadata';
import {
  CONTAINS,
  IS_BASE64,
  IS_CREDIT_CARD,
  IS_CURRENCY,
  IS_DATE_STRING,
  IS_DIVISIBLE_BY,
  IS_EMPTY,
  IS_ENUM,
  IS_IN,
  IS_IP,
  IS_ISBN,
  IS_ISIN,
  IS_ISO8601,
  IS_JSON,
  IS_MOBILE_PHONE,
  IS_NEGATIVE,
  IS_NOT_EMPTY,
  IS_POSITIVE,
  IS_URL,
  IS_UUID,
  MATCHES,
  MAX,
  MIN,
  NOT_CONTAINS,
  ValidationError,
  ValidationTypes,
} from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { JsonSchemaObject, PromptArgument } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import { Converter, ConversionOptions, conversionOptions, convertClass } from './class-properties';
import { descriptionOf } from './description.decorator';
import { fastMetadataStorage, validateObjectSync } from './metadata-lookup';
import { probeInstance } from './probe-instance';
import { transformerStorage } from '../transformer-storage';
import { failingProperties, planOf } from '../validation/fast-path';


/**
 * The `$schema` URI of JSON Schema 2020-12. The built schemas do not carry it: MCP 2025-11-25
 * clients assume 2020-12 when it is absent, and older revisions do not expect the key. Add it
 * yourself where a document must name its dialect.
 */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

const cache = new WeakMap<Function, JsonSchemaObject>();
const EMPTY_OBJECT = deepFreeze({ type: 'object' as const, properties: {} });

/**
 * The JSON Schema 2020-12 of a class-validator decorated class: an object schema with nested
 * classes (`@ValidateNested()` + `@Type(() => X)`) under `$defs`, referenced as `#/$defs/X`.
 * A property is `required` when class-validator refuses the input without it, and takes `null`
 * when class-validator accepts `null` (e.g. `@IsOptional()`). Unknown keys are allowed, since
 * validation strips them by default. `@Description`/`@JSONSchema` add descriptions and keywords.
 *
 * Built once per class and cached; the result is deeply frozen — copy it before changing it.
 *
 * @throws HermesError `HERMES_UNRESOLVED_TYPE` when a `@ValidateNested()` property has no
 *   `@Type(() => X)`, `HERMES_INVALID_OPTIONS` when the class cannot be built with `new X()`.
 * @example
 * class ForecastInput {
 *   \@IsString() \@Length(2, 80) city!: string;
 *   \@IsOptional() \@IsIn(['c', 'f']) unit?: 'c' | 'f';
 * }
 * buildObjectSchema(ForecastInput);
 * // { type: 'object', properties: { city: { type: 'string', minLength: 2, maxLength: 80 },
 * //   unit: { anyOf: [{ enum: ['c', 'f'], type: 'string' }, { type: 'null' }] } }, required: ['city'] }
 */
export function buildObjectSchema(cls: Function): JsonSchemaObject {
  let schema = cache.get(cls);
  if (!schema) {
    schema = deepFreeze(build(cls));
    cache.set(cls, schema);
  }
  return schema;
}

/** The schema of a tool without parameters: `{ type: 'object', properties: {} }` (frozen). */
export function emptyObjectSchema(): JsonSchemaObject {
  return EMPTY_OBJECT;
}

/**
 * The MCP prompt arguments of a class: one per top-level property of its schema, with its
 * description, and `required` when the schema requires it.
 *
 * @example
 * class PlanArgs { \@Description('Where to') \@IsString() city!: string; }
 * promptArgumentsFor(PlanArgs); // [{ name: 'city', description: 'Where to', required: true }]
 */
export function promptArgumentsFor(cls: Function): PromptArgument[] {
  const schema = buildObjectSchema(cls);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const description = (property as Schema).description;
    return { name, ...(typeof description === 'string' && { description }), required: required.has(name) };
  });
}

/**
 * The class `@Type(() => X)` names for a property, if any.
 *
 * @internal
 */
export function nestedClassOf(target: Function, property: string): Function | undefined {
  const meta = transformerStorage.findTypeMetadata(target, property);
  try {
    const type = meta?.typeFunction();
    return typeof type === 'function' ? type : undefined;
  } catch {
    return undefined; // a type function that needs the object being transformed
  }
}

/** The root schema, plus `$defs` for every class reached from it (the root too, when recursive). */
function build(root: Function): JsonSchemaObject {
  const names = new Map<Function, string>();
  const refTo = (cls: Function): string => {
    let name = names.get(cls);
    if (name === undefined) {
      const base = (cls.name || 'Anonymous').replace(/[^A-Za-z0-9_]/g, '_');
      const taken = new Set(names.values());
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}${i}`; // two classes, one name
      names.set(cls, name);
    }
    return `#/$defs/${name}`;
  };
  const converters = {
    ...FIXED_CONVERTERS,
    [ValidationTypes.NESTED_VALIDATION]: nestedConverter(refTo),
    [ValidationTypes.CUSTOM_VALIDATION]: declaredType,
  };
  // The fast storage answers as class-validator's own does, without a scan of every decorated class.
  const options = conversionOptions(converters, fastMetadataStorage());
  const top = classSchema(root, options);
  const defs: Record<string, Schema> = {};
  // A Map iterates over entries added while iterating: classes found in $defs get theirs too.
  for (const [cls, name] of names) defs[name] = cls === root ? top : classSchema(cls, options);
  return (names.size > 0 ? { ...top, $defs: defs } : top) as JsonSchemaObject;
}

/** One class: class-validator-jsonschema's properties, finished with what class-validator accepts. */
function classSchema(cls: Function, options: ConversionOptions): Schema {
  // `type` is recomputed (a class is an object), and `required` comes from the probe.
  const { properties: found, type: _type, ...rest } = convertClass(cls, options);
  const raw = (found ?? {}) as Record<string, Schema>;
  const facts = probe(cls, Object.keys(raw));
  const properties: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(raw)) {
    let property = withTypes(schema);
    const description = descriptionOf(cls, name);
    if (description !== undefined) property = { ...property, description };
    if (facts.defaults.has(name)) property = { ...property, default: facts.defaults.get(name) };
    // A header-mirrored property (`x-mcp-header`) must keep a plain type at the top, where clients
    // look for it; it then refuses null, which a header cannot carry anyway.
    properties[name] = facts.nullable.has(name) && !('x-mcp-header' in property) ? orNull(property) : property;
  }
  const required = Object.keys(properties).filter((name) => facts.required.has(name));
  const description = descriptionOf(cls);
  return {
    type: 'object',
    ...rest,
    ...(description !== undefined && { description }),
    properties,
    ...(required.length > 0 && { required }),
  };
}

interface Facts {
  required: Set<string>;
  nullable: Set<string>;
  defaults: Map<string, unknown>;
}

/**
 * Asks class-validator itself which properties are required and which take `null`, by validating
 * `{}` and an all-`null` input. Reading the decorators instead gets it wrong: `@ValidateNested()`
 * alone lets a missing value pass, `@Allow()` never refuses one, an initialised field has a
 * default, and `@IsOptional()` also lets `null` through. Field initialisers become `default`.
 */
function probe(cls: Function, names: string[]): Facts {
  const facts: Facts = { required: new Set(), nullable: new Set(names), defaults: new Map() };
  if (names.length === 0) return facts;
  const ctor = cls as new () => object;
  try {
    // A class with a fast plan (flat rules) is probed through it: the same verdicts, without
    // class-validator building every error message.
    const plan = planOf(cls);
    const failingOf = (instance: Record<string, unknown>) => (plan && failingProperties(plan, instance)) ?? failing(validateObjectSync(instance));
    const blank = probeInstance(ctor, {});
    facts.required = failingOf(blank);
    for (const name of names) {
      const value = blank[name];
      if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
        facts.defaults.set(name, value);
      }
    }
    const nulls = probeInstance(ctor, Object.fromEntries(names.map((name) => [name, null])));
    for (const name of failingOf(nulls)) facts.nullable.delete(name);
  } catch (cause) {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${cls.name}: could not be built and validated with \`new ${cls.name}()\` (class-transformer builds every input that way). ` +
        `Give it a constructor without required arguments.`,
      { cause },
    );
  }
  return facts;
}

function failing(errors: ValidationError[]): Set<string> {
  return new Set(errors.map((error) => error.property).filter((name): name is string => typeof name === 'string'));
}

/**
 * Replacements for class-validator-jsonschema's converters, each because the original disagrees
 * with what class-validator accepts, or emits something that is not JSON Schema 2020-12.
 */
const FIXED_CONVERTERS: Record<string, Converter> = {
  // isIn takes any listed value whatever its type; the original drops mixed-type lists entirely.
  [IS_IN]: (meta) => ({ enum: [...(meta.constraints[0] as unknown[])] }),
  // The original lists a numeric enum's reverse-mapped names as values and calls every enum a string.
  [IS_ENUM]: (meta) => ({ enum: enumValues(meta.constraints[0] as object) }),
  // No `type` here: lodash.merge lets the last decorator's `type` win, so `@Min(1) @IsInt()` came out
  // as "number". withTypes() puts "number" back only where no other decorator chose a type.
  [MIN]: (meta) => ({ minimum: meta.constraints[0] }),
  [MAX]: (meta) => ({ maximum: meta.constraints[0] }),
  [IS_POSITIVE]: { exclusiveMinimum: 0 },
  [IS_NEGATIVE]: { exclusiveMaximum: 0 },
  [IS_DIVISIBLE_BY]: (meta) => ({ multipleOf: meta.constraints[0] }),
  // isNotEmpty is no string check: it refuses '', null and undefined, nothing else.
  [IS_NOT_EMPTY]: { not: { enum: ['', null] } },
  // The original uses OpenAPI's `nullable`, which JSON Schema does not have.
  [IS_EMPTY]: { enum: ['', null] },
  [MATCHES]: matchesSchema,
  // The seed is literal text, not a regular expression.
  [CONTAINS]: (meta) => ({ type: 'string', pattern: escapeRegExp(String(meta.constraints[0])) }),
  [NOT_CONTAINS]: (meta) => ({ type: 'string', not: { pattern: escapeRegExp(String(meta.constraints[0])) } }),
  // "url" is not a JSON Schema format.
  [IS_URL]: { type: 'string', format: 'uri' },
  [IS_UUID]: (meta) => uuidSchema(meta.constraints[0]),
  // The original pattern demands fractional seconds, refusing "2024-05-01T10:00:00Z".
  [IS_DATE_STRING]: { type: 'string', format: 'date-time' },
  [IS_ISO8601]: { type: 'string', format: 'date-time' },
  // Without a version isIP takes both families; the original says ipv4 only.
  [IS_IP]: (meta) => {
    const version = String(meta.constraints[0] ?? '');
    return version === '4' || version === '6'
      ? { type: 'string', format: `ipv${version}` }
      : { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
  },
  // Not JSON Schema formats (strict validators refuse unknown ones): the type stays, class-validator checks the rest.
  [IS_BASE64]: { type: 'string', contentEncoding: 'base64' },
  [IS_CREDIT_CARD]: { type: 'string' },
  [IS_CURRENCY]: { type: 'string' },
  [IS_ISBN]: { type: 'string' },
  [IS_ISIN]: { type: 'string' },
  [IS_JSON]: { type: 'string' },
  [IS_MOBILE_PHONE]: { type: 'string' },
};

/**
 * `@ValidateNested()`: a `$ref` to the class `@Type` names, registered for `$defs`. The original
 * follows `design:type`, which is `Object` or `Array` for arrays, and refers to `#/definitions/`.
 */
function nestedConverter(refTo: (cls: Function) => string): (meta: ValidationMetadata) => Schema {
  return (meta) => {
    const target = meta.target as Function;
    const child = nestedClassOf(target, meta.propertyName);
    if (!child) {
      throw new HermesError(
        'HERMES_UNRESOLVED_TYPE',
        `${target.name}.${meta.propertyName}: @ValidateNested() needs @Type(() => TheClass) from class-transformer; ` +
          `without it the value stays a plain object and never passes validation.`,
      );
    }
    const ref = { $ref: refTo(child) };
    // `each: true` is wrapped in an array by the caller; an undeclared array we wrap here.
    const declared = Reflect.getMetadata('design:type', target.prototype, meta.propertyName);
    return declared === Array && !meta.each ? { type: 'array', items: ref } : ref;
  };
}

/**
 * A custom validator (or one class-validator-jsonschema does not know): only the declared
 * primitive type can be said. The original turns any other type into a `$ref` to a definition
 * that does not exist (`#/definitions/Object`), which makes the whole schema invalid.
 */
function declaredType(meta: ValidationMetadata): Schema {
  if (meta.each) return {}; // the declared type is the array's; nothing is known of its items
  const declared = Reflect.getMetadata('design:type', (meta.target as Function).prototype, meta.propertyName);
  if (declared === String) return { type: 'string' };
  if (declared === Number) return { type: 'number' };
  if (declared === Boolean) return { type: 'boolean' };
  if (declared === Array) return { type: 'array' };
  return {};
}

/** What class-validator 0.15 lists as an enum's values: the keys that are not reverse mappings. */
function enumValues(entity: object): unknown[] {
  return Object.entries(entity)
    .filter(([key]) => isNaN(parseInt(key, 10)))
    .map(([, value]) => value);
}

/**
 * JSON Schema patterns have no flags and are compiled with `u`. A pattern that relies on `i`, `m`
 * or `s`, or is not valid with `u`, would say something else: it is left out, and only the type
 * remains (class-validator still checks it).
 */
function matchesSchema(meta: ValidationMetadata): Schema {
  const [pattern, modifiers] = meta.constraints as [RegExp | string, string | undefined];
  const source = pattern instanceof RegExp ? pattern.source : String(pattern);
  const flags = pattern instanceof RegExp ? pattern.flags : (modifiers ?? '');
  if (/[ims]/.test(flags)) return { type: 'string' };
  try {
    new RegExp(source, 'u');
  } catch {
    return { type: 'string' };
  }
  return { type: 'string', pattern: source };
}

const HEX = (n: number) => `[0-9a-fA-F]{${n}}`;

/**
 * Format "uuid" takes any version (and a `urn:uuid:` prefix); validator.js takes versions 1–8 with
 * the RFC variant, plus the nil and max UUIDs, or one given version: its regex, spelled out.
 */
function uuidSchema(version: unknown): Schema {
  const v = version === undefined || version === null ? 'all' : String(version);
  const shaped = (digit: string) => `${HEX(8)}-${HEX(4)}-${digit}${HEX(3)}-[89abAB]${HEX(3)}-${HEX(12)}`;
  if (/^[1-8]$/.test(v)) return { type: 'string', format: 'uuid', pattern: `^${shaped(v)}$` };
  if (v === 'all') {
    const nilOrMax = '0{8}-0{4}-0{4}-0{4}-0{12}|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12}';
    return { type: 'string', format: 'uuid', pattern: `^(?:${shaped('[1-8]')}|${nilOrMax})$` };
  }
  return { type: 'string', format: 'uuid' };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // no `\-`: invalid with the `u` flag
}

const NUMERIC_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/**
 * Gives a `type` to a property (and its `items`) that has none but whose keywords imply one:
 * bounds mean a number (min/max/isPositive refuse anything else), an enum the type its values share.
 */
function withTypes(schema: Schema): Schema {
  const out = { ...schema };
  if (isSchema(out.items)) out.items = withTypes(out.items);
  if (out.type === undefined) {
    const type = NUMERIC_KEYWORDS.some((key) => key in out) ? 'number' : Array.isArray(out.enum) ? sharedType(out.enum) : undefined;
    if (type) out.type = type;
  }
  return out;
}

function sharedType(values: unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}

/** Keywords that describe rather than constrain: they stay outside the `anyOf`. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated']);

/**
 * Lets `null` through as well. `anyOf` rather than `type: [t, 'null']`: it works for `$ref`,
 * `enum` and `not` alike, and strict validators (Ajv's strictTypes) accept it.
 */
function orNull(schema: Schema): Schema {
  const annotations: Schema = {};
  const rest: Schema = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.has(key) ? annotations : rest)[key] = value;
  const keys = Object.keys(rest);
  const takesNull = keys.length === 0 || (keys.length === 1 && Array.isArray(rest.enum) && rest.enum.includes(null));
  if (takesNull) return schema; // `{}`, or @IsEmpty's enum
  return { anyOf: [rest, { type: 'null' }], ...annotations };
}

/** True for a JSON object (a schema or a part of one). @internal */
export function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Freezes a value and everything in it. @internal */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
