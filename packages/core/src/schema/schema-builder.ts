/**
 * The schema builder: a class-validator decorated class becomes a self-contained JSON Schema
 * 2020-12 object schema (the `inputSchema`/`outputSchema` of a tool).
 *
 * class-validator-jsonschema walks the decorators; this file corrects it wherever its output would
 * accept what class-validator refuses or refuse what it accepts (see FIXED_CONVERTERS and
 * classSchema; a property's rules are combined by conjoin.ts so that all of them hold), puts
 * nested classes under `$defs`, and caches one frozen schema per class. Where validator.js's
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
import {
  ARRAY_CONTAINS,
  ARRAY_NOT_CONTAINS,
  ARRAY_UNIQUE,
  CONTAINS,
  EQUALS,
  IS_ALPHA,
  IS_ALPHANUMERIC,
  IS_BASE64,
  IS_BOOLEAN,
  IS_BOOLEAN_STRING,
  IS_BYTE_LENGTH,
  IS_CREDIT_CARD,
  IS_CURRENCY,
  IS_DATE,
  IS_DATE_STRING,
  IS_DIVISIBLE_BY,
  IS_EMAIL,
  IS_EMPTY,
  IS_ENUM,
  IS_FQDN,
  IS_HEX_COLOR,
  IS_HEXADECIMAL,
  IS_IN,
  IS_INSTANCE,
  IS_INT,
  IS_IP,
  IS_ISBN,
  IS_ISIN,
  IS_ISO8601,
  IS_JSON,
  IS_LATITUDE,
  IS_LONGITUDE,
  IS_LOWERCASE,
  IS_MOBILE_PHONE,
  IS_MONGO_ID,
  IS_NEGATIVE,
  IS_NOT_EMPTY,
  IS_NOT_EMPTY_OBJECT,
  IS_NOT_IN,
  IS_NUMBER,
  IS_NUMBER_STRING,
  IS_OPTIONAL,
  IS_POSITIVE,
  IS_STRING,
  IS_SURROGATE_PAIR,
  IS_UPPERCASE,
  IS_URL,
  IS_UUID,
  IS_VARIABLE_WIDTH,
  IS_LENGTH,
  MATCHES,
  MAX_LENGTH,
  MIN_LENGTH,
  MAX,
  MAX_DATE,
  MIN,
  MIN_DATE,
  NOT_CONTAINS,
  NOT_EQUALS,
  ValidationError,
  ValidationTypes,
} from 'class-validator';
import * as classValidator from 'class-validator';
import type { MetadataStorage } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import type { JsonSchemaObject, PromptArgument } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import { Converter, ConversionOptions, conversionOptions, convertClass, withConstraintName } from './class-properties';
import { withTypes } from './conjoin';
import { X_MCP_HEADER, descriptionOf, headerOf } from './recorded';
import { ISO_DATE_PATTERN, Iso8601Options, iso8601Pattern } from './iso8601';
import { probeInstance } from './probe-instance';
import { patternOf } from './regex-pattern';
import {
  ASTRAL,
  Base64Options,
  FULL_WIDTH,
  FqdnOptions,
  HALF_WIDTH,
  NumericOptions,
  base64Pattern,
  fqdnPattern,
  ipv6Pattern,
  lengthPattern,
  letterPattern,
  numericPattern,
} from './validator-patterns';
import { transformerMetadata } from '../interop/class-transformer';
import { type ValidationMetadata, constraintInstance, ruleStorage, validateObjectSync } from '../interop/class-validator';
import { libraryRuleTypes } from '../interop/class-validator-jsonschema';
import { convertedProperty, discriminatedSchema, inputKeysOf, requiredExcluded } from './transformer';
import { failingProperties, planOf } from '../validation/fast-path';

/**
 * The `$schema` URI of JSON Schema 2020-12. The built schemas do not carry it: MCP 2025-11-25
 * clients assume 2020-12 when it is absent, and older revisions do not expect the key. Add it
 * yourself where a document must name its dialect.
 */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

const cache = new WeakMap<Function, JsonSchemaObject>();
/** The warnings found while building a root class's schema (its nested classes' included). */
const warningsOf = new WeakMap<Function, readonly SchemaWarning[]>();
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
 * // { type: 'object', properties: { city: { type: 'string', minLength: 2, pattern: '^(?:…){2,80}$' },
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

const closedCache = new WeakMap<Function, JsonSchemaObject>();
/** Per class schema (root or `$defs`): the input keys the server ignores or may read (transformer.ts). */
const ignoredKeysOf = new WeakMap<object, readonly string[]>();

/**
 * {@link buildObjectSchema}, for an app that validates with `forbidNonWhitelisted`: class-validator
 * then refuses a key no rule names, in the input and in every nested object, so the root and every
 * class under `$defs` say `additionalProperties: false` (unless its `@JSONSchema` says otherwise).
 * Built once per class and cached, deeply frozen.
 *
 * @example
 * closedObjectSchema(ForecastInput); // { type: 'object', properties: {...}, required: [...], additionalProperties: false }
 * @internal
 */
export function closedObjectSchema(cls: Function): JsonSchemaObject {
  let schema = closedCache.get(cls);
  if (!schema) {
    const open = buildObjectSchema(cls) as Schema;
    // The keys class-transformer drops (`@Exclude`) or reads in place of another stay allowed, as the server allows them.
    const close = (object: Schema): Schema => {
      if ('additionalProperties' in object) return object;
      const ignored = ignoredKeysOf.get(object);
      const patternProperties = ignored && { [`^(?:${ignored.map(escapeRegExp).join('|')})$`]: {} };
      return { ...object, ...(patternProperties && { patternProperties }), additionalProperties: false };
    };
    const defs = isSchema(open.$defs) ? Object.fromEntries(Object.entries(open.$defs).map(([name, def]) => [name, close(def as Schema)])) : undefined;
    schema = deepFreeze({ ...close(open), ...(defs && { $defs: defs }) }) as JsonSchemaObject;
    closedCache.set(cls, schema);
  }
  return schema;
}

/**
 * Something in a class's rules that is legal but rarely meant, found while its schema is built; the
 * bootstrap logs it (see the scanner). `className.property` is where it is declared.
 */
export interface SchemaWarning {
  /**
   * `HERMES_OPTIONAL_NESTED`: `@ValidateNested()` without `@IsDefined()` or `@IsOptional()`, and
   * no other rule that refuses a missing value: class-validator accepts the input without it.
   * `HERMES_DATE_WITHOUT_TYPE`: `@IsDate()` (`@MinDate`, `@MaxDate`) without `@Type(() => Date)`:
   * JSON has no dates, so no input passes (the bootstrap refuses such an input class, with this
   * message; an output class holds Dates and may).
   * `HERMES_SCHEMA_LOOSER`: a rule JSON Schema cannot say (a checksum, a custom validator...): the
   * published schema accepts more than validation does (`rule` says which, `reason` what it checks).
   */
  readonly code: 'HERMES_OPTIONAL_NESTED' | 'HERMES_DATE_WITHOUT_TYPE' | 'HERMES_SCHEMA_LOOSER';
  readonly className: string;
  readonly property: string;
  /** `HERMES_SCHEMA_LOOSER`: the decorator, as written (`@IsCreditCard()`, `@Validate(IsEven)`). */
  readonly rule?: string;
  /** `HERMES_SCHEMA_LOOSER`: what validation checks that the schema does not say. */
  readonly reason?: string;
  /** One line saying what happens and how to fix it, for a log. */
  readonly message: string;
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
  const schema = buildObjectSchema(cls);
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
    const converted = plainToInstance(cls as new () => object, { [name]: '1' }, { enableImplicitConversion: false }) as Record<string, unknown>;
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
  return [...new Set([...libraryRuleTypes(), ...Object.keys(FIXED_CONVERTERS), ValidationTypes.NESTED_VALIDATION, ValidationTypes.CUSTOM_VALIDATION])];
}

/**
 * The class `@Type(() => X)` names for a property, if any.
 *
 * @internal
 */
export function nestedClassOf(target: Function, property: string): Function | undefined {
  const meta = transformerMetadata().findTypeMetadata(target, property);
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
  // The discriminator keys class-transformer deletes from a subtype's input, by class.
  const dropped = new Map<Function, Set<string>>();
  const converters = {
    ...FIXED_CONVERTERS,
    [ValidationTypes.NESTED_VALIDATION]: nestedConverter(refTo, dropped),
    [ValidationTypes.CUSTOM_VALIDATION]: unknownRule,
  };
  // The fast storage answers as class-validator's own does, without a scan of every decorated class.
  const options = conversionOptions(converters, ruleStorage());
  const warnings: SchemaWarning[] = [];
  const top = classSchema(root, options, warnings, dropped);
  const defs: Record<string, Schema> = {};
  // A Map iterates over entries added while iterating: classes found in $defs get theirs too.
  for (const [cls, name] of names) defs[name] = cls === root ? top : classSchema(cls, options, warnings, dropped);
  warningsOf.set(root, Object.freeze(uniqueWarnings(warnings)));
  return (names.size > 0 ? { ...top, $defs: defs } : top) as JsonSchemaObject;
}

/** One class: class-validator-jsonschema's properties, finished with what class-validator accepts. */
function classSchema(cls: Function, options: ConversionOptions, warnings: SchemaWarning[], dropped: ReadonlyMap<Function, Set<string>>): Schema {
  // `type` is recomputed (a class is an object), and `required` comes from the probe.
  const { properties: found, type: _type, ...rest } = convertClass(cls, options);
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

/** `@ValidateIf(condition)` (a conditional rule other than `@IsOptional()`'s, which the probe reads). */
function isValidateIf(meta: ValidationMetadata): boolean {
  return meta.type === ValidationTypes.CONDITIONAL_VALIDATION && meta.name !== IS_OPTIONAL;
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

const DATE_RULES = new Set<string>([IS_DATE, MIN_DATE, MAX_DATE]);

/**
 * What a class's rules do that their author rarely means:
 * - `@ValidateNested()` alone lets the input leave the property out: class-validator skips nested
 *   validation of `undefined` (and only refuses `null`). Most people expect it required. No warning
 *   when another rule refuses a missing value (the probe says so), or `@IsOptional()`/`@ValidateIf`
 *   says it may be absent.
 * - `@IsDate()` (`@MinDate`, `@MaxDate`) without `@Type(() => Date)`: the JSON value stays a string
 *   or number, never a Date, so every input is refused.
 */
function warningsAbout(cls: Function, storage: MetadataStorage, required: Set<string>): SchemaWarning[] {
  const rules = new Map<string, ValidationMetadata[]>();
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    const list = rules.get(meta.propertyName);
    if (list) list.push(meta);
    else rules.set(meta.propertyName, [meta]);
  }
  const out: SchemaWarning[] = [];
  for (const [property, metas] of rules) {
    for (const meta of metas) {
      const looser = looserRule(storage, meta);
      if (!looser) continue;
      out.push(looserWarning((meta.target as Function).name || cls.name, property, looser));
    }
    const nested = metas.find((meta) => meta.type === ValidationTypes.NESTED_VALIDATION);
    if (nested && !required.has(property) && !metas.some((meta) => meta.type === ValidationTypes.CONDITIONAL_VALIDATION)) {
      const className = (nested.target as Function).name || cls.name;
      out.push({
        code: 'HERMES_OPTIONAL_NESTED',
        className,
        property,
        message:
          `${className}.${property}: @ValidateNested() without @IsDefined() or @IsOptional() lets the input leave it out ` +
          `(class-validator skips nested validation of a missing value; it only refuses null). ` +
          `Add @IsDefined() to require it, or @IsOptional() to say it may be absent.`,
      });
    }
    const dateRule = (meta: ValidationMetadata) =>
      meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls).find((constraint) => DATE_RULES.has(constraint.name))?.name : undefined;
    const date = metas.find((meta) => dateRule(meta) !== undefined);
    if (date && nestedClassOf(cls, property) !== Date) {
      const className = (date.target as Function).name || cls.name;
      const rule = dateRule(date)!;
      const decorator = `@${rule[0].toUpperCase()}${rule.slice(1)}()`;
      out.push({
        code: 'HERMES_DATE_WITHOUT_TYPE',
        className,
        property,
        message:
          `${className}.${property}: ${decorator} without @Type(() => Date) refuses every input: JSON has no dates, and the value stays a string. ` +
          `Add @Type(() => Date) (class-transformer) to turn an ISO 8601 string into a Date, or take the string with @IsDateString().`,
      });
    }
  }
  return out;
}

/** A `HERMES_SCHEMA_LOOSER` warning about `className.property`. */
function looserWarning(className: string, property: string, looser: { rule: string; reason: string }): SchemaWarning {
  return {
    code: 'HERMES_SCHEMA_LOOSER',
    className,
    property,
    ...looser,
    message: `${className}.${property}: the published schema accepts more than ${looser.rule} does: JSON Schema cannot say ${looser.reason}; validation refuses the rest.`,
  };
}

function uniqueWarnings(warnings: SchemaWarning[]): SchemaWarning[] {
  const seen = new Map<string, SchemaWarning>();
  for (const warning of warnings) seen.set(`${warning.code} ${warning.className}.${warning.property} ${warning.rule ?? ''}`, warning);
  return [...seen.values()];
}

function failing(errors: ValidationError[]): Set<string> {
  return new Set(errors.map((error) => error.property).filter((name): name is string => typeof name === 'string'));
}

/**
 * class-validator's own string rules that no converter spells out: each checks
 * `typeof value === 'string'` and then a grammar of validator.js (or libphonenumber, Intl) that no
 * pattern here says. They publish `{ type: "string" }`, and are warned about as looser.
 */
const STRING_ONLY_RULES = [
  'IsFirebasePushId',
  'isBase32',
  'isBase58',
  'isBIC',
  'isBtcAddress',
  'isDataURI',
  'isDecimal',
  'isEAN',
  'isEthereumAddress',
  'isHash',
  'isHSL',
  'isIBAN',
  'isIdentityCard',
  'isISO31661Alpha2',
  'isISO31661Alpha3',
  'isISO31661Numeric',
  'isISO4217CurrencyCode',
  'isISO6391',
  'isISRC',
  'isISSN',
  'isJwt',
  'isLatLong',
  'isLocale',
  'isMacAddress',
  'isMagnetURI',
  'isMimeType',
  'isOctal',
  'isPassportNumber',
  'isPhoneNumber',
  'isPort',
  'isPostalCode',
  'isRFC3339',
  'isRgbColor',
  'isSemVer',
  'isStrongPassword',
  'isTaxId',
  'isTimeZone',
];

/**
 * What validation checks beyond the published schema, for the rules whose schema is looser (always,
 * or with some constraints: undefined when this use is exact). Every other rule the builder converts
 * is exact — decorator-agreement.spec.ts holds both claims, value by value, and renders the table in
 * docs/schemas.md. A rule with no converter at all (a custom validator) is looser too.
 */
const LOOSER: Record<string, string | ((meta: ValidationMetadata) => string | undefined)> = {
  [IS_EMAIL]: 'validator.js\'s address grammar (format "email" takes some addresses it refuses, and refuses some it takes)',
  [IS_URL]: 'validator.js\'s URL grammar and options (format "uri" needs a scheme it does not, and takes `mailto:` and `localhost` it refuses)',
  [IS_CREDIT_CARD]: "a card number's Luhn checksum",
  [IS_CURRENCY]: 'the amount grammar (symbol, separators, options)',
  [IS_ISBN]: "an ISBN's checksum",
  [IS_ISIN]: "an ISIN's checksum",
  [IS_JSON]: 'that the string parses as JSON',
  [IS_MOBILE_PHONE]: "each locale's phone number grammar",
  [IS_BYTE_LENGTH]: 'a length in UTF-8 bytes (the schema bounds characters, 1 to 4 bytes each)',
  [IS_FQDN]: (meta) =>
    (meta.constraints?.[0] as FqdnOptions | undefined)?.ignore_max_length ? undefined : 'a label length counted in UTF-16 units (a character beyond the BMP counts twice)',
  [IS_LATITUDE]: 'the grammar of a latitude string (and of a number written with an exponent)',
  [IS_LONGITUDE]: 'the grammar of a longitude string (and of a number written with an exponent)',
  [IS_INSTANCE]: (meta) => {
    // With @Type(() => TheClass) (or a subclass), every object becomes one: exact.
    const wanted = meta.constraints?.[0] as Function | undefined;
    const made = nestedClassOf(meta.target as Function, meta.propertyName);
    const exact = typeof wanted === 'function' && made !== undefined && (made === wanted || made.prototype instanceof wanted);
    return exact ? undefined : 'the class of an instance (JSON has only plain objects: without @Type(() => TheClass) no input passes)';
  },
  [ARRAY_UNIQUE]: (meta) =>
    ({
      exact: undefined,
      selector: "uniqueness by the selector's result (code)",
      identity: 'uniqueness by identity (===: two equal objects or arrays are distinct; give the items a primitive type with `each: true` to publish uniqueItems)',
    })[uniquenessOf(meta)],
  [MIN_DATE]: 'a bound on a date (it is in the description)',
  [MAX_DATE]: 'a bound on a date (it is in the description)',
  [IS_NUMBER]: (meta) => ((meta.constraints?.[0] as { maxDecimalPlaces?: number } | undefined)?.maxDecimalPlaces !== undefined ? 'a number of decimal places' : undefined),
  [MATCHES]: (meta) =>
    matchesSchema(meta).pattern === undefined ? 'this regular expression (a back-reference, a look-around, or `.` that counts a character beyond the BMP as two)' : undefined,
  [IS_ALPHA]: (meta) => (letterPattern('alpha', localeOf(meta.constraints[0])) === undefined ? "this locale's letters" : undefined),
  [IS_ALPHANUMERIC]: (meta) => (letterPattern('alphanumeric', localeOf(meta.constraints[0])) === undefined ? "this locale's letters" : undefined),
  [IS_NUMBER_STRING]: (meta) => (numericPattern((meta.constraints[0] ?? {}) as NumericOptions) === undefined ? "this locale's numbers" : undefined),
  ...Object.fromEntries(STRING_ONLY_RULES.map((rule) => [rule, 'its grammar (validator.js)'])),
};

/**
 * The rules class-validator itself defines: every rule name it exports (`IS_EMAIL = 'isEmail'`...).
 * Each is converted by us or by class-validator-jsonschema; any other rule is a custom validator's.
 * Read from the exports, not from the converter tables, so that the answer holds when the fast
 * paths are off.
 */
const CLASS_VALIDATOR_RULES = new Set<string>(
  Object.entries(classValidator)
    .filter(([key, value]) => /^[A-Z][A-Z0-9_]*$/.test(key) && typeof value === 'string')
    .map(([, value]) => value as string),
);
/** The decorators not named by capitalising their rule's name. */
const DECORATOR_NAMES: Record<string, string> = {
  isFqdn: 'IsFQDN',
  isUuid: 'IsUUID',
  isIp: 'IsIP',
  isJson: 'IsJSON',
  isJwt: 'IsJWT',
  isIsbn: 'IsISBN',
  isIsin: 'IsISIN',
  isIso8601: 'IsISO8601',
  isMacAddress: 'IsMACAddress',
  isLength: 'Length',
};

/**
 * The rule and reason when this rule's published schema accepts more than class-validator does:
 * a rule in {@link LOOSER}, or one no converter knows (a custom validator). Presence and nesting
 * (`@IsOptional`, `@ValidateNested`...) are said exactly by the schema's structure.
 */
function looserRule(storage: MetadataStorage, meta: ValidationMetadata): { rule: string; reason: string } | undefined {
  if (isValidateIf(meta)) return { rule: '@ValidateIf()', reason: 'its condition (code): the schema has none of the rules it guards, and does not require the field' };
  if (meta.type !== ValidationTypes.CUSTOM_VALIDATION) return undefined;
  const typed = withConstraintName(storage, meta);
  if (meta.validateIf) return { rule: ruleName(storage, meta), reason: 'its validateIf condition (code): the schema leaves the rule out' };
  const own = CLASS_VALIDATOR_RULES.has(typed.type);
  const known = LOOSER[typed.type];
  const reason = typeof known === 'function' ? known(typed) : (known ?? (own ? undefined : 'what its code checks'));
  if (reason === undefined) return undefined;
  return { rule: ruleName(storage, meta), reason };
}

/** The decorator of a rule, as written: `@IsCreditCard()`, `@Validate(IsEven)`. */
function ruleName(storage: MetadataStorage, meta: ValidationMetadata): string {
  const typed = withConstraintName(storage, meta);
  const name = DECORATOR_NAMES[typed.type] ?? `${typed.type[0].toUpperCase()}${typed.type.slice(1)}`;
  return CLASS_VALIDATOR_RULES.has(typed.type) ? `@${name}()` : `@Validate(${(meta.constraintCls as Function | undefined)?.name ?? typed.type})`;
}

/**
 * Replacements for class-validator-jsonschema's converters, each because the original disagrees
 * with what class-validator accepts, or emits something that is not JSON Schema 2020-12.
 */
const FIXED_CONVERTERS: Record<string, Converter> = {
  // isIn takes any listed value whatever its type; the original drops mixed-type lists entirely.
  [IS_IN]: (meta) => listedValues(meta.constraints[0] as unknown[]),
  // The original drops mixed-type lists (and null) and then accepts every value.
  [IS_NOT_IN]: (meta) => unlistedValues(meta.constraints[0] as unknown[]),
  // The original says nothing of null (then accepts every value) and refuses nothing for objects.
  [EQUALS]: (meta) => listedValues([meta.constraints[0]]),
  [NOT_EQUALS]: (meta) => unlistedValues([meta.constraints[0]]),
  // The original calls every enum a string. A numeric enum's names are values too (isEnum takes them).
  [IS_ENUM]: (meta) => ({ enum: enumValues(meta.constraints[0] as object) }),
  // No `type` here: lodash.merge lets the last decorator's `type` win, so `@Min(1) @IsInt()` came out
  // as "number". withTypes() puts "number" back only where no other decorator chose a type.
  [MIN]: (meta) => ({ minimum: meta.constraints[0] }),
  [MAX]: (meta) => ({ maximum: meta.constraints[0] }),
  [IS_POSITIVE]: { exclusiveMinimum: 0 },
  [IS_NEGATIVE]: { exclusiveMaximum: 0 },
  [IS_DIVISIBLE_BY]: (meta) => divisibleBySchema(meta.constraints[0]),
  // isNotEmpty is no string check: it refuses '', null and undefined, nothing else.
  [IS_NOT_EMPTY]: { not: { enum: ['', null] } },
  // The original uses OpenAPI's `nullable`, which JSON Schema does not have.
  [IS_EMPTY]: { enum: ['', null] },
  [MATCHES]: matchesSchema,
  // The seed is literal text, not a regular expression.
  [CONTAINS]: (meta) => ({ type: 'string', pattern: escapeRegExp(String(meta.constraints[0])) }),
  [NOT_CONTAINS]: (meta) => ({ type: 'string', not: { pattern: escapeRegExp(String(meta.constraints[0])) } }),
  // Formats "uri" and "email" differ from validator.js both ways (a URL without scheme, `localhost`,
  // a quoted local part...): a format would refuse what the server takes. Looser, and warned.
  [IS_URL]: { type: 'string' },
  [IS_EMAIL]: { type: 'string' },
  [IS_UUID]: (meta) => uuidSchema(meta.constraints[0]),
  // Not format "date-time", which refuses most of what validator.js accepts (a date alone, week and
  // ordinal dates, reduced precision...): its own grammar, spelled out (see iso8601.ts).
  [IS_DATE_STRING]: (meta) => ({ type: 'string', pattern: iso8601Pattern(isoOptions(meta.constraints[0])) }),
  [IS_ISO8601]: (meta) => ({ type: 'string', pattern: iso8601Pattern(isoOptions(meta.constraints[0])) }),
  [IS_IP]: (meta) => ipSchema(meta.constraints[0]),
  // Format "hostname" takes `localhost`, one-letter and numeric top-level domains, and refuses IDNs.
  [IS_FQDN]: (meta) => ({ type: 'string', pattern: fqdnPattern((meta.constraints[0] ?? {}) as FqdnOptions) }),
  // `contentEncoding` is an annotation: the pattern is what validator.js checks.
  [IS_BASE64]: (meta) => base64Schema((meta.constraints[0] ?? {}) as Base64Options),
  // The original has en-US letters for every locale.
  [IS_ALPHA]: (meta) => stringPattern(letterPattern('alpha', localeOf(meta.constraints[0]))),
  [IS_ALPHANUMERIC]: (meta) => stringPattern(letterPattern('alphanumeric', localeOf(meta.constraints[0]))),
  // The original refuses decimals ("1.5") and takes what `no_symbols` refuses ("+1").
  [IS_NUMBER_STRING]: (meta) => stringPattern(numericPattern((meta.constraints[0] ?? {}) as NumericOptions)),
  // validator.js's strict booleans: '1' and '0' too.
  [IS_BOOLEAN_STRING]: { type: 'string', enum: ['true', 'false', '1', '0'] },
  // Four and eight digits (with alpha) too.
  [IS_HEX_COLOR]: { type: 'string', pattern: '^#?(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' },
  // A `0x` or `0h` prefix too (either case).
  [IS_HEXADECIMAL]: { type: 'string', pattern: '^(?:0[xXhH])?[0-9a-fA-F]+$' },
  // isMongoId is isHexadecimal of length 24: the prefix counts.
  [IS_MONGO_ID]: { type: 'string', pattern: '^(?:0[xXhH][0-9a-fA-F]{22}|[0-9a-fA-F]{24})$' },
  // `str === str.toLowerCase()`: no character that lowercasing changes (the Unicode property is
  // exactly that set; the tests check it against toLowerCase for every code point).
  [IS_LOWERCASE]: { type: 'string', pattern: '^\\P{Changes_When_Lowercased}*$' },
  [IS_UPPERCASE]: { type: 'string', pattern: '^\\P{Changes_When_Uppercased}*$' },
  // A pair of UTF-16 surrogates is one code point beyond the BMP, which is what a pattern sees.
  [IS_SURROGATE_PAIR]: { type: 'string', pattern: `[${ASTRAL}]` },
  // A full-width and a half-width character, in either order.
  [IS_VARIABLE_WIDTH]: { type: 'string', pattern: `${FULL_WIDTH}[\\s\\S]*${HALF_WIDTH}|${HALF_WIDTH}[\\s\\S]*${FULL_WIDTH}` },
  [IS_BYTE_LENGTH]: (meta) => byteLengthSchema(meta.constraints[0], meta.constraints[1]),
  [IS_LENGTH]: (meta) => lengthSchema(meta.constraints[0], meta.constraints[1]),
  [MIN_LENGTH]: (meta) => lengthSchema(meta.constraints[0], undefined),
  [MAX_LENGTH]: (meta) => lengthSchema(0, meta.constraints[0]),
  [IS_DATE]: dateSchema,
  [MIN_DATE]: dateSchema,
  [MAX_DATE]: dateSchema,
  // The original returns nothing (any array) when a value is null or not a primitive.
  [ARRAY_CONTAINS]: (meta) => arrayContainsSchema(meta.constraints[0] as unknown[]),
  [ARRAY_NOT_CONTAINS]: (meta) => arrayNotContainsSchema(meta.constraints[0] as unknown[]),
  [ARRAY_UNIQUE]: (meta) => (uniquenessOf(meta) === 'exact' ? { type: 'array', uniqueItems: true } : { type: 'array' }),
  [IS_NOT_EMPTY_OBJECT]: (meta) => notEmptyObjectSchema(meta.constraints[0] as { nullable?: boolean } | undefined),
  // Not JSON Schema formats (strict validators refuse unknown ones): the type stays, class-validator checks the rest.
  [IS_CREDIT_CARD]: { type: 'string' },
  [IS_CURRENCY]: { type: 'string' },
  [IS_ISBN]: { type: 'string' },
  [IS_ISIN]: { type: 'string' },
  [IS_JSON]: { type: 'string', contentMediaType: 'application/json' },
  [IS_MOBILE_PHONE]: { type: 'string' },
  ...Object.fromEntries(STRING_ONLY_RULES.map((rule) => [rule, { type: 'string' }])),
  // A number or a string (which the bounds do not reach); validator.js checks the string's grammar.
  [IS_LATITUDE]: { anyOf: [{ type: 'number', minimum: -90, maximum: 90 }, { type: 'string' }] },
  [IS_LONGITUDE]: { anyOf: [{ type: 'number', minimum: -180, maximum: 180 }, { type: 'string' }] },
  // JSON has no instances: only class-transformer's @Type makes one, from an object.
  [IS_INSTANCE]: { type: 'object' },
};

/** A schema no value passes (a rule nothing JSON can carry satisfies). */
const NEVER: Schema = { not: {} };

/** A JSON value `===` can find: objects never equal a fresh input, and NaN, Infinity, undefined are not JSON. */
function isJsonPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** One of these values, as `===` finds them. */
function listedValues(values: unknown[]): Schema {
  const found = Array.isArray(values) ? values.filter(isJsonPrimitive) : [];
  return found.length > 0 ? { enum: [...new Set(found)] } : NEVER;
}

/** None of these values, as `===` finds them. */
function unlistedValues(values: unknown[]): Schema {
  const found = Array.isArray(values) ? values.filter(isJsonPrimitive) : [];
  return found.length > 0 ? { not: { enum: [...new Set(found)] } } : {};
}

function isoOptions(options: unknown): Iso8601Options {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Iso8601Options;
  return { strict: given.strict === true, strictSeparator: given.strictSeparator === true };
}

function localeOf(locale: unknown): string | undefined {
  return typeof locale === 'string' ? locale : undefined;
}

/** A string matching `pattern`; a string, when the pattern cannot be said (class-validator checks the rest). */
function stringPattern(pattern: string | undefined): Schema {
  return pattern === undefined ? { type: 'string' } : { type: 'string', pattern };
}

/**
 * isDivisibleBy is `value % parseInt(divisor, 10) === 0`: the divisor's integer part, and never
 * true when that is 0 (`@IsDivisibleBy(0.5)`). The original takes the divisor as it is.
 */
function divisibleBySchema(divisor: unknown): Schema {
  const whole = typeof divisor === 'number' ? parseInt(String(divisor), 10) : NaN;
  return whole !== 0 && Number.isFinite(whole) ? { multipleOf: Math.abs(whole) } : { type: 'number', ...NEVER };
}

/**
 * isIP: version 4, 6 or either. validator.js's IPv6 takes a zone (`fe80::1%eth0`), which format
 * "ipv6" refuses, so IPv6 is a pattern; format "ipv4" is the same as validator.js's.
 */
function ipSchema(version: unknown): Schema {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a decorator's constraint: a string or a number
  const v = version === undefined || version === null || version === '' || version === 0 ? 'any' : String(version);
  if (v === '4') return { type: 'string', format: 'ipv4' };
  if (v === '6') return { type: 'string', pattern: ipv6Pattern() };
  if (v === 'any') return { type: 'string', anyOf: [{ format: 'ipv4' }, { pattern: ipv6Pattern() }] };
  return { type: 'string', ...NEVER }; // validator.js knows no other version
}

function base64Schema(options: Base64Options): Schema {
  const urlSafe = options.urlSafe === true;
  return { type: 'string', ...(!urlSafe && { contentEncoding: 'base64' }), pattern: base64Pattern(options) };
}

/**
 * isByteLength counts UTF-8 bytes (and refuses lone surrogates), which no keyword counts. What
 * can be said: a character is one to four bytes, so at most `max` characters and at least
 * `min / 4`. class-validator checks the bytes.
 */
function byteLengthSchema(min: unknown, max: unknown): Schema {
  const low = typeof min === 'number' && min > 0 ? Math.ceil(min / 4) : 0;
  return { type: 'string', ...(low > 0 && { minLength: low }), ...(typeof max === 'number' && max >= 0 && { maxLength: Math.floor(max) }) };
}

/**
 * `@Length`, `@MinLength`, `@MaxLength`: validator.js's isLength, which weighs a variation selector
 * after a character as nothing (`❤️` is one character), while `minLength`/`maxLength` count it. The
 * pattern says the count exactly (see lengthPattern). `minLength` stays beside it, since forms and
 * models read it first and it is implied (a string has at least as many code points as isLength
 * counts); `maxLength` cannot stay: `❤️❤️` is two characters for the server and four code points
 * for `maxLength: 2`, so it would refuse what the server takes.
 */
function lengthSchema(min: unknown, max: unknown): Schema {
  const low = typeof min === 'number' && min > 0 ? Math.ceil(min) : 0;
  const high = typeof max === 'number' ? Math.floor(max) : undefined;
  if (high !== undefined && (high < low || Number.isNaN(high))) return { type: 'string', ...NEVER };
  const pattern = lengthPattern(low, high);
  return { type: 'string', ...(low > 0 && { minLength: low }), ...(pattern !== undefined && { pattern }) };
}

/**
 * isDate (and minDate/maxDate) want a Date instance, which JSON has not: only class-transformer's
 * `@Type(() => Date)` makes one from the input, and Hermes takes for it only what the schema says,
 * an RFC 3339 date or date-time string (validation/declared-shape.ts; without `@Type`, no input
 * passes, and an input class is refused at bootstrap, see warningsAbout). The pattern says the
 * shape to every client; the formats say the calendar (Feb 30) to those that assert them, and what
 * the string is to those that read them as annotations. An output's Date is sent as `toJSON()`,
 * which the pattern takes.
 */
function dateSchema(meta: ValidationMetadata): Schema {
  const bound: unknown = meta.constraints?.[0];
  // A bound given as a function (`@MaxDate(() => new Date())`) is worked out at validation time;
  // the original called toJSON() on it and failed.
  const described = (meta.type === MIN_DATE || meta.type === MAX_DATE) && bound instanceof Date && !isNaN(bound.getTime());
  return {
    ...(described && { description: `${meta.type === MIN_DATE ? 'After' : 'Before'} ${bound.toJSON()}` }),
    type: 'string',
    pattern: ISO_DATE_PATTERN,
    // `anyOf`, never `oneOf`: where formats are annotations (the 2020-12 default), every string
    // matches both branches, and `oneOf` would then refuse every value.
    anyOf: [{ format: 'date' }, { format: 'date-time' }],
  };
}

/** arrayContains: every value is in the array (by `===`, so objects never are). */
function arrayContainsSchema(values: unknown[]): Schema {
  if (!Array.isArray(values)) return { type: 'array' };
  if (!values.every(isJsonPrimitive)) return { type: 'array', ...NEVER };
  const distinct = [...new Set(values)];
  return distinct.length > 0 ? { type: 'array', allOf: distinct.map((value) => ({ contains: { const: value } })) } : { type: 'array' };
}

/** arrayNotContains: no value is in the array (objects never are). */
function arrayNotContainsSchema(values: unknown[]): Schema {
  const found = Array.isArray(values) ? [...new Set(values.filter(isJsonPrimitive))] : [];
  return found.length > 0 ? { type: 'array', items: { not: { enum: found } } } : { type: 'array' };
}

/** Rules that take only JSON primitives, which `===` compares as `uniqueItems` does (by value). */
const PRIMITIVE_RULES = new Set<string>([IS_STRING, IS_NUMBER, IS_INT, IS_BOOLEAN, IS_IN, IS_ENUM, EQUALS]);

/**
 * Whether `uniqueItems` says `@ArrayUnique()` exactly. arrayUnique compares items with `===` (after
 * its selector, if given), so two equal objects or arrays are distinct to it and equal to
 * `uniqueItems`: exact only when an `each: true` rule of the property lets primitives alone through.
 * A selector is code: looser. Otherwise the keyword is left out: looser (never stricter).
 */
function uniquenessOf(meta: ValidationMetadata): 'exact' | 'selector' | 'identity' {
  const storage = ruleStorage();
  // The selector is kept in the validator's closure, not in the metadata: asked instead. Without
  // one, two distinct objects are unique; a selector maps both to one value (`o => o.id`: undefined).
  const args = { targetName: '', property: meta.propertyName, object: {}, value: undefined, constraints: meta.constraints };
  const validators = meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls) : [];
  const unique = (constraint: (typeof validators)[number]): boolean => {
    try {
      return constraintInstance(constraint).validate([{}, {}], args) === true;
    } catch {
      return false; // a selector that cannot take an object
    }
  };
  if (!validators.every(unique)) return 'selector';
  const siblings = storage.getTargetValidationMetadatas(meta.target as Function, '', true, false).filter((rule) => rule.propertyName === meta.propertyName);
  const primitive = siblings.some((rule) => rule.each && !rule.validateIf && PRIMITIVE_RULES.has(withConstraintName(storage, rule).type));
  return primitive ? 'exact' : 'identity';
}

/**
 * isNotEmptyObject: an own key; with `nullable: false`, a value that is not null. Without it, it
 * asks `value.hasOwnProperty(key)`, which fails (and the input is refused) when the object has a
 * `hasOwnProperty` key of its own.
 */
function notEmptyObjectSchema(options: { nullable?: boolean } | undefined): Schema {
  return options?.nullable === false
    ? { type: 'object', minProperties: 1, not: { additionalProperties: { type: 'null' } } }
    : { type: 'object', minProperties: 1, propertyNames: { not: { const: 'hasOwnProperty' } } };
}

/**
 * `@ValidateNested()`: a `$ref` to the class `@Type` names, registered for `$defs`. The original
 * follows `design:type`, which is `Object` or `Array` for arrays, and refers to `#/definitions/`.
 */
function nestedConverter(refTo: (cls: Function) => string, dropped: Map<Function, Set<string>>): (meta: ValidationMetadata) => Schema {
  return (meta) => {
    const target = meta.target as Function;
    const declared: unknown = Reflect.getMetadata('design:type', target.prototype as object, meta.propertyName);
    const union = discriminatedSchema(target, meta.propertyName, refTo);
    if (union) {
      for (const cls of union.dropped) dropped.set(cls, (dropped.get(cls) ?? new Set()).add(union.key));
      return declared === Array && !meta.each ? { type: 'array', items: union.schema } : union.schema;
    }
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
    return declared === Array && !meta.each ? { type: 'array', items: ref } : ref;
  };
}

/**
 * A custom validator (or a rule no converter knows): its code decides, whatever the property's
 * TypeScript type says (`design:type` is no check), so nothing can be said: `{}`, looser, and warned
 * at bootstrap. The original turned an object type into a `$ref` to a definition that does not exist
 * (`#/definitions/Object`), which made the whole schema invalid.
 */
function unknownRule(): Schema {
  return {};
}

/**
 * What isEnum accepts: every value of the enum object (`Object.keys(entity).map(k => entity[k])`),
 * which for a numeric member includes its name, by TypeScript's reverse mapping (`Level.Low = 0`
 * makes `Level[0] === 'Low'`): the members' values first, then those names.
 */
function enumValues(entity: object): unknown[] {
  const entries = Object.entries(entity);
  const members = entries.filter(([key]) => isNaN(parseInt(key, 10))).map(([, value]): unknown => value);
  const names = entries.filter(([key]) => !isNaN(parseInt(key, 10))).map(([, value]): unknown => value);
  return [...new Set([...members, ...names])];
}

/**
 * `@Matches`: the expression as a pattern that matches the same strings (regex-pattern.ts: its
 * flags spelled out, its classes read by code point as clients compile them). One that cannot be
 * said that way (a back-reference, a look-around, `.` counting a character beyond the BMP as
 * two...) leaves only the type, and the bootstrap warns that the schema is looser.
 */
function matchesSchema(meta: ValidationMetadata): Schema {
  const [pattern, modifiers] = meta.constraints as [RegExp | string, string | undefined];
  const source = pattern instanceof RegExp ? pattern.source : String(pattern);
  const flags = pattern instanceof RegExp ? pattern.flags : (modifiers ?? '');
  return stringPattern(patternOf(source, flags));
}

const HEX = (n: number) => `[0-9a-fA-F]{${n}}`;

/**
 * Format "uuid" takes any version (and a `urn:uuid:` prefix); validator.js takes versions 1–8 with
 * the RFC variant, plus the nil and max UUIDs, or the version(s) given: its expressions, spelled
 * out. The format stays beside the pattern: everything the pattern takes, it takes too.
 */
function uuidSchema(version: unknown): Schema {
  const versions = Array.isArray(version) ? version : [version];
  const found = versions.map(uuidAlternative).filter((alternative): alternative is string => alternative !== undefined);
  if (found.length === 0) return { type: 'string', ...NEVER }; // no version validator.js knows
  return { type: 'string', format: 'uuid', pattern: `^(?:${[...new Set(found)].join('|')})$` };
}

function uuidAlternative(version: unknown): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a decorator's constraint: a string or a number
  const v = version === undefined || version === null ? 'all' : String(version);
  const shaped = (digit: string) => `${HEX(8)}-${HEX(4)}-${digit}${HEX(3)}-[89abAB]${HEX(3)}-${HEX(12)}`;
  const nil = '0{8}-0{4}-0{4}-0{4}-0{12}';
  const max = '[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12}';
  if (/^[1-8]$/.test(v)) return shaped(v);
  if (v === 'all') return `${shaped('[1-8]')}|${nil}|${max}`;
  if (v === 'nil') return nil;
  if (v === 'max') return max;
  if (v === 'loose') return `${HEX(8)}-${HEX(4)}-${HEX(4)}-${HEX(4)}-${HEX(12)}`;
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // no `\-`: invalid with the `u` flag
}

/** Keywords that describe rather than constrain: they stay outside the `anyOf`. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated']);

/**
 * Lets `null` through as well. `anyOf` rather than `type: [t, 'null']`: it works for `$ref`,
 * `enum` and `not` alike, and strict validators (Ajv's strictTypes) accept it.
 */
function orNull(schema: Schema): Schema {
  const [annotations, rest] = splitAnnotations(schema);
  const keys = Object.keys(rest);
  const takesNull = keys.length === 0 || (keys.length === 1 && Array.isArray(rest.enum) && rest.enum.includes(null));
  if (takesNull) return schema; // `{}`, or @IsEmpty's enum
  return { anyOf: [rest, { type: 'null' }], ...annotations };
}

/** A schema's annotations ({@link ANNOTATIONS}), and the rest. */
function splitAnnotations(schema: Schema): [Schema, Schema] {
  const annotations: Schema = {};
  const rest: Schema = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.has(key) ? annotations : rest)[key] = value;
  return [annotations, rest];
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
