/**
 * validateObjectSync / validateObject run class-validator's executor against the indexed storage
 * and direct validator instances: their errors must be class-validator's own, for inherited rules,
 * nested classes, `each`, conditions, groups, whitelisting, custom and async constraints.
 */
import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  ValidatorOptions,
  validate,
  validateSync,
} from 'class-validator';
import { validateObject, validateObjectSync } from '../../src/interop/class-validator';

@ValidatorConstraint({ name: 'isEven' })
class IsEven implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be even`;
  }
}

@ValidatorConstraint({ name: 'isKnownLater', async: true })
class IsKnownLater implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    return value === 'known';
  }
}

class Point {
  @IsInt() x!: number;
  @IsInt() @Validate(IsEven) y!: number;
}

class Base {
  @IsString() @Length(2, 5) code!: string;
  @IsInt() level!: number;
}

class Shape extends Base {
  @IsInt() @Max(3) override level!: number;
  @ValidateNested() @Type(() => Point) at!: Point;
  @ValidateNested({ each: true }) @Type(() => Point) path!: Point[];
  @IsOptional() @IsString({ each: true }) tags?: string[];
  @ValidateIf((o: Shape) => o.code === 'if') @IsBoolean() flag?: boolean;
  @IsInt({ groups: ['strict'] }) @Min(10, { groups: ['strict'] }) strict?: number;
}

class Lookup {
  @IsString() @Validate(IsKnownLater) name!: string;
}

const inputs: Array<Record<string, unknown>> = [
  { code: 'ok', level: 1, at: { x: 1, y: 2 }, path: [{ x: 1, y: 2 }], tags: ['a'] },
  {
    code: 'x',
    level: 7,
    at: { x: 1.5, y: 3 },
    path: [
      { x: 1, y: 2 },
      { x: 'a', y: 1 },
    ],
    tags: ['a', 2],
  },
  { code: 'if', level: 1, at: {}, path: 'no', flag: 'yes', strict: 3, extra: 1 },
  { level: null, at: null },
  {},
];

const optionSets: Array<ValidatorOptions | undefined> = [
  undefined,
  { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false } },
  { groups: ['strict'], always: true },
  { skipMissingProperties: true, stopAtFirstError: true },
];

describe('validateObjectSync / validateObject', () => {
  it.each(optionSets.map((options) => [JSON.stringify(options) ?? 'no options', options]))('match class-validator, %s', async (_label, options) => {
    let failures = 0;
    for (const input of inputs) {
      const sync = validateSync(plainToInstance(Shape, input), options);
      failures += sync.length;
      expect(validateObjectSync(plainToInstance(Shape, input), options)).toEqual(sync);
      expect(await validateObject(plainToInstance(Shape, input), options)).toEqual(await validate(plainToInstance(Shape, input), options));
    }
    expect(failures).toBeGreaterThan(4);
  });

  it('run async constraints only when asked, as validate and validateSync do', async () => {
    for (const name of ['known', 'unknown', 3]) {
      const instance = plainToInstance(Lookup, { name });
      expect(validateObjectSync(instance)).toEqual(validateSync(instance));
      expect(await validateObject(instance)).toEqual(await validate(instance));
    }
    expect(await validateObject(plainToInstance(Lookup, { name: 'unknown' }))).toHaveLength(1);
  });
});
