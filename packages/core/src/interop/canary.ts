/**
 * The canary classes of the self-checks: a few decorated classes on which each fast path built on
 * a library's internals is run beside the library's public API, once, before the fast path is
 * trusted. They cover what the fast paths rely on: inherited and overridden rules, a nested class
 * (`@ValidateNested` + `@Type`), `each`, `@IsOptional`, a `@Transform`, an `@Expose` rename, an
 * `@Exclude`, `@JSONSchema` on properties and on a class.
 *
 * They are made on first use, not at import: importing Hermes registers nothing. Once made they
 * stay in the libraries' storages (which never forget a class), under names that say what they are.
 */
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsDefined, IsEmail, IsInt, IsOptional, IsString, Length, Max, Min, MinLength, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** The canary classes, and inputs that pass and fail their rules. */
export interface Canary {
  /** Flat rules, nothing for class-transformer to do. */
  readonly Point: new () => object;
  /** A base class with rules. */
  readonly Base: new () => object;
  /** Inherits Base (one rule overridden), nests Point, has `each`, a `@Transform`, an `@Expose` rename, an `@Exclude`. */
  readonly Shape: new () => object;
  /** Own rules only, with `@JSONSchema` on properties (object and function forms) and `each`. */
  readonly Doc: new () => object;
  /** A class-level `@JSONSchema`. */
  readonly Tagged: new () => object;
  /** Inputs of Shape: valid ones, and ones failing at the top, in the base, in the nested class, in `each`. */
  readonly shapeInputs: ReadonlyArray<Record<string, unknown>>;
  /** Inputs of Point. */
  readonly pointInputs: ReadonlyArray<Record<string, unknown>>;
}

let made: Canary | undefined;

/** The canary classes, made on the first call. */
export function canary(): Canary {
  return (made ??= make());
}

function make(): Canary {
  class HermesCanaryPoint {
    @IsInt() @Min(0) x!: number;
    @IsInt() y!: number;
  }

  class HermesCanaryBase {
    @IsString() @Length(2, 10) name!: string;
    @IsInt() level!: number;
  }

  class HermesCanaryShape extends HermesCanaryBase {
    @IsInt() @Max(3) override level!: number;
    @ValidateNested() @IsDefined() @Type(() => HermesCanaryPoint) at!: HermesCanaryPoint;
    @IsOptional() @IsString({ each: true }) @ArrayMaxSize(2) tags?: string[];
    @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) @IsString() @MinLength(1) trimmed!: string;
    @Expose({ name: 'display_name' }) @IsOptional() @IsString() displayName?: string;
    @Exclude() @IsOptional() @IsString() secret?: string;
  }

  class HermesCanaryDoc {
    @JSONSchema({ description: 'A name' }) @IsString() @MinLength(2) name!: string;
    @JSONSchema((schema) => ({ ...schema, title: 'Count' })) @IsInt() @Min(0) count!: number;
    @IsOptional() @IsString({ each: true }) @ArrayMaxSize(3) tags?: string[];
    @IsEmail() email!: string;
  }

  @JSONSchema({ description: 'A class-level schema' })
  class HermesCanaryTagged {
    @IsString() value!: string;
  }

  const valid = { name: 'ok', level: 1, at: { x: 1, y: 2 }, tags: ['a'], trimmed: ' t ', display_name: 'Ada' };
  return {
    Point: HermesCanaryPoint,
    Base: HermesCanaryBase,
    Shape: HermesCanaryShape,
    Doc: HermesCanaryDoc,
    Tagged: HermesCanaryTagged,
    shapeInputs: [
      valid,
      { ...valid, extra: true, secret: 's' },
      { ...valid, name: 'x', level: 7 },
      { ...valid, at: { x: -1, y: 'no' } },
      { ...valid, at: undefined, tags: ['a', 2, 'c'], trimmed: '  ' },
      { ...valid, display_name: 5, displayName: 'ignored' },
      {},
    ],
    pointInputs: [{ x: 1, y: 2 }, { x: -1, y: 2.5 }, { x: '1' }, {}],
  };
}
