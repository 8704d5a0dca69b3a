/**
 * Input validation: plain JSON becomes an instance of the input class (class-transformer), which
 * class-validator then checks. Failures come back as data, with field paths a model can act on.
 *
 * Sync or async: class-validator can only run async validators (`@ValidatorConstraint({ async:
 * true })`) asynchronously, and `validateSync` silently skips them. Skipping a check is not
 * acceptable, so `validateInput` (sync, the hot path) refuses such classes with an error naming the
 * fix, and `validateInputAsync` serves every class, going through `validateSync` whenever the class
 * (with its nested classes) has no async validator. Which classes do is worked out once per class.
 */
import type { ClassConstructor } from 'class-transformer';
import { ValidationError, ValidatorOptions, ValidationTypes } from 'class-validator';
import { HermesError } from '../errors';
import { nestedClassOf } from '../schema/transformer';
import { declaredShapeIssues } from './declared-shape';
import type { ValidationIssue } from './issue';
import { fastValidate, planOf } from './fast-path';
import { FieldRules, explain, explainElement, fieldRules, notAnObject } from './messages';
import { nothingToTransform, onlyNestedType, transformerMetadata } from '../interop/class-transformer';
import { transformerLibrary } from '../interop/transformer-library';
import { ruleStorage, validateObject, validateObjectSync } from '../interop/class-validator';

export type { ValidationIssue };

/**
 * How unknown keys are treated. By default (`whitelist: true`, `forbidNonWhitelisted: false`)
 * keys without a class-validator decorator are stripped silently, at every depth.
 * `forbidNonWhitelisted: true` reports them instead (and implies `whitelist`); `whitelist: false`
 * keeps them.
 */
export interface ValidateOptions {
  whitelist?: boolean;
  forbidNonWhitelisted?: boolean;
}

/** The outcome of a validation: the instance, or every issue found. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Turns `plain` into an instance of `cls` and validates it synchronously. Never throws on bad
 * input: anything that is not an object, or makes a transformer or validator fail, is an issue.
 *
 * @throws HermesError `HERMES_INVALID_OPTIONS` if `cls` (or a nested class) has async validators,
 *   which only {@link validateInputAsync} can run.
 * @example
 * const checked = validateInput(ForecastInput, args);
 * if (!checked.ok) return `Invalid arguments:\n${formatIssues(checked.issues)}`;
 * checked.value.city; // a ForecastInput
 */
export function validateInput<T extends object>(cls: ClassConstructor<T>, plain: unknown, options: ValidateOptions = {}): ValidationResult<T> {
  if (rulesOf(cls).async) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${cls.name} has async validators, which validateInput cannot run; use validateInputAsync.`);
  }
  const started = begin(cls, plain, options);
  if (!(started instanceof Pending)) return started;
  const instance = started.instance;
  try {
    const dropped = droppedKeyIssues(plain, instance, options);
    return outcome(instance, validateObjectSync(instance, validatorOptions(cls, options)), cls, dropped);
  } catch {
    return unreadable();
  }
}

/**
 * {@link validateInput} for every class, async validators included; classes without any are
 * validated synchronously all the same.
 */
export async function validateInputAsync<T extends object>(cls: ClassConstructor<T>, plain: unknown, options: ValidateOptions = {}): Promise<ValidationResult<T>> {
  const started = begin(cls, plain, options);
  if (!(started instanceof Pending)) return started;
  const instance = started.instance;
  const settings = validatorOptions(cls, options);
  try {
    const dropped = droppedKeyIssues(plain, instance, options);
    const errors = rulesOf(cls).async ? await validateObject(instance, settings) : validateObjectSync(instance, settings);
    return outcome(instance, errors, cls, dropped);
  } catch {
    return unreadable();
  }
}

/** An input that needs class-validator's verdict: the instance class-transformer made of it. */
class Pending<T> {
  constructor(readonly instance: T) {}
}

/**
 * What both validations do first: the declared shape, the fast path (which settles most inputs),
 * then the instance. A result when these settle it, else the instance to validate.
 */
function begin<T extends object>(cls: ClassConstructor<T>, plain: unknown, options: ValidateOptions): ValidationResult<T> | Pending<T> {
  const shape = declaredShapeIssues(cls, plain);
  if (shape) return { ok: false, issues: shape };
  const fast = fastPath(cls, plain, options);
  if (fast) return { ok: true, value: fast };
  const instance = toInstance(cls, plain);
  return instance.ok ? new Pending(instance.value) : instance;
}

/**
 * {@link validateInputAsync} without a promise where none is needed: the result itself for classes
 * without async validators (most), a promise otherwise. For hot paths that await only when they must.
 */
export function validateInputNow<T extends object>(cls: ClassConstructor<T>, plain: unknown, options: ValidateOptions = {}): ValidationResult<T> | Promise<ValidationResult<T>> {
  return rulesOf(cls).async ? validateInputAsync(cls, plain, options) : validateInput(cls, plain, options);
}

/**
 * One line per issue, for a model to read and correct its call: its messages, each once (several
 * constraints that failed for one reason share it), joined with `; `. Hermes's messages lead with
 * the field's path; a line that does not (a message the user wrote) is given it: `path: message`.
 *
 * @example
 * formatIssues([{ path: 'observations', constraints: { isArray: 'observations is required: an array of strings', isString: 'observations is required: an array of strings' } }]);
 * // 'observations is required: an array of strings'
 * formatIssues([{ path: 'id', constraints: { matches: 'digits only, please' } }]);
 * // 'id: digits only, please'
 */
export function formatIssues(issues: ValidationIssue[]): string {
  return issues.map(lineOf).join('\n');
}

function lineOf(issue: ValidationIssue): string {
  const line = [...new Set(Object.values(issue.constraints))].join('; ');
  const name = issue.path || 'the input';
  const next = line.charAt(name.length);
  return line.startsWith(name) && !/[\w$.[]/.test(next) ? line : `${issue.path || '(input)'}: ${line}`;
}

/** The instance when the class's fast path (see fast-path.ts) vouches for the input; undefined to take the general path. */
function fastPath<T extends object>(cls: ClassConstructor<T>, plain: unknown, options: ValidateOptions): T | undefined {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) return undefined;
  const forbid = options.forbidNonWhitelisted ?? false;
  if (!forbid && options.whitelist === false) return undefined;
  const plan = planOf(cls);
  return plan ? fastValidate(cls, plan, plain as Record<string, unknown>, forbid) : undefined;
}

function toInstance<T extends object>(cls: ClassConstructor<T>, plain: unknown): ValidationResult<T> {
  // plainToInstance maps an array to an array of instances, and leaves primitives as they are.
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { ok: false, issues: [notAnObject(plain)] };
  }
  try {
    return { ok: true, value: transform(cls, plain as Record<string, unknown>) };
  } catch {
    return unreadable(); // e.g. input nested deeper than the stack
  }
}

/**
 * plainToInstance, stated rather than left to defaults: no type coercion ("5" stays a string, as
 * the schema says), and keys without @Expose are kept, for class-validator's whitelist to judge.
 */
function transform<T extends object>(cls: ClassConstructor<T>, plain: Record<string, unknown>): T {
  const { copy, restore } = detach(cls, plain);
  const instance = transformerLibrary().plainToInstance(cls, copy, { enableImplicitConversion: false, excludeExtraneousValues: false });
  restore(instance);
  return instance;
}

/**
 * An object or array under a key class-transformer has nothing to do with (no @Type, @Transform,
 * @Expose, @Exclude) is kept as sent: class-transformer would copy it key by key, dropping keys
 * named like Object.prototype's members (`toString`, `hasOwnProperty`) and failing on a
 * `constructor` key, so that `@IsObject()` and `@IsNotEmptyObject()` judged, and the handler got,
 * something other than what the schema was asked about. It is taken out of what class-transformer
 * is given (left `null`) and put back on the instance; under a key whose @Type names a class (and
 * nothing else applies), the same is done inside each object of that class — one object, each
 * element of an array or a Set, each value of a Map. A Map (a JSON object, its values the elements)
 * is built here from every key as sent, where class-transformer would drop the keys named like a
 * Map's or Object.prototype's members (`size`, `get`, `toString`, `constructor`).
 */
function detach(cls: Function, plain: Record<string, unknown>): { copy: Record<string, unknown>; restore: (instance: unknown) => void } {
  let copy = plain;
  const steps: Array<(instance: Record<string, unknown>) => void> = [];
  for (const key of Object.keys(plain)) {
    const value = plain[key];
    if (typeof value !== 'object' || value === null || key === '__proto__') continue;
    if (nothingToTransform(cls, [key])) {
      if (copy === plain) copy = { ...plain };
      copy[key] = null;
      steps.push((instance) => {
        if (instance[key] === null) instance[key] = value;
      });
      continue;
    }
    const nested = onlyNestedType(cls, key);
    if (!nested) continue;
    if (transformerMetadata().findTypeMetadata(cls, key)?.reflectedType === Map) {
      if (Array.isArray(value)) continue; // not a Map's shape: refused before (declared-shape.ts)
      if (copy === plain) copy = { ...plain };
      copy[key] = null;
      const sent = value as Record<string, unknown>;
      steps.push((instance) => {
        if (instance[key] === null) instance[key] = new Map(Object.keys(sent).map((name) => [name, element(nested, sent[name])]));
      });
      continue;
    }
    const elements = Array.isArray(value) ? (value as unknown[]) : [value];
    const parts = elements.map((item) => (isRecord(item) ? detach(nested, item) : undefined));
    if (parts.every((part, i) => !part || part.copy === elements[i])) continue; // nothing inside to keep
    if (copy === plain) copy = { ...plain };
    const copies = parts.map((part, i) => (part ? part.copy : elements[i]));
    copy[key] = Array.isArray(value) ? copies : copies[0];
    steps.push((instance) => {
      // Each object sent became one instance of `nested`, in order (in an array, a Set, or alone);
      // nothing else did (null, a string, an array stay what they are).
      const made: unknown = instance[key];
      const built = (Array.isArray(made) ? (made as unknown[]) : made instanceof Set ? [...(made as Set<unknown>)] : [made]).filter((item) => item instanceof nested);
      parts.filter((part) => part !== undefined).forEach((part, i) => built[i] !== undefined && part.restore(built[i]));
    });
  }
  return { copy, restore: (instance) => steps.forEach((step) => step(instance as Record<string, unknown>)) };
}

/** One value of a Map of `nested`, as class-transformer makes it (an object an instance, objects inside kept as sent). */
function element(nested: Function, value: unknown): unknown {
  if (isRecord(value)) return transform(nested as ClassConstructor<object>, value);
  return transformerLibrary().plainToInstance(nested as ClassConstructor<object>, value, { enableImplicitConversion: false, excludeExtraneousValues: false });
}

/** A JSON object, or an instance: an object that is not an array. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * With `forbidNonWhitelisted`: the keys class-transformer drops before class-validator's whitelist
 * could see them — `__proto__`, `constructor`, a name the new instance already has as a function
 * (`toString`, `hasOwnProperty`, a method of the class) or as an accessor without a setter — in the
 * input and in every object validated as a nested class (one, each element, each value of a Map).
 * The closed schema refuses them, as it refuses every key no rule names; so does the server, with
 * the whitelist's own message. `made` is the instance class-transformer made of `plain`.
 */
function droppedKeyIssues(plain: unknown, made: unknown, options: ValidateOptions): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (options.forbidNonWhitelisted) droppedKeys(plain, made, '', out);
  return out;
}

function droppedKeys(plain: unknown, made: unknown, path: string, out: ValidationIssue[]): void {
  if (!isRecord(plain) || !isRecord(made) || made instanceof Map || made instanceof Set) return;
  const cls = (Object.getPrototypeOf(made) as { constructor?: unknown } | null)?.constructor;
  if (typeof cls !== 'function' || cls === Object) return;
  const metas = ruleStorage().getTargetValidationMetadatas(cls, '', true, false);
  const ruled = new Set(metas.map((meta) => meta.propertyName));
  for (const key of Object.keys(plain)) {
    if (ruled.has(key) || !droppedOnInput(cls, made, key)) continue;
    const at = join(path, key, false);
    out.push({ path: at, constraints: explain(undefined, at, plain[key], { [ValidationTypes.WHITELIST]: '' }, false) });
  }
  const nested = new Set(metas.filter((meta) => meta.type === ValidationTypes.NESTED_VALIDATION).map((meta) => meta.propertyName));
  for (const property of nested) {
    const sentAs = sentKeyOf(cls, property);
    if (!Object.prototype.hasOwnProperty.call(plain, sentAs)) continue;
    const sent = plain[sentAs];
    const value = made[property];
    const at = join(path, property, false);
    if (value instanceof Map && isRecord(sent)) {
      for (const [name, item] of value as Map<string, unknown>) if (Object.prototype.hasOwnProperty.call(sent, name)) droppedKeys(sent[name], item, join(at, name, false), out);
    } else if (Array.isArray(sent) && Array.isArray(value)) {
      sent.forEach((item: unknown, i) => droppedKeys(item, (value as unknown[])[i], join(at, String(i), true), out));
    } else if (Array.isArray(sent) && value instanceof Set) {
      // class-validator names a Set's elements by their place in it; each object sent is one element.
      const elements = [...(value as Set<unknown>)];
      const objects = sent.filter(isRecord);
      elements.filter(isRecord).forEach((item, i) => droppedKeys(objects[i], item, join(at, String(elements.indexOf(item)), false), out));
    } else droppedKeys(sent, value, at, out);
  }
}

/** Whether plainToInstance skips `key` of an input for a new `cls`, as its TransformOperationExecutor does. */
function droppedOnInput(cls: Function, made: Record<string, unknown>, key: string): boolean {
  if (key === '__proto__' || key === 'constructor') return true;
  const own = Object.getOwnPropertyDescriptor(cls.prototype as object, key);
  if (own && !own.set) return true; // a method, or an accessor without a setter, of the class itself
  return made[key] instanceof Function;
}

/** The input key of a property: its `@Expose({ name })` on the way in, or its own name. */
function sentKeyOf(cls: Function, property: string): string {
  const expose = transformerMetadata()
    .getExposedMetadatas(cls)
    .find((meta) => meta.propertyName === property && meta.options?.name !== undefined && !meta.options.toPlainOnly);
  return expose?.options.name ?? property;
}

function validatorOptions(cls: Function, options: ValidateOptions): ValidatorOptions {
  const forbid = options.forbidNonWhitelisted ?? false;
  return {
    whitelist: forbid || (options.whitelist ?? true),
    forbidNonWhitelisted: forbid,
    // An instance of a class without any decorator is still a known value (an input with no
    // rules); nested plain objects, a missing @Type, stay refused.
    forbidUnknownValues: rulesOf(cls).any,
    validationError: { target: false },
  };
}

/** The result of class-validator's `errors`, after the issues found before it ran (`first`). */
function outcome<T>(value: T, errors: ValidationError[], cls: Function, first: ValidationIssue[] = []): ValidationResult<T> {
  if (errors.length === 0 && first.length === 0) return { ok: true, value };
  const issues: ValidationIssue[] = [...first];
  flatten(errors, '', undefined, false, issues, cls);
  return { ok: false, issues };
}

function unreadable(): { ok: false; issues: ValidationIssue[] } {
  // The cause is not echoed: it may come from server code and say more than the caller should see.
  return { ok: false, issues: [{ path: '', constraints: { unreadable: 'the input could not be read or checked' } }] };
}

/**
 * class-validator nests errors (`children`); the elements of a collection of nested objects are
 * children named by their index (their key, in a Map). `cls` is the class the errors belong to (of
 * the elements, when `field` holds the rules of the collection they are in), so `each: true`
 * failures can be pinned to elements and each message said from the property's rules (messages.ts).
 */
function flatten(errors: ValidationError[], prefix: string, field: FieldRules | undefined, indexed: boolean, out: ValidationIssue[], cls: Function | undefined): void {
  for (const error of errors) {
    const path = join(prefix, error.property, indexed);
    const own = field ? undefined : cls && error.property !== undefined ? fieldRules(cls, error.property) : undefined;
    if (error.constraints && Object.keys(error.constraints).length > 0) {
      if (field) out.push({ path, constraints: explainElement(field, path, error.value, error.constraints) });
      else pushIssues(out, path, error, error.constraints, cls, own);
    }
    if (error.children && error.children.length > 0) {
      const value: unknown = error.value;
      const collection = !field && (Array.isArray(value) || value instanceof Map || value instanceof Set);
      const childClass = field ? cls : cls && nestedClassOf(cls, error.property);
      flatten(error.children, path, collection ? own : undefined, Array.isArray(value), out, childClass);
    }
  }
}

/**
 * class-validator reports an `each: true` rule once for the whole array (`tags`); a model fixes
 * its call faster when told which element is wrong (`tags[1]`). Each such rule is run again on the
 * elements to find them; a rule that cannot be located (async, or every element passes alone)
 * stays on the array.
 */
function pushIssues(out: ValidationIssue[], path: string, error: ValidationError, found: Record<string, string>, cls: Function | undefined, field: FieldRules | undefined): void {
  const constraints = { ...found };
  const perElement = new Map<number, Record<string, string>>();
  if (cls && Array.isArray(error.value)) {
    const storage = ruleStorage();
    for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
      if (!meta.each || meta.propertyName !== error.property || meta.type !== ValidationTypes.CUSTOM_VALIDATION || !meta.constraintCls) continue;
      for (const constraint of storage.getTargetValidatorConstraints(meta.constraintCls)) {
        const message = constraints[constraint.name];
        if (message === undefined || constraint.async) continue;
        const failing: number[] = [];
        (error.value as unknown[]).forEach((element, index) => {
          const args = { targetName: cls.name, property: error.property, object: {}, value: element, constraints: meta.constraints };
          if (!constraint.instance.validate(element, args)) failing.push(index);
        });
        if (failing.length === 0) continue;
        delete constraints[constraint.name];
        for (const index of failing) perElement.set(index, { ...perElement.get(index), [constraint.name]: message });
      }
    }
  }
  if (Object.keys(constraints).length > 0) out.push({ path, constraints: explain(field, path, error.value, constraints, false) });
  for (const [index, elementConstraints] of [...perElement].sort((a, b) => a[0] - b[0])) {
    const at = `${path}[${index}]`;
    out.push({ path: at, constraints: explain(field, at, (error.value as unknown[])[index], elementConstraints, true) });
  }
}

function join(prefix: string, property: string | undefined, index: boolean): string {
  if (property === undefined || property === '') return prefix;
  if (index) return `${prefix}[${property}]`;
  return prefix ? `${prefix}.${property}` : property;
}

interface Rules {
  /** The class has at least one class-validator decorator. */
  any: boolean;
  /** It, or a class nested in it, has an async validator. */
  async: boolean;
}

const rulesCache = new WeakMap<Function, Rules>();

function rulesOf(cls: Function): Rules {
  let rules = rulesCache.get(cls);
  if (!rules) {
    // Not the global storage's own lookup: it scans every decorated class, once per class here.
    const storage = ruleStorage();
    const seen = new Set<Function>();
    let async = false;
    const visit = (target: Function): void => {
      if (seen.has(target)) return;
      seen.add(target);
      for (const meta of storage.getTargetValidationMetadatas(target, '', true, false)) {
        if (meta.constraintCls && storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => c.async)) async = true;
        if (meta.type === ValidationTypes.NESTED_VALIDATION) {
          const child = nestedClassOf(target, meta.propertyName);
          if (child) visit(child);
        }
      }
    };
    visit(cls);
    rules = { any: storage.getTargetValidationMetadatas(cls, '', true, false).length > 0, async };
    rulesCache.set(cls, rules);
  }
  return rules;
}
