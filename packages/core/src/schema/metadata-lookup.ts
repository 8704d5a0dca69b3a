/**
 * Fast look-ups of class-validator rules, for the schema builder, which asks about every input
 * class in turn at bootstrap.
 *
 * class-validator's `MetadataStorage.getTargetValidationMetadatas(X)` finds the rules X inherits by
 * testing `X.prototype instanceof K` for every class K that has rules, so each call costs as much
 * as there are decorated classes, and building the schemas of N classes costs N² (over a third of
 * `McpFactory.create` with 1,000 tools). The storage here runs that very method, unchanged, on a
 * view of the storage that holds only X and the classes it can inherit from, found through an
 * index from prototype to class: it filters, orders and merges exactly as class-validator does,
 * in time proportional to X's own rules. Validation (the general path, and the probe) runs
 * class-validator's own executor against that storage.
 */
import { MetadataStorage, ValidationError, Validator, ValidatorOptions, getMetadataStorage } from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { ValidationExecutor as Executor } from 'class-validator/types/validation/ValidationExecutor';

// class-validator ships this module's code under cjs/ and its types under types/, which
// TypeScript cannot pair by itself. It is what `validateSync` runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ValidationExecutor } = require('class-validator/cjs/validation/ValidationExecutor') as { ValidationExecutor: typeof Executor };

/** The storage's rules by target: a class, or the name of a registered schema. */
type Rules = Map<unknown, ValidationMetadata[]>;

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

/**
 * class-validator's global metadata storage, with a `getTargetValidationMetadatas` that returns
 * the same rules, in the same order, without scanning every decorated class, and validator
 * constraints whose `instance` is {@link constraintInstance}'s. Everything else is the storage's
 * own (it is the prototype). Pass it where a library takes a storage, e.g.
 * class-validator-jsonschema's `classValidatorMetadataStorage`.
 *
 * @internal
 */
export function fastMetadataStorage(): MetadataStorage {
  const storage = getMetadataStorage();
  let fast = fastStorages.get(storage);
  if (!fast) {
    fast = withFastLookup(storage);
    fastStorages.set(storage, fast);
  }
  return fast;
}

/**
 * class-validator's `validateSync(object, options)`: its own executor, so the same errors with the
 * same messages, run against {@link fastMetadataStorage} and {@link constraintInstance}. Its
 * `validateSync` costs as much as there are decorated classes (to find inherited rules) and as
 * there are validators made so far (to find each rule's instance in its default container); this
 * costs as much as the object's own rules. Async rules are skipped, as `validateSync` skips them.
 *
 * @internal
 */
export function validateObjectSync(object: object, options?: ValidatorOptions): ValidationError[] {
  const executor = executorFor(options);
  executor.ignoreAsyncValidations = true;
  const errors: ValidationError[] = [];
  executor.execute(object, undefined as unknown as string, errors);
  return executor.stripEmptyErrors(errors);
}

/** class-validator's `validate(object, options)`, async rules included, as {@link validateObjectSync} runs it. @internal */
export async function validateObject(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
  const executor = executorFor(options);
  const errors: ValidationError[] = [];
  executor.execute(object, undefined as unknown as string, errors);
  await Promise.all(executor.awaitingPromises);
  return executor.stripEmptyErrors(errors);
}

/** The executor keeps the validator only to hand it on; class-validator's own is stateless too. */
const validator = new Validator();

function executorFor(options: ValidatorOptions | undefined): Executor {
  const executor = new ValidationExecutor(validator, options);
  // The executor reads the global storage into this (private) field; the rest of it is unchanged.
  (executor as unknown as { metadataStorage: MetadataStorage }).metadataStorage = fastMetadataStorage();
  return executor;
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
    return constraintInstance(this.constraint);
  }
}

const madeByRegisterDecorator = new WeakMap<Function, boolean>();

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
  const cls = constraint.target;
  // Its methods only call the validator object they close over, never `this`: the prototype,
  // which holds them, serves as the instance without building one.
  return isMadeByRegisterDecorator(cls) ? cls.prototype : constraint.instance;
}

/** True for the stateless class `registerDecorator` makes around a validator object. @internal */
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

function withFastLookup(storage: MetadataStorage): MetadataStorage {
  const original = storage.getTargetValidationMetadatas;
  let index: Index | undefined;
  const getTargetValidationMetadatas: MetadataStorage['getTargetValidationMetadatas'] = (target, ...rest) => {
    const prototype = (target as Function | undefined)?.prototype;
    if (typeof target !== 'function' || !isObject(prototype)) return original.call(storage, target, ...rest);
    const rules = rulesOf(storage);
    if (index?.rules !== rules || index.size !== rules.size) index = indexOf(rules);
    return original.call(viewFor(storage, rules, index, target, prototype), target, ...rest);
  };
  const fast = Object.create(storage) as MetadataStorage;
  fast.getTargetValidationMetadatas = getTargetValidationMetadatas;
  fast.getTargetValidatorConstraints = directConstraints(storage);
  return fast;
}

/**
 * `storage` as class-validator sees it when asked about `target`: its own rules' map narrowed to
 * the targets that can matter (the map's arrays themselves, so rules added later still show).
 */
function viewFor(storage: MetadataStorage, rules: Rules, index: Index, target: Function, prototype: object): MetadataStorage {
  // X itself, the classes whose prototype is on X's chain, and the unusual ones. class-validator
  // tests `instanceof` on each again, so one too many would be harmless; the others all fail it.
  const found: unknown[] = rules.has(target) ? [target] : [];
  for (let p = Object.getPrototypeOf(prototype); p !== null; p = Object.getPrototypeOf(p)) {
    const targets = index.byPrototype.get(p);
    if (targets) found.push(...targets);
  }
  found.push(...index.unusual);
  found.sort((a, b) => index.position.get(a)! - index.position.get(b)!);
  const view = Object.create(storage);
  view.validationMetadatas = new Map(found.map((t) => [t, rules.get(t)!]));
  return view;
}

function indexOf(rules: Rules): Index {
  const position = new Map<unknown, number>();
  const byPrototype = new Map<object, unknown[]>();
  const unusual: unknown[] = [];
  for (const target of rules.keys()) {
    position.set(target, position.size);
    const prototype = typeof target === 'function' ? (target as Function).prototype : undefined;
    if (typeof target !== 'function' || !isObject(prototype) || (target as Function)[Symbol.hasInstance] !== ordinaryHasInstance) {
      unusual.push(target);
      continue;
    }
    const targets = byPrototype.get(prototype);
    if (targets) targets.push(target);
    else byPrototype.set(prototype, [target]);
  }
  return { rules, size: rules.size, position, byPrototype, unusual };
}

function rulesOf(storage: MetadataStorage): Rules {
  return (storage as unknown as { validationMetadatas: Rules }).validationMetadatas;
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}
