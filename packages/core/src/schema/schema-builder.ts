/**
 * The schema builder: a class-validator decorated class becomes a self-contained JSON Schema
 * 2020-12 object schema (the `inputSchema`/`outputSchema` of a tool).
 *
 * class-validator-jsonschema walks the decorators; this file corrects it wherever its output would
 * accept what class-validator refuses or refuse what it accepts (see FIXED_CONVERTERS and
 * classSchema; a property's rules are combined by conjoin.ts so that all of them hold), puts
 * nested classes under `$defs`, and caches one frozen schema per class. What a tool publishes has
 * them written out where they are used, `$defs` kept for recursive classes only (inline.ts). Where validator.js's
 * grammar differs from a JSON Schema format (ISO 8601 dates, IPv6 zones, host names, base64...),
 * the schema spells the grammar out as a pattern (iso8601.ts, validator-patterns.ts). It runs at
 * bootstrap, never on the hot path; it also notes rules that are legal but rarely meant
 * ({@link schemaWarningsFor}), for the bootstrap to log. What class-transformer does to the input
 * first (`@Expose` names, `@Exclude`, `@Type` conversions, `@Transform`, discriminators) is said by
 * transformer.ts.
 *
 * Every rule is exact or looser: what JSON Schema cannot say (checksums, phone numbers, a locale's
 * grammar, formats email and uri, a `@Matches` expression no pattern says, custom validators...) is
 * published looser, and reported as `HERMES_SCHEMA_LOOSER` (see LOOSER) for the bootstrap to log.
 * test/schema/decorator-agreement.spec.ts checks every converted decorator both ways and renders
 * docs/schemas.md. Where class-validator takes more than a schema could honestly say (V8's date
 * parser behind `@Type(() => Date)`, an array where `@ValidateNested()` declares one object), the
 * server is held to the schema instead (validation/declared-shape.ts); where no JSON passes at all
 * (`@IsDate()` without `@Type`), the bootstrap refuses the input class.
 */
import 'reflect-metadata';
import { ValidationError, ValidationTypes } from 'class-validator';
import type { MetadataStorage } from 'class-validator';
import { type JsonSchemaObject, type PromptArgument, onFirstUse } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import type * as ClassProperties from './class-properties';
import type { ConversionOptions, Converter } from './class-properties';
import { withTypes } from './conjoin';
import { X_MCP_HEADER, descriptionOf, headerOf } from './recorded';
import { probeInstance } from './probe-instance';
import { type ValidationMetadata, ruleStorage, validateObjectSync } from '../interop/class-validator';
import type * as JsonSchemaInterop from '../interop/class-validator-jsonschema';
import { convertedProperty, inputKeysOf, requiredExcluded } from './transformer';
import { failingProperties, planOf } from '../validation/fast-path';
import { Schema, deepFreeze, escapeRegExp, isSchema, orNull, splitAnnotations } from './json-schema';
import { inlined } from './inline';
import { FIXED_CONVERTERS, NEVER, NestedContext, nestedConverter, unknownRule } from './rule-converters';
import { SchemaWarning, isValidateIf, looserWarning, uniqueWarnings, warningsAbout } from './schema-warnings';
import { cachedBuild, keepBuild, keyOf, schemaCacheOn } from './schema-cache';
import { transformerLibrary } from '../interop/transformer-library';

/**
 * class-validator-jsonschema and Hermes' conversion on top of it, loaded with the first schema a
 * process builds: a start whose schemas all come back from the cache (schema-cache.ts) never loads
 * them (with lodash, about 10 ms of a start).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
const classProperties = onFirstUse(() => require('./class-properties') as typeof ClassProperties);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
const jsonSchemaInterop = onFirstUse(() => require('../interop/class-validator-jsonschema') as typeof JsonSchemaInterop);

export type { SchemaWarning };

/**
 * The `$schema` URI of JSON Schema 2020-12. The built schemas do not carry it: MCP 2025-11-25
 * clients assume 2020-12 when it is absent, and older revisions do not expect the key. Add it
 * yourself where a document must name its dialect.
 */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * How a built schema writes nested classes (`@ValidateNested()` + `@Type(() => X)`):
 * - `'inline'` (the default): written out where each is used, a class used twice written twice,
 *   so that a client or model that does not resolve `$ref` sees every property; `$defs` and
 *   `$ref` only for classes that refer to themselves (directly or through others), which cannot
 *   be written out. A schema that would grow past 64 KiB of JSON that way keeps the classes it
 *   uses in more than one place under `$defs` (see docs/schemas.md).
 * - `'defs'`: each class once under `$defs`, referred to as `#/$defs/X` wherever it is used.
 *
 * Both accept exactly the same values.
 */
export type NestedSchemas = 'inline' | 'defs';

/** Options of {@link buildObjectSchema}. */
export interface ObjectSchemaOptions {
  /** How nested classes are written: `'inline'` (the default) or under `'defs'`; see {@link NestedSchemas}. */
  nested?: NestedSchemas;
}

/** The schemas of each class, by how they write nested classes: built once, frozen. */
interface Built {
  defs?: JsonSchemaObject;
  inline?: JsonSchemaObject;
}

const cache = new WeakMap<Function, Built>();
/** The warnings found while building a root class's schema (its nested classes' included). */
const warningsOf = new WeakMap<Function, readonly SchemaWarning[]>();
const EMPTY_OBJECT = deepFreeze({ type: 'object' as const, properties: {} });

/**
 * The JSON Schema 2020-12 of a class-validator decorated class: an object schema with nested
 * classes (`@ValidateNested()` + `@Type(() => X)`) written out where they are used, or, with
 * `{ nested: 'defs' }`, under `$defs` and referenced as `#/$defs/X` (recursive classes are under
 * `$defs` either way; see {@link NestedSchemas}). A property is `required` when class-validator
 * refuses the input without it, and takes `null` when class-validator accepts `null` (e.g.
 * `@IsOptional()`). Unknown keys are allowed, since validation strips them by default.
 * `@Description`/`@JSONSchema` add descriptions and keywords; a property's description wins over
 * its nested class's where the class is written out.
 *
 * Built once per class (and form) and cached; the result is deeply frozen — copy it before changing it.
 *
 * @throws HermesError `HERMES_UNRESOLVED_TYPE` when a `@ValidateNested()` property has no
 *   `@Type(() => X)`, `HERMES_INVALID_OPTIONS` when the class cannot be built with `new X()`.
 * @example
 * class ForecastInput {
 *   \@IsString() \@Length(2, 80) city!: string;
 *   \@IsOptional() \@IsIn(['c', 'f']) unit?: 'c' | 'f';
 * }
 * buildObjectSchema(ForecastInput);
 * // { type: 'object', properties: { city: { type: 'string', minLength: 2, pattern: '^(?:…){2,80}$' },
 * //   unit: { anyOf: [{ enum: ['c', 'f'], type: 'string' }, { type: 'null' }] } }, required: ['city'] }
 */
export function buildObjectSchema(cls: Function, options: ObjectSchemaOptions = {}): JsonSchemaObject {
  let built = cache.get(cls);
  if (!built) cache.set(cls, (built = {}));
  built.defs ??= deepFreeze(buildOrRead(cls));
  return nestedForm(built, options.nested);
}

/** {@link build}, or what it made of the same class at an earlier start, from the schema cache (schema-cache.ts). */
function buildOrRead(cls: Function): JsonSchemaObject {
  // No key is worked out where nothing is kept (the cache off, a bundle, a startup snapshot).
  const key = schemaCacheOn() ? keyOf(cls) : undefined;
  const kept = cachedBuild(key);
  if (kept) {
    warningsOf.set(cls, Object.freeze(kept.warnings));
    for (const [name, keys] of Object.entries(kept.ignored ?? {})) {
      const schema = name === '' ? kept.schema : (kept.schema.$defs as Record<string, object> | undefined)?.[name];
      if (schema) ignoredKeysOf.set(schema, keys);
    }
    return kept.schema;
  }
  const schema = build(cls);
  if (key !== undefined) {
    const ignored: Record<string, readonly string[]> = {};
    const root = ignoredKeysOf.get(schema);
    if (root) ignored[''] = root;
    for (const [name, def] of Object.entries((schema.$defs ?? {}) as Record<string, object>)) {
      const keys = ignoredKeysOf.get(def);
      if (keys) ignored[name] = keys;
    }
    keepBuild(key, { schema, warnings: warningsOf.get(cls) ?? [], ...(Object.keys(ignored).length > 0 && { ignored }) });
  }
  return schema;
}

/** The form `nested` asks for, made from the `$defs` form once. */
function nestedForm(built: Built, nested: NestedSchemas | undefined): JsonSchemaObject {
  if (nested === 'defs') return built.defs!;
  if (nested !== undefined && nested !== 'inline') {
    throw new HermesError('HERMES_INVALID_OPTIONS', `\`nested\` is 'inline' or 'defs', not ${JSON.stringify(nested)}.`);
  }
  return (built.inline ??= deepFreeze(inlined(built.defs as Schema)) as JsonSchemaObject);
}

const closedCache = new WeakMap<Function, Built>();
/** Per class schema (root or `$defs`): the input keys the server ignores or may read (transformer.ts). */
const ignoredKeysOf = new WeakMap<object, readonly string[]>();

/**
 * {@link buildObjectSchema}, for what is validated with `forbidNonWhitelisted` (an app's inputs with
 * that option, a tool's output with `closedOutput`): class-validator then refuses a key no rule
 * names, in the object and in every nested one, so the root and every nested class say
 * `additionalProperties: false` (unless its `@JSONSchema` says otherwise). Built once per class
 * (and form) and cached, deeply frozen.
 *
 * @example
 * closedObjectSchema(ForecastInput); // { type: 'object', properties: {...}, required: [...], additionalProperties: false }
 * @internal
 */
export function closedObjectSchema(cls: Function, options: ObjectSchemaOptions = {}): JsonSchemaObject {
  let built = closedCache.get(cls);
  if (!built) closedCache.set(cls, (built = {}));
  built.defs ??= closedDefs(cls);
  return nestedForm(built, options.nested);
}

/** The `$defs` form of {@link closedObjectSchema}: the root and each definition closed (then written out as asked). */
function closedDefs(cls: Function): JsonSchemaObject {
  const open = buildObjectSchema(cls, { nested: 'defs' }) as Schema;
  // The keys class-transformer drops (`@Exclude`) or reads in place of another stay allowed, as the server allows them.
  const close = (object: Schema): Schema => {
    if ('additionalProperties' in object) return object;
    const ignored = ignoredKeysOf.get(object);
    const patternProperties = ignored && { [`^(?:${ignored.map(escapeRegExp).join('|')})$`]: {} };
    return { ...object, ...(patternProperties && { patternProperties }), additionalProperties: false };
  };
  const defs = isSchema(open.$defs) ? Object.fromEntries(Object.entries(open.$defs).map(([name, def]) => [name, close(def as Schema)])) : undefined;
  return deepFreeze({ ...close(open), ...(defs && { $defs: defs }) }) as JsonSchemaObject;
}

/**
 * The warnings about `cls` and every class nested in it (`$defs`), found when its schema is built
 * (which this does if it was not). Call it once per input or output class at bootstrap and log
 * each one.
 *
 * @example
 * for (const warning of schemaWarningsFor(ForecastInput)) logger.warn({ code: warning.code }, warning.message);
 * // "Order.address: @ValidateNested() without @IsDefined() or @IsOptional() lets the input leave it out ..."
 * @internal
 */
export function schemaWarningsFor(cls: Function): readonly SchemaWarning[] {
  buildObjectSchema(cls);
  return warningsOf.get(cls) ?? [];
}

/** The schema of a tool without parameters: `{ type: 'object', properties: {} }` (frozen). */
export function emptyObjectSchema(): JsonSchemaObject {
  return EMPTY_OBJECT;
}

/**
 * The MCP prompt arguments of a class: one per top-level property of its schema, with its
 * description, and `required` when the schema requires it.
 *
 * @throws HermesError `HERMES_PROMPT_ARGUMENT_TYPE` when a property takes no string (`@IsInt()`,
 *   `@IsBoolean()`, a nested class...) and class-transformer does not convert it: MCP prompt
 *   arguments are strings, so no `prompts/get` could satisfy it.
 * @example
 * class PlanArgs { \@Description('Where to') \@IsString() city!: string; }
 * promptArgumentsFor(PlanArgs); // [{ name: 'city', description: 'Where to', required: true }]
 */
export function promptArgumentsFor(cls: Function): PromptArgument[] {
  const schema = buildObjectSchema(cls, { nested: 'defs' });
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    refuseStringless(cls, name, property as Schema);
    const description = (property as Schema).description;
    return { name, ...(typeof description === 'string' && { description }), required: required.has(name) };
  });
}

/**
 * A prompt argument is a string (MCP's `prompts/get` takes `{ [name]: string }`): a property whose
 * schema names another type (null aside) can never be satisfied, unless class-transformer turns the
 * string into that type first (`@Type(() => Number)`, `@Transform`), which is asked of
 * `plainToInstance` itself.
 */
function refuseStringless(cls: Function, name: string, property: Schema): void {
  // orNull() writes a nullable property as `anyOf: [schema, { type: 'null' }]`.
  const branches: unknown[] = Array.isArray(property.anyOf) ? property.anyOf : [];
  const body: unknown = branches.length === 2 && isSchema(branches[1]) && branches[1].type === 'null' ? branches[0] : property;
  const type = isSchema(body) && typeof body.$ref === 'string' ? 'object' : isSchema(body) ? body.type : undefined;
  if (typeof type !== 'string' || type === 'string') return;
  try {
    const converted = transformerLibrary().plainToInstance(cls as new () => object, { [name]: '1' }, { enableImplicitConversion: false }) as Record<string, unknown>;
    if (converted[name] !== '1') return;
  } catch {
    return; // a @Transform that cannot take '1' converts something: the author's own rule
  }
  const how =
    type === 'boolean'
      ? "take the string with @IsBooleanString(), or convert it first with @Transform(({ value }) => value === 'true') (not @Type(() => Boolean): any non-empty string is true)"
      : type === 'number' || type === 'integer'
        ? 'take the string with @IsNumberString() ({ no_symbols: true } for digits only), or convert it first with @Type(() => Number) (class-transformer)'
        : 'take a string (e.g. JSON text with @IsJSON()) and parse it in the prompt';
  throw new HermesError(
    'HERMES_PROMPT_ARGUMENT_TYPE',
    `${cls.name}.${name}: prompt arguments are strings (MCP prompts/get), but this argument takes only a JSON ${type}, so no client can satisfy it. ` +
      `Make it a string rule: ${how}.`,
  );
}

/**
 * Every rule type the builder has a converter for: class-validator-jsonschema's, ours, nested
 * classes and custom validators. Any other rule type is converted as a custom validator.
 *
 * @internal
 */
export function convertedRuleTypes(): string[] {
  return [...new Set([...jsonSchemaInterop().libraryRuleTypes(), ...Object.keys(FIXED_CONVERTERS), ValidationTypes.NESTED_VALIDATION, ValidationTypes.CUSTOM_VALIDATION])];
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
  // The discriminator keys class-transformer deletes from a subtype's input, by class.
  const dropped = new Map<Function, Set<string>>();
  const outer = building;
  building = { refTo, dropped };
  try {
    // The fast storage answers as class-validator's own does, without a scan of every decorated class.
    const options = classProperties().conversionOptions(converters(), askedOnce(ruleStorage()));
    const warnings: SchemaWarning[] = [];
    const top = classSchema(root, options, warnings, dropped);
    const defs: Record<string, Schema> = {};
    // A Map iterates over entries added while iterating: classes found in $defs get theirs too.
    for (const [cls, name] of names) defs[name] = cls === root ? top : classSchema(cls, options, warnings, dropped);
    warningsOf.set(root, Object.freeze(uniqueWarnings(warnings)));
    if (names.size === 0) return top as JsonSchemaObject;
    const whole: Schema = { ...top, $defs: defs };
    // The root's ignored keys, for closedObjectSchema, which looks them up by object.
    const ignored = ignoredKeysOf.get(top);
    if (ignored) ignoredKeysOf.set(whole, ignored);
    return whole as JsonSchemaObject;
  } finally {
    building = outer;
  }
}

/**
 * `storage`, each class's rules (as the schema builder asks for them: no groups, `always`) looked
 * up once for the length of one build, which asks about a class five times over (its properties,
 * the probe, the conversion, the warnings); nothing is decorated while a build runs. Each caller
 * gets its own copy of the array.
 */
function askedOnce(storage: MetadataStorage): MetadataStorage {
  const found = new Map<Function, ValidationMetadata[]>();
  const view = Object.create(storage) as MetadataStorage;
  view.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (typeof target !== 'function' || schema !== '' || always !== true || strictGroups !== false || (groups !== undefined && groups.length > 0)) {
      return storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
    }
    let rules = found.get(target);
    if (!rules) found.set(target, (rules = storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups)));
    return rules.slice();
  };
  return view;
}

/** The schema {@link build} is making: what its nested-class converter refers to. */
let building: NestedContext | undefined;

let table: Record<string, Converter> | undefined;

/**
 * The converters every build uses, made once (a table of ~90, which a build used to copy): the
 * nested-class one works for the build under way.
 */
function converters(): Record<string, Converter> {
  return (table ??= {
    ...FIXED_CONVERTERS,
    [ValidationTypes.NESTED_VALIDATION]: nestedConverter(() => building!),
    [ValidationTypes.CUSTOM_VALIDATION]: unknownRule,
  });
}

/** One class: class-validator-jsonschema's properties, finished with what class-validator accepts. */
function classSchema(cls: Function, options: ConversionOptions, warnings: SchemaWarning[], dropped: ReadonlyMap<Function, Set<string>>): Schema {
  // `type` is recomputed (a class is an object), and `required` comes from the probe.
  const { properties: found, type: _type, ...rest } = classProperties().convertClass(cls, options);
  const raw = (found ?? {}) as Record<string, Schema>;
  // What class-transformer reads each property under, and the keys it drops (transformer.ts).
  const storage = options.classValidatorMetadataStorage as MetadataStorage;
  const ruled = storage.getTargetValidationMetadatas(cls, '', true, false).map((meta) => meta.propertyName);
  const keys = inputKeysOf(cls, Object.keys(raw), ruled);
  const facts = probe(cls, keys.properties, storage);
  if (keys.ignored.length > 0) {
    const blank = failing(validateObjectSync(probeInstance(cls as new () => object, {})));
    for (const [property, looser] of requiredExcluded(cls, keys.ignored, blank)) warnings.push(looserWarning(cls.name, property, looser));
  }
  warnings.push(...warningsAbout(cls, storage, new Set([...facts.required].map((key) => keys.properties.get(key)!))));
  const properties: Record<string, Schema> = {};
  for (const [name, propertyName] of keys.properties) {
    // Descriptions stay at the top, where clients read them, outside what a conversion wraps.
    const [annotations, ruled] = splitAnnotations(withTypes(raw[name]));
    // `@ValidateIf(condition)`: every rule of the property applies only when its code says so.
    const converted = facts.guarded.has(name)
      ? { schema: {}, looser: undefined }
      : convertedProperty(cls, propertyName, ruled, (value) => acceptsConverted(cls, propertyName, value));
    const looser = converted.looser ?? keys.looser.get(propertyName);
    if (looser) warnings.push(looserWarning(cls.name, propertyName, looser));
    let property = { ...converted.schema, ...annotations };
    const description = descriptionOf(cls, propertyName);
    if (description !== undefined) property = { ...property, description };
    if (facts.defaults.has(name)) property = { ...property, default: facts.defaults.get(name) };
    const header = headerOf(cls, propertyName);
    if (header !== undefined) property = { ...property, [X_MCP_HEADER]: header };
    // A header-mirrored property (`x-mcp-header`) must keep a plain type at the top, where clients
    // look for it; it then refuses null, which a header cannot carry anyway.
    properties[name] = facts.nullable.has(name) && !(X_MCP_HEADER in property) ? orNull(property) : property;
  }
  // A discriminator's property, which class-transformer deletes before validation (transformer.ts):
  // validation never sees it, and refuses every input if its rules refuse a missing value.
  const deleted = [...(dropped.get(cls) ?? [])].filter((key) => key in properties);
  for (const key of deleted) delete properties[key];
  const required = Object.keys(properties).filter((name) => facts.required.has(name) && !facts.conditional.has(name));
  const description = descriptionOf(cls);
  const schema = {
    type: 'object',
    ...rest,
    ...(description !== undefined && { description }),
    properties,
    ...(required.length > 0 && { required }),
    ...(deleted.some((key) => facts.required.has(key)) && NEVER),
  };
  const ignored = [...new Set([...keys.ignored, ...(dropped.get(cls) ?? [])])].filter((key) => !(key in properties));
  if (ignored.length > 0) ignoredKeysOf.set(schema, ignored);
  return schema;
}

/** Whether the rules of `property` take `value`, as class-transformer left it (converted). */
function acceptsConverted(cls: Function, property: string, value: unknown): boolean {
  const instance = Object.assign(new (cls as new () => object)(), { [property]: value });
  return !failing(validateObjectSync(instance)).has(property);
}

interface Facts {
  required: Set<string>;
  nullable: Set<string>;
  defaults: Map<string, unknown>;
  /** Properties with `@ValidateIf(condition)`: no rule of theirs is published. */
  guarded: Set<string>;
  /** Those, and properties with a rule of its own `validateIf`: never required (the condition may not hold). */
  conditional: Set<string>;
}

/**
 * Asks class-validator itself which properties are required and which take `null`, by validating
 * `{}` and an all-`null` input. Reading the decorators instead gets it wrong: `@ValidateNested()`
 * alone lets a missing value pass, `@Allow()` never refuses one, an initialised field has a
 * default, and `@IsOptional()` also lets `null` through. Field initialisers become `default`.
 */
function probe(cls: Function, keys: ReadonlyMap<string, string>, storage: MetadataStorage): Facts {
  const names = [...keys.keys()];
  const facts: Facts = { required: new Set(), nullable: new Set(names), defaults: new Map(), guarded: new Set(), conditional: new Set() };
  if (names.length === 0) return facts;
  // class-validator names properties; the input (and the schema) has their keys (`@Expose({ name })`).
  const keysOf = (properties: Set<string>) => new Set(names.filter((key) => properties.has(keys.get(key)!)));
  const guarded = new Set<string>();
  const conditional = new Set<string>();
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    if (isValidateIf(meta)) guarded.add(meta.propertyName);
    if (isValidateIf(meta) || meta.validateIf) conditional.add(meta.propertyName);
  }
  facts.guarded = keysOf(guarded);
  facts.conditional = keysOf(conditional);
  const ctor = cls as new () => object;
  try {
    // A class with a fast plan (flat rules) is probed through it: the same verdicts, without
    // class-validator building every error message.
    const plan = planOf(cls);
    const failingOf = (instance: Record<string, unknown>) => keysOf((plan && failingProperties(plan, instance)) ?? failing(validateObjectSync(instance)));
    const blank = probeInstance(ctor, {});
    facts.required = failingOf(blank);
    for (const name of names) {
      const value = blank[keys.get(name)!];
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
