/**
 * convertClass must return what class-validator-jsonschema's targetConstructorToSchema returns for
 * the same class, converters and storages: for the classes it converts itself, and (through the
 * library) for the ones it hands on. Each class below is converted both ways.
 */
import 'reflect-metadata';
import { Exclude, Expose, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  Validate,
  getMetadataStorage,
} from 'class-validator';
import { JSONSchema, targetConstructorToSchema } from 'class-validator-jsonschema';
import { ruleStorage } from '../../src/interop/class-validator';
import { readsInternals } from '../../src/interop/class-validator-jsonschema';
import { conversionOptions, convertClass } from '../../src/schema/class-properties';
import { buildObjectSchema } from '../../src/schema/schema-builder';

enum Color {
  Red = 'red',
  Blue = 'blue',
}

@ValidatorConstraint({ name: 'isEven' })
class IsEven implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
}

class Flat {
  @IsNumber() a!: number;
  @IsNumber() @Min(0) @Max(10) b!: number;
  @IsOptional() @IsString() @Length(1, 40) note?: string;
}

class Mixed {
  @IsString({ each: true }) @ArrayMaxSize(3) tags!: string[];
  @IsEnum(Color) color!: Color;
  @IsIn(['a', 1, true]) mixed!: unknown;
  @IsNotEmpty() @IsString() name!: string;
  @Matches(/^[a-z]+$/i) loose!: string;
  @IsEmail() email!: string;
  @Equals(3) three!: number;
  @IsDefined() @ValidateIf((o: Mixed) => o.three === 3) @IsInt() maybe!: number;
  @Validate(IsEven) even!: number;
  @IsBoolean() 2!: boolean;
  @IsInt() 10!: number;
}

class Child {
  @IsString() id!: string;
}

class WithNested {
  @ValidateNested() @Type(() => Child) child!: Child;
  @ValidateNested({ each: true }) @Type(() => Child) children!: Child[];
  @ValidateNested({ each: true }) @Type(() => Child) byKey!: Map<string, Child>;
}

class Annotated {
  @JSONSchema({ description: 'How many', examples: [1, 2] }) @IsInt() @Min(1) count!: number;
  @JSONSchema((schema) => ({ ...schema, title: 'Rewritten' })) @IsString() text!: string;
  @Exclude() @IsString() hidden!: string;
}

class Base {
  @IsString() @Length(2, 8) code!: string;
  @IsInt() level!: number;
}

class Derived extends Base {
  @IsInt() @Max(3) override level!: number;
  @IsBoolean() flag!: boolean;
}

class Renamed {
  @Expose({ name: 'full_name' }) @IsString() fullName!: string;
}

@JSONSchema({ description: 'A class-level schema', additionalProperties: false })
class ClassLevel {
  @IsString() value!: string;
}

class NoRules {
  plain?: string;
}

const Anonymous = (() => class {})();
IsString()(Anonymous.prototype, 'value');

const cases: Array<[string, Function]> = [
  ['flat rules', Flat],
  ['mixed built-ins, each, custom constraint, integer-like names', Mixed],
  ['nested classes, arrays and maps of them', WithNested],
  ['@JSONSchema objects and functions, @Exclude', Annotated],
  ['a base class (its own rules)', Base],
  ['inherited and overridden rules (handed on)', Derived],
  ['an @Expose rename (handed on)', Renamed],
  ['a class-level @JSONSchema (handed on)', ClassLevel],
  ['no rules', NoRules],
  ['an anonymous class (handed on)', Anonymous],
];

/** The library's schema without `required`, which convertClass leaves to the schema builder's probe. */
function library(cls: Function, options: ReturnType<typeof conversionOptions>): Record<string, unknown> {
  const { required: _required, ...rest } = targetConstructorToSchema(cls, options) as Record<string, unknown>;
  return rest;
}

describe('convertClass agrees with targetConstructorToSchema', () => {
  const additional = { customValidation: () => ({ note: 'custom' }) };

  it('converts common classes itself with this release of class-validator-jsonschema', () => {
    expect(readsInternals()).toBe(true);
  });

  it.each(cases)('%s', (_label, cls) => {
    const options = conversionOptions(additional, ruleStorage());
    expect(convertClass(cls, options)).toEqual(library(cls, options));
  });

  it('also with class-validator’s own storage and no extra converters', () => {
    for (const [, cls] of cases) {
      const options = conversionOptions({}, getMetadataStorage());
      expect(convertClass(cls, options)).toEqual(library(cls, options));
    }
  });

  it('does not change shared converter objects (the schemas are frozen later)', () => {
    const schema = buildObjectSchema(Mixed) as { properties: Record<string, unknown> };
    expect(Object.isFrozen(schema.properties.name)).toBe(true);
    const options = conversionOptions({}, ruleStorage());
    expect(Object.isFrozen(convertClass(Mixed, options).properties)).toBe(false);
    expect(convertClass(Mixed, options)).toEqual(library(Mixed, options));
  });
});
