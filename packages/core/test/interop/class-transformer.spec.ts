/**
 * nothingToTransform lets the fast paths skip plainToInstance. It must say yes only when it can
 * prove every kind of class-transformer metadata absent, and no for a kind it does not know: a
 * release that adds one (a map of its storage beside `_typeMetadatas`...) takes the general path
 * until Hermes learns it. The same for default options it does not know the effect of.
 *
 * The storage's public derivation (used when the storage cannot be read) must agree with the
 * storage on what the decorators say.
 */
import 'reflect-metadata';
import { Exclude, Expose, Transform, TransformationType, Type, plainToInstance } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, ValidateNested, validateSync } from 'class-validator';
import { classTransformerStatus, nothingToTransform, publicMetadata, transformerMetadata } from '../../src/interop/class-transformer';
import { planOf } from '../../src/validation/fast-path';
import { validateInput } from '../../src/validation/validator';

const storage = require('class-transformer/cjs/storage').defaultMetadataStorage as Record<string, unknown>;

const defaultOptions = require('class-transformer/cjs/constants/default-options.constant').defaultOptions as Record<string, unknown>;

/** A kind of metadata class-transformer does not have (yet), registered for `target` as its kinds are. */
function withFutureKind<T>(field: string, value: unknown, run: () => T): T {
  storage[field] = value;
  try {
    return run();
  } finally {
    delete storage[field];
  }
}

class Plain {
  @IsString() name!: string;
  @IsOptional() @IsInt() count?: number;
}

class PlainChild extends Plain {
  @IsString() extra!: string;
}

class Unrelated {
  @IsString() name!: string;
}

describe('nothingToTransform: an allow-list of metadata kinds', () => {
  it('says yes for a class without class-transformer metadata (the fast paths are on)', () => {
    expect(classTransformerStatus().fast).toBe(true);
    expect(nothingToTransform(Plain, ['name', 'count'])).toBe(true);
  });

  it('says no for a kind of metadata it does not know, registered for the class or a base class', () => {
    const future = new Map([[Plain, new Map([['name', { target: Plain, propertyName: 'name', options: {} }]])]]);
    withFutureKind('_futureMetadatas', future, () => {
      expect(nothingToTransform(Plain, ['name', 'count'])).toBe(false);
      expect(nothingToTransform(PlainChild, ['name'])).toBe(false);
      // A class the new kind says nothing about keeps the fast path.
      expect(nothingToTransform(Unrelated, ['name'])).toBe(true);
    });
    expect(nothingToTransform(Plain, ['name', 'count'])).toBe(true);
  });

  it('says no when a new kind is not keyed by class, or is a collection it cannot read', () => {
    withFutureKind('_byName', new Map([['Plain', [{}]]]), () => expect(nothingToTransform(Unrelated, ['name'])).toBe(false));
    withFutureKind('_list', [{ target: Plain }], () => expect(nothingToTransform(Unrelated, ['name'])).toBe(false));
    withFutureKind('_registry', { Plain: {} }, () => expect(nothingToTransform(Unrelated, ['name'])).toBe(false));
    // Nothing registered of the new kind, or a mere flag: nothing to rule out.
    withFutureKind('_empty', new Map(), () => expect(nothingToTransform(Unrelated, ['name'])).toBe(true));
    withFutureKind('_flag', true, () => expect(nothingToTransform(Unrelated, ['name'])).toBe(true));
  });

  it('says no for a default option it does not know, or one set to other than its neutral value', () => {
    for (const [key, value] of [
      ['enableImplicitConversion', true],
      ['excludeExtraneousValues', true],
      ['aFutureOption', 1],
    ] as const) {
      const had = Object.prototype.hasOwnProperty.call(defaultOptions, key);
      const before = defaultOptions[key];
      defaultOptions[key] = value;
      try {
        expect(nothingToTransform(Unrelated, ['name'])).toBe(false);
      } finally {
        if (had) defaultOptions[key] = before;
        else delete defaultOptions[key];
      }
    }
    expect(nothingToTransform(Unrelated, ['name'])).toBe(true);
  });

  it('takes the general path (plainToInstance, class-validator) for a class an unknown kind concerns, with the same results', () => {
    class Fresh {
      @IsString() name!: string;
      @IsOptional() @IsInt() count?: number;
    }
    const future = new Map([[Fresh, new Map([['name', {}]])]]);
    const inputs = [{ name: 'a' }, { name: 1 }, { name: 'a', count: 1.5, extra: true }];
    const results = withFutureKind('_futureMetadatas', future, () => {
      expect(planOf(Fresh)).toBeUndefined(); // no fast plan: plainToInstance and class-validator decide
      return inputs.map((input) => validateInput(Fresh, input));
    });
    expect(results.map((r) => r.ok)).toEqual([true, false, false]);
    for (const [i, input] of inputs.entries()) {
      const errors = validateSync(plainToInstance(Fresh, input), { whitelist: true, forbidUnknownValues: true });
      expect(results[i].ok).toBe(errors.length === 0);
    }
  });
});

class Point {
  @IsInt() x!: number;
}

@Exclude()
class ExposedOnly {
  @Expose() @IsString() shown!: string;
  @IsOptional() @IsString() hidden?: string;
}

class Decorated {
  @ValidateNested() @Type(() => Point) at!: Point;
  @ValidateNested({ each: true }) @Type(() => Point) path!: Point[];
  @ValidateNested({ each: true }) @Type(() => Point) byKey!: Map<string, Point>;
  @Type(() => Date) @IsDate() when!: Date;
  @Type(() => Number) @IsInt() n!: number;
  @Expose({ name: 'full_name' }) @IsString() fullName!: string;
  @Expose({ name: 'nick', toClassOnly: true }) @IsOptional() @IsString() nickname?: string;
  @Exclude() @IsOptional() @IsString() secret?: string;
  @Transform(({ value }) => value) @IsString() plain!: string;
  @IsString() untouched!: string;
}

class DecoratedChild extends Decorated {
  @IsString() more!: string;
}

describe('publicMetadata: what the decorators say, from plainToInstance and instanceToPlain alone', () => {
  const storageSays = transformerMetadata();

  it.each([Decorated, DecoratedChild, ExposedOnly, Plain])('agrees with the storage on %p', (cls) => {
    const properties = ['at', 'path', 'byKey', 'when', 'n', 'fullName', 'nickname', 'secret', 'plain', 'untouched', 'more', 'shown', 'hidden', 'name'];
    for (const property of properties) {
      const said = storageSays.findTypeMetadata(cls, property);
      const derived = publicMetadata.findTypeMetadata(cls, property);
      expect([property, derived?.typeFunction(), derived?.reflectedType]).toEqual([property, said?.typeFunction(), said?.reflectedType]);
      expect([property, Boolean(publicMetadata.findExcludeMetadata(cls, property))]).toEqual([property, Boolean(storageSays.findExcludeMetadata(cls, property))]);
    }
    const renames = (found: ReturnType<typeof storageSays.getExposedMetadatas>) =>
      found
        .filter((e) => e.options?.name)
        .map((e) => [e.propertyName, e.options.name])
        .sort();
    expect(renames(publicMetadata.getExposedMetadatas(cls))).toEqual(renames(storageSays.getExposedMetadatas(cls)));
  });

  it('finds a @Transform that changes a text (one that keeps it, like an identity, it cannot see)', () => {
    class Trimmed {
      @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)) @IsString() name!: string;
      @Expose({ name: 'lower_name' }) @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value)) @IsString() lower!: string;
      @IsString() untouched!: string;
    }
    const transformed = (metadata: typeof storageSays, property: string) => metadata.findTransformMetadatas(Trimmed, property, TransformationType.PLAIN_TO_CLASS).length > 0;
    for (const property of ['name', 'lower', 'untouched']) {
      expect([property, transformed(publicMetadata, property)]).toEqual([property, transformed(storageSays, property)]);
    }
    expect(transformed(storageSays, 'name')).toBe(true);
  });
});
