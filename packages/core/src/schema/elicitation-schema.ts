/**
 * The `requestedSchema` of a form elicitation (`elicitation/create`, server→client): a class-validator
 * decorated class becomes the restricted JSON Schema MCP allows there — one flat object whose
 * properties are strings, numbers, booleans or choices of strings, nothing nested.
 *
 * It starts from {@link buildObjectSchema} and keeps only what a form can show. Constraints a form
 * cannot say (patterns, other formats, exclusive bounds, `multipleOf`...) are dropped rather than
 * refused: the answer comes back as input to the same class and goes through class-validator
 * (`validateInput`), which checks all of them. What cannot be asked for at all (a nested object,
 * a list of free values, a property of unknown type) is refused with an error that says what to
 * change.
 *
 * The revisions differ: 2025-06-18 has strings, numbers, booleans and single choices (titled with
 * `enumNames`), and `default` on booleans only; 2025-11-25 adds `default` everywhere (SEP-1034),
 * choices titled with `oneOf`, and multi-selects (SEP-1330).
 */
import 'reflect-metadata';
import { McpError } from '@hermes-mcp/protocol';
import type { Constructor } from '../container';
import type { ElicitationForms } from '../context/mcp-context';
import { HermesError } from '../errors';
import { formatIssues, validateInputAsync } from '../validation/validator';
import { isIso8601Pattern } from './iso8601';
import { IS_EMAIL, IS_URL } from 'class-validator';
import { ruleStorage, withConstraintName } from '../interop/class-validator';
import { buildObjectSchema } from './schema-builder';
import { deepFreeze, isSchema } from './json-schema';
import { ENUM_TITLES } from '../metadata/keys';
import type { EnumTitlesMetadata } from '../decorators/enum-titles.decorator';

/** The revisions with form elicitation whose restricted schema this file knows. */
export type ElicitationRevision = '2025-06-18' | '2025-11-25';

/** A choice offered with a display title: `{ const: 'c', title: 'Celsius' }`. */
export interface ElicitationOption {
  /** The value sent back. */
  readonly const: string;
  /** What the user sees. */
  readonly title: string;
}

/** What every field may carry: a label (`@JSONSchema({ title })`) and a help text (`@Description`). */
export interface ElicitationFieldBase {
  /** Short label of the field. */
  readonly title?: string;
  /** Longer help text of the field. */
  readonly description?: string;
}

/** A text field (`StringSchema`). `default` only on 2025-11-25. */
export interface ElicitationStringField extends ElicitationFieldBase {
  readonly type: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  /** The only formats a form knows; others are dropped (class-validator still checks them). */
  readonly format?: 'email' | 'uri' | 'date' | 'date-time';
  readonly default?: string;
}

/** A number field (`NumberSchema`). `default` only on 2025-11-25. */
export interface ElicitationNumberField extends ElicitationFieldBase {
  readonly type: 'number' | 'integer';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number;
}

/** A checkbox (`BooleanSchema`). */
export interface ElicitationBooleanField extends ElicitationFieldBase {
  readonly type: 'boolean';
  readonly default?: boolean;
}

/**
 * A single choice of strings: untitled (`enum`), titled (`oneOf`, 2025-11-25) or titled the legacy
 * way (`enum` + `enumNames`, the only titled form on 2025-06-18). `default` only on 2025-11-25.
 */
export interface ElicitationSingleSelectField extends ElicitationFieldBase {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly enumNames?: readonly string[];
  readonly oneOf?: readonly ElicitationOption[];
  readonly default?: string;
}

/** A multi-select of strings (2025-11-25 only): `items.enum`, or `items.anyOf` when titled. */
export interface ElicitationMultiSelectField extends ElicitationFieldBase {
  readonly type: 'array';
  readonly items: { readonly type: 'string'; readonly enum: readonly string[] } | { readonly anyOf: readonly ElicitationOption[] };
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: readonly string[];
}

/** One property of an {@link ElicitationSchema} (the spec's `PrimitiveSchemaDefinition`). */
export type ElicitationField = ElicitationStringField | ElicitationNumberField | ElicitationBooleanField | ElicitationSingleSelectField | ElicitationMultiSelectField;

/**
 * The `requestedSchema` of an `elicitation/create` form request: a flat object schema.
 *
 * @example
 * { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] }
 */
export interface ElicitationSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, ElicitationField>>;
  readonly required?: readonly string[];
}

type Schema = Record<string, unknown>;

const REVISIONS: readonly ElicitationRevision[] = ['2025-06-18', '2025-11-25'];
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const cache = new WeakMap<Function, Map<ElicitationRevision, ElicitationSchema>>();

/**
 * The restricted `requestedSchema` of an elicitation form asking for an instance of `cls`, in the
 * shape `revision` defines:
 * - `@IsString()` → text, with `@Length`/`@MinLength`/`@MaxLength` and the formats email
 *   (`@IsEmail`), uri (`@IsUrl`), date-time (`@IsDateString`/`@IsISO8601`) and date;
 * - `@IsNumber()`/`@IsInt()` → number/integer, with `@Min`/`@Max`;
 * - `@IsBoolean()` → checkbox;
 * - `@IsIn([...])`/`@IsEnum(StringEnum)` → single choice; `@IsArray()` with the same and
 *   `{ each: true }` → multi-select (2025-11-25), with `@ArrayMinSize`/`@ArrayMaxSize`;
 * - `@Description` → `description`, `@JSONSchema({ title })` → `title`, {@link EnumTitles} →
 *   titled choices, field initialisers → `default` (booleans only on 2025-06-18; the initialiser
 *   still fills a field the client leaves out, since the answer is validated as `cls`);
 * - `required`: what class-validator refuses to see missing. Optional fields lose their `null`:
 *   a form leaves them out instead.
 *
 * The class's own `@Description` is not part of the schema: say it in the request's `message`.
 * Built once per class and revision; the result is deeply frozen.
 *
 * @throws HermesError `HERMES_INVALID_OPTIONS` when a property cannot be a form field (a nested
 *   object, a list of anything but fixed strings, a choice of non-strings, a multi-select on
 *   2025-06-18, an unknown type) or its {@link EnumTitles} does not match its values; the message
 *   names `Class.property` and how to fix it. Errors of {@link buildObjectSchema} pass through.
 * @example
 * class Signup {
 *   \@Description('Shown on your profile') \@IsString() \@Length(2, 40) name!: string;
 *   \@IsEmail() email!: string;
 *   \@IsInt() \@Min(13) age!: number;
 *   \@EnumTitles({ s: 'Small', l: 'Large' }) \@IsIn(['s', 'l']) size: string = 's';
 *   \@IsBoolean() newsletter = false;
 * }
 * elicitationSchemaFor(Signup, '2025-11-25');
 * // { type: 'object', required: ['name', 'email', 'age'], properties: {
 * //   name: { type: 'string', description: 'Shown on your profile', minLength: 2, maxLength: 40 },
 * //   email: { type: 'string', format: 'email' },
 * //   age: { type: 'integer', minimum: 13 },
 * //   size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }], default: 's' },
 * //   newsletter: { type: 'boolean', default: false } } }
 */
export function elicitationSchemaFor(cls: Function, revision: ElicitationRevision): ElicitationSchema {
  if (!REVISIONS.includes(revision)) {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `elicitationSchemaFor(${cls.name}, ${JSON.stringify(revision)}): form elicitation schemas exist for ${REVISIONS.join(' and ')} only; ` +
        `pass one of them (older revisions have no elicitation).`,
    );
  }
  let perRevision = cache.get(cls);
  if (!perRevision) {
    perRevision = new Map();
    cache.set(cls, perRevision);
  }
  let schema = perRevision.get(revision);
  if (!schema) {
    schema = deepFreeze(derive(cls, revision));
    perRevision.set(revision, schema);
  }
  return schema;
}

function derive(cls: Function, revision: ElicitationRevision): ElicitationSchema {
  const built = buildObjectSchema(cls, { nested: 'defs' }) as Schema; // a form has no nested object
  const found = (built.properties ?? {}) as Record<string, Schema>;
  // A field initialiser of an array is no `default` for buildObjectSchema; a multi-select reads it here.
  let blank: Record<string, unknown> | undefined;
  const initialValue = (name: string): unknown => (blank ??= new (cls as new () => Record<string, unknown>)())[name];
  const properties: Record<string, ElicitationField> = {};
  for (const [name, schema] of Object.entries(found)) {
    properties[name] = field({ cls, name, revision, initialValue }, withoutNull(schema));
  }
  const required = ((built.required ?? []) as string[]).filter((name) => name in properties);
  return { type: 'object', properties, ...(required.length > 0 && { required }) };
}

interface Context {
  cls: Function;
  name: string;
  revision: ElicitationRevision;
  initialValue: (name: string) => unknown;
}

/**
 * `@IsEmail()`/`@IsUrl()` publish a plain string in a tool's schema (formats "email" and "uri"
 * refuse addresses validator.js takes); a form still asks for an email address or a URL, which the
 * server then checks with its own rules.
 */
function formFormatOf(cls: Function, name: string): { format?: 'email' | 'uri' } {
  const storage = ruleStorage();
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    if (meta.propertyName !== name || meta.each) continue;
    const type = withConstraintName(storage, meta).type;
    if (type === IS_EMAIL) return { format: 'email' };
    if (type === IS_URL) return { format: 'uri' };
  }
  return {};
}

/** One property of the built schema as a form field, or the error saying why it cannot be one. */
function field(ctx: Context, schema: Schema): ElicitationField {
  const latest = ctx.revision === '2025-11-25';
  const titles = enumTitlesOf(ctx.cls, ctx.name);
  const labels = pick(schema, ['title', 'description'], 'string');
  // SEP-1034: every kind takes a `default` on 2025-11-25; 2025-06-18 had it on booleans only.
  const defaultOf = <T>(check: (value: unknown) => value is T): { default?: T } => (latest && check(schema.default) ? { default: schema.default } : {});

  if (schema.$ref !== undefined || schema.type === 'object') {
    throw unsupported(ctx, `this one is a nested object. Move its fields into ${ctx.cls.name} itself, or ask for them in a second form.`);
  }
  if (schema.type === 'array') {
    const items = isSchema(schema.items) ? schema.items : {};
    if (!Array.isArray(items.enum)) {
      throw unsupported(
        ctx,
        `a list can only be a multi-select of fixed strings. Declare it with @IsArray() and @IsIn(['a', 'b'], { each: true }) ` +
          `(or @IsEnum(AStringEnum, { each: true })), or ask for one value per property.`,
      );
    }
    const values = stringChoices(ctx, items.enum);
    if (!latest) {
      throw unsupported(
        ctx,
        `a multi-select needs revision 2025-11-25, and this form is for 2025-06-18. ` + `Ask 2025-06-18 clients with one @IsBoolean() property per option instead.`,
      );
    }
    if (titles?.legacy) {
      throw new HermesError(
        'HERMES_INVALID_OPTIONS',
        `${ctx.cls.name}.${ctx.name}: @EnumTitles({ legacy: true }) applies to single choices only; enumNames has no multi-select form. ` +
          `Remove \`legacy\`: the titles go out as items.anyOf.`,
      );
    }
    const initial = schema.default ?? ctx.initialValue(ctx.name);
    const isList = Array.isArray(initial) && initial.every((value) => typeof value === 'string');
    return {
      type: 'array',
      ...labels,
      items: titles ? { anyOf: options(ctx, values, titles.titles) } : { type: 'string', enum: values },
      ...pick(schema, ['minItems', 'maxItems'], 'number'),
      ...(isList && { default: [...initial] }),
    };
  }
  if (Array.isArray(schema.enum)) {
    const values = stringChoices(ctx, schema.enum);
    const base = { type: 'string' as const, ...labels };
    const byDefault = defaultOf(isString);
    if (!titles) return { ...base, enum: values, ...byDefault };
    const choices = options(ctx, values, titles.titles);
    if (titles.legacy || !latest) return { ...base, enum: values, enumNames: choices.map((o) => o.title), ...byDefault };
    return { ...base, oneOf: choices, ...byDefault };
  }
  if (titles) {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${ctx.cls.name}.${ctx.name}: @EnumTitles applies to choices of strings only (@IsIn or @IsEnum, or either with { each: true } on an array). ` +
        `Make the property a choice, or remove @EnumTitles.`,
    );
  }
  switch (schema.type) {
    case 'string':
      return {
        type: 'string',
        ...labels,
        ...pick(schema, ['minLength', 'maxLength'], 'number'),
        ...(typeof schema.format === 'string' && FORMATS.has(schema.format) && { format: schema.format }),
        ...(schema.format === undefined && formFormatOf(ctx.cls, ctx.name)),
        // @IsDateString/@IsISO8601 publish validator.js's whole grammar as a pattern, which a form
        // cannot show: it asks for a date-time, one of the forms the server takes.
        ...(schema.format === undefined && isIso8601Pattern(schema.pattern) && { format: 'date-time' }),
        ...defaultOf(isString),
      };
    case 'number':
    case 'integer':
      return {
        type: schema.type,
        ...labels,
        ...pick(schema, ['minimum', 'maximum'], 'number'),
        ...defaultOf(isNumber),
      };
    case 'boolean':
      return { type: 'boolean', ...labels, ...(typeof schema.default === 'boolean' && { default: schema.default }) };
    default:
      throw unsupported(ctx, `its type cannot be told from its decorators. Add @IsString(), @IsNumber(), @IsInt() or @IsBoolean().`);
  }
}

function unsupported(ctx: Context, why: string): HermesError {
  return new HermesError(
    'HERMES_INVALID_OPTIONS',
    `${ctx.cls.name}.${ctx.name}: elicitation forms only take strings, numbers, booleans and enums of strings, one level deep; ${why}`,
  );
}

/** The values of a choice, which a form can only offer as (at least one) strings. */
function stringChoices(ctx: Context, values: unknown[]): string[] {
  if (values.length === 0 || !values.every((value): value is string => typeof value === 'string')) {
    throw unsupported(ctx, `the choices must be strings, and they are ${JSON.stringify(values)}. Use a string enum, or @IsIn with strings only.`);
  }
  return [...values];
}

/** The values with their titles, in the order of the values; every value titled, every title used. */
function options(ctx: Context, values: string[], titles: Readonly<Record<string, string>>): ElicitationOption[] {
  const where = `${ctx.cls.name}.${ctx.name}: @EnumTitles`;
  const untitled = values.filter((value) => !Object.prototype.hasOwnProperty.call(titles, value));
  if (untitled.length > 0) {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${where} has no title for ${untitled.map((v) => JSON.stringify(v)).join(', ')}. Give every value a title (values: ${values.join(', ')}).`,
    );
  }
  const unknown = Object.keys(titles).filter((key) => !values.includes(key));
  if (unknown.length > 0) {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${where} titles ${unknown.map((v) => JSON.stringify(v)).join(', ')}, which the property does not accept (values: ${values.join(', ')}). ` +
        `Fix the key, or add the value to @IsIn/@IsEnum.`,
    );
  }
  return values.map((value) => ({ const: value, title: titles[value] }));
}

function enumTitlesOf(cls: Function, property: string): EnumTitlesMetadata | undefined {
  return Reflect.getMetadata(ENUM_TITLES, cls.prototype as object, property) as EnumTitlesMetadata | undefined;
}

/**
 * An optional property comes out of buildObjectSchema as `{ anyOf: [X, { type: 'null' }], ...labels }`.
 * A form has no null: the field is left out instead, so X with its labels is the field.
 */
function withoutNull(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const isNull = (branch: unknown) => isSchema(branch) && branch.type === 'null' && Object.keys(branch).length === 1;
  const other: unknown = branches.find((branch: unknown) => !isNull(branch));
  if (!isSchema(other) || !branches.some(isNull)) return schema;
  const { anyOf: _anyOf, ...labels } = schema;
  return { ...other, ...labels };
}

/** The keys of `schema` among `keys` whose value has the type a form field takes for them. */
function pick(schema: Schema, keys: readonly string[], type: 'string' | 'number'): Schema {
  const out: Schema = {};
  for (const key of keys) if (typeof schema[key] === type) out[key] = schema[key];
  return out;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number';

/**
 * What `ctx.elicit` needs of the schema and validation layers: the engine hands it to every
 * request's context through its channel. @internal
 */
export const elicitationForms: ElicitationForms = {
  schemaFor: elicitationSchemaFor,
  async check<T extends object>(form: Constructor<T>, content: unknown): Promise<T> {
    const checked = await validateInputAsync(form, content);
    if (!checked.ok) throw McpError.invalidParams(`the elicitation answer does not fit ${form.name}:\n${formatIssues(checked.issues)}`, { issues: checked.issues });
    return checked.value;
  },
};
