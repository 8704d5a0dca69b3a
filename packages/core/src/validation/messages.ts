/**
 * What a validation issue says. class-validator writes one message per failed constraint, naming
 * the property alone (`city must be a string` at `stops[1].city`), repeating itself for a value
 * that is missing or of the wrong type (`each value in observations must be a string; observations
 * must be an array`), and printing a constraint as its source text (`@MaxDate(() => d)`: `maximal
 * allowed date for due is () => d`). Hermes rewrites the messages of class-validator's own
 * constraints, from the rules of the property, so that each leads with the field's path and says
 * what is wrong and what was expected:
 * - a missing value: `observations is required: an array of strings`;
 * - null, or a value of another JSON type than the rules take: `entities[0] must be an Entity
 *   object, not null`, `count must be an integer, not a string` (one message for every constraint
 *   that failed because of it);
 * - any other failure: class-validator's message, on the full path (`stops[1].city must be longer
 *   than or equal to 2 characters`), an `each` rule's on the element (`tags[1] must be …`), `should
 *   not` said `must not`, and a constraint printed as a value: a date as ISO 8601, a date function
 *   (`@MinDate`, `@MaxDate`) called first.
 *
 * A message the user wrote — a decorator's `{ message }`, a custom constraint's `defaultMessage` —
 * is kept as written (its `$constraint` tokens printed as values too). The issue keeps each failed
 * constraint's name, so several names may share one message; {@link formatIssues} prints it once.
 * All of this runs only on a refused input, from rules read once per class.
 */
import * as classValidator from 'class-validator';
import { ARRAY_CONTAINS, ARRAY_MAX_SIZE, ARRAY_MIN_SIZE, ARRAY_NOT_CONTAINS, ARRAY_NOT_EMPTY, ARRAY_UNIQUE, ValidationArguments, ValidationTypes } from 'class-validator';
import { type ValidationMetadata, ruleStorage } from '../interop/class-validator';
import { nestedClassOf } from '../schema/transformer';
import type { ValidationIssue } from './issue';

/** The JSON type of a value as validation sees it (a Date made by `@Type(() => Date)` is `date`). */
type Kind = 'missing' | 'null' | 'string' | 'number' | 'boolean' | 'array' | 'object' | 'date';

/** What a value must be: the JSON types that can pass, none when the rules do not say. */
interface Expected {
  readonly kinds: ReadonlySet<Kind>;
  /** `an array of strings`, `an Entity object`. */
  readonly text: string;
}

/** A type rule, as the value or the elements of an array. */
interface TypeRule {
  readonly kind: Kind;
  readonly one: string;
  readonly many: string;
}

/** One constraint of a property, by the name class-validator reports it under. */
interface Rule {
  readonly meta: ValidationMetadata;
  /** The constraint's validator, with class-validator's default message. */
  readonly instance?: { defaultMessage?: (args: ValidationArguments) => string };
  /** The message is class-validator's own (rewritten); otherwise the user's (kept). */
  readonly own: boolean;
}

/** What a property's rules say, worked out on its first refusal. */
export interface FieldRules {
  readonly rules: ReadonlyMap<string, Rule>;
  /** What the value must be. */
  readonly value?: Expected;
  /** What each element must be (`each` rules, a collection of nested objects). */
  readonly element?: Expected;
}

/** What a `@Type(() => Date)` property takes, as the published schema says it. @internal */
export const DATE_EXPECTED = 'an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z) string';

/** class-validator's type rules. */
const TYPES: Readonly<Record<string, TypeRule>> = {
  isString: { kind: 'string', one: 'a string', many: 'strings' },
  isNumber: { kind: 'number', one: 'a number', many: 'numbers' },
  isInt: { kind: 'number', one: 'an integer', many: 'integers' },
  isBoolean: { kind: 'boolean', one: 'a boolean', many: 'booleans' },
  isArray: { kind: 'array', one: 'an array', many: 'arrays' },
  isObject: { kind: 'object', one: 'an object', many: 'objects' },
  isNotEmptyObject: { kind: 'object', one: 'a non-empty object', many: 'non-empty objects' },
  isDate: { kind: 'date', one: DATE_EXPECTED, many: 'ISO 8601 date or date-time strings' },
};

/** class-validator's rules that take nothing but an array (`@ArrayMaxSize`…): the value is one, `each` rules or not. */
const ARRAY_ONLY = new Set([ARRAY_CONTAINS, ARRAY_NOT_CONTAINS, ARRAY_NOT_EMPTY, ARRAY_MIN_SIZE, ARRAY_MAX_SIZE, ARRAY_UNIQUE]);

const KIND_TEXT: Readonly<Record<Exclude<Kind, 'missing'>, string>> = {
  null: 'null',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  date: 'a date',
};

/** Messages said another way; the rest are class-validator's, `should not` said `must not`. */
const REWORDED: Readonly<Record<string, string>> = {
  minDate: '$property must not be before $constraint1',
  maxDate: '$property must not be after $constraint1',
  arrayUnique: '$property must not hold the same element twice',
  isDefined: '$property is required',
  nestedValidation: '$property must be an object or an array',
};

/** Rules whose constraint may be a function returning the date (`@MinDate(() => d)`). */
const DATE_FUNCTIONS = new Set(['minDate', 'maxDate']);

let ownNames: ReadonlySet<string> | undefined;

/** Whether `name` is one of class-validator's own constraints (`IS_STRING`: `isString`…), whose messages are rewritten; its exports are read on the first refusal. */
function isOwnConstraint(name: string): boolean {
  ownNames ??= new Set(Object.entries(classValidator).flatMap(([key, value]) => (/^[A-Z][A-Z0-9_]*$/.test(key) && typeof value === 'string' ? [value] : [])));
  return ownNames.has(name);
}

const NESTED_MESSAGE = 'nested property $property must be either object or array';

/** The properties of a class with rules, each read on its first refusal (a key without rules is never kept). */
const fields = new WeakMap<Function, Map<string, FieldRules | null>>();
const NO_RULES: FieldRules = { rules: new Map() };

/** What the rules of `property` of `cls` say (worked out once per property, on its first refusal). @internal */
export function fieldRules(cls: Function, property: string): FieldRules {
  let ofClass = fields.get(cls);
  if (!ofClass) {
    ofClass = new Map(
      ruleStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .map((meta) => [meta.propertyName, null]),
    );
    fields.set(cls, ofClass);
  }
  const found = ofClass.get(property);
  if (found === undefined) return NO_RULES;
  if (found !== null) return found;
  const read = readField(cls, property);
  ofClass.set(property, read);
  return read;
}

function readField(cls: Function, property: string): FieldRules {
  const storage = ruleStorage();
  const rules = new Map<string, Rule>();
  const types: Array<{ rule: TypeRule; each: boolean }> = [];
  let nested: ValidationMetadata | undefined;
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    if (meta.propertyName !== property) continue;
    if (meta.type === ValidationTypes.NESTED_VALIDATION) {
      nested = meta;
      rules.set(ValidationTypes.NESTED_VALIDATION, { meta, own: meta.message === `${meta.each ? 'each value in ' : ''}${NESTED_MESSAGE}` });
      continue;
    }
    if (!meta.constraintCls) continue;
    for (const constraint of storage.getTargetValidatorConstraints(meta.constraintCls)) {
      const instance = constraint.instance as Rule['instance'];
      rules.set(constraint.name, { meta, instance, own: meta.message === undefined && isOwnConstraint(constraint.name) });
      const type = TYPES[constraint.name] ?? (ARRAY_ONLY.has(constraint.name) ? TYPES.isArray : undefined);
      if (type) types.push({ rule: type, each: meta.each === true });
    }
  }
  const declared: unknown = Reflect.getMetadata('design:type', cls.prototype as object, property);
  const nestedClass = nested && nestedClassOf(cls, property);
  const whole = types.find((type) => !type.each && type.rule.kind === 'array') ?? types.find((type) => !type.each);
  let element: TypeRule | undefined = types.find((type) => type.each)?.rule;
  let value: Expected | undefined;
  if (nested && nestedClass) {
    element = { kind: 'object', one: `${article(nestedClass.name)} ${nestedClass.name} object`, many: `${nestedClass.name} objects` };
    if (declared === Map) value = { kinds: new Set(['object']), text: `an object whose values are ${element.many}` };
    else if (nested.each === true || declared === Array) value = { kinds: new Set(['array']), text: `an array of ${element.many}` };
    else {
      value = { kinds: new Set(['object']), text: element.one };
      element = undefined;
    }
  } else if (whole) {
    value = { kinds: new Set([whole.rule.kind]), text: whole.rule.kind === 'array' && element ? `an array of ${element.many}` : whole.rule.one };
  } else if (element) {
    // `each` without a rule that takes nothing but arrays: a lone value is checked as one element.
    value = { kinds: new Set([element.kind, 'array']), text: `${element.one} or an array of ${element.many}` };
  }
  return { rules, value, element: element && { kinds: new Set([element.kind]), text: element.one } };
}

/**
 * The messages of one issue: `found` (class-validator's, by constraint name) as Hermes says them.
 * `field` holds the rules of the property at `path` (undefined when they are not known: the
 * messages are kept); `element` says the value is one element of it (an `each` rule's, or one
 * object of a nested collection).
 *
 * @internal
 */
export function explain(field: FieldRules | undefined, path: string, value: unknown, found: Record<string, string>, element: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const expected = field && (element ? field.element : field.value);
  const kind = kindOf(value);
  let wrong: string | undefined;
  if (kind === 'missing') wrong = `${path} is required${expectedText(field, expected, path) ?? ''}`;
  else if (expected && expected.kinds.size > 0 && !expected.kinds.has(kind)) wrong = `${path} must be ${expected.text}, not ${KIND_TEXT[kind]}`;
  else if (kind === 'null') wrong = `${path} must not be null`;
  for (const [name, message] of Object.entries(found)) {
    const rule = field?.rules.get(name);
    if (name === ValidationTypes.WHITELIST) out[name] = `${path} is not a known field: leave it out`;
    else if (!rule) out[name] = message;
    else if (!rule.own) out[name] = userMessage(rule, name, value, message);
    else out[name] = wrong ?? render(template(rule, name, value), rule, name, path, value);
  }
  return out;
}

/**
 * An element of a nested collection that class-validator could not look into (`entities[0]`,
 * null or not an object); `field` holds the rules of the collection's property.
 *
 * @internal
 */
export function explainElement(field: FieldRules | undefined, path: string, value: unknown, found: Record<string, string>): Record<string, string> {
  if (field?.element) return explain(field, path, value, found, true);
  const out: Record<string, string> = {};
  const kind = kindOf(value);
  for (const [name, message] of Object.entries(found)) {
    out[name] =
      name === ValidationTypes.NESTED_VALIDATION && kind !== 'missing' && field?.rules.get(name)?.own !== false ? `${path} must be an object, not ${KIND_TEXT[kind]}` : message;
  }
  return out;
}

/** The root refused before any rule ran. @internal */
export function notAnObject(value: unknown): ValidationIssue {
  const kind = kindOf(value);
  return { path: '', constraints: { isObject: kind === 'missing' ? 'the input is required: a JSON object' : `the input must be a JSON object, not ${KIND_TEXT[kind]}` } };
}

/** `: what was expected` for a missing value; the first own message saying `must be X` when no type rule does. */
function expectedText(field: FieldRules | undefined, expected: Expected | undefined, path: string): string | undefined {
  if (expected) return `: ${expected.text}`;
  if (!field) return undefined;
  for (const [name, rule] of field.rules) {
    if (!rule.own) continue;
    const said = /^(?:each value in )?\$property must be (.+)$/s.exec(template(rule, name, undefined));
    if (said) return `: ${render(said[1], rule, name, path, undefined)}`;
  }
  return undefined;
}

/** class-validator's message of an own rule, as a template (`$property must be a string`), reworded. */
function template(rule: Rule, name: string, value: unknown): string {
  let text = REWORDED[name];
  if (text === undefined) {
    const args = argumentsOf(rule, rule.meta.propertyName, value);
    text = rule.instance?.defaultMessage?.(args) ?? '';
    text = text.replace(/^(each value in )?\$property should not /, '$1$property must not ');
  }
  // The path names the element, or the lone value an `each` rule was applied to.
  return Array.isArray(value) ? text : text.replace(/^each value in /, '');
}

/** A message the user wrote, kept; its `$constraint` tokens printed as values when class-validator printed a date or a function. */
function userMessage(rule: Rule, name: string, value: unknown, message: string): string {
  const written = rule.meta.message;
  if (typeof written !== 'string' || !/\$constraint\d/.test(written)) return message;
  if (!(rule.meta.constraints ?? []).some((constraint) => typeof constraint === 'function' || constraint instanceof Date)) return message;
  return render(written, rule, name, rule.meta.propertyName, value);
}

/** class-validator's replacement of the tokens, with constraints printed as values and `$property` as `property`. */
function render(text: string, rule: Rule, name: string, property: string, value: unknown): string {
  const constraints: unknown[] = rule.meta.constraints ?? [];
  let out = text;
  constraints.forEach((constraint, i) => {
    out = out.replace(new RegExp(`\\$constraint${i + 1}`, 'g'), () => printed(constraint, name));
  });
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out = out.replace(/\$value/g, () => String(value));
  return out.replace(/\$property/g, () => property).replace(/\$target/g, () => targetName(rule));
}

/** A constraint as a value: a date in ISO 8601, a date function's date, a function by its name. */
function printed(constraint: unknown, name: string): string {
  let value = constraint;
  if (typeof value === 'function' && DATE_FUNCTIONS.has(name)) {
    try {
      value = (value as () => unknown)();
    } catch {
      return 'a date that could not be worked out';
    }
  }
  if (value instanceof Date) return isoDate(value);
  if (typeof value === 'function') return value.name || 'a function';
  if (Array.isArray(value)) return value.map((item) => printed(item, name)).join(', ');
  if (typeof value === 'symbol') return value.description ?? '';
  return String(value);
}

/** `2024-01-01` for a midnight UTC, `2024-01-01T10:30:00Z` otherwise (milliseconds when there are). */
function isoDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return 'an invalid date';
  const iso = date.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace('.000Z', 'Z');
}

function argumentsOf(rule: Rule, property: string, value: unknown): ValidationArguments {
  return { targetName: targetName(rule), property, object: {}, value, constraints: rule.meta.constraints ?? [] };
}

function targetName(rule: Rule): string {
  const target = rule.meta.target;
  return typeof target === 'function' ? target.name : String(target);
}

/** `, not a number`: what a value of the wrong type is, for a message that says what was expected; empty for a string. @internal */
export function notA(value: unknown): string {
  const kind = kindOf(value);
  return kind === 'string' || kind === 'missing' ? '' : `, not ${KIND_TEXT[kind]}`;
}

function kindOf(value: unknown): Kind {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value) || value instanceof Set) return 'array';
  if (value instanceof Date) return 'date';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

function article(name: string): string {
  return /^[AEIOaeio]/.test(name) ? 'an' : 'a';
}
