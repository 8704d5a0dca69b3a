/**
 * What the schema builder tells the bootstrap about a class's rules ({@link SchemaWarning}): rules
 * the published schema says looser than validation checks (`HERMES_SCHEMA_LOOSER`, see LOOSER), a
 * nested class the input may leave out, a date rule no JSON can pass.
 */
import 'reflect-metadata';
import {
  ARRAY_UNIQUE,
  IS_ALPHA,
  IS_ALPHANUMERIC,
  IS_BYTE_LENGTH,
  IS_CREDIT_CARD,
  IS_CURRENCY,
  IS_DATE,
  IS_EMAIL,
  IS_FQDN,
  IS_INSTANCE,
  IS_ISBN,
  IS_ISIN,
  IS_JSON,
  IS_LATITUDE,
  IS_LONGITUDE,
  IS_MOBILE_PHONE,
  IS_NUMBER,
  IS_NUMBER_STRING,
  IS_OPTIONAL,
  IS_URL,
  MATCHES,
  MAX_DATE,
  MIN_DATE,
  ValidationTypes,
} from 'class-validator';
import type { MetadataStorage } from 'class-validator';
import { FqdnOptions, NumericOptions, letterPattern, numericPattern } from './validator-patterns';
import { type ValidationMetadata, isClassValidatorRuleName, withConstraintName } from '../interop/class-validator';
import { STRING_ONLY_RULES, localeOf, matchesSchema, uniquenessOf } from './rule-converters';
import { nestedClassOf } from './transformer';

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

/** `@ValidateIf(condition)` (a conditional rule other than `@IsOptional()`'s, which the probe reads). */
export function isValidateIf(meta: ValidationMetadata): boolean {
  return meta.type === ValidationTypes.CONDITIONAL_VALIDATION && meta.name !== IS_OPTIONAL;
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
export function warningsAbout(cls: Function, storage: MetadataStorage, required: Set<string>): SchemaWarning[] {
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
export function looserWarning(className: string, property: string, looser: { rule: string; reason: string }): SchemaWarning {
  return {
    code: 'HERMES_SCHEMA_LOOSER',
    className,
    property,
    ...looser,
    message: `${className}.${property}: the published schema accepts more than ${looser.rule} does: JSON Schema cannot say ${looser.reason}; validation refuses the rest.`,
  };
}

export function uniqueWarnings(warnings: SchemaWarning[]): SchemaWarning[] {
  const seen = new Map<string, SchemaWarning>();
  for (const warning of warnings) seen.set(`${warning.code} ${warning.className}.${warning.property} ${warning.rule ?? ''}`, warning);
  return [...seen.values()];
}

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
  const own = isClassValidatorRuleName(typed.type);
  const known = LOOSER[typed.type];
  const reason = typeof known === 'function' ? known(typed) : (known ?? (own ? undefined : 'what its code checks'));
  if (reason === undefined) return undefined;
  return { rule: ruleName(storage, meta), reason };
}

/** The decorator of a rule, as written: `@IsCreditCard()`, `@Validate(IsEven)`. */
function ruleName(storage: MetadataStorage, meta: ValidationMetadata): string {
  const typed = withConstraintName(storage, meta);
  const name = DECORATOR_NAMES[typed.type] ?? `${typed.type[0].toUpperCase()}${typed.type.slice(1)}`;
  return isClassValidatorRuleName(typed.type) ? `@${name}()` : `@Validate(${(meta.constraintCls as Function | undefined)?.name ?? typed.type})`;
}
