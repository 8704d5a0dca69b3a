import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  Contains,
  IsArray,
  IsBase64,
  IsBoolean,
  IsCreditCard,
  IsDateString,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEmpty,
  IsEnum,
  IsIn,
  IsInt,
  IsIP,
  IsISO8601,
  IsNegative,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotContains,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { HermesError } from '../../src/errors';
import { Description, JSONSchema } from '../../src/decorators/description.decorator';
import { iso8601Pattern } from '../../src/schema/iso8601';
import { JSON_SCHEMA_2020_12, buildObjectSchema, emptyObjectSchema, promptArgumentsFor } from '../../src/schema/schema-builder';
import { IPV4_PATTERN, base64Pattern, ipv6Pattern } from '../../src/schema/validator-patterns';
import { validateInput } from '../../src/validation/validator';

// ---------------------------------------------------------------------------------------------
// Fixtures: one small class per feature.

class Profile {
  @IsString() @Length(2, 20) name!: string;
  @IsString() @MinLength(3) @MaxLength(8) @Matches(/^[a-z0-9_]+$/) handle!: string;
  @IsEmail() email!: string;
  @IsOptional() @IsUrl() homepage?: string;
  @IsOptional() @IsUUID() id?: string;
  @IsOptional() @IsDateString() born?: string;
  @IsOptional() @IsIn(['c', 'f']) unit?: 'c' | 'f';
}

class Quantities {
  @IsInt() @Min(1) @Max(10) count!: number;
  // @Min above @IsInt: the order in which class-validator-jsonschema's merge made it a "number".
  @Min(0) @IsInt() index!: number;
  @IsNumber() @IsPositive() price!: number;
  @IsOptional() @IsNumber() @Max(1.5) ratio?: number;
  @IsInt() @IsNegative() delta = -1;
  @IsInt() @Min(1) pageSize = 20;
}

class Flags {
  @IsBoolean() enabled!: boolean;
  @IsOptional() @IsBoolean() verbose?: boolean;
}

enum Color {
  Red = 'red',
  Green = 'green',
}

enum Level {
  Low,
  High,
}

class Choices {
  @IsEnum(Color) color!: Color;
  @IsEnum(Level) level!: Level;
  @IsIn([1, 2, 3]) size!: number;
  @IsIn(['a', 1, true]) mixed!: string | number | boolean;
  @IsOptional() @IsArray() @IsEnum(Color, { each: true }) palette?: Color[];
}

class Address {
  @IsString() @Length(2, 50) city!: string;
  @IsOptional() @IsString() zip?: string;
}

class Customer {
  @IsString() name!: string;
  @IsDefined() @ValidateNested() @Type(() => Address) address!: Address;
  // @ValidateNested() alone lets a missing value through (but not null): not required, not nullable.
  @ValidateNested() @Type(() => Address) billing?: Address;
  @IsOptional() @ValidateNested() @Type(() => Address) shipping?: Address;
}

class Line {
  @IsString() sku!: string;
  @IsInt() @Min(1) qty!: number;
}

class Order {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(3) @ValidateNested({ each: true }) @Type(() => Line) lines!: Line[];
  // No `each`: the declared array type makes it an array of Line.
  @IsOptional() @ValidateNested() @Type(() => Line) spares?: Line[];
}

class Tagging {
  @IsArray() @ArrayMaxSize(3) @IsString({ each: true }) @MaxLength(5, { each: true }) tags!: string[];
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) scores?: number[];
  @IsOptional() @IsString({ each: true }) aliases?: string[];
}

class TreeNode {
  @IsString() label!: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
}

class Forest {
  @IsArray() @ValidateNested({ each: true }) @Type(() => TreeNode) trees!: TreeNode[];
}

@Description('Search the catalogue')
class Search {
  @Description('Words to look for') @IsString() @IsNotEmpty() q!: string;
  @JSONSchema({ description: 'Most results to return', examples: [10] }) @IsOptional() @IsInt() @Max(50) limit?: number;
  @Description('Free-form note') @Allow() note?: unknown;
  @IsDefined() payload!: unknown;
}

// ---------------------------------------------------------------------------------------------
// The table: every input is checked by Ajv against the derived schema AND by class-validator, and
// both must give the expected answer.
//
// Left out on purpose, because the two sides cannot agree (each is asserted in DIVERGENCES below):
// - class-validator is more lenient than the declared shape the schema follows: `each: true`
//   also validates a single non-array value; @ValidateNested also takes an array (even of arrays)
//   where one object is declared, and an object where an array is declared.
// - @IsEmail and @IsUrl publish a plain string (looser, warned): validator.js's grammars are no
//   format; @Length counts a variation selector as nothing.
// decorator-agreement.spec.ts checks every decorator this way, with its exceptions listed.

type Row = [label: string, input: unknown, valid: boolean];
interface Case {
  cls: new () => object;
  rows: Row[];
}

const profile = { name: 'Ann', handle: 'ann_1', email: 'ann@example.com' };
const quantities = { count: 5, index: 0, price: 9.99 };
const choices = { color: 'red', level: 0, size: 2, mixed: 'a' };
const customer = { name: 'Ann', address: { city: 'Paris' } };
const line = { sku: 'tea', qty: 1 };
const search = { q: 'tea', payload: 1 };

const without = (value: Record<string, unknown>, key: string) => {
  const copy = { ...value };
  delete copy[key];
  return copy;
};

const TABLE: Case[] = [
  {
    cls: Profile,
    rows: [
      ['required fields only', profile, true],
      ['every field', { ...profile, homepage: 'https://example.com/ann?x=1', id: '123e4567-e89b-42d3-a456-426614174000', born: '1990-04-01T08:30:00Z', unit: 'c' }, true],
      ['date-time with fraction and offset', { ...profile, born: '1990-04-01T08:30:00.250+02:00' }, true],
      ['optional fields null', { ...profile, homepage: null, id: null, born: null, unit: null }, true],
      ['unknown key (stripped)', { ...profile, nickname: 'annie' }, true],
      ['name at max length', { ...profile, name: 'A'.repeat(20) }, true],
      ['name too short', { ...profile, name: 'A' }, false],
      ['name too long', { ...profile, name: 'A'.repeat(21) }, false],
      ['name not a string', { ...profile, name: 42 }, false],
      ['name missing', without(profile, 'name'), false],
      ['name null', { ...profile, name: null }, false],
      ['handle breaks the pattern', { ...profile, handle: 'Ann-1' }, false],
      ['handle too short', { ...profile, handle: 'ab' }, false],
      ['id not a UUID', { ...profile, id: 'abc' }, false],
      ['id a UUID of version 0', { ...profile, id: '123e4567-e89b-02d3-a456-426614174000' }, false],
      ['born not a date', { ...profile, born: 'yesterday' }, false],
      // @IsDateString is validator.js's ISO 8601, not RFC 3339's date-time.
      ['born a date alone', { ...profile, born: '1990-04-01' }, true],
      ['born a time without zone', { ...profile, born: '1990-04-01T08:30' }, true],
      ['born a week date', { ...profile, born: '1990-W13-7' }, true],
      ['born an impossible day (not strict)', { ...profile, born: '1990-02-30' }, true],
      ['born with a lowercase t', { ...profile, born: '1990-04-01t08:30:00Z' }, false],
      ['born with a leap second', { ...profile, born: '1990-12-31T23:59:60Z' }, false],
      ['unit not listed', { ...profile, unit: 'k' }, false],
    ],
  },
  {
    cls: Quantities,
    rows: [
      ['base', quantities, true],
      ['bounds inclusive', { ...quantities, count: 10, ratio: 1.5 }, true],
      ['lower bound', { ...quantities, count: 1 }, true],
      ['defaults overridden', { ...quantities, pageSize: 50, delta: -7 }, true],
      ['optional null', { ...quantities, ratio: null }, true],
      ['count below min', { ...quantities, count: 0 }, false],
      ['count above max', { ...quantities, count: 11 }, false],
      ['count not an integer', { ...quantities, count: 2.5 }, false],
      ['count a numeric string', { ...quantities, count: '5' }, false],
      ['count missing', without(quantities, 'count'), false],
      ['index not an integer (@Min above @IsInt)', { ...quantities, index: 1.5 }, false],
      ['index negative', { ...quantities, index: -1 }, false],
      ['price zero', { ...quantities, price: 0 }, false],
      ['price negative', { ...quantities, price: -3 }, false],
      ['ratio above max', { ...quantities, ratio: 1.6 }, false],
      ['delta zero', { ...quantities, delta: 0 }, false],
      ['pageSize below min', { ...quantities, pageSize: 0 }, false],
      ['pageSize null (has a default, but null is not missing)', { ...quantities, pageSize: null }, false],
    ],
  },
  {
    cls: Flags,
    rows: [
      ['true', { enabled: true }, true],
      ['false with optional', { enabled: false, verbose: true }, true],
      ['optional null', { enabled: false, verbose: null }, true],
      ['string "true"', { enabled: 'true' }, false],
      ['number 1', { enabled: 1 }, false],
      ['missing', {}, false],
      ['optional not a boolean', { enabled: true, verbose: 0 }, false],
    ],
  },
  {
    cls: Choices,
    rows: [
      ['base', choices, true],
      ['numeric enum value', { ...choices, level: 1 }, true],
      ['mixed list: number', { ...choices, mixed: 1 }, true],
      ['mixed list: boolean', { ...choices, mixed: true }, true],
      ['array of enum values', { ...choices, palette: ['red', 'green'] }, true],
      ['empty array of enum values', { ...choices, palette: [] }, true],
      ['string enum member name', { ...choices, color: 'Red' }, false],
      ['numeric enum out of range', { ...choices, level: 2 }, false],
      ['numeric enum as string', { ...choices, level: '0' }, false],
      ['number not listed', { ...choices, size: 4 }, false],
      ['listed number as string', { ...choices, size: '2' }, false],
      ['mixed list: other string', { ...choices, mixed: 'b' }, false],
      ['mixed list: other boolean', { ...choices, mixed: false }, false],
      ['mixed list: number as string', { ...choices, mixed: '1' }, false],
      ['array with unknown value', { ...choices, palette: ['blue'] }, false],
      ['array expected', { ...choices, palette: 'red' }, false],
    ],
  },
  {
    cls: Customer,
    rows: [
      ['address only', customer, true],
      ['every address', { ...customer, billing: { city: 'Lima', zip: '15001' }, shipping: { city: 'Oslo' } }, true],
      ['optional nested null', { ...customer, shipping: null }, true],
      ['unknown nested key (stripped)', { ...customer, address: { city: 'Paris', floor: 3 } }, true],
      ['address missing', { name: 'Ann' }, false],
      ['address null', { ...customer, address: null }, false],
      ['nested field too short', { ...customer, address: { city: 'P' } }, false],
      ['nested required field missing', { ...customer, address: {} }, false],
      ['nested optional field wrong type', { ...customer, address: { city: 'Paris', zip: 75001 } }, false],
      ['address a string', { ...customer, address: 'Paris' }, false],
      ['@ValidateNested alone refuses null', { ...customer, billing: null }, false],
      ['second nested object invalid', { ...customer, billing: { city: 5 } }, false],
    ],
  },
  {
    cls: Order,
    rows: [
      ['one line', { lines: [line] }, true],
      ['three lines', { lines: [line, line, { sku: 'cup', qty: 2 }] }, true],
      ['array without each: empty', { lines: [line], spares: [] }, true],
      ['array without each: items', { lines: [line], spares: [{ sku: 'lid', qty: 3 }] }, true],
      ['array without each: null', { lines: [line], spares: null }, true],
      ['no lines', { lines: [] }, false],
      ['too many lines', { lines: [line, line, line, line] }, false],
      ['invalid element', { lines: [line, { sku: 'tea', qty: 0 }] }, false],
      ['element missing a field', { lines: [{ sku: 'tea' }] }, false],
      ['element not an object', { lines: ['tea'] }, false],
      ['element null', { lines: [null] }, false],
      ['object instead of array', { lines: line }, false],
      ['lines missing', {}, false],
      ['array without each: invalid element', { lines: [line], spares: [{ sku: 1, qty: 1 }] }, false],
    ],
  },
  {
    cls: Tagging,
    rows: [
      ['empty', { tags: [] }, true],
      ['strings within length', { tags: ['a', 'bcdef'] }, true],
      ['integers with a bound', { tags: [], scores: [0, 5] }, true],
      ['optional array null', { tags: [], scores: null, aliases: null }, true],
      ['each without @IsArray: array', { tags: [], aliases: ['x', 'y'] }, true],
      ['element too long', { tags: ['toolong'] }, false],
      ['element not a string', { tags: [1] }, false],
      ['element null', { tags: [null] }, false],
      ['too many elements', { tags: ['a', 'b', 'c', 'd'] }, false],
      ['string instead of array', { tags: 'a' }, false],
      ['integer below bound', { tags: [], scores: [-1] }, false],
      ['integer not an integer', { tags: [], scores: [1.5] }, false],
      ['integer as string', { tags: [], scores: ['1'] }, false],
      ['each without @IsArray: bad element', { tags: [], aliases: [1] }, false],
    ],
  },
  {
    cls: TreeNode,
    rows: [
      ['leaf', { label: 'root' }, true],
      ['three levels', { label: 'root', children: [{ label: 'a', children: [{ label: 'b' }] }, { label: 'c' }] }, true],
      ['children null', { label: 'root', children: null }, true],
      ['deep label wrong type', { label: 'root', children: [{ label: 'a', children: [{ label: 5 }] }] }, false],
      ['child missing label', { label: 'root', children: [{}] }, false],
      ['children not an array', { label: 'root', children: [{ label: 'a', children: 'b' }] }, false],
    ],
  },
  {
    cls: Forest,
    rows: [
      ['no trees', { trees: [] }, true],
      ['a tree', { trees: [{ label: 'a', children: [{ label: 'b' }] }] }, true],
      ['bad node', { trees: [{ label: 'a', children: [{ label: 1 }] }] }, false],
    ],
  },
  {
    cls: Search,
    rows: [
      ['required only', search, true],
      ['everything', { ...search, limit: 10, note: { any: 'thing' } }, true],
      ['@Allow takes null', { ...search, note: null }, true],
      ['@IsDefined takes falsy values', { q: 'tea', payload: 0 }, true],
      ['@IsDefined takes objects', { q: 'tea', payload: { a: [1] } }, true],
      ['@IsNotEmpty refuses ""', { ...search, q: '' }, false],
      ['q missing', { payload: 1 }, false],
      ['payload missing', { q: 'tea' }, false],
      ['payload null', { q: 'tea', payload: null }, false],
      ['limit above max', { ...search, limit: 51 }, false],
      ['limit a word', { ...search, limit: 'ten' }, false],
    ],
  },
];

function strictAjv(): Ajv2020 {
  // strict: unknown keywords, unknown formats, ignored keywords and loose types are compile errors.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const ajv = strictAjv();

/** isLength's count as a pattern (a variation selector after a character counts for nothing): see validator-patterns.ts. */
const LENGTH = (min: number, max: number | '') => `^(?:[^\\uFE0E\\uFE0F](?:[\\uFE0E\\uFE0F]|(?![\\uFE0E\\uFE0F]))|[\\uFE0E\\uFE0F]){${min},${max}}$`;

describe('buildObjectSchema: the schema accepts exactly what class-validator accepts', () => {
  describe.each(TABLE)('$cls.name', ({ cls, rows }) => {
    it('compiles under strict Ajv 2020-12', () => {
      expect(() => ajv.compile(buildObjectSchema(cls))).not.toThrow();
    });

    it.each(rows)('%s', (_label, input, valid) => {
      const check = ajv.compile(buildObjectSchema(cls));
      const seen = { schema: check(input), classValidator: validateInput(cls, input, { forbidNonWhitelisted: false }).ok };
      expect(seen).toEqual({ schema: valid, classValidator: valid });
    });
  });
});

describe('former divergences, and the looser rules (kept out of the table)', () => {
  class Formats {
    @IsOptional() @IsEmail() email?: string;
    @IsOptional() @IsUrl() url?: string;
    @IsOptional() @MaxLength(1) char?: string;
    @IsOptional() @IsString() word?: string;
  }

  const DIVERGENCES: Array<[string, new () => object, unknown, { schema: boolean; classValidator: boolean }]> = [
    ['each: true validates a lone value, and the schema takes one', Tagging, { tags: [], aliases: 'x' }, { schema: true, classValidator: true }],
    ['an array for one @ValidateNested object is refused by both', Customer, { ...customer, address: [{ city: 'Paris' }] }, { schema: false, classValidator: false }],
    ['@ValidateNested arrays of arrays are refused by both', Order, { lines: [[line]] }, { schema: false, classValidator: false }],
    ['one object for a @ValidateNested array is refused by both', Order, { lines: [line], spares: line }, { schema: false, classValidator: false }],
    ['@IsEnum takes a numeric enum member name, and the schema too', Choices, { ...choices, level: 'Low' }, { schema: true, classValidator: true }],
    // @IsEmail and @IsUrl publish a plain string (looser, warned): the formats refused what validator.js takes.
    ['@IsEmail takes a quoted local part, and the schema too', Formats, { email: '"john doe"@example.com' }, { schema: true, classValidator: true }],
    ['@IsEmail refuses a one-letter TLD', Formats, { email: 'ann@example.c' }, { schema: true, classValidator: false }],
    ['@IsEmail refuses text without @', Formats, { email: 'ann.example.com' }, { schema: true, classValidator: false }],
    ['@IsUrl takes a URL without scheme, and the schema too', Formats, { url: 'example.com' }, { schema: true, classValidator: true }],
    ['@IsUrl refuses text that is no URL', Formats, { url: 'not a url' }, { schema: true, classValidator: false }],
    ['@IsUrl refuses localhost', Formats, { url: 'http://localhost:3000' }, { schema: true, classValidator: false }],
    ['@IsUrl refuses other schemes', Formats, { url: 'mailto:ann@example.com' }, { schema: true, classValidator: false }],
    ['@Length ignores a variation selector, and the schema too', Formats, { char: '❤️' }, { schema: true, classValidator: true }],
  ];

  it.each(DIVERGENCES)('%s', (_label, cls, input, expected) => {
    const check = ajv.compile(buildObjectSchema(cls));
    expect({ schema: check(input), classValidator: validateInput(cls, input).ok }).toEqual(expected);
  });
});

describe('buildObjectSchema: structure', () => {
  type Props = Record<string, Record<string, unknown>>;
  const props = (cls: Function) => buildObjectSchema(cls).properties as Props;
  /** The schema with nested classes under `$defs` (`nested: 'defs'`), and its properties. */
  const withDefs = (cls: Function) => buildObjectSchema(cls, { nested: 'defs' });
  const defsProps = (cls: Function) => withDefs(cls).properties as Props;
  /** Address's schema. */
  const ADDRESS = {
    type: 'object',
    properties: { city: { type: 'string', minLength: 2, pattern: LENGTH(2, 50) }, zip: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    required: ['city'],
  };

  it('describes strings, lengths, pattern, formats; optional fields are not required and take null', () => {
    const schema = buildObjectSchema(Profile);
    expect(schema.$schema).toBeUndefined();
    expect(schema.$defs).toBeUndefined();
    expect(schema.required).toEqual(['name', 'handle', 'email']);
    const p = props(Profile);
    expect(p.name).toEqual({ type: 'string', minLength: 2, pattern: LENGTH(2, 20) });
    // @MinLength(3) @MaxLength(8): each rule's pattern, both of which must match.
    expect(p.handle).toEqual({ type: 'string', minLength: 3, pattern: '^[a-z0-9_]+$', allOf: [{ pattern: LENGTH(0, 8) }, { pattern: LENGTH(3, '') }] });
    // Formats "email" and "uri" refuse what validator.js takes: a plain string, warned as looser.
    expect(p.email).toEqual({ type: 'string' });
    expect(p.homepage).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(p.born).toEqual({ anyOf: [{ type: 'string', pattern: iso8601Pattern() }, { type: 'null' }] });
    expect(p.unit).toEqual({ anyOf: [{ enum: ['c', 'f'], type: 'string' }, { type: 'null' }] });
  });

  it('keeps integer over number whatever the decorator order, and turns initialisers into defaults', () => {
    const p = props(Quantities);
    expect(p.count).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
    expect(p.index).toEqual({ type: 'integer', minimum: 0 });
    expect(p.price).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(p.pageSize).toEqual({ type: 'integer', minimum: 1, default: 20 });
    expect(buildObjectSchema(Quantities).required).toEqual(['count', 'index', 'price']);
  });

  it('lists enum values, not the reverse mapping of numeric enums', () => {
    const p = props(Choices);
    expect(p.color).toEqual({ enum: ['red', 'green'], type: 'string' });
    // isEnum takes a numeric member's name too (TypeScript's reverse mapping): the schema lists it.
    expect(p.level).toEqual({ enum: [0, 1, 'Low', 'High'] });
    expect(p.mixed).toEqual({ enum: ['a', 1, true] });
  });

  it("with nested: 'defs', puts nested classes under $defs and refers to them", () => {
    const schema = withDefs(Customer);
    expect(Object.keys(schema.$defs as object)).toEqual(['Address']);
    expect(schema.required).toEqual(['name', 'address']);
    const p = defsProps(Customer);
    expect(p.address).toEqual({ $ref: '#/$defs/Address', not: { type: 'null' } });
    expect(p.billing).toEqual({ $ref: '#/$defs/Address' });
    expect(p.shipping).toEqual({ anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] });
    expect((schema.$defs as Props).Address).toEqual(ADDRESS);
  });

  it('writes nested classes out where they are used by default, a class used three times three times', () => {
    const schema = buildObjectSchema(Customer);
    expect(schema.$defs).toBeUndefined();
    expect(JSON.stringify(schema)).not.toContain('$ref');
    expect(schema.required).toEqual(['name', 'address']);
    const p = props(Customer);
    // `not: { type: 'null' }` beside the $ref is implied by type "object" once written out.
    expect(p.address).toEqual(ADDRESS);
    expect(p.billing).toEqual(ADDRESS);
    expect(p.shipping).toEqual({ anyOf: [ADDRESS, { type: 'null' }] });
  });

  it('makes arrays of nested classes, with or without each', () => {
    expect(defsProps(Order).lines).toEqual({ type: 'array', items: { $ref: '#/$defs/Line' }, minItems: 1, maxItems: 3 });
    expect(defsProps(Order).spares).toEqual({ anyOf: [{ type: 'array', items: { $ref: '#/$defs/Line' } }, { type: 'null' }] });
    const line = buildObjectSchema(Line);
    expect(line.required as string[]).toEqual(['sku', 'qty']);
    const p = props(Order);
    expect(p.lines).toEqual({ type: 'array', items: line, minItems: 1, maxItems: 3 });
    expect(p.spares).toEqual({ anyOf: [{ type: 'array', items: line }, { type: 'null' }] });
  });

  it('types the items of arrays of primitives', () => {
    const p = props(Tagging);
    expect(p.tags).toEqual({ type: 'array', maxItems: 3, items: { type: 'string', pattern: LENGTH(0, 5) } });
    expect(p.scores).toEqual({ anyOf: [{ type: 'array', items: { type: 'integer', minimum: 0 } }, { type: 'null' }] });
  });

  it('handles recursion: the root is written out and also defined, for its own references (in either form)', () => {
    expect(withDefs(TreeNode)).toEqual(buildObjectSchema(TreeNode));
    const tree = buildObjectSchema(TreeNode);
    expect(tree.type).toBe('object');
    expect(Object.keys(tree.$defs as object)).toEqual(['TreeNode']);
    expect(props(TreeNode).children).toEqual({ anyOf: [{ type: 'array', items: { $ref: '#/$defs/TreeNode' } }, { type: 'null' }] });
    const forest = buildObjectSchema(Forest);
    expect(Object.keys(forest.$defs as object)).toEqual(['TreeNode']);
  });

  it('includes only the classes reached, and keeps two classes of one name apart', () => {
    const makeItem = (field: string) => {
      class Item {
        @IsString() name!: string;
      }
      Object.defineProperty(Item, 'name', { value: 'Item' });
      return { Item, field };
    };
    const first = makeItem('a').Item;
    const second = makeItem('b').Item;
    class Unused {
      @IsString() x!: string;
    }
    class Pair {
      @ValidateNested() @Type(() => first) a!: object;
      @ValidateNested() @Type(() => second) b!: object;
      @IsOptional() @IsString() note?: Unused;
    }
    const schema = withDefs(Pair);
    expect(Object.keys(schema.$defs as object)).toEqual(['Item', 'Item2']);
    expect(defsProps(Pair).a).toEqual({ $ref: '#/$defs/Item' });
    expect(defsProps(Pair).b).toEqual({ $ref: '#/$defs/Item2' });
    expect(() => strictAjv().compile(schema)).not.toThrow();
    expect(() => strictAjv().compile(buildObjectSchema(Pair))).not.toThrow();
  });

  it('applies @Description (property and class) and @JSONSchema, and keeps @Allow/@IsDefined properties', () => {
    const schema = buildObjectSchema(Search);
    expect(schema.description).toBe('Search the catalogue');
    const p = props(Search);
    expect(p.q).toEqual({ type: 'string', not: { enum: ['', null] }, description: 'Words to look for' });
    expect(p.limit).toEqual({
      anyOf: [{ type: 'integer', maximum: 50 }, { type: 'null' }],
      description: 'Most results to return',
      examples: [10],
    });
    expect(p.note).toEqual({ description: 'Free-form note' });
    expect(p.payload).toEqual({ not: { type: 'null' } });
    expect(schema.required).toEqual(['q', 'payload']);
  });

  it('includes inherited properties', () => {
    class Base {
      @Description('From the parent') @IsString() a!: string;
    }
    class Child extends Base {
      @IsOptional() @IsInt() b?: number;
    }
    class Same extends Base {}
    expect(buildObjectSchema(Child)).toEqual({
      type: 'object',
      properties: { b: { anyOf: [{ type: 'integer' }, { type: 'null' }] }, a: { type: 'string', description: 'From the parent' } },
      required: ['a'],
    });
    expect(buildObjectSchema(Same).required).toEqual(['a']);
  });

  it('gives properties without type information a schema that stays valid', () => {
    @ValidatorConstraint({ name: 'even' })
    class Even implements ValidatorConstraintInterface {
      validate(value: unknown) {
        return typeof value === 'number' && value % 2 === 0;
      }
    }
    class Loose {
      @Validate(Even) anything!: any;
      @Validate(Even) nested!: Address; // class-validator-jsonschema made this `#/definitions/Address`
      @Validate(Even) count!: number;
      @Validate(Even, { each: true }) list!: number[];
    }
    const schema = buildObjectSchema(Loose);
    // A custom validator's code decides, whatever `design:type` says: nothing is known of `count` either,
    // nor of `list` (an `each: true` rule takes a lone value too).
    expect(schema.properties).toEqual({ anything: {}, nested: {}, count: {}, list: {} });
    expect(() => strictAjv().compile(schema)).not.toThrow();
  });

  it('translates or drops what is not JSON Schema 2020-12', () => {
    class Sink {
      @IsIP() ip!: string;
      @IsIP('6') ip6!: string;
      @IsBase64() data!: string;
      @IsCreditCard() card!: string;
      @IsEmpty() blank!: string;
      @Contains('a.b') dotted!: string;
      @NotContains('x+') plain!: string;
      @Matches(/^ab$/i) caseless!: string;
      @Matches('^b-c$') fromString!: string;
      @Matches(/^\p{L}+$/u) letters!: string;
      @IsISO8601() when!: string;
      @IsDivisibleBy(5) five!: number;
      @IsUUID('4') v4!: string;
    }
    const schema = buildObjectSchema(Sink);
    expect(() => strictAjv().compile(schema)).not.toThrow();
    const p = props(Sink);
    expect(p.ip).toEqual({ type: 'string', anyOf: [{ format: 'ipv4', pattern: IPV4_PATTERN }, { pattern: ipv6Pattern() }] });
    expect(p.ip6).toEqual({ type: 'string', pattern: ipv6Pattern() });
    expect(p.data).toEqual({ type: 'string', contentEncoding: 'base64', pattern: base64Pattern() });
    expect(p.card).toEqual({ type: 'string' });
    expect(p.blank).toEqual({ enum: ['', null] });
    expect(p.dotted).toEqual({ type: 'string', pattern: 'a\\.b' });
    expect(p.plain).toEqual({ type: 'string', not: { pattern: 'x\\+' } });
    expect(p.caseless).toEqual({ type: 'string', pattern: '^[Aa][Bb]$' }); // `i` spelled out (regex-pattern.ts)
    expect(p.fromString).toEqual({ type: 'string', pattern: '^b-c$' });
    expect(p.letters).toEqual({ type: 'string', pattern: '^\\p{L}+$' });
    expect(p.when).toEqual({ type: 'string', pattern: iso8601Pattern() });
    expect(p.five).toEqual({ type: 'number', multipleOf: 5 });
    expect(p.v4).toMatchObject({ type: 'string', format: 'uuid' });
    expect(schema.required).not.toContain('blank'); // @IsEmpty takes a missing value
  });

  it('fails with a fix when @ValidateNested has no @Type', () => {
    class Bare {
      @ValidateNested() address!: Address;
    }
    expect(() => buildObjectSchema(Bare)).toThrow(HermesError);
    expect(() => buildObjectSchema(Bare)).toThrow(/HERMES_UNRESOLVED_TYPE: Bare\.address: @ValidateNested\(\) needs @Type\(\(\) => TheClass\)/);
  });

  it('builds once and returns a deeply frozen schema (each form)', () => {
    const schema = buildObjectSchema(Customer);
    expect(buildObjectSchema(Customer)).toBe(schema);
    expect(buildObjectSchema(Customer, { nested: 'inline' })).toBe(schema);
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen(schema.properties)).toBe(true);
    expect(Object.isFrozen((schema.properties as Props).address.properties)).toBe(true);
    const defs = withDefs(Customer);
    expect(withDefs(Customer)).toBe(defs);
    expect(Object.isFrozen((defs.$defs as Props).Address.properties)).toBe(true);
  });

  it('names the 2020-12 dialect on request only', () => {
    expect(JSON_SCHEMA_2020_12).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => strictAjv().compile({ $schema: JSON_SCHEMA_2020_12, ...buildObjectSchema(Order) })).not.toThrow();
  });

  it('gives an empty object schema for classes and tools without parameters', () => {
    expect(emptyObjectSchema()).toEqual({ type: 'object', properties: {} });
    expect(Object.isFrozen(emptyObjectSchema().properties)).toBe(true);
    class Nothing {}
    expect(buildObjectSchema(Nothing)).toEqual({ type: 'object', properties: {} });
  });
});

describe('promptArgumentsFor', () => {
  it('lists top-level properties with description and required', () => {
    // Prompt arguments are strings: `limit` is converted before @IsInt() sees it.
    class SearchArgs extends Search {
      @Type(() => Number) declare limit?: number;
    }
    expect(promptArgumentsFor(SearchArgs)).toEqual([
      { name: 'q', description: 'Words to look for', required: true },
      { name: 'limit', description: 'Most results to return', required: false },
      { name: 'note', description: 'Free-form note', required: false },
      { name: 'payload', required: true },
    ]);
  });

  it('gives nothing for a class without properties', () => {
    class Nothing {}
    expect(promptArgumentsFor(Nothing)).toEqual([]);
  });
});
