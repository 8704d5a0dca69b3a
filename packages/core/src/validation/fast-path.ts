/**
 * The fast path of input validation: for the common input class — flat properties with
 * class-validator rules and nothing for class-transformer to do — the same checks class-validator
 * would run are called directly, and the instance is built the way class-transformer would build
 * it, without their general machinery (metadata lookups, error objects, option handling) on every
 * call.
 *
 * It only ever says "valid": whenever a rule fails, or the input holds anything it does not
 * handle exactly (a non-JSON value, a `__proto__` key, an unknown key under
 * `forbidNonWhitelisted`), the caller runs class-transformer and class-validator as usual, so
 * every error message and every edge case stays theirs. A class is given a fast path only when all
 * its metadata is of the kinds below; anything else (nested classes, `@Type`, `@Transform`,
 * `@Expose`/`@Exclude`, groups, `@IsDefined`, `@ValidateIf`, async rules, accessors or methods named
 * like a property) leaves it on the general path.
 */
import { ValidationArguments, ValidationTypes } from 'class-validator';
import { nothingToTransform } from '../interop/class-transformer';
import { type ValidationMetadata, ruleStorage } from '../interop/class-validator';

/** One constraint to run on a property: class-validator's own validator instance and arguments. */
interface Check {
  readonly validate: (value: unknown, args: ValidationArguments) => unknown;
  readonly constraints: unknown[];
  readonly each: boolean;
}

/** A property with rules. */
interface PropertyPlan {
  readonly name: string;
  /** `@IsOptional()` and the like: all must hold for the checks to run. */
  readonly conditions: Array<(object: object, value: unknown) => boolean>;
  readonly checks: Check[];
}

/** How to validate one class without class-validator's executor. @internal */
export interface FastPlan {
  readonly properties: PropertyPlan[];
  /** Property names with any class-validator metadata (the whitelist). */
  readonly known: ReadonlySet<string>;
  /** The class's name, as class-validator passes it to rules (`targetName`). */
  readonly targetName: string;
}

/**
 * The fast plan of `cls`, or undefined when it needs the general path. Worked out once per class.
 */
export function planOf(cls: Function): FastPlan | undefined {
  let plan = plans.get(cls);
  if (plan === undefined) plans.set(cls, (plan = makePlan(cls) ?? NO_PLAN));
  return plan === NO_PLAN ? undefined : plan;
}

/** Remembered for classes that have no fast plan. */
const NO_PLAN: FastPlan = Object.freeze({ properties: [], known: new Set<string>(), targetName: '' });
const plans = new WeakMap<Function, FastPlan>();

function makePlan(cls: Function): FastPlan | undefined {
  const storage = ruleStorage();
  // The same lookup class-validator's executor does (no groups, `always` off, strictGroups off).
  const metadatas: ValidationMetadata[] = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
  if (!nothingToTransform(cls, new Set(metadatas.map((meta) => meta.propertyName)))) return undefined;
  const byName = new Map<string, PropertyPlan>();
  for (const meta of metadatas) {
    if ((meta.groups && meta.groups.length > 0) || meta.always || (meta as { validateIf?: unknown }).validateIf) return undefined;
    const name = meta.propertyName;
    let property = byName.get(name);
    if (!property) {
      if (hasAccessorOrMethod(cls, name)) return undefined;
      property = { name, conditions: [], checks: [] };
      byName.set(name, property);
    }
    switch (meta.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        property.conditions.push(meta.constraints[0] as (object: object, value: unknown) => boolean);
        break;
      case ValidationTypes.WHITELIST:
        break;
      case ValidationTypes.CUSTOM_VALIDATION:
        for (const constraint of storage.getTargetValidatorConstraints(meta.constraintCls)) {
          if (constraint.async) return undefined;
          const instance = constraint.instance as { validate: Check['validate'] };
          property.checks.push({ validate: instance.validate.bind(instance), constraints: meta.constraints, each: meta.each === true });
        }
        break;
      default:
        return undefined; // nested, promise, is-defined: the general path
    }
  }
  return { properties: [...byName.values()], known: new Set(byName.keys()), targetName: cls.name };
}

function hasAccessorOrMethod(cls: Function, name: string): boolean {
  for (let proto = cls.prototype as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return true;
  }
  return false;
}

/**
 * The instance of `cls` for `plain` when every rule holds (what plainToInstance followed by
 * class-validator with `whitelist: true` would give), or undefined when the general path must
 * decide. `plain` is a non-array object.
 */
export function fastValidate<T extends object>(cls: new () => T, plan: FastPlan, plain: Record<string, unknown>, forbidUnknown: boolean): T | undefined {
  if (Object.getPrototypeOf(plain) !== Object.prototype) return undefined;
  const instance = new cls() as Record<string, unknown>;
  for (const key in plain) {
    if (!Object.prototype.hasOwnProperty.call(plain, key)) continue;
    if (!plan.known.has(key)) {
      // Stripped by the whitelist; refused (general path) when unknown keys are forbidden. Still
      // checked: class-transformer copies it first, and fails on some values (a `constructor` key).
      if (forbidUnknown || key === '__proto__' || copyJson(plain[key], 0) === INVALID) return undefined;
      continue;
    }
    if (typeof instance[key] === 'function') return undefined;
    const copy = copyJson(plain[key], 0);
    if (copy === INVALID) return undefined;
    instance[key] = copy;
  }
  try {
    for (const property of plan.properties) if (verdict(plan, property, instance) !== PASS) return undefined;
  } catch {
    // A rule that throws (validator.js's isEmail or isByteLength on a lone surrogate, isNumber's
    // maxDecimalPlaces on 1e-7): the general path reports the input as unreadable.
    return undefined;
  }
  return instance as T;
}

/**
 * The properties of `instance` whose rules fail, as class-validator's `validateSync` would name
 * them (the schema builder's probe: which properties a blank instance lacks, which refuse null);
 * undefined when a rule answered with a promise and only class-validator can say.
 */
export function failingProperties(plan: FastPlan, instance: Record<string, unknown>): Set<string> | undefined {
  const failing = new Set<string>();
  for (const property of plan.properties) {
    const outcome = verdict(plan, property, instance);
    if (outcome === UNKNOWN) return undefined;
    if (outcome === FAIL) failing.add(property.name);
  }
  return failing;
}

const PASS = 0;
const FAIL = 1;
const UNKNOWN = 2;

/** One property's rules, run as class-validator runs them: skipped when a condition says so, `each` over arrays, sets and maps. */
function verdict(plan: FastPlan, property: PropertyPlan, instance: Record<string, unknown>): typeof PASS | typeof FAIL | typeof UNKNOWN {
  const value = instance[property.name];
  let run = true;
  for (const condition of property.conditions) if (!condition(instance, value)) run = false;
  if (!run) return PASS;
  const args: ValidationArguments = { targetName: plan.targetName, property: property.name, object: instance, value, constraints: [] };
  let result: typeof PASS | typeof FAIL | typeof UNKNOWN = PASS;
  for (const check of property.checks) {
    args.constraints = check.constraints;
    const elements = check.each ? elementsOf(value) : undefined;
    if (elements === undefined) result = worst(result, check.validate(value, args));
    else for (const element of elements) result = worst(result, check.validate(element, args));
    if (result === UNKNOWN) return UNKNOWN;
  }
  return result;
}

/** The verdict so far, given one more rule outcome: a promise leaves it to class-validator. */
function worst(result: typeof PASS | typeof FAIL | typeof UNKNOWN, outcome: unknown): typeof PASS | typeof FAIL | typeof UNKNOWN {
  if (outcome instanceof Promise) return UNKNOWN;
  return outcome ? result : FAIL;
}

/** The elements an `each` rule checks, when the value is a collection (class-validator's convertToArray). */
function elementsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[];
  if (value instanceof Map) return Array.from((value as Map<unknown, unknown>).values());
  if (value instanceof Set) return Array.from(value as Set<unknown>);
  return undefined;
}

const INVALID = Symbol('invalid');
const MAX_DEPTH = 64;

/** A copy of a JSON value as class-transformer makes it (new arrays and objects); INVALID for anything else. */
function copyJson(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? INVALID : value;
  if (depth > MAX_DEPTH) return INVALID;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyJson(value[i], depth + 1);
      if (item === INVALID) return INVALID;
      out[i] = item;
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return INVALID;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // class-transformer drops keys named like Object.prototype's members (and `__proto__` sets the prototype).
    if (key in Object.prototype) return INVALID;
    const item = copyJson((value as Record<string, unknown>)[key], depth + 1);
    if (item === INVALID) return INVALID;
    out[key] = item;
  }
  return out;
}
