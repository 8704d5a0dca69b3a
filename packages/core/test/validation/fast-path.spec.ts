/**
 * The fast path must agree with class-transformer + class-validator on every input: same verdict,
 * and for valid input an instance with the same own properties and prototype. Each class below is
 * run through a corpus of inputs both ways.
 */
import 'reflect-metadata';
import { Exclude, Expose, Transform, Type, plainToInstance } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  getMetadataStorage,
  validateSync,
} from 'class-validator';
import { constraintInstance, isMadeByRegisterDecorator } from '../../src/interop/class-validator';
import { failingProperties, fastValidate, planOf } from '../../src/validation/fast-path';
import { validateInput, validateInputAsync } from '../../src/validation/validator';

class Add {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class Search {
  @IsString() @Length(1, 20) query!: string;
  @IsOptional() @IsInt() @Min(1) @Max(50) limit?: number;
  @IsOptional() @IsString({ each: true }) @ArrayMaxSize(3) tags?: string[];
  @IsOptional() @IsIn(['asc', 'desc']) order?: string;
  @Allow() extra?: unknown;
}

class WithDefaults {
  @IsBoolean() enabled = true;
  @IsOptional() @IsString() note?: string;
}

class Nothing {}

class Base {
  @IsString() id!: string;
}
class Derived extends Base {
  @IsInt() n!: number;
}

class Inner {
  @IsString() v!: string;
}

// Classes that must stay on the general path.
class Nested {
  @ValidateNested() @Type(() => Inner) inner!: Inner;
}
class Transformed {
  @Transform(({ value }) => String(value).trim()) @IsString() s!: string;
}
@Exclude()
class Excluding {
  @Expose() @IsString() s!: string;
}
class Conditional {
  @ValidateIf((o: Conditional) => o.kind === 'x') @IsString() s!: string;
  @IsString() kind!: string;
}
class Defined {
  @IsDefined() d!: unknown;
}
class Grouped {
  @IsString({ groups: ['a'] }) g!: string;
}
class WithAccessor {
  @IsString() get name(): string {
    return 'x';
  }
}

const CORPUS: unknown[] = [
  {},
  { a: 2, b: 3 },
  { a: '2', b: 3 },
  { a: 2 },
  { a: null, b: 3 },
  { a: 2, b: 3, c: 4 },
  { a: 2, b: 3, toString: 5 },
  { a: 2, b: 3, ['__proto__']: { a: 1 } },
  JSON.parse('{"a":2,"b":3,"__proto__":{"x":1}}'),
  { query: 'cats' },
  { query: '' },
  { query: 'cats', limit: 10, tags: ['a', 'b'], order: 'asc' },
  { query: 'cats', limit: 0 },
  { query: 'cats', limit: null },
  { query: 'cats', tags: ['a', 2] },
  { query: 'cats', tags: ['a', 'b', 'c', 'd'] },
  { query: 'cats', tags: 'a' },
  { query: 'cats', order: 'up' },
  { query: 'cats', extra: { deep: [1, { x: 2 }] } },
  { query: 'cats', extra: new Date(0) },
  { enabled: false },
  { enabled: 'yes' },
  { note: 'x' },
  { id: 'a', n: 1 },
  { id: 1, n: 1 },
  { id: 'a', n: 1.5 },
  { inner: { v: 'x' } },
  { s: ' x ' },
  { s: 'x', kind: 'y' },
  { s: 1, kind: 'y' },
  { s: 1, kind: 'x' },
  { d: 1 },
  { g: 1 },
  { name: 'y' },
  Object.assign(Object.create(null), { a: 2, b: 3 }),
];

const CLASSES = [Add, Search, WithDefaults, Nothing, Derived, Nested, Transformed, Excluding, Conditional, Defined, Grouped, WithAccessor];

type Options = { whitelist?: boolean; forbidNonWhitelisted?: boolean };

/**
 * What class-transformer + class-validator say, with the options validator.ts gives them; and, with
 * `forbidNonWhitelisted`, a key class-transformer drops for its name before the whitelist runs
 * (`__proto__`, `constructor`, a name the instance has as a function or a getter) refused, as
 * validator.ts refuses it (the closed schema does).
 */
function reference(cls: new () => object, plain: unknown, options: Options): { ok: boolean; value?: object } {
  if (options.forbidNonWhitelisted && droppedForItsName(cls, plain)) return { ok: false };
  let instance: object;
  try {
    instance = plainToInstance(cls, plain, { enableImplicitConversion: false, excludeExtraneousValues: false });
  } catch {
    return { ok: false }; // validator.ts reports it as unreadable
  }
  const forbid = options.forbidNonWhitelisted ?? false;
  const errors = validateSync(instance, {
    whitelist: forbid || (options.whitelist ?? true),
    forbidNonWhitelisted: forbid,
    forbidUnknownValues: hasRules(cls),
    validationError: { target: false },
  });
  return errors.length === 0 ? { ok: true, value: instance } : { ok: false };
}

/** Whether `plain` has a key no rule names that plainToInstance skips for its name. */
function droppedForItsName(cls: new () => object, plain: unknown): boolean {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) return false;
  const fresh = new cls() as Record<string, unknown>;
  const ruled = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((meta) => meta.propertyName),
  );
  return Object.keys(plain).some((key) => {
    const own = Object.getOwnPropertyDescriptor(cls.prototype, key);
    return !ruled.has(key) && (key === '__proto__' || key === 'constructor' || (own !== undefined && !own.set) || fresh[key] instanceof Function);
  });
}

/** forbidUnknownValues is on for classes with rules, as validator.ts sets it. */
function hasRules(cls: Function): boolean {
  return cls !== Nothing;
}

function snapshot(value: object): unknown {
  return { proto: Object.getPrototypeOf(value), props: JSON.parse(JSON.stringify(value)), keys: Object.keys(value).sort() };
}

describe('the fast path of input validation', () => {
  it('is taken by flat classes and refused by the ones that need class-transformer or special rules', () => {
    // @ValidateIf is a condition like @IsOptional: class-validator evaluates both the same way.
    expect([Add, Search, WithDefaults, Nothing, Derived, Conditional].map((c) => planOf(c) !== undefined)).toEqual([true, true, true, true, true, true]);
    expect([Nested, Transformed, Excluding, Defined, Grouped, WithAccessor].map((c) => planOf(c) !== undefined)).toEqual([false, false, false, false, false, false]);
  });

  for (const options of [{}, { forbidNonWhitelisted: true }] as Options[]) {
    it(`agrees with class-transformer + class-validator on every class and input (${JSON.stringify(options)})`, async () => {
      let compared = 0;
      for (const cls of CLASSES) {
        for (const plain of CORPUS) {
          const expected = reference(cls, plain, options);
          for (const actual of [validateInput(cls, plain, options), await validateInputAsync(cls, plain, options)]) {
            const where = `${cls.name} ${JSON.stringify(plain)}`;
            expect({ where, ok: actual.ok }).toEqual({ where, ok: expected.ok });
            if (actual.ok && expected.ok) {
              expect(actual.value).toBeInstanceOf(cls);
              expect({ where, value: snapshot(actual.value) }).toEqual({ where, value: snapshot(expected.value!) });
            }
            compared++;
          }
        }
      }
      expect(compared).toBe(CLASSES.length * CORPUS.length * 2);
    });
  }

  it('names the failing properties of an instance as validateSync does (the schema builder probes with it)', () => {
    let compared = 0;
    for (const cls of CLASSES) {
      const plan = planOf(cls);
      if (!plan) continue;
      for (const plain of [...CORPUS, Object.fromEntries(plan.properties.map((p) => [p.name, null]))]) {
        let instance: Record<string, unknown>;
        try {
          instance = plainToInstance(cls, plain) as Record<string, unknown>;
        } catch {
          continue;
        }
        const expected = new Set(
          validateSync(instance)
            .map((e) => e.property)
            .filter((name) => typeof name === 'string'),
        );
        expect({ cls: cls.name, plain, failing: failingProperties(plan, instance) }).toEqual({ cls: cls.name, plain, failing: expected });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(150);
  });

  it('answers valid input itself and leaves the rest to the general path', () => {
    const plan = planOf(Search)!;
    expect(fastValidate(Search, plan, { query: 'cats', limit: 3, tags: ['a'], junk: 1 }, false)).toEqual(Object.assign(new Search(), { query: 'cats', limit: 3, tags: ['a'] }));
    expect(fastValidate(Search, plan, { query: 'cats', limit: 0 }, false)).toBeUndefined();
    expect(fastValidate(Search, plan, { query: 'cats', junk: 1 }, true)).toBeUndefined();
  });

  it('copies nested values, so a handler that changes its input leaves the request untouched', () => {
    const plain = { query: 'cats', tags: ['a'], extra: { list: [1] } };
    const checked = validateInput(Search, plain);
    expect(checked.ok).toBe(true);
    const value = (checked as { value: Search }).value;
    value.tags!.push('b');
    (value.extra as { list: number[] }).list.push(2);
    expect(plain).toEqual({ query: 'cats', tags: ['a'], extra: { list: [1] } });
  });
});

describe('validator instances', () => {
  @ValidatorConstraint({ name: 'isShort' })
  class IsShort implements ValidatorConstraintInterface {
    validate(value: unknown): boolean {
      return typeof value === 'string' && value.length < 4;
    }
  }
  class Word {
    @IsString() @Validate(IsShort) word!: string;
  }

  const constraintsOf = (cls: Function) => {
    const storage = getMetadataStorage();
    return storage.getTargetValidationMetadatas(cls, '', false, false).flatMap((meta) => storage.getTargetValidatorConstraints(meta.constraintCls));
  };

  it('builds the classes registerDecorator makes itself, and asks the container for any other', () => {
    const isString = constraintsOf(Word).find((c) => c.name === 'isString')!;
    const isShort = constraintsOf(Word).find((c) => c.name === 'isShort')!;
    expect(isMadeByRegisterDecorator(isString.target)).toBe(true);
    expect(isMadeByRegisterDecorator(isShort.target)).toBe(false);
    expect(constraintInstance(isString)).toBe(constraintInstance(isString));
    expect(constraintInstance(isString)).not.toBe(isString.instance);
    expect(constraintInstance(isShort)).toBe(isShort.instance); // the container's, as class-validator uses it
    expect(validateInput(Word, { word: 'abc' }).ok).toBe(true);
    expect(validateInput(Word, { word: 'abcd' }).ok).toBe(false);
  });
});
