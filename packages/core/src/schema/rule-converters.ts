/**
 * The converters of class-validator rules to JSON Schema 2020-12 that replace
 * class-validator-jsonschema's (schema-builder.ts merges them in): each because the original
 * disagrees with what class-validator accepts, or emits something that is not JSON Schema. The
 * decorator agreement test (test/schema/decorator-agreement.spec.ts) holds every one to
 * class-validator, value by value.
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
} from 'class-validator';
import { HermesError } from '../errors';
import type { Converter } from './class-properties';
import { ISO_DATE_PATTERN, Iso8601Options, iso8601Pattern } from './iso8601';
import { patternOf } from './regex-pattern';
import {
  ASTRAL,
  Base64Options,
  FULL_WIDTH,
  FqdnOptions,
  HALF_WIDTH,
  IPV4_PATTERN,
  NumericOptions,
  base64Pattern,
  containsPattern,
  fqdnPattern,
  ipv6Pattern,
  lengthPattern,
  letterPattern,
  numericPattern,
  seedText,
} from './validator-patterns';
import { type ValidationMetadata, constraintInstance, ruleStorage, withConstraintName } from '../interop/class-validator';
import { discriminatedSchema } from './transformer';
import { Schema } from './json-schema';
import { nestedClassOf } from './transformer';

/**
 * class-validator's own string rules that no converter spells out: each checks
 * `typeof value === 'string'` and then a grammar of validator.js (or libphonenumber, Intl) that no
 * pattern here says. They publish `{ type: "string" }`, and are warned about as looser.
 */
export const STRING_ONLY_RULES = [
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
 * Replacements for class-validator-jsonschema's converters, each because the original disagrees
 * with what class-validator accepts, or emits something that is not JSON Schema 2020-12.
 */
export const FIXED_CONVERTERS: Record<string, Converter> = {
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
  // The seed is literal text, not a regular expression, found by UTF-16 unit (the empty seed in any
  // two units, half a surrogate pair inside a whole character): see containsPattern.
  [CONTAINS]: (meta) => containsSchema(meta.constraints[0], true),
  [NOT_CONTAINS]: (meta) => containsSchema(meta.constraints[0], false),
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
export const NEVER: Schema = { not: {} };

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

export function localeOf(locale: unknown): string | undefined {
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

/** `@Contains(seed)` (`found`) or `@NotContains(seed)`: a seed no string can be searched for (a symbol) refuses every value. */
function containsSchema(seed: unknown, found: boolean): Schema {
  const text = seedText(seed);
  if (text === undefined) return { type: 'string', ...NEVER };
  return found ? { type: 'string', pattern: containsPattern(text) } : { type: 'string', not: { pattern: containsPattern(text) } };
}

/**
 * isIP: version 4, 6 or either. validator.js's IPv6 takes a zone (`fe80::1%eth0`), which format
 * "ipv6" refuses, so IPv6 is a pattern. Format "ipv4" is the same as validator.js's IPv4, but a
 * format may be an annotation (JSON Schema 2020-12's default), so the pattern says it too; the format
 * stays beside it, for the clients that read it.
 */
function ipSchema(version: unknown): Schema {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a decorator's constraint: a string or a number
  const v = version === undefined || version === null || version === '' || version === 0 ? 'any' : String(version);
  if (v === '4') return { type: 'string', format: 'ipv4', pattern: IPV4_PATTERN };
  if (v === '6') return { type: 'string', pattern: ipv6Pattern() };
  if (v === 'any') return { type: 'string', anyOf: [{ format: 'ipv4', pattern: IPV4_PATTERN }, { pattern: ipv6Pattern() }] };
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
 * passes, and an input class is refused at bootstrap, see warningsAbout). The pattern says it all,
 * the calendar included (no Feb 30), to every client; the formats repeat it, and say what the string
 * is, to those that read them (asserted or as annotations). An output's Date is sent as `toJSON()`,
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
export function uniquenessOf(meta: ValidationMetadata): 'exact' | 'selector' | 'identity' {
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

/** What the nested-class converter needs of the schema being built: names for `$defs`, and the keys class-transformer drops by class. */
export interface NestedContext {
  readonly refTo: (cls: Function) => string;
  readonly dropped: Map<Function, Set<string>>;
}

/**
 * `@ValidateNested()`: a `$ref` to the class `@Type` names, registered for `$defs`. The original
 * follows `design:type`, which is `Object` or `Array` for arrays, and refers to `#/definitions/`.
 */
export function nestedConverter(building: () => NestedContext): (meta: ValidationMetadata) => Schema {
  return (meta) => {
    const { refTo, dropped } = building();
    const target = meta.target as Function;
    const declared: unknown = Reflect.getMetadata('design:type', target.prototype as object, meta.propertyName);
    const union = discriminatedSchema(target, meta.propertyName, refTo);
    if (union) {
      for (const cls of union.dropped) dropped.set(cls, (dropped.get(cls) ?? new Set()).add(union.key));
      return collected(declared, meta.each === true, union.schema);
    }
    const child = nestedClassOf(target, meta.propertyName);
    if (!child) {
      throw new HermesError(
        'HERMES_UNRESOLVED_TYPE',
        `${target.name}.${meta.propertyName}: @ValidateNested() needs @Type(() => TheClass) from class-transformer; ` +
          `without it the value stays a plain object and never passes validation.`,
      );
    }
    return collected(declared, meta.each === true, { $ref: refTo(child) });
  };
}

/**
 * The schema of a nested property whose elements are `element`: `each: true` is wrapped by the
 * caller (class-properties.ts); without it, an array or a Map declared as the property's type is
 * wrapped here, as class-transformer builds one and class-validator validates its elements (a Map
 * is one JSON object, its values the elements).
 */
function collected(declared: unknown, each: boolean, element: Schema): Schema {
  if (each) return element;
  if (declared === Array) return { type: 'array', items: element };
  if (declared === Map) return { type: 'object', additionalProperties: element };
  return element;
}

/**
 * A custom validator (or a rule no converter knows): its code decides, whatever the property's
 * TypeScript type says (`design:type` is no check), so nothing can be said: `{}`, looser, and warned
 * at bootstrap. The original turned an object type into a `$ref` to a definition that does not exist
 * (`#/definitions/Object`), which made the whole schema invalid.
 */
export function unknownRule(): Schema {
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
export function matchesSchema(meta: ValidationMetadata): Schema {
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
