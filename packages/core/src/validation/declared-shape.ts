/**
 * What Hermes checks of an input's JSON before class-transformer turns it into an instance: the
 * shapes the published schema declares where class-transformer and class-validator, left alone,
 * take more than it says (decorator-agreement.spec.ts holds each one against the schema):
 * - `@Type(() => Date)` with `@IsDate()` (`@MinDate`, `@MaxDate`): class-transformer builds
 *   `new Date(value)`, and V8 makes a date of numbers, booleans, arrays, `'May 1, 2024'` and
 *   impossible days (rolled over). The schema says an RFC 3339 date or date-time
 *   (iso8601.ts's `ISO_DATE_PATTERN`), which is all that is taken here; a client that reads the schema
 *   (a model, a form) sends nothing else.
 * - `@ValidateNested()`: class-validator validates each element of an array given where one object
 *   is declared, and validates one object given where an array is declared; where a Map is
 *   declared, it takes an array too, and arrays of objects as its values. The declared shape
 *   (`design:type`, `each: true`) is the one taken: one object, an array of them, or an object whose
 *   values are such objects (a Map).
 * - `@McpHeader()`: an `x-mcp-header` property's schema keeps a plain `type` (clients drop the tool
 *   otherwise), which refuses `null`; `@IsOptional()` would let it through. It may be left out.
 *
 * Each failure is an ordinary validation issue, with the field's path. A class with none of these
 * is passed over at the cost of one lookup.
 */
import { IS_DATE, MAX_DATE, MIN_DATE, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from '../interop/class-validator';
import { ruleStorage } from '../interop/class-validator';
import { isIsoDate } from '../schema/iso8601';
import { headerOf } from '../schema/recorded';
import { nestedClassOf } from '../schema/transformer';
import type { ValidationIssue as Issue } from './issue';
import { DATE_EXPECTED, notA } from './messages';

/** What one property of a class is held to. */
interface PropertyShape {
  name: string;
  /** An RFC 3339 date or date-time string (each element of an array, for `each: true`). */
  date?: { each: boolean };
  /** A nested class: one object of it, an array of them, or an object whose values are such objects (a Map). */
  nested?: { cls: Function; shape: 'one' | 'array' | 'map' };
  /** Mirrored into a header: not null. */
  header?: string;
}

const DATE_RULES = new Set<string>([IS_DATE, MIN_DATE, MAX_DATE]);
const shapes = new WeakMap<Function, PropertyShape[] | null>();

/**
 * The issues of `plain` (an object, as sent) against the shapes `cls` declares, nested classes
 * included; undefined when there is none.
 *
 * @internal
 */
export function declaredShapeIssues(cls: Function, plain: unknown): Issue[] | undefined {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain) || shapesOf(cls) === null) return undefined;
  const issues: Issue[] = [];
  check(cls, plain as Record<string, unknown>, '', issues, new Set());
  return issues.length > 0 ? issues : undefined;
}

function check(cls: Function, plain: Record<string, unknown>, prefix: string, issues: Issue[], seen: Set<object>): void {
  const found = shapesOf(cls);
  if (found === null || seen.has(plain)) return;
  seen.add(plain);
  for (const shape of found) {
    if (!Object.prototype.hasOwnProperty.call(plain, shape.name)) continue;
    const value = plain[shape.name];
    const path = prefix ? `${prefix}.${shape.name}` : shape.name;
    if (value === null) {
      if (shape.header !== undefined) {
        issues.push({ path, constraints: { mcpHeader: `${path} is sent as the Mcp-Param-${shape.header} header too: leave it out rather than send null` } });
      }
      continue;
    }
    if (shape.date) checkDate(value, path, shape.date.each, issues);
    if (shape.nested) checkNested(shape.nested.cls, shape.nested.shape, value, path, issues, seen);
  }
}

function checkDate(value: unknown, path: string, each: boolean, issues: Issue[]): void {
  const refuse = (at: string, sent: unknown) => issues.push({ path: at, constraints: { isDate: `${at} must be ${DATE_EXPECTED}${notA(sent)}` } });
  if (!each || !Array.isArray(value)) {
    if (!isIsoDate(value)) refuse(path, value);
  } else value.forEach((element, i) => !isIsoDate(element) && refuse(`${path}[${i}]`, element));
}

function checkNested(cls: Function, shape: 'one' | 'array' | 'map', value: unknown, path: string, issues: Issue[], seen: Set<object>): void {
  if (typeof value !== 'object' || value === null) return; // class-validator refuses those itself
  const one = (element: unknown, at: string): void => {
    if (Array.isArray(element)) issues.push({ path: at, constraints: { nestedValidation: `${at} must be one ${cls.name} object, not an array` } });
    else if (typeof element === 'object' && element !== null) check(cls, element as Record<string, unknown>, at, issues, seen);
  };
  if (shape === 'one') one(value, path);
  else if (shape === 'map') {
    if (Array.isArray(value)) issues.push({ path, constraints: { nestedValidation: `${path} must be an object whose values are ${cls.name} objects, not an array` } });
    else for (const key of Object.keys(value)) one((value as Record<string, unknown>)[key], `${path}.${key}`);
  } else if (!Array.isArray(value)) {
    issues.push({ path, constraints: { nestedValidation: `${path} must be an array of ${cls.name} objects, not an object` } });
  } else value.forEach((element: unknown, i) => one(element, `${path}[${i}]`));
}

/** The properties of `cls` held to a shape; null when none is (worked out once per class). */
function shapesOf(cls: Function): PropertyShape[] | null {
  let found = shapes.get(cls);
  if (found === undefined) shapes.set(cls, (found = findShapes(cls)));
  return found;
}

function findShapes(cls: Function): PropertyShape[] | null {
  const storage = ruleStorage();
  const byName = new Map<string, ValidationMetadata[]>();
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) byName.set(meta.propertyName, [...(byName.get(meta.propertyName) ?? []), meta]);
  const out: PropertyShape[] = [];
  for (const [name, metas] of byName) {
    const shape: PropertyShape = { name };
    const header = headerOf(cls, name);
    if (header !== undefined) shape.header = header;
    const type = nestedClassOf(cls, name);
    const dateRules = metas.filter((meta) => meta.constraintCls && storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => DATE_RULES.has(c.name)));
    if (type === Date && dateRules.length > 0) shape.date = { each: dateRules.every((meta) => meta.each === true) };
    const nested = metas.find((meta) => meta.type === ValidationTypes.NESTED_VALIDATION);
    const declared: unknown = Reflect.getMetadata('design:type', cls.prototype as object, name);
    // A Map of nested objects is one JSON object, its values the elements (class-transformer builds
    // a Map wherever @Type's declared type is one, `each: true` or not).
    if (nested && type) shape.nested = { cls: type, shape: declared === Map ? 'map' : nested.each === true || declared === Array ? 'array' : 'one' };
    if (shape.header !== undefined || shape.date || shape.nested) out.push(shape);
  }
  return out.length > 0 ? out : null;
}
