/**
 * The input classes of messages.spec.ts: the official "memory" server's, and one of each kind of
 * rule whose message Hermes rewrites or keeps. A module of its own, so the spec can load it again
 * in a fresh module registry (class-validator's public API, `HERMES_INTEROP=public`).
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsDate,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxDate,
  MinDate,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';

export const JAN_2024 = new Date('2024-01-01T00:00:00Z');
export const MAY_2024_MORNING = new Date('2024-05-01T10:30:00Z');

export class Entity {
  @IsString() @IsNotEmpty() name!: string;
  @IsString() entityType!: string;
  @IsArray() @IsString({ each: true }) observations!: string[];
}

export class CreateEntities {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Entity) entities!: Entity[];
}

export class AddObservations {
  @IsDefined() @ValidateNested() @Type(() => Entity) entity!: Entity;
  @IsInt() count!: number;
}

export class Relation {
  @IsString() from!: string;
  @IsString() to!: string;
}

/** Relations, of which there may be none (a nested array without @IsArray). */
export class DeleteRelations {
  @ValidateNested({ each: true }) @Type(() => Relation) relations!: Relation[];
}

export class Dated {
  @IsOptional() @Type(() => Date) @IsDate() @MaxDate(() => JAN_2024) before?: Date;
  @IsOptional() @Type(() => Date) @IsDate() @MinDate(() => JAN_2024) after?: Date;
  @IsOptional() @Type(() => Date) @IsDate() @MinDate(MAY_2024_MORNING) from?: Date;
  @IsOptional() @Type(() => Date) @IsDate() @MaxDate(() => JAN_2024, { message: 'pick a day up to $constraint1' }) due?: Date;
}

export class Tagged {
  @IsOptional() @ArrayNotEmpty() @ArrayUnique((tag: string) => tag.toLowerCase()) tags?: string[];
  @IsOptional() @IsString({ each: true }) @Length(2, 4, { each: true }) words?: string[];
  @IsOptional() @IsIn(['asc', 'desc']) order?: string;
}

@ValidatorConstraint({ name: 'isFreeName' })
export class IsFreeName implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value !== 'taken';
  }
  defaultMessage(): string {
    return 'that name is already taken';
  }
}

/** Messages the user wrote, on a rule and on nested validation, and a custom constraint's. */
export class Worded {
  @IsString({ message: 'a title, please' }) @Length(1, 80) title!: string;
  @IsOptional() @Matches(/^\d+$/, { message: 'digits only, please' }) id?: string;
  @IsOptional() @ValidateNested({ message: 'give the entity as an object' }) @Type(() => Entity) entity?: Entity;
  @IsOptional() @Validate(IsFreeName) handle?: string;
}

/** Rules of no JSON type: what a missing value must be is their own message's. */
export class Contact {
  @IsEmail() email!: string;
  @IsIn(['asc', 'desc']) order!: string;
}

/** `each` rules without @IsArray, beside a rule that takes only arrays. */
export class Listed {
  @IsString({ each: true }) @ArrayMaxSize(3) labels!: string[];
}

/** By name, for the spec's table (and its second module registry). */
export const CLASSES = { Entity, CreateEntities, AddObservations, DeleteRelations, Dated, Tagged, Worded, Contact, Listed };
