/**
 * Everything Hermes reads of class-validator beyond its public API, in one place.
 *
 * class-validator's `MetadataStorage.getTargetValidationMetadatas(X)` finds the rules X inherits by
 * testing `X.prototype instanceof K` for every class K that has rules, so each call costs as much
 * as there are decorated classes, and building the schemas of N classes costs N² (over a third of
 * `McpFactory.create` with 1,000 tools). The fast storage here runs that very method, unchanged, on
 * a view of the storage that holds only X and the classes it can inherit from, found through an
 * index from prototype to class: it filters, orders and merges exactly as class-validator does, in
 * time proportional to X's own rules. Validation runs class-validator's own executor against it.
 *
 * What that reads, none of it exported by class-validator's index:
 * - the storage's private `validationMetadatas` map (rules by target), read and replaced on views;
 * - `class-validator/cjs/validation/ValidationExecutor` (what `validateSync` runs), whose private
 *   `metadataStorage` field is pointed at the fast storage;
 * - the source text of the class `registerDecorator` makes (see {@link isMadeByRegisterDecorator}).
 *
 * Each is shape-checked, then the fast paths are run beside the public API on the canary classes
 * (canary.ts) once, on first use: the same rules in the same order, the same constraints, the same
 * validation errors. If anything is missing or disagrees, everything here answers through the
 * public API instead (`getMetadataStorage()`, `validate`, `validateSync`): slower, same results.
 * {@link classValidatorStatus} says which, and why.
 */
import * as classValidator from 'class-validator';
import { MetadataStorage, ValidationError, Validator, ValidatorOptions, getMetadataStorage, validate, validateSync } from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { ValidationExecutor as Executor } from 'class-validator/types/validation/ValidationExecutor';
import { isDeepStrictEqual } from 'node:util';
import type { Canary } from './canary';
import { InteropStatus, brief, canaryClasses, fastPathSwitch } from './status';
import { transformerLibrary } from './transformer-library';

/** class-validator's types of a rule and of a constraint, from the modules its index does not re-export. */
export type { ConstraintMetadata, ValidationMetadata };

// ---------------------------------------------------------------------------------------------
// The switch

const paths = fastPathSwitch('class-validator', check, typeof __filename === 'string' ? __filename : undefined);

/** Whether the fast paths are on (checked once, on the first call), and why not. */
export const classValidatorStatus: () => InteropStatus = paths.status;

const fast = paths.fast;

// ---------------------------------------------------------------------------------------------
// What the rest of Hermes uses

/**
 * class-validator's global metadata storage as Hermes reads it: with a `getTargetValidationMetadatas`
 * that returns the same rules, in the same order, without scanning every decorated class, and
 * validator constraints whose `instance` is {@link constraintInstance}'s; everything else is the
 * storage's own (it is the prototype). The storage itself when the fast paths are off. Pass it
 * where a library takes a storage, e.g. class-validator-jsonschema's `classValidatorMetadataStorage`.
 *
 * @internal
 */
export function ruleStorage(): MetadataStorage {
  return fast() ? fastStorage() : getMetadataStorage();
}

/**
 * class-validator's `validateSync(object, options)`: its own executor, so the same errors with the
 * same messages, run against the fast storage, in time proportional to the object's own rules.
 * Async rules are skipped, as `validateSync` skips them.
 *
 * @internal
 */
export function validateObjectSync(object: object, options?: ValidatorOptions): ValidationError[] {
  return fast() ? fastValidateSync(object, options) : validateSync(object, options);
}

/** class-validator's `validate(object, options)`, async rules included, as {@link validateObjectSync} runs it. @internal */
export function validateObject(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
  return fast() ? fastValidate(object, options) : validate(object, options);
}

let ruleNames: ReadonlySet<string> | undefined;

/**
 * The names of class-validator's own rules: every rule name it exports as a constant (`IS_EMAIL =
 * 'isEmail'`...), read from its exports (not from any converter table, so the answer holds when
 * the fast paths are off), once a process and on first use: reading them runs each of its ~700
 * export getters (~1 ms).
 */
function classValidatorRuleNames(): ReadonlySet<string> {
  return (ruleNames ??= new Set(
    Object.entries(classValidator)
      .filter(([key, value]) => /^[A-Z][A-Z0-9_]*$/.test(key) && typeof value === 'string')
      .map(([, value]) => value as string),
  ));
}

/** The names {@link isClassValidatorRuleName} has answered for, before the whole set was read. */
const answered = new Map<string, boolean>();

/**
 * Whether `name` is one of {@link classValidatorRuleNames}, without reading all of class-validator's
 * exports for the names that say where their constant is: `isEmail` is exported as `IS_EMAIL`, as
 * all but a few are (`isLatLong` is `IS_LATLONG`), and those few, like any name that is none, are
 * looked up in the whole set. Each name is asked once. A start with a few kinds of rules then reads
 * a few of the ~700 export getters, not all (~1 ms).
 */
export function isClassValidatorRuleName(name: unknown): boolean {
  if (typeof name !== 'string') return false;
  if (ruleNames) return ruleNames.has(name);
  let known = answered.get(name);
  if (known === undefined) {
    const constant = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
    known = (/^[A-Z][A-Z0-9_]*$/.test(constant) && (classValidator as Record<string, unknown>)[constant] === name) || classValidatorRuleNames().has(name);
    answered.set(name, known);
  }
  return known;
}

const madeByRegisterDecorator = new WeakMap<Function, boolean>();

/** The rule as class-validator-jsonschema hands it to converters: typed by its constraint's name. @internal */
export function withConstraintName(storage: MetadataStorage, meta: ValidationMetadata): ValidationMetadata {
  const constraints = meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls) : [];
  return constraints.length > 0 ? { ...meta, type: constraints[0].name } : { ...meta };
}

/**
 * The validator instance of a constraint, the one class-validator would use.
 *
 * Each use of a built-in decorator (`@IsNumber()`) or of a `registerDecorator` validator object
 * makes its own class, `CustomConstraint`, whose methods only call that object: no instance is
 * needed, and none is asked for. Asking class-validator's default container instead costs a linear
 * search of every instance it made so far, so N decorated properties cost N² (90 ms of bootstrap
 * with 1,000 tools). Any other constraint class (a user's `@ValidatorConstraint`, which may want
 * injection through `useContainer`) comes from the container, as in class-validator.
 *
 * @internal
 */
export function constraintInstance(constraint: ConstraintMetadata): ConstraintMetadata['instance'] {
  return fast() ? directInstance(constraint) : constraint.instance;
}

function directInstance(constraint: ConstraintMetadata): ConstraintMetadata['instance'] {
  const cls = constraint.target;
  // Its methods only call the validator object they close over, never `this`: the prototype,
  // which holds them, serves as the instance without building one.
  return isMadeByRegisterDecorator(cls) ? cls.prototype : constraint.instance;
}

/**
 * True for the stateless class `registerDecorator` makes around a validator object: read from its
 * source text, so a release that writes it otherwise is simply not recognised (the container's
 * instance is used then, as class-validator uses it). @internal
 */
export function isMadeByRegisterDecorator(cls: Function): boolean {
  if (cls.name !== 'CustomConstraint' || cls.length !== 0) return false;
  let made = madeByRegisterDecorator.get(cls);
  if (made === undefined) {
    const source = Function.prototype.toString.call(cls);
    made = source.includes('return validator.validate(value, validationArguments)') && !source.includes('this');
    madeByRegisterDecorator.set(cls, made);
  }
  return made;
}

/**
 * The rules decorated on `cls` itself, as class-validator stores them (its private map, no copy):
 * what its lookups of `cls` and its subclasses are made of. Undefined when the map cannot be read.
 *
 * @internal
 */
export function ownRulesOf(cls: Function): readonly ValidationMetadata[] | undefined {
  const rules = fast() ? rulesOf(getMetadataStorage()) : undefined;
  return rules ? (rules.get(cls) ?? []) : undefined;
}

// ---------------------------------------------------------------------------------------------
// The internals, guarded

/** The storage's rules by target: a class, or the name of a registered schema. */
type Rules = Map<unknown, ValidationMetadata[]>;

/** The storage's private rules map, if it still is one. */
function rulesOf(storage: MetadataStorage): Rules | undefined {
  const rules = (storage as unknown as { validationMetadatas?: unknown }).validationMetadatas;
  return rules instanceof Map ? (rules as Rules) : undefined;
}

type ExecutorClass = new (validator: Validator, options?: ValidatorOptions) => Executor;

let executorClass: ExecutorClass | string | undefined;

/** class-validator's ValidationExecutor, or why it cannot be used. */
function loadExecutor(): ExecutorClass | string {
  if (executorClass === undefined) {
    try {
      // class-validator ships this module's code under cjs/ and its types under types/, which
      // TypeScript cannot pair by itself. It is what `validateSync` runs.
      // A bundler that takes the ES build (the `module` field) reads it from esm5/ instead, by the
      // `browser` map of core's package.json: one copy of class-validator, not two.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const found = (require('class-validator/cjs/validation/ValidationExecutor') as { ValidationExecutor?: unknown }).ValidationExecutor;
      const proto = typeof found === 'function' ? (found.prototype as Record<string, unknown>) : undefined;
      executorClass =
        proto && typeof proto.execute === 'function' && typeof proto.stripEmptyErrors === 'function'
          ? (found as ExecutorClass)
          : 'class-validator/cjs/validation/ValidationExecutor no longer exports a ValidationExecutor with execute() and stripEmptyErrors()';
    } catch (error) {
      executorClass = `class-validator/cjs/validation/ValidationExecutor cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
  }
  return executorClass;
}

/** The executor keeps the validator only to hand it on; class-validator's own is stateless too. */
const validator = new Validator();

function executorFor(options: ValidatorOptions | undefined): Executor {
  const executor = new (loadExecutor() as ExecutorClass)(validator, options);
  // The executor reads the global storage into this (private) field; the rest of it is unchanged.
  (executor as unknown as { metadataStorage: MetadataStorage }).metadataStorage = fastStorage();
  return executor;
}

function fastValidateSync(object: object, options?: ValidatorOptions): ValidationError[] {
  const executor = executorFor(options);
  executor.ignoreAsyncValidations = true;
  const errors: ValidationError[] = [];
  executor.execute(object, undefined as unknown as string, errors);
  return executor.stripEmptyErrors(errors);
}

async function fastValidate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
  const executor = executorFor(options);
  const errors: ValidationError[] = [];
  executor.execute(object, undefined as unknown as string, errors);
  await Promise.all(executor.awaitingPromises);
  return executor.stripEmptyErrors(errors);
}

// ---------------------------------------------------------------------------------------------
// The fast storage

/** Where the ancestors of a class are found among the storage's targets. */
interface Index {
  /**
   * The rules map it was built from, and its size then: a newly decorated class adds a target (the
   * storage never removes one), which calls for a new index.
   */
  readonly rules: Rules;
  readonly size: number;
  /** Each target's place in the map's order, which class-validator's results follow. */
  readonly position: Map<unknown, number>;
  /** Targets by their `prototype`: those `instanceof` finds by walking a prototype chain. */
  readonly byPrototype: Map<object, unknown[]>;
  /** Targets `instanceof` treats otherwise (a schema name, a `Symbol.hasInstance`): always passed on. */
  readonly unusual: unknown[];
}

const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];
const fastStorages = new WeakMap<MetadataStorage, MetadataStorage>();

function fastStorage(): MetadataStorage {
  const storage = getMetadataStorage();
  let view = fastStorages.get(storage);
  if (!view) {
    view = withFastLookup(storage);
    fastStorages.set(storage, view);
  }
  return view;
}

function withFastLookup(storage: MetadataStorage): MetadataStorage {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the original is called with the storage as `this` (original.call)
  const original = storage.getTargetValidationMetadatas;
  let index: Index | undefined;
  const getTargetValidationMetadatas: MetadataStorage['getTargetValidationMetadatas'] = (target, ...rest) => {
    const prototype = (target as Function | undefined)?.prototype;
    const rules = rulesOf(storage);
    if (typeof target !== 'function' || !isObject(prototype) || !rules) return original.call(storage, target, ...rest);
    if (index?.rules !== rules || index.size !== rules.size) index = indexOf(rules);
    return original.call(viewFor(storage, rules, index, target, prototype), target, ...rest);
  };
  const view = Object.create(storage) as MetadataStorage;
  view.getTargetValidationMetadatas = getTargetValidationMetadatas;
  view.getTargetValidatorConstraints = directConstraints(storage);
  return view;
}

/** `getTargetValidatorConstraints` of `storage`, its constraints taking their instance from {@link constraintInstance}. */
function directConstraints(storage: MetadataStorage): MetadataStorage['getTargetValidatorConstraints'] {
  const wrapped = new Map<Function, { of: ConstraintMetadata[]; size: number; constraints: ConstraintMetadata[] }>();
  return (target) => {
    const current = storage.getTargetValidatorConstraints(target);
    let entry = wrapped.get(target);
    if (entry?.of !== current || entry.size !== current.length) {
      entry = { of: current, size: current.length, constraints: current.map((constraint) => new DirectConstraint(constraint) as unknown as ConstraintMetadata) };
      wrapped.set(target, entry);
    }
    return entry.constraints;
  };
}

/** A constraint whose `instance` is {@link constraintInstance}'s. */
class DirectConstraint {
  readonly target: Function;
  readonly name: string;
  readonly async: boolean;

  constructor(private readonly constraint: ConstraintMetadata) {
    this.target = constraint.target;
    this.name = constraint.name;
    this.async = constraint.async;
  }

  get instance(): ConstraintMetadata['instance'] {
    return directInstance(this.constraint);
  }
}

/**
 * `storage` as class-validator sees it when asked about `target`: its own rules' map narrowed to
 * the targets that can matter (the map's arrays themselves, so rules added later still show).
 */
function viewFor(storage: MetadataStorage, rules: Rules, index: Index, target: Function, prototype: object): MetadataStorage {
  return withRules(storage, narrowed(rules, index, targetsOf(rules, index, target, prototype)));
}

/**
 * The targets whose rules can concern instances of `target`: X itself, the classes whose prototype
 * is on X's chain, and the unusual ones. class-validator tests `instanceof` on each again, so one
 * too many would be harmless; the others all fail it.
 */
function targetsOf(rules: Rules, index: Index, target: Function, prototype: object): unknown[] {
  const found: unknown[] = rules.has(target) ? [target] : [];
  for (let p = Object.getPrototypeOf(prototype); p !== null; p = Object.getPrototypeOf(p)) {
    const targets = index.byPrototype.get(p);
    if (targets) found.push(...targets);
  }
  found.push(...index.unusual);
  return found;
}

/** The entries of `rules` for these targets, in the map's order, which class-validator's results follow. */
function narrowed(rules: Rules, index: Index, targets: unknown[]): Rules {
  targets.sort((a, b) => index.position.get(a)! - index.position.get(b)!);
  return new Map(targets.map((t) => [t, rules.get(t)!]));
}

/** A view of `storage` whose private rules map is `rules`. */
function withRules(storage: MetadataStorage, rules: Rules): MetadataStorage {
  const view = Object.create(storage);
  view.validationMetadatas = rules;
  return view;
}

function indexOf(rules: Rules): Index {
  const position = new Map<unknown, number>();
  const byPrototype = new Map<object, unknown[]>();
  const unusual: unknown[] = [];
  for (const target of rules.keys()) {
    position.set(target, position.size);
    const prototype = typeof target === 'function' ? target.prototype : undefined;
    if (typeof target !== 'function' || !isObject(prototype) || target[Symbol.hasInstance] !== ordinaryHasInstance) {
      unusual.push(target);
      continue;
    }
    const targets = byPrototype.get(prototype);
    if (targets) targets.push(target);
    else byPrototype.set(prototype, [target]);
  }
  return { rules, size: rules.size, position, byPrototype, unusual };
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

// ---------------------------------------------------------------------------------------------
// The self-check

/** The lookups class-validator makes: its executor's (no groups), and the schema builder's (`always`). */
const LOOKUPS: Array<[string, boolean, boolean]> = [
  ['', false, false],
  ['', true, false],
];

const VALIDATIONS: Array<ValidatorOptions | undefined> = [
  undefined,
  { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false } },
];

/** Undefined when every fast path agrees with the public API on the canary classes; else the first difference. */
function check(): string | undefined {
  const storage = getMetadataStorage();
  if (typeof storage?.getTargetValidationMetadatas !== 'function' || typeof storage.getTargetValidatorConstraints !== 'function') {
    return 'getMetadataStorage() no longer returns a storage with getTargetValidationMetadatas() and getTargetValidatorConstraints()';
  }
  const Executor = loadExecutor();
  if (typeof Executor === 'string') return Executor;
  const made = canaryClasses(); // decorated before the map is looked at
  const rules = rulesOf(storage);
  if (!rules) return 'its MetadataStorage no longer keeps the rules in a `validationMetadatas` map';
  // The public API goes through every decorated class on each look-up, and makes garbage for each:
  // with an app's thousand input classes, this check alone made megabytes. It runs on the rules
  // that can concern the canary classes, which give the public API the same answers about them.
  return narrowedTo(storage, rulesFor(rules, [made.Point, made.Base, made.Shape]), () => compare(storage, Executor, made));
}

/** The self-check proper, on whatever rules the storage holds. */
function compare(storage: MetadataStorage, Executor: ExecutorClass, { Point, Base, Shape, shapeInputs }: Canary): string | undefined {
  // The view works only if the method reads the map it is given.
  if (storage.getTargetValidationMetadatas.call(withRules(storage, new Map()), Shape, '', true, false).length !== 0) {
    return 'getTargetValidationMetadatas() no longer reads the `validationMetadatas` map';
  }
  const view = withFastLookup(storage);
  for (const cls of [Point, Base, Shape]) {
    for (const [schema, always, strictGroups] of LOOKUPS) {
      const expected = storage.getTargetValidationMetadatas(cls, schema, always, strictGroups);
      const found = view.getTargetValidationMetadatas(cls, schema, always, strictGroups);
      if (expected.length === 0 || found.length !== expected.length || found.some((meta, i) => meta !== expected[i])) {
        return `the rules of ${cls.name} differ from getTargetValidationMetadatas() (${found.length} found, ${expected.length} expected)`;
      }
    }
  }
  for (const meta of storage.getTargetValidationMetadatas(Shape, '', true, false)) {
    if (!meta.constraintCls) continue;
    const expected = storage.getTargetValidatorConstraints(meta.constraintCls);
    const found = view.getTargetValidatorConstraints(meta.constraintCls);
    if (found.length !== expected.length || found.some((c, i) => c.name !== expected[i].name || c.async !== expected[i].async || typeof c.instance?.validate !== 'function')) {
      return `the constraints of ${meta.propertyName} differ from getTargetValidatorConstraints()`;
    }
  }
  const probe = new Executor(validator) as unknown as Record<string, unknown>;
  if (probe.metadataStorage !== storage || !Array.isArray(probe.awaitingPromises) || typeof probe.ignoreAsyncValidations !== 'boolean') {
    return 'ValidationExecutor no longer keeps the storage in `metadataStorage` (with `awaitingPromises` and `ignoreAsyncValidations`)';
  }
  let failures = 0;
  for (const plain of shapeInputs) {
    for (const options of VALIDATIONS) {
      const instance: object = transformerLibrary().plainToInstance(Shape, plain);
      const expected = validateSync(instance, options);
      failures += expected.length;
      if (!isDeepStrictEqual(fastValidateSync(instance, options), expected)) return `validating ${brief(plain)} gives other errors than validateSync()`;
    }
  }
  return failures > 0 ? undefined : 'the canary inputs that must fail pass validateSync()';
}

/**
 * The entries of `rules` that can concern instances of `classes`, found as the fast look-up finds
 * them ({@link targetsOf}): on this map class-validator's answers about `classes` are the same as
 * on the whole map.
 */
function rulesFor(rules: Rules, classes: readonly Function[]): Rules {
  const index = indexOf(rules);
  return narrowed(rules, index, [...new Set(classes.flatMap((cls) => targetsOf(rules, index, cls, cls.prototype as object)))]);
}

/** Runs `fn` with `narrow` as the storage's rules map, then puts the whole map back, whatever `fn` does. */
function narrowedTo<T>(storage: MetadataStorage, narrow: Rules, fn: () => T): T {
  const holder = storage as unknown as { validationMetadatas: Rules };
  const whole = holder.validationMetadatas;
  holder.validationMetadatas = narrow;
  try {
    return fn();
  } finally {
    holder.validationMetadatas = whole;
  }
}
