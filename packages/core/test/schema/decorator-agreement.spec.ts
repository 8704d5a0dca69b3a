/**
 * Decorator by decorator, both directions: for every class-validator rule the schema builder has a
 * converter for (every rule class-validator exports that applies to JSON), a class with one
 * property using it, alone and in the combinations that went wrong, and many values — hand-picked
 * edge cases and fast-check samples (fixed seeds) — each checked: does class-validator accept it
 * (`validateInput`, the server's own path; and a real `tools/call` on one server with a tool per
 * row gives the same verdict), and does the published schema accept it (Ajv 2020-12, strict, with
 * ajv-formats' full formats asserted, and again with formats as annotations, JSON Schema 2020-12's
 * default: no row may lean on a format)? The answers must be the same, except:
 * - looser, warned: the schema accepts more, and only where the builder reports
 *   HERMES_SCHEMA_LOOSER for the property (and a warned row must show at least one such value);
 * - refused at bootstrap: no JSON value passes, and McpFactory refuses the class as an input with
 *   the row's error code (the row checks the refusal instead of the values);
 * - Ajv's own multipleOf arithmetic (an exception on its rows, with the values it covers: a
 *   mismatch no exception covers fails, and so does an exception no value needs any more).
 * There is no "known gap": every rule is one of those, or exact. The published schema writes nested
 * classes out (the default); the same class published with `$defs` (`nested: 'defs'`) must give
 * the same verdict on every value, and the published one must hold no `$ref` (no row is recursive).
 *
 * What each row found is rendered as the table of docs/schemas.md, which must match
 * (UPDATE_DOCS=1 rewrites it). A completeness check compares the rows with the converters the
 * builder uses: a newly mapped rule without a row fails here.
 */
import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayContains,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotContains,
  ArrayNotEmpty,
  ArrayUnique,
  Contains,
  Equals,
  IsAlpha,
  IsAlphanumeric,
  IsArray,
  IsAscii,
  IsBase64,
  IsBoolean,
  IsBooleanString,
  IsByteLength,
  IsCreditCard,
  IsCurrency,
  IsDate,
  IsDateString,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEmpty,
  IsEnum,
  IsFQDN,
  IsFullWidth,
  IsHalfWidth,
  IsHexColor,
  IsHexadecimal,
  IsIn,
  IsInt,
  IsIP,
  IsISBN,
  IsISIN,
  IsISO8601,
  IsJSON,
  IsLowercase,
  IsMilitaryTime,
  IsMobilePhone,
  IsMongoId,
  IsMultibyte,
  IsNegative,
  IsNotEmpty,
  IsNotEmptyObject,
  IsNotIn,
  IsNumber,
  IsNumberString,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsSurrogatePair,
  IsUppercase,
  IsUrl,
  IsUUID,
  IsVariableWidth,
  Length,
  Matches,
  Max,
  MaxDate,
  MaxLength,
  Min,
  MinDate,
  MinLength,
  NotContains,
  NotEquals,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  IsFirebasePushId,
  IsBase32,
  IsBase58,
  IsBIC,
  IsBtcAddress,
  IsDataURI,
  IsDecimal,
  IsEAN,
  IsEthereumAddress,
  IsHash,
  IsHSL,
  IsIBAN,
  IsIdentityCard,
  IsISO31661Alpha2,
  IsISO31661Alpha3,
  IsISO31661Numeric,
  IsISO4217CurrencyCode,
  IsISO6391,
  IsISRC,
  IsISSN,
  IsJWT,
  IsLatLong,
  IsLocale,
  IsMACAddress,
  IsMagnetURI,
  IsMimeType,
  IsOctal,
  IsPassportNumber,
  IsPhoneNumber,
  IsPort,
  IsPostalCode,
  IsRFC3339,
  IsRgbColor,
  IsSemVer,
  IsStrongPassword,
  IsTaxId,
  IsTimeZone,
  IsLatitude,
  IsLongitude,
  IsInstance,
  getMetadataStorage,
} from 'class-validator';
import * as classValidator from 'class-validator';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HermesError, McpFactory, McpHeader, McpServer, createLogger } from '@hermes-mcp/core';
import { createTestClient } from '@hermes-mcp/testing';
import { buildObjectSchema, closedObjectSchema, convertedRuleTypes, schemaWarningsFor } from '../../src/schema/schema-builder';
import { validateInput } from '../../src/validation/validator';

// ---------------------------------------------------------------------------------------------
// Values. MISSING leaves the property out of the input.

const MISSING = Symbol('missing');
const SEED = 8601;
const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, seed = SEED): T[] => fc.sample(arbitrary, { seed, numRuns });

/** Every row gets these: each JSON type, the usual suspects, and random JSON. */
const ANY: unknown[] = [
  MISSING,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  2,
  1.5,
  -2.5,
  1e21,
  2 ** 53,
  -1e-7,
  Number.MAX_VALUE,
  '',
  ' ',
  'a',
  'A',
  'abc',
  '0',
  '1',
  'true',
  'null',
  '😀',
  '\uFE0F',
  [],
  [1],
  ['a'],
  [null],
  [[]],
  [{}],
  {},
  { a: 1 },
  { value: 'x' },
  { a: null },
  ...sample(fc.jsonValue({ maxDepth: 2 }), 40),
];

const CHARS = [
  'a',
  'Z',
  '0',
  '9',
  '_',
  '-',
  '.',
  ' ',
  '\t',
  '\n',
  '\u00A0',
  '\u3000',
  'é',
  'É',
  'ß',
  'İ',
  'ı',
  'Σ',
  'ς',
  'ǅ',
  'ﬀ',
  'µ',
  '１',
  'Ａ',
  'ｱ',
  '\uFF61',
  '\uFFE8',
  '😀',
  '\uD83D',
  '\uDE00',
  '\uFE0E',
  '\uFE0F',
  '\u200D',
  '@',
  '#',
  '/',
  '+',
  '=',
  '%',
  '~',
];
const STRINGS: unknown[] = [
  ...CHARS,
  'abc',
  'ABC',
  'Abc',
  'abc1',
  'a b',
  'a.b',
  'a\uFE0F',
  '❤️',
  '❤️❤️',
  '😀😀',
  'a\uD800',
  'x'.repeat(40),
  ...sample(fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 6 }), 60),
  ...sample(fc.string({ unit: 'grapheme', maxLength: 5 }), 20),
  ...sample(fc.string({ unit: 'binary', maxLength: 4 }), 20),
];

const NUMBERS: unknown[] = [
  -3,
  -2,
  -1,
  -0.5,
  0,
  0.5,
  1,
  2,
  3,
  2.5,
  4.5,
  6,
  7.5,
  9,
  10,
  11,
  15,
  1e-7,
  1e300,
  -1e300,
  2 ** 31,
  2 ** 53 + 2,
  1e21,
  3e21,
  Number.MIN_VALUE,
  Number.EPSILON,
  0.1,
  0.3,
  1 / 3,
  ...sample(fc.integer({ min: -20, max: 20 }), 20),
  ...sample(fc.integer(), 10),
  ...sample(fc.double({ noNaN: true, noDefaultInfinity: true }), 30),
];

const ARRAYS: unknown[] = [
  [],
  [1],
  [1, 1],
  [1, 2],
  ['a'],
  ['a', 'a'],
  ['a', 'b'],
  ['a', 1],
  [null],
  [null, null],
  [true, 'true'],
  [1, '1'],
  [{ a: 1 }, { a: 1 }],
  [[1], [1]],
  [{}, {}],
  ['a', 'b', 'c'],
  [0, -0],
  ['a', null],
  ...sample(fc.array(fc.oneof(fc.constantFrom('a', 'b', 1, 2, null, true, false, ''), fc.jsonValue({ maxDepth: 1 })), { maxLength: 4 }), 40),
];

/** Keys named like Object.prototype's members, which class-transformer drops or fails on, as JSON.parse makes them. */
const PROTO_KEYED: unknown[] = [
  '{"constructor":1}',
  '{"constructor":null}',
  '{"hasOwnProperty":1}',
  '{"hasOwnProperty":null}',
  '{"a":1,"hasOwnProperty":1}',
  '{"toString":1}',
  '{"valueOf":null,"isPrototypeOf":2}',
  '{"a":{"constructor":1}}',
  '{"a":[{"toString":"x"}]}',
].map((text) => JSON.parse(text) as unknown);
const OBJECTS: unknown[] = [
  ...PROTO_KEYED,
  {},
  { a: 1 },
  { a: null },
  { a: null, b: null },
  { a: null, b: 0 },
  { '': '' },
  { a: [] },
  { a: {} },
  // As JSON.parse makes them (fast-check may give an object without a prototype, which no client sends).
  ...sample(fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 1 })), { maxKeys: 3 }), 30).map(
    (value) => JSON.parse(JSON.stringify(value)) as unknown,
  ),
];

const mutations = (base: fc.Arbitrary<string>, alphabet: string[]): fc.Arbitrary<string> =>
  fc.tuple(base, fc.nat(40), fc.constantFrom('', ...alphabet), fc.boolean()).map(([text, at, insert, replace]) => text.slice(0, at) + insert + text.slice(at + (replace ? 1 : 0)));

/** ISO 8601 look-alikes: valid and broken pieces in any order, then mutated. */
const ISO_PIECES = [
  '',
  '+',
  '-',
  '1997',
  '2000',
  '1900',
  '2004',
  '0000',
  '0031',
  '0400',
  '19970',
  '-',
  '-',
  'W',
  'W01',
  'W53',
  'W54',
  '-3',
  '7',
  ':',
  ':',
  '.',
  ',',
  'T',
  'T',
  't',
  ' ',
  '\t',
  '\u3000',
  'Z',
  'z',
  '+02',
  '-05:30',
  '+0530',
  '24:00',
  '00',
  '01',
  '02',
  '12',
  '13',
  '29',
  '30',
  '31',
  '32',
  '23',
  '24',
  '59',
  '60',
  '360',
  '366',
  '365',
  '123',
  '135',
  '130',
  '001',
  '5',
  '45',
];
const isoLike = fc.array(fc.constantFrom(...ISO_PIECES), { maxLength: 8 }).map((pieces) => pieces.join(''));
const ISO_STRINGS: unknown[] = [
  '1997',
  '+1997',
  '-0001',
  '1997-01',
  '199701',
  '199701T10',
  '1997-01-01',
  '19970101',
  '1997-W01',
  '1997W013',
  '1997-W01-3',
  '1997-123',
  '1997123',
  '1997-360',
  '1997-366',
  '2000-366',
  '1997-01-01T10',
  '1997-01-01T10:30',
  '1997-01-01T1030',
  '1997-01-01T10:30:45',
  '1997-01-01T103045',
  '1997-01-01T10:3045',
  '1997-01-01T10:30:45.5Z',
  '1997-01-01T10:30,5+02',
  '1997-01-01T10.5:30',
  '1997-01-01T24:00',
  '1997-01-01T24:00:30',
  '1997-01-01 10:00',
  '1997-01-01\t10:00',
  '1997-01-01t10:00',
  '1997-01-01T',
  '1997-01-01T30',
  '1997-01-01TZ',
  '2024-05-01T10:00:00Z',
  '2024-05-01T10:00:00.250+02:00',
  '2023-02-29',
  '2024-02-29',
  '1900-02-29',
  '2000-02-29',
  '2023-02-30',
  '2023-04-31',
  '0031-12-01',
  '+1997-135',
  '1997-135',
  '1997-135\u3000',
  '1997-01-01T10:00:60',
  '1997-13-01',
  'yesterday',
  ...sample(isoLike, 150),
  ...sample(mutations(isoLike, ['0', '1', ':', '-', 'T', ' ', '.', '５']), 60),
];

const HEX = '0123456789abcdefABCDEFxhXH'.split('');
const hexString = (maxLength: number) => fc.string({ unit: fc.constantFrom(...HEX), maxLength });

// ---------------------------------------------------------------------------------------------
// The table.

/**
 * A mismatch that is Ajv's, not the schema's: `when` says which values it covers; `schema` what
 * Ajv answers for them (class-validator answering the opposite). Every exception must be needed.
 */
interface Exception {
  reason: string;
  when: (value: unknown) => boolean;
  schema: 'accepts' | 'refuses' | 'either';
}

interface Row {
  /** The rule type (converter key) the row covers. */
  rule: string;
  label: string;
  /** Applied to the property `value`, as written top to bottom. */
  decorators: PropertyDecorator[];
  /** The property's declared type (`design:type`). */
  type?: Function;
  values: unknown[];
  exceptions?: Exception[];
  /** The values include some class-validator accepts and some it refuses, unless the rule takes no JSON value, or every one. */
  takes?: 'nothing' | 'everything';
  /** Declared on a parent class (which class-validator-jsonschema converts, rather than our one pass). */
  inherited?: boolean;
  /** The error code with which the bootstrap refuses the class as a tool's input (it publishes no input schema then). */
  refused?: string;
  /** The input key the values are sent under (`value` unless an `@Expose` renames it). */
  key?: string;
  /** Validated with `forbidNonWhitelisted`, against the closed schema (`additionalProperties: false`). */
  closed?: boolean;
  /** The property a looser warning names, when not `value` (one of a nested class). */
  warnedAt?: string;
}

/** A value that is a whole input rather than the value of the row's key. */
class Whole {
  constructor(readonly input: Record<string, unknown>) {}
}
const whole = (input: Record<string, unknown>) => new Whole(input);

/** The input a row sends for one of its values: a copy each time (a discriminator's property is deleted from the input). */
const inputOf = (r: Row, value: unknown): Record<string, unknown> =>
  value === MISSING ? {} : value instanceof Whole ? (copy(value.input) as Record<string, unknown>) : { [r.key ?? 'value']: copy(value) };
/** A deep copy of a JSON value, in this realm (structuredClone's objects fail class-transformer's `instanceof Object`), -0 kept. */
const copy = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(copy) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copy(item)])) : value;
const CLOSED = { forbidNonWhitelisted: true };
const optionsOf = (r: Row) => (r.closed ? CLOSED : {});

let classes = 0;
/** A class with one property, `value`, decorated as a TypeScript class would be (on its parent if `inherited`). */
function classOf(label: string, decorators: PropertyDecorator[], type?: Function, inherited = false): new () => object {
  const name = `${label.replace(/[^A-Za-z0-9]/g, '')}_${++classes}`;
  const cls = { [name]: class {} }[name];
  if (type) Reflect.defineMetadata('design:type', type, cls.prototype, 'value');
  for (const decorator of [...decorators].reverse()) decorator(cls.prototype, 'value');
  return inherited ? { [`${name}_child`]: class extends cls {} }[`${name}_child`] : cls;
}

/** Variation selectors (U+FE0E, U+FE0F) where isLength weighs them apart: after a character, in a row, first, after a surrogate. */
const SELECTORS = fc.constantFrom('a', '\uFE0E', '\uFE0F', '😀', '\uD83D', '\uDE00', '\n');
const LENGTHS: unknown[] = [
  '\uFE0F\uFE0F',
  'a\uFE0F\uFE0F',
  '\uFE0Fa',
  '\uFE0Fab',
  '😀\uFE0F',
  '\uD800\uFE0F',
  'ab\uFE0E',
  'a\uFE0Fb\uFE0F',
  '❤️❤️❤️',
  '\n\n',
  ...sample(fc.string({ unit: SELECTORS, maxLength: 8 }), 120),
];

/** Ajv divides (floating point) to check multipleOf; class-validator's `%` is exact, as JSON Schema means it. */
const AJV_MULTIPLE_OF: Exception = {
  reason:
    "Ajv checks multipleOf by division: past 2^53 every quotient looks whole (past 1e21 it misreads the exponent), and a quotient that underflows to 0 passes; class-validator's % is exact, as the specification means it",
  schema: 'either',
  when: (value) => typeof value === 'number' && (Math.abs(value) >= 2 ** 53 || (value !== 0 && Math.abs(value) < 1e-300)),
};

const ROWS: Row[] = [];
const row = (rule: string, label: string, decorators: PropertyDecorator[], values: unknown[], more: Partial<Row> = {}) => ROWS.push({ rule, label, decorators, values, ...more });

// --- formats
row('isEmail', '@IsEmail()', [IsEmail()], [...STRINGS, 'ann@example.com', '"john doe"@example.com', 'ann@example.c', 'ann@localhost', ...sample(fc.emailAddress(), 60)], {
  type: String,
});
row('isUrl', '@IsUrl()', [IsUrl()], [...STRINGS, 'https://example.com/a?b=1', 'example.com', 'http://localhost:3000', 'mailto:ann@example.com', ...sample(fc.webUrl(), 60)], {
  type: String,
});
row(
  'isUuid',
  '@IsUUID()',
  [IsUUID()],
  [
    ...STRINGS,
    ...sample(fc.uuid(), 30),
    ...sample(fc.uuid({ version: [1, 4, 7] }), 20),
    'urn:uuid:123e4567-e89b-42d3-a456-426614174000',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  ],
  { type: String },
);
row('isUuid', "@IsUUID('4')", [IsUUID('4')], [...sample(fc.uuid(), 30), ...sample(fc.uuid({ version: 4 }), 20), '123E4567-E89B-42D3-A456-426614174000']);
row('isUuid', "@IsUUID('loose')", [IsUUID('loose')], [...sample(fc.uuid(), 30), 'urn:uuid:123e4567-e89b-42d3-a456-426614174000', '123e4567-e89b-02d3-0456-426614174000']);
row('isUuid', "@IsUUID(['4', '7'])", [IsUUID(['4', '7'])], [...sample(fc.uuid(), 30), ...sample(fc.uuid({ version: [4, 7] }), 20)]);
row('isDateString', '@IsDateString()', [IsDateString()], [...ISO_STRINGS, ...STRINGS], { type: String });
row('isDateString', '@IsDateString({ strict: true })', [IsDateString({ strict: true })], ISO_STRINGS);
row('isIso8601', '@IsISO8601()', [IsISO8601()], [...ISO_STRINGS, ...STRINGS]);
row('isIso8601', '@IsISO8601({ strict: true, strictSeparator: true })', [IsISO8601({ strict: true, strictSeparator: true })], ISO_STRINGS);
const IPS = [
  '1.2.3.4',
  '255.255.255.255',
  '256.1.1.1',
  '01.2.3.4',
  '::1',
  '::',
  'fe80::1%eth0',
  'fe80::1%',
  '::ffff:1.2.3.4',
  '1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7:8:9',
  ...sample(fc.ipV4(), 20),
  ...sample(fc.ipV4Extended(), 20),
  ...sample(fc.ipV6(), 40),
];
row('isIp', '@IsIP()', [IsIP()], [...STRINGS, ...IPS]);
row('isIp', "@IsIP('4')", [IsIP('4')], IPS);
row('isIp', "@IsIP('6')", [IsIP('6')], IPS);
row('isIp', '@IsIP(4)', [IsIP(4)], IPS);
const HOSTS = [
  'example.com',
  'localhost',
  'a_b.com',
  'bücher.de',
  'example.c',
  'example.123',
  '-a.com',
  'a-.com',
  `${'a'.repeat(63)}.com`,
  `${'a'.repeat(64)}.com`,
  `${'a'.repeat(62)}😀.com`,
  'ｅxample.com',
  'example.com.',
  '*.example.com',
  'a..com',
  '.com',
  'xn--bcher-kva.example',
  'a.xn--p1ai',
  'a.xn--',
  'a.b\u3000c',
  'a\u3000b.com',
  '123',
  '1.23',
  'a.1b',
  'a.b-',
  'a.ü',
  'a.😀',
  'a.b_c',
  ...sample(fc.domain(), 40),
  ...sample(mutations(fc.domain(), ['.', '-', '_', '*', '1', 'a', 'ü', '\u3000', 'ｅ', '😀']), 60),
];
const FQDN_OPTIONS = [
  { require_tld: false },
  { allow_underscores: true, allow_trailing_dot: true, allow_wildcard: true },
  { allow_numeric_tld: true },
  { require_tld: false, allow_numeric_tld: true, ignore_max_length: true },
];
for (const options of FQDN_OPTIONS) row('isFqdn', `@IsFQDN(${JSON.stringify(options)})`, [IsFQDN(options)], HOSTS);
row('isFqdn', '@IsFQDN()', [IsFQDN()], [...STRINGS, ...HOSTS, `${'a'.repeat(62)}😀.com`]);
const BASE64 = [
  '',
  'QQ==',
  'QUI=',
  'QUJD',
  'QUJDRA',
  'QUJDRA==',
  'QUJD=',
  'QU=D',
  '=',
  '====',
  'Q===',
  'a+/b',
  'a-_b',
  'a-_b==',
  ...sample(fc.base64String(), 30),
  ...sample(fc.string({ unit: fc.constantFrom('A', 'b', '0', '+', '/', '-', '_', '='), maxLength: 9 }), 60),
];
row('isBase64', '@IsBase64()', [IsBase64()], [...STRINGS, ...BASE64]);
row('isBase64', '@IsBase64({ urlSafe: true })', [IsBase64({ urlSafe: true })], BASE64);
row('isBase64', '@IsBase64({ urlSafe: true, padding: true })', [IsBase64({ urlSafe: true, padding: true })], BASE64);
row(
  'isMongoId',
  '@IsMongoId()',
  [IsMongoId()],
  [
    ...STRINGS,
    '507f1f77bcf86cd799439011',
    '0x07f1f77bcf86cd79943901',
    '0H07f1f77bcf86cd79943901',
    ...sample(hexString(26), 40),
    ...sample(fc.string({ unit: fc.constantFrom(...HEX), minLength: 22, maxLength: 26 }), 40),
  ],
);
row(
  'isHexColor',
  '@IsHexColor()',
  [IsHexColor()],
  [...STRINGS, '#fff', 'fff', '#ffff', '#ffffff', '#ffffff80', '#fffff', '#ggg', ...sample(fc.string({ unit: fc.constantFrom('#', 'a', 'F', '0', 'g'), maxLength: 10 }), 60)],
);
row('isHexadecimal', '@IsHexadecimal()', [IsHexadecimal()], [...STRINGS, 'ff', '0x1F', '0h1f', '0X', 'x1', ...sample(hexString(5), 60)]);
row(
  'isMilitaryTime',
  '@IsMilitaryTime()',
  [IsMilitaryTime()],
  [...STRINGS, '00:00', '23:59', '2359', '24:00', '7:00', ...sample(fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '5', '9', ':'), maxLength: 6 }), 60)],
);
row('isCreditCard', '@IsCreditCard()', [IsCreditCard()], [...STRINGS, '4111111111111111', '4111111111111112', '4111 1111 1111 1111']);
row('isCurrency', '@IsCurrency()', [IsCurrency()], [...STRINGS, '$10.00', '10', '-$1,000.50', '1.5.5']);
row('isIsbn', '@IsISBN()', [IsISBN()], [...STRINGS, '9780306406157', '9780306406158', '0306406152']);
row('isIsin', '@IsISIN()', [IsISIN()], [...STRINGS, 'US0378331005', 'US0378331006']);
row('isJson', '@IsJSON()', [IsJSON()], [...STRINGS, '{}', '[1]', '1', 'null', '{"a":', '"x"']);
row('isMobilePhone', '@IsMobilePhone()', [IsMobilePhone()], [...STRINGS, '+14155552671', '0612345678', '12']);

// --- strings
row('isString', '@IsString()', [IsString()], STRINGS);
row('isLength', '@Length(2, 3)', [Length(2, 3)], [...STRINGS, ...LENGTHS]);
row('minLength', '@MinLength(2)', [MinLength(2)], [...STRINGS, ...LENGTHS]);
row('maxLength', '@MaxLength(2)', [MaxLength(2)], [...STRINGS, ...LENGTHS]);
row('matches', '@Matches(/^[a-z0-9_]+$/)', [Matches(/^[a-z0-9_]+$/)], STRINGS);
row('matches', "@Matches('^b-c$')", [Matches('^b-c$')], [...STRINGS, 'b-c', 'b-cc']);
row('matches', '@Matches(/^.{1,2}$/)', [Matches(/^.{1,2}$/)], STRINGS);
row('matches', '@Matches(/^a/i)', [Matches(/^a/i)], STRINGS);
row('matches', "@Matches('^[a-z]+$', 'i')", [Matches('^[a-z]+$', 'i')], [...STRINGS, 'abc', 'ABC', '\u212A', '\u017F']);
row('matches', '@Matches(/^(?:ab|c)+\\d$/)', [Matches(/^(?:ab|c)+\d$/)], [...STRINGS, 'ab1', 'cab2', 'abc', 'c١']);
row('matches', '@Matches(/^[^,]+$/)', [Matches(/^[^,]+$/)], [...STRINGS, 'a,b']);
row('contains', "@Contains('a.b')", [Contains('a.b')], [...STRINGS, 'a.b', 'xa.by', 'aXb']);
row('notContains', "@NotContains('a')", [NotContains('a')], STRINGS);
// validator.js's contains is `value.split(seed).length > 1`: the empty seed splits a string into its
// UTF-16 units, so it takes two units or more; a pattern reads code points (Ajv's `u` flag), so half
// a surrogate pair must also be found inside a whole character (😀 is \uD83D\uDE00).
/** Strings of surrogate halves, whole pairs that share a half, and letters, in every order. */
const HALVES = ['a', '\uD83D', '\uDE00', '\uD800', '\uDFFF', '😀', '\u{10200}', '\u{1F400}', '\u{1F7FF}', '\u{1F800}', '\u{10FFFF}'];
const SURROGATE_STRINGS = [
  ...HALVES,
  '😀x',
  'x😀',
  '\uD83Dx',
  'x\uDE00',
  '\uD83D\uD83D\uDE00',
  '\uDE00\uDE00',
  '😀\uDE00',
  '\uDE00a\uD83D',
  '😀a\uD83D',
  '\uDE00a😀',
  '\u{10200}a\u{1F400}',
  ...sample(fc.string({ unit: fc.constantFrom(...HALVES), maxLength: 5 }), 80),
];
row('contains', "@Contains('')", [Contains('')], [...STRINGS, ...SURROGATE_STRINGS]);
row('notContains', "@NotContains('')", [NotContains('')], [...STRINGS, ...SURROGATE_STRINGS]);
row('contains', "@Contains('\\uD83D')", [Contains('\uD83D')], [...STRINGS, ...SURROGATE_STRINGS]);
row('notContains', "@NotContains('\\uD83D')", [NotContains('\uD83D')], [...STRINGS, ...SURROGATE_STRINGS]);
row('contains', "@Contains('\\uDE00')", [Contains('\uDE00')], [...STRINGS, ...SURROGATE_STRINGS]);
row('contains', "@Contains('\\uDE00a\\uD83D')", [Contains('\uDE00a\uD83D')], [...STRINGS, ...SURROGATE_STRINGS]);
row('isAlpha', '@IsAlpha()', [IsAlpha()], STRINGS);
row('isAlpha', "@IsAlpha('de-DE')", [IsAlpha('de-DE')], [...STRINGS, 'Straße', 'STRASSE', 'Ä', 'Ⓐ']);
/** A locale validator.js has and its type declarations do not list. */
const locale = (name: string) => name as Parameters<typeof IsAlpha>[0];
row('isAlpha', "@IsAlpha('ko-KR')", [IsAlpha(locale('ko-KR'))], [...STRINGS, '한국어', 'ㄱ']);
row('isAlpha', "@IsAlpha('hi-IN')", [IsAlpha(locale('hi-IN'))], [...STRINGS, 'हिन्दी', '\u0972']);
row('isAlphanumeric', "@IsAlphanumeric('ru-RU')", [IsAlphanumeric('ru-RU')], [...STRINGS, 'Ёж1', 'ё', 'abc']);
row('isAlphanumeric', '@IsAlphanumeric()', [IsAlphanumeric()], STRINGS);
row('isAscii', '@IsAscii()', [IsAscii()], [...STRINGS, '\u007F', '\u0080', '\u0000']);
row('isLowercase', '@IsLowercase()', [IsLowercase()], STRINGS);
row('isUppercase', '@IsUppercase()', [IsUppercase()], STRINGS);
row('isFullWidth', '@IsFullWidth()', [IsFullWidth()], STRINGS);
row('isHalfWidth', '@IsHalfWidth()', [IsHalfWidth()], STRINGS);
row('isVariableWidth', '@IsVariableWidth()', [IsVariableWidth()], STRINGS);
row('isMultibyte', '@IsMultibyte()', [IsMultibyte()], STRINGS);
row('isSurrogatePair', '@IsSurrogatePair()', [IsSurrogatePair()], STRINGS);
row('isByteLength', '@IsByteLength(2, 4)', [IsByteLength(2, 4)], STRINGS);
const NUMERIC = ['1', '+1', '-1', '1.5', '.5', '5.', '1e5', '١', '1,5', ...sample(fc.string({ unit: fc.constantFrom('0', '9', '.', ',', '+', '-', 'e'), maxLength: 5 }), 60)];
row('isNumberString', '@IsNumberString()', [IsNumberString()], [...STRINGS, ...NUMERIC]);
row('isNumberString', '@IsNumberString({ no_symbols: true })', [IsNumberString({ no_symbols: true })], NUMERIC);
row('isNumberString', "@IsNumberString({ locale: 'de-DE' })", [IsNumberString({ locale: 'de-DE' })], NUMERIC);
row('isBooleanString', '@IsBooleanString()', [IsBooleanString()], [...STRINGS, 'true', 'false', '1', '0', 'TRUE', 'yes']);
row('isNotEmpty', '@IsNotEmpty()', [IsNotEmpty()], STRINGS);
row('isEmpty', '@IsEmpty()', [IsEmpty()], STRINGS);

// --- numbers
row('isNumber', '@IsNumber()', [IsNumber()], NUMBERS);
row('isNumber', '@IsNumber({ maxDecimalPlaces: 1 })', [IsNumber({ maxDecimalPlaces: 1 })], NUMBERS);
row('isInt', '@IsInt()', [IsInt()], NUMBERS);
row('min', '@Min(1)', [Min(1)], NUMBERS);
row('min', '@Min(-0.5)', [Min(-0.5)], NUMBERS);
row('max', '@Max(10)', [Max(10)], NUMBERS);
row('isPositive', '@IsPositive()', [IsPositive()], NUMBERS);
row('isNegative', '@IsNegative()', [IsNegative()], NUMBERS);
row('isDivisibleBy', '@IsDivisibleBy(3)', [IsDivisibleBy(3)], NUMBERS, { exceptions: [AJV_MULTIPLE_OF] });
row('isDivisibleBy', '@IsDivisibleBy(2.5)', [IsDivisibleBy(2.5)], NUMBERS, { exceptions: [AJV_MULTIPLE_OF] });
row('isDivisibleBy', '@IsDivisibleBy(0.5)', [IsDivisibleBy(0.5)], NUMBERS, { takes: 'nothing' }); // parseInt(0.5) is 0

// --- arrays
row('isArray', '@IsArray()', [IsArray()], ARRAYS);
row('arrayMinSize', '@ArrayMinSize(2)', [ArrayMinSize(2)], ARRAYS);
row('arrayMaxSize', '@ArrayMaxSize(2)', [ArrayMaxSize(2)], ARRAYS);
row('arrayNotEmpty', '@ArrayNotEmpty()', [ArrayNotEmpty()], ARRAYS);
row('arrayUnique', '@ArrayUnique()', [ArrayUnique()], ARRAYS);
row('arrayUnique', '@IsArray() @IsString({ each: true }) @ArrayUnique()', [IsArray(), IsString({ each: true }), ArrayUnique()], [...ARRAYS, ['a', 'b', 'a'], ['😀', '😀']], {
  type: Array,
});
row('arrayUnique', "@ArrayUnique() @IsIn(['a', 1, null], { each: true })", [ArrayUnique(), IsIn(['a', 1, null], { each: true })], [...ARRAYS, [1, 1.0], [null, 'a', 1]], {
  type: Array,
});
row('arrayUnique', '@ArrayUnique((item) => item.id)', [ArrayUnique((item: { id?: unknown }) => item.id)], [...ARRAYS, [{ id: 1 }, { id: 2 }], [{ id: 1 }, { id: 1 }]], {
  type: Array,
});
row(
  'arrayUnique',
  '@IsArray() @IsString({ each: true }) @ArrayUnique((item) => item.length)',
  [IsArray(), IsString({ each: true }), ArrayUnique((item: string) => item.length)],
  [...ARRAYS, ['a', 'bb'], ['a', 'b']],
  {
    type: Array,
  },
);
row('arrayContains', "@ArrayContains(['a', 1])", [ArrayContains(['a', 1])], ARRAYS);
row('arrayContains', '@ArrayContains([null, true])', [ArrayContains([null, true])], ARRAYS);
row('arrayNotContains', "@ArrayNotContains(['a', 1])", [ArrayNotContains(['a', 1])], ARRAYS);
row('arrayNotContains', "@ArrayNotContains([null, 'b'])", [ArrayNotContains([null, 'b'])], ARRAYS);
row('isString', '@IsArray() @IsString({ each: true })', [IsArray(), IsString({ each: true })], [...ARRAYS, ...STRINGS], { type: Array });
row('isString', '@IsString({ each: true })', [IsString({ each: true })], [...ARRAYS, ...STRINGS], { type: Array });
row('min', '@Min(0, { each: true })', [Min(0, { each: true })], [...ARRAYS, ...NUMBERS, ...STRINGS, [-1, 2], [[1]]], { type: Array });
row(
  'notEquals',
  "@NotEquals('a', { each: true }) @MaxLength(3, { each: true })",
  [NotEquals('a', { each: true }), MaxLength(3, { each: true })],
  [...ARRAYS, ...STRINGS, 'ab', 'abcd', ['a'], ['ab', 'abcd']],
  {
    type: Array,
  },
);
row('maxLength', '@IsArray() @MaxLength(1, { each: true })', [IsArray(), MaxLength(1, { each: true })], ARRAYS, { type: Array });
row('isIn', "@IsArray() @IsIn(['a', 1], { each: true })", [IsArray(), IsIn(['a', 1], { each: true })], ARRAYS, { type: Array });
row(
  'isInt',
  '@IsArray() @ArrayMinSize(1) @IsInt({ each: true }) @Min(0, { each: true })',
  [IsArray(), ArrayMinSize(1), IsInt({ each: true }), Min(0, { each: true })],
  [...ARRAYS, ...NUMBERS],
  { type: Array },
);

// --- booleans
row('isBoolean', '@IsBoolean()', [IsBoolean()], ANY);

// --- enums and lists
enum Color {
  Red = 'red',
  Green = 'green',
}
enum Level {
  Low,
  High,
}
enum Mixed {
  A = 'a',
  B = 2,
}
const ENUM_VALUES = ['red', 'green', 'Red', 'blue', 0, 1, 2, '0', '1', 'Low', 'High', 'a', 'A', 'B'];
row('isEnum', '@IsEnum(Color)', [IsEnum(Color)], ENUM_VALUES);
row('isEnum', '@IsEnum(Level)', [IsEnum(Level)], ENUM_VALUES);
row('isEnum', '@IsEnum(Mixed)', [IsEnum(Mixed)], ENUM_VALUES);
const LISTED = ['a', 'b', 1, '1', 2, true, false, null, 0, 'A'];
row('isIn', "@IsIn(['a', 1, true, null])", [IsIn(['a', 1, true, null])], LISTED);
row('isIn', "@IsIn(['a', 'b'])", [IsIn(['a', 'b'])], LISTED);
row('isNotIn', "@IsNotIn(['a', 'b'])", [IsNotIn(['a', 'b'])], LISTED);
row('isNotIn', "@IsNotIn(['a', 1, null])", [IsNotIn(['a', 1, null])], LISTED);

// --- dates
const DATES = [
  '2024-05-01',
  '2024-05-01T10:00:00Z',
  '2024-05-01t10:00:00z',
  '2024-05-01T10:00:00.123456789Z',
  '2023-12-31',
  '2023-06-01T10:00:00+02:00',
  '2023-06-01T10:00:00+0200',
  '2023-06-01T10:00:00+02',
  '2024-05-01 10:00:00Z',
  '2024-05-01T10:00:00',
  '2024-05-01T24:00:00Z',
  '2016-12-31T23:59:60Z',
  '2024-02-29',
  '2023-02-29',
  '2024-02-30',
  '2024-04-31',
  '0000-01-01',
  '9999-12-31T23:59:59-23:59',
  'May 1, 2024',
  '2024',
  '2024-05',
  '+002024-05-01',
  'not a date',
  1714557600000,
  0,
  true,
  [2024],
  ['2024-05-01'],
  8.64e15,
  8.64e15 + 1,
  ...sample(
    mutations(
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      ['0', '9', ':', '-', 'T', 'Z', '+', '.', ' '],
    ),
    60,
  ),
];
/** What the server says of a Date without @Type(() => Date) in an input: refused at bootstrap. */
const DATE_REFUSED = { type: Date, refused: 'HERMES_DATE_WITHOUT_TYPE' } as const;
row('isDate', '@IsDate()', [IsDate()], DATES, DATE_REFUSED);
row('isDate', '@Type(() => Date) @IsDate()', [Type(() => Date), IsDate()], DATES, { type: Date });
row(
  'isDate',
  '@Type(() => Date) @IsDate({ each: true })',
  [Type(() => Date), IsDate({ each: true })],
  [...DATES, ['2024-05-01', '2024-05-01T10:00:00Z'], ['2024-05-01', 0], [null]],
  {
    type: Array,
  },
);
row('minDate', '@MinDate(2024-01-01)', [MinDate(new Date('2024-01-01T00:00:00Z'))], DATES, DATE_REFUSED);
row('maxDate', '@MaxDate(() => 2024-01-01)', [MaxDate(() => new Date('2024-01-01T00:00:00Z'))], DATES, DATE_REFUSED);
row('minDate', '@Type(() => Date) @MinDate(2024-01-01)', [Type(() => Date), MinDate(new Date('2024-01-01T00:00:00Z'))], DATES, { type: Date });
row('maxDate', '@Type(() => Date) @MaxDate(2024-01-01)', [Type(() => Date), MaxDate(new Date('2024-01-01T00:00:00Z'))], DATES, { type: Date });
row('maxDate', '@Type(() => Date) @MaxDate(() => 2024-01-01)', [Type(() => Date), MaxDate(() => new Date('2024-01-01T00:00:00Z'))], DATES, { type: Date });

// --- objects
class Address {
  @IsString() city!: string;
}
class Place {
  @ValidateNested() @Type(() => Address) address!: Address;
  @IsOptional() @Type(() => Date) @IsDate() since?: Date;
}
row('isObject', '@IsObject()', [IsObject()], OBJECTS);
row('isNotEmptyObject', '@IsNotEmptyObject()', [IsNotEmptyObject()], OBJECTS);
row('isNotEmptyObject', '@IsNotEmptyObject({ nullable: false })', [IsNotEmptyObject({ nullable: false })], OBJECTS);
const ADDRESSES = [{ city: 'Paris' }, { city: 1 }, {}, { city: 'Paris', zip: 1 }, [{ city: 'Paris' }], [], [[{ city: 'Paris' }]], 'Paris'];
row('nestedValidation', '@ValidateNested() @Type(() => Address)', [ValidateNested(), Type(() => Address)], ADDRESSES, { type: Address });
row(
  'nestedValidation',
  '@IsArray() @ValidateNested({ each: true }) @Type(() => Address)',
  [IsArray(), ValidateNested({ each: true }), Type(() => Address)],
  [...ADDRESSES, [{ city: 'Paris' }, { city: 'Lima' }], [{ city: 'Paris' }, null]],
  { type: Array },
);
row(
  'nestedValidation',
  '@ValidateNested({ each: true }) @Type(() => Address)',
  [ValidateNested({ each: true }), Type(() => Address)],
  [...ADDRESSES, [{ city: 'Paris' }, { city: 'Lima' }], [{ city: 'Paris' }, null]],
  { type: Array },
);
row(
  'nestedValidation',
  '@ValidateNested() @Type(() => Place) (an Address and a date inside)',
  [ValidateNested(), Type(() => Place)],
  [
    { address: { city: 'Paris' } },
    { address: [{ city: 'Paris' }] },
    { address: { city: 'Paris' }, since: '2024-05-01' },
    { address: { city: 'Paris' }, since: 'May 1, 2024' },
    { address: { city: 'Paris' }, since: 0 },
    { address: { city: 'Paris' }, since: null },
    [{ address: { city: 'Paris' } }],
  ],
  { type: Place },
);
// A Map of nested objects is one JSON object, its values the elements: class-transformer builds a
// Map (dropping keys named like a Map's or Object.prototype's members); the server keeps every key.
const PARIS = { address: { city: 'Paris' } };
const KEYED = [
  '{"size":{"address":{"city":1}}}',
  '{"toString":{"address":{"city":1}}}',
  '{"constructor":{"address":{"city":"Paris"}}}',
  '{"constructor":{"address":{"city":1}}}',
  '{"__proto__":{"address":{"city":1}}}',
  '{"get":{},"home":{"address":{"city":"Paris"}}}',
  '{"hasOwnProperty":{"address":{"city":"Paris"}}}',
].map((text) => JSON.parse(text) as unknown);
const PLACES = [
  { home: PARIS },
  { home: PARIS, work: { address: { city: 'Lima' }, since: '2024-05-01' } },
  { home: { address: { city: 1 } } },
  { home: { address: [{ city: 'Paris' }] } },
  { home: { ...PARIS, since: '2024-02-30' } },
  { home: {} },
  { home: null },
  { home: 'Paris' },
  { home: [] },
  { home: [PARIS] },
  { home: PARIS, work: [PARIS] },
  [PARIS],
  [],
  ...KEYED,
];
row('nestedValidation', '@ValidateNested({ each: true }) @Type(() => Place) on a Map<string, Place>', [ValidateNested({ each: true }), Type(() => Place)], PLACES, {
  type: Map,
});
row('nestedValidation', '@ValidateNested() @Type(() => Place) on a Map<string, Place>', [ValidateNested(), Type(() => Place)], PLACES, { type: Map });
// An object no decorator transforms, inside each element of a Map or a Set: kept as sent.
class Bag {
  @IsNotEmptyObject() data!: object;
}
const BAGS = [
  { data: { a: 1 } },
  JSON.parse('{"data":{"toString":1}}') as unknown,
  JSON.parse('{"data":{"constructor":1,"a":{"hasOwnProperty":2}}}') as unknown,
  { data: {} },
  { data: [] },
];
row(
  'nestedValidation',
  '@ValidateNested({ each: true }) @Type(() => Bag) on a Map<string, Bag>',
  [ValidateNested({ each: true }), Type(() => Bag)],
  [...BAGS.map((bag) => ({ one: bag })), { one: BAGS[0], two: BAGS[1] }],
  {
    type: Map,
  },
);
row(
  'nestedValidation',
  '@ValidateNested({ each: true }) @Type(() => Bag) on a Set<Bag>',
  [ValidateNested({ each: true }), Type(() => Bag)],
  [...BAGS.map((bag) => [bag]), BAGS, [BAGS[1], null, BAGS[2]]],
  {
    type: Set,
  },
);

// --- class-validator's string rules that no pattern says: the schema takes any string (looser, warned)
const GRAMMARS: Array<[string, string, PropertyDecorator, unknown[]]> = [
  ['IsFirebasePushId', '@IsFirebasePushId()', IsFirebasePushId(), ['-M8xqZ1c2d3e4f5g6h7i', 'a'.repeat(20), 'a'.repeat(19)]],
  ['isBase32', '@IsBase32()', IsBase32(), ['MZXW6===', 'MZXW6YQ=', 'mzxw6===']],
  ['isBase58', '@IsBase58()', IsBase58(), ['3mJr7AoUXx2Wqd', '0OIl']],
  ['isBIC', '@IsBIC()', IsBIC(), ['DEUTDEFF', 'DEUTDEFF500', 'DEUTXXFF']],
  ['isBtcAddress', '@IsBtcAddress()', IsBtcAddress(), ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']],
  ['isDataURI', '@IsDataURI()', IsDataURI(), ['data:,Hello', 'data:text/plain;base64,SGk=', 'data:']],
  ['isDecimal', '@IsDecimal()', IsDecimal(), ['1.5', '-1', '1,5', '.5', '1.']],
  ['isEAN', '@IsEAN()', IsEAN(), ['4006381333931', '4006381333932', '96385074']],
  ['isEthereumAddress', '@IsEthereumAddress()', IsEthereumAddress(), ['0x52908400098527886E0F7030069857D2E4169EE7', '0x123']],
  ['isHash', "@IsHash('md5')", IsHash('md5'), ['d41d8cd98f00b204e9800998ecf8427e', 'd41d8cd98f00b204e9800998ecf8427']],
  ['isHSL', '@IsHSL()', IsHSL(), ['hsl(360,100%,50%)', 'hsl(1,2,3)', 'hsl(361,1%,1%)']],
  ['isIBAN', '@IsIBAN()', IsIBAN(), ['GB82WEST12345698765432', 'GB82WEST12345698765433']],
  ['isIdentityCard', "@IsIdentityCard('ES')", IsIdentityCard('ES'), ['99999999R', '99999999A']],
  ['isISO31661Alpha2', '@IsISO31661Alpha2()', IsISO31661Alpha2(), ['FR', 'fr', 'XX']],
  ['isISO31661Alpha3', '@IsISO31661Alpha3()', IsISO31661Alpha3(), ['FRA', 'XXX']],
  ['isISO31661Numeric', '@IsISO31661Numeric()', IsISO31661Numeric(), ['250', '999']],
  ['isISO4217CurrencyCode', '@IsISO4217CurrencyCode()', IsISO4217CurrencyCode(), ['EUR', 'XYZ', 'eur']],
  ['isISO6391', '@IsISO6391()', IsISO6391(), ['fr', 'xx', 'FR']],
  ['isISRC', '@IsISRC()', IsISRC(), ['USRC17607839', 'US-RC1-76-07839']],
  ['isISSN', '@IsISSN()', IsISSN(), ['0378-5955', '0378-5954']],
  ['isJwt', '@IsJWT()', IsJWT(), ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', 'a.b', 'a.b.c']],
  ['isLatLong', '@IsLatLong()', IsLatLong(), ['45,90', '91,0', '(45, 90)']],
  ['isLocale', '@IsLocale()', IsLocale(), ['en-US', 'en_US', 'xx-XX-XX-XX']],
  ['isMacAddress', '@IsMACAddress()', IsMACAddress(), ['01:23:45:67:89:ab', '01-23-45-67-89-AB', '0123.4567.89ab', '01:23:45:67:89']],
  ['isMagnetURI', '@IsMagnetURI()', IsMagnetURI(), ['magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a', 'magnet:?']],
  ['isMimeType', '@IsMimeType()', IsMimeType(), ['text/plain', 'text/plain; charset=utf-8', 'text']],
  ['isOctal', '@IsOctal()', IsOctal(), ['0o17', '17', '8']],
  ['isPassportNumber', "@IsPassportNumber('US')", IsPassportNumber('US'), ['123456789', 'A1234567']],
  ['isPhoneNumber', '@IsPhoneNumber()', IsPhoneNumber(), ['+14155552671', '+1 415 555 2671', '4155552671', ' +14155552671']],
  ['isPort', '@IsPort()', IsPort(), ['80', '65535', '65536', '-1', '080']],
  ['isPostalCode', "@IsPostalCode('US')", IsPostalCode('US'), ['94105', '94105-1234', '9410']],
  ['isRFC3339', '@IsRFC3339()', IsRFC3339(), ['2024-05-01T10:00:00Z', '2024-05-01', '2024-05-01t10:00:00z']],
  ['isRgbColor', '@IsRgbColor()', IsRgbColor(), ['rgb(0,0,0)', 'rgb(256,0,0)', 'rgba(0,0,0,0.5)', 'rgb(0%,0%,0%)']],
  ['isSemVer', '@IsSemVer()', IsSemVer(), ['1.2.3', '1.2', '1.2.3-beta.1+build', 'v1.2.3']],
  ['isStrongPassword', '@IsStrongPassword()', IsStrongPassword(), ['Aa1!aaaa', 'password', 'Aa1!aaa']],
  ['isTaxId', "@IsTaxId('en-US')", IsTaxId('en-US'), ['01-1234567', '00-1234567', '011234567']],
  ['isTimeZone', '@IsTimeZone()', IsTimeZone(), ['Europe/Paris', 'UTC', 'Mars/Olympus', 'europe/paris']],
];
for (const [rule, label, decorator, examples] of GRAMMARS) row(rule, label, [decorator], [...STRINGS, ...examples], { type: String });
const COORDINATES = [0, 45, -90, 90, 91, 180, 181, -0, 1e-7, 1e21, '45', '91', '45.5', ' 45', '1e1', '+45', '0045'];
row('isLatitude', '@IsLatitude()', [IsLatitude()], [...NUMBERS, ...COORDINATES], { type: Number });
row('isLongitude', '@IsLongitude()', [IsLongitude()], [...NUMBERS, ...COORDINATES], { type: Number });
row('isInstance', '@IsInstance(Address) @Type(() => Address)', [IsInstance(Address), Type(() => Address)], [...OBJECTS, { city: 'Paris' }], { type: Address });
row('isInstance', '@IsInstance(Address)', [IsInstance(Address)], [...OBJECTS, { city: 'Paris' }], { type: Address, takes: 'nothing' });

// --- presence, equality
row('conditionalValidation', '@IsOptional() @IsString()', [IsOptional(), IsString()], STRINGS);
row('isString', "@IsOptional() @McpHeader('Zone') @IsString()", [IsOptional(), McpHeader('Zone'), IsString()], STRINGS);
row('conditionalValidation', "@ValidateIf(o => o.value !== 'skip') @IsInt()", [ValidateIf((o: { value?: unknown }) => o.value !== 'skip'), IsInt()], [...NUMBERS, 'skip']);
row(
  'conditionalValidation',
  '@ValidateIf(o => o.value !== undefined) @IsDefined() @IsString()',
  [ValidateIf((o: { value?: unknown }) => o.value !== undefined), IsDefined(), IsString()],
  STRINGS,
);
row('isInt', "@IsInt({ validateIf: o => o.value !== 'skip' })", [IsInt({ validateIf: (o: { value?: unknown }) => o.value !== 'skip' })], [...NUMBERS, 'skip']);
row('isDefined', '@IsDefined()', [IsDefined()], STRINGS);
row('whitelistValidation', '@Allow()', [Allow()], STRINGS, { takes: 'everything' });
row('equals', "@Equals('a')", [Equals('a')], LISTED);
row('equals', '@Equals(null)', [Equals(null)], LISTED);
row('equals', '@Equals(1)', [Equals(1)], LISTED);
row('notEquals', "@NotEquals('a')", [NotEquals('a')], LISTED);
row('notEquals', '@NotEquals(null)', [NotEquals(null)], LISTED);

// --- custom validators
@ValidatorConstraint({ name: 'isEven' })
class IsEven implements ValidatorConstraintInterface {
  validate(value: unknown) {
    return typeof value === 'number' && value % 2 === 0;
  }
}
row('customValidation', '@Validate(IsEven)', [Validate(IsEven)], NUMBERS, { type: Number });

// --- combinations: two rules on one property must both hold (the schemas were deep-merged, so one
// rule's keyword could replace another's)
const WORDS = [...STRINGS, 'a b', 'ab', 'abc', 'b', 'c', 'a', 'abcdef', 'ba', '2024-05-01', '1997-W01', '0123e4567-e89b-42d3-a456-426614174000'];
row('isNotEmpty', '@IsDefined() @IsNotEmpty()', [IsDefined(), IsNotEmpty()], WORDS);
row('notContains', "@IsString() @IsNotEmpty() @NotContains(' ')", [IsString(), IsNotEmpty(), NotContains(' ')], WORDS);
row('notContains', "@IsOptional() @IsNotEmpty() @NotContains(' ')", [IsOptional(), IsNotEmpty(), NotContains(' ')], WORDS);
row('notContains', "@IsNotEmpty() @NotContains(' ') on a parent class", [IsString(), IsNotEmpty(), NotContains(' ')], WORDS, { inherited: true });
row('isUuid', "@IsUUID('4') @Matches(/^0/)", [IsUUID('4'), Matches(/^0/)], [...sample(fc.uuid({ version: 4 }), 40), '023e4567-e89b-42d3-a456-426614174000']);
row('maxLength', '@Length(2, 10) @MaxLength(5)', [Length(2, 10), MaxLength(5)], [...WORDS, ...LENGTHS]);
row('maxLength', '@MaxLength(5) @Length(2, 10)', [MaxLength(5), Length(2, 10)], [...WORDS, ...LENGTHS]);
row('isInt', '@IsNumber() @IsInt()', [IsNumber(), IsInt()], NUMBERS);
row('isInt', '@IsInt() @IsNumber() on a parent class', [IsInt(), IsNumber()], NUMBERS, { inherited: true });
row('contains', "@Matches(/^a/) @Contains('b')", [Matches(/^a/), Contains('b')], WORDS);
row('isNotIn', "@IsIn(['a', 'b', 'c']) @IsNotIn(['b'])", [IsIn(['a', 'b', 'c']), IsNotIn(['b'])], WORDS);
row('isIn', "@IsIn(['a', 'b']) @IsIn(['b', 'c'])", [IsIn(['a', 'b']), IsIn(['b', 'c'])], WORDS);
row('isDateString', '@IsDateString() @Matches(/^2/)', [IsDateString(), Matches(/^2/)], [...WORDS, ...ISO_STRINGS]);
row('isInt', '@IsString() @IsInt()', [IsString(), IsInt()], [...WORDS, ...NUMBERS], { takes: 'nothing' });
row('arrayContains', "@ArrayContains(['a']) @ArrayNotContains(['b'])", [ArrayContains(['a']), ArrayNotContains(['b'])], ARRAYS);
row('min', '@Min(1) @Min(3) @Max(10) @Max(8)', [Min(1), Min(3), Max(10), Max(8)], NUMBERS);

// --- class-transformer on the way in: what plainToInstance does to the input before the rules
// run (@Type conversions, @Transform, @Expose renames, @Exclude), said by the schema (transformer.ts).
const NUMBER_TEXTS = [
  '5',
  ' 5 ',
  '',
  '  ',
  '\u00A05\uFEFF',
  '\u200B5',
  '0x10',
  '0X1f',
  '-0x10',
  '0b11',
  '0o7',
  '1e3',
  '1.5e1',
  '1e400',
  '-1e400',
  'Infinity',
  '-Infinity',
  'infinity',
  'NaN',
  '+.5',
  '5.',
  '.',
  '1_000',
  '12abc',
  '0.5',
  '-3',
  '1e-7',
  [' 7 '],
  ['0x10'],
];
row('isNumber', '@Type(() => Number) @IsNumber()', [Type(() => Number), IsNumber()], [...NUMBERS, ...NUMBER_TEXTS]);
row('min', '@Type(() => Number) @IsInt() @Min(1)', [Type(() => Number), IsInt(), Min(1)], [...NUMBERS, ...NUMBER_TEXTS]);
row('isInt', '@Type(() => Number) @IsInt({ each: true })', [Type(() => Number), IsInt({ each: true })], [...ARRAYS, [['5'], '6', ' 7', 'x'], ['0x10', 1], ['1e400']], {
  type: Array,
});
row('isBoolean', '@Type(() => Boolean) @IsBoolean()', [Type(() => Boolean), IsBoolean()], STRINGS);
row('equals', '@Type(() => Boolean) @Equals(true)', [Type(() => Boolean), Equals(true)], [...STRINGS, ...NUMBERS]);
row('equals', '@Type(() => Boolean) @Equals(false)', [Type(() => Boolean), Equals(false)], [...STRINGS, ...NUMBERS]);
row('isString', '@Type(() => String) @IsString()', [Type(() => String), IsString()], [...STRINGS, ...NUMBERS]);
row('maxLength', '@Type(() => String) @MaxLength(3)', [Type(() => String), MaxLength(3)], [...STRINGS, ...NUMBERS, ...ARRAYS]);
row(
  'isIn',
  "@Transform(trim) @IsIn(['a'])",
  [Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)), IsIn(['a'])],
  [...STRINGS, ' a ', 'a\n'],
);
const RENAMED = ['a', 1, null, whole({ x: 'a', value: 1 }), whole({ value: 1, x: 'a' }), whole({ value: 'a' }), whole({ x: 'a', value: 'b' }), whole({ x: 'a', other: 1 })];
row('isString', "@Expose({ name: 'x' }) @IsString()", [Expose({ name: 'x' }), IsString()], [...STRINGS, ...RENAMED], { key: 'x' });
row('isString', "@Expose({ name: 'x' }) @IsString(), forbidNonWhitelisted", [Expose({ name: 'x' }), IsString()], [...STRINGS, ...RENAMED], { key: 'x', closed: true });
class Person {
  @Expose({ name: 'first_name' }) @IsString() firstName!: string;
  @Exclude() @IsOptional() @IsInt() age?: number;
}
const PEOPLE = [
  { first_name: 'Ann' },
  { firstName: 'Ann' },
  { first_name: 1 },
  { first_name: 'Ann', age: 'x' },
  { first_name: 'Ann', firstName: 1 },
  { first_name: 'Ann', other: 1 },
  {},
];
const NESTED_PERSON = "@ValidateNested() @Type(() => Person) (@Expose({ name: 'first_name' }), @Exclude() inside)";
row('nestedValidation', NESTED_PERSON, [IsDefined(), ValidateNested(), Type(() => Person)], PEOPLE, { warnedAt: 'firstName' });
row('nestedValidation', `${NESTED_PERSON}, forbidNonWhitelisted`, [IsDefined(), ValidateNested(), Type(() => Person)], PEOPLE, {
  closed: true,
  warnedAt: 'firstName',
});
const EXCLUDED = [whole({ value: 'a', other: 1 }), whole({ other: 1 })];
row('isString', '@Exclude() @IsOptional() @IsString()', [Exclude(), IsOptional(), IsString()], [...STRINGS, ...EXCLUDED], { takes: 'everything' });
row('isString', '@Exclude() @IsOptional() @IsString(), forbidNonWhitelisted', [Exclude(), IsOptional(), IsString()], [...STRINGS, ...EXCLUDED], {
  closed: true,
  takes: 'everything',
});
row('isString', '@Exclude() @IsString()', [Exclude(), IsString()], [...STRINGS, ...EXCLUDED], { takes: 'nothing' });

// A discriminator: the subtype named by `kind`, else the base class (unknown names, no name).
class Pet {
  @IsString() kind!: string;
}
class Cat {
  @IsInt() lives!: number;
}
class Dog {
  @IsString() bark!: string;
}
class KeptCat {
  @IsIn(['cat']) kind!: string;
  @IsInt() lives!: number;
}
class KeptDog {
  @IsIn(['dog']) kind!: string;
  @IsString() bark!: string;
}
const PETS = [
  { kind: 'cat', lives: 9 },
  { kind: 'cat', bark: 'w' },
  { kind: 'cat', lives: 9, bark: 'w' },
  { kind: 'dog', bark: 'w' },
  { kind: 'dog', lives: 9 },
  { kind: 'cow' },
  { kind: 'cow', lives: 9 },
  { kind: 1 },
  { kind: null },
  { lives: 9 },
  { kind: 'Cat', lives: 9 },
  [{ kind: 'cat', lives: 9 }],
];
const pets = (subTypes: Array<{ name: string; value: Function }>, keepDiscriminatorProperty: boolean) => [
  IsDefined(),
  ValidateNested(),
  Type(() => Pet, { discriminator: { property: 'kind', subTypes: subTypes as Array<{ name: string; value: new () => object }> }, keepDiscriminatorProperty }),
];
const DROPPED = [
  { name: 'cat', value: Cat },
  { name: 'dog', value: Dog },
];
const KEPT = [
  { name: 'cat', value: KeptCat },
  { name: 'dog', value: KeptDog },
  { name: 'cat', value: Dog },
];
const DISCRIMINATED = "@ValidateNested() @Type(() => Pet, { discriminator: { property: 'kind', subTypes: ";
const DROPPED_LABEL = `${DISCRIMINATED}[cat, dog] } })`;
const KEPT_LABEL = `${DISCRIMINATED}[cat, dog, cat again] }, keepDiscriminatorProperty: true })`;
row('nestedValidation', DROPPED_LABEL, pets(DROPPED, false), PETS);
row('nestedValidation', `${DROPPED_LABEL}, forbidNonWhitelisted`, pets(DROPPED, false), PETS, { closed: true });
row('nestedValidation', KEPT_LABEL, pets(KEPT, true), PETS);
row('nestedValidation', `${KEPT_LABEL}, forbidNonWhitelisted`, pets(KEPT, true), PETS, { closed: true });

// forbidNonWhitelisted, and the keys class-transformer drops before the whitelist runs (`__proto__`,
// `constructor`, and the names of an instance's methods: `toString`, `hasOwnProperty`, a method of
// the class): refused by the closed schema, and by the server, at every level.
class Town {
  @IsString() city!: string;
  label(): string {
    return this.city;
  }
}
const PROTO_NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf', 'label'];
const AT_ROOT = PROTO_NAMES.flatMap((key) => [
  whole(JSON.parse(`{"value":"a","${key}":1}`) as Record<string, unknown>),
  whole(JSON.parse(`{"${key}":null}`) as Record<string, unknown>),
]);
row('isString', "@IsString(), forbidNonWhitelisted, beside keys named like Object.prototype's members", [IsString()], [...STRINGS, ...AT_ROOT], { closed: true });
const TOWNS = PROTO_NAMES.map((key) => JSON.parse(`{"city":"Paris","${key}":1}`) as unknown);
const IN_TOWN = "with keys named like Object.prototype's members or Town's method inside, forbidNonWhitelisted";
row('nestedValidation', `@ValidateNested() @Type(() => Town), ${IN_TOWN}`, [ValidateNested(), Type(() => Town)], [...ADDRESSES, ...TOWNS], { closed: true, type: Town });
row(
  'nestedValidation',
  `@IsArray() @ValidateNested({ each: true }) @Type(() => Town), ${IN_TOWN}`,
  [IsArray(), ValidateNested({ each: true }), Type(() => Town)],
  [...ADDRESSES, [{ city: 'Paris' }, { city: 'Lima' }], ...TOWNS.map((town) => [{ city: 'Lima' }, town])],
  { closed: true, type: Array },
);
row(
  'nestedValidation',
  `@ValidateNested({ each: true }) @Type(() => Town) on a Map<string, Town>, ${IN_TOWN}`,
  [ValidateNested({ each: true }), Type(() => Town)],
  [{ one: { city: 'Paris' } }, ...TOWNS.map((town) => ({ one: { city: 'Lima' }, two: town })), ...KEYED],
  { closed: true, type: Map },
);

// ---------------------------------------------------------------------------------------------

/** Strict Ajv 2020-12 with ajv-formats, knowing MCP's `x-mcp-header` annotation. */
function strictAjv(options: { validateFormats?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, ...options });
  addFormats(ajv);
  ajv.addKeyword('x-mcp-header');
  return ajv;
}

const ajv = strictAjv();
/** JSON Schema 2020-12's default: `format` is an annotation, asserted by no one (Python's jsonschema, Ajv with validateFormats off). */
const annotatingAjv = strictAjv({ validateFormats: false });

interface Seen {
  value: unknown;
  classValidator: boolean;
  schema: boolean;
  /** Judged by the schema with formats as annotations. */
  annotated?: boolean;
}

function describeValue(value: unknown): string {
  if (value === MISSING) return '(missing)';
  if (value instanceof Whole) return `input ${JSON.stringify(value.input)}`;
  if (typeof value === 'number' && Object.is(value, -0)) return '-0';
  return JSON.stringify(value);
}

/** Which exceptions of which rows some value needed: `label` + reason. */
const used = new Set<string>();

/** Each row's class, for the tools/call check. */
const CLASSES = new Map<Row, new () => object>();

/** What each row found, for the table in docs/schemas.md. */
const TABLE = new Map<string, { publishes: unknown; agreement: 'exact' | 'looser, warned' | 'refused at bootstrap'; why: string }>();

/** Why the bootstrap refuses a row's class as an input, by error code (docs/errors.md says the same). */
const REFUSALS: Record<string, string> = {
  HERMES_DATE_WITHOUT_TYPE: 'without @Type(() => Date) the value stays a string, which no date rule takes (JSON has no dates); an output class may hold Dates',
};

describe('every decorator: the published schema accepts exactly what class-validator accepts', () => {
  describe.each(ROWS.map((r) => [r.label, r] as const))('%s', (_label, r) => {
    const cls = classOf(r.label, r.decorators, r.type, r.inherited);
    CLASSES.set(r, cls);
    const values = [...ANY, ...r.values];

    it('has the rule it covers', () => {
      const types = getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .flatMap((meta) => {
          const constraints = meta.constraintCls ? getMetadataStorage().getTargetValidatorConstraints(meta.constraintCls) : [];
          return [meta.type, ...constraints.map((constraint) => constraint.name)];
        });
      expect(types).toContain(r.rule);
    });

    const refused = r.refused;
    if (refused) {
      it(`is refused at bootstrap as an input (${refused}), naming the class, the field and the fix`, () => {
        @McpServer({ name: 'refused', version: '1' })
        class Refusing {}
        const app = McpFactory.create(Refusing, { logger: createLogger({ level: 'silent' }) });
        let thrown: unknown;
        try {
          app.addTool({ name: 'refused', input: cls }, () => 'accepted');
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(HermesError);
        expect((thrown as HermesError).code).toBe(refused);
        expect((thrown as HermesError).message).toMatch(new RegExp(`${cls.name}\\.value: .*Add @Type\\(\\(\\) => Date\\)`));
        // Validation takes no JSON value at all; as an output, the class publishes what a Date is sent as.
        expect([...ANY, ...r.values].filter((value) => validateInput(cls, value === MISSING ? {} : { value }).ok)).toEqual([]);
        TABLE.set(r.label, { publishes: buildObjectSchema(cls).properties?.value, agreement: 'refused at bootstrap', why: `${refused}: ${REFUSALS[refused]}` });
      });
      return;
    }

    it('agrees on every value, with formats asserted and as annotations (a looser schema only where the bootstrap warns)', () => {
      const schema = r.closed ? closedObjectSchema(cls) : buildObjectSchema(cls);
      const check = ajv.compile(schema);
      // JSON Schema 2020-12's default reading: a `format` constrains nothing, so the rest of the
      // schema must say what the row says (a format may only repeat it).
      const annotated = annotatingAjv.compile(schema);
      const looser = schemaWarningsFor(cls).filter((warning) => warning.code === 'HERMES_SCHEMA_LOOSER' && warning.property === (r.warnedAt ?? 'value'));
      const unexplained: Seen[] = [];
      const verdicts = new Set<boolean>();
      let looserSeen = false;
      for (const value of values) {
        const classValidator = validateInput(cls, inputOf(r, value), optionsOf(r)).ok;
        if (value !== MISSING && !(value instanceof Whole)) verdicts.add(classValidator);
        for (const [judge, formatsAnnotated] of [
          [check, false],
          [annotated, true],
        ] as const) {
          const seen: Seen = { value, classValidator, schema: judge(inputOf(r, value)), ...(formatsAnnotated && { annotated: true }) };
          if (seen.classValidator === seen.schema) continue;
          if (seen.schema && looser.length > 0) {
            looserSeen = true; // what the warning says
            continue;
          }
          const exception = r.exceptions?.find((e) => (e.schema === 'either' || (e.schema === 'accepts') === seen.schema) && e.when(value));
          if (exception) used.add(`${r.label}: ${exception.reason}`);
          else unexplained.push(seen);
        }
      }
      if (looser.length > 0 && !looserSeen) throw new Error(`warned as looser (${looser[0].message}), yet the schema refused every value validation refuses`);
      // Written out or under $defs: one schema, the same verdicts.
      expect(JSON.stringify(schema)).not.toContain('"$ref"');
      const withDefs = ajv.compile(r.closed ? closedObjectSchema(cls, { nested: 'defs' }) : buildObjectSchema(cls, { nested: 'defs' }));
      for (const value of values) {
        const input = inputOf(r, value);
        if (withDefs(input) !== check(input)) unexplained.push({ value, classValidator: validateInput(cls, inputOf(r, value), optionsOf(r)).ok, schema: withDefs(input) });
      }
      const key = r.key ?? 'value';
      const { $defs: _defs, ...root } = schema;
      TABLE.set(r.label, {
        // The property's schema; the whole (root) schema where the key is not published or the schema is closed.
        publishes: r.closed || !(key in (schema.properties ?? {})) ? root : schema.properties?.[key],
        agreement: looser.length > 0 ? 'looser, warned' : 'exact',
        why: looser.map((warning) => warning.reason).join('; '),
      });
      const report = unexplained.map(
        (seen) => `${describeValue(seen.value)}: class-validator ${seen.classValidator}, schema${seen.annotated ? ' (formats as annotations)' : ''} ${seen.schema}`,
      );
      expect([...verdicts].sort()).toEqual(r.takes === 'nothing' ? [false] : r.takes === 'everything' ? [true] : [false, true]);
      if (report.length > 0) {
        const property = JSON.stringify(schema.properties?.[key] ?? schema);
        throw new Error(`${report.length} value(s) judged differently; the property's schema is ${property}\n${report.slice(0, 12).join('\n')}`);
      }
    });
  });
});

describe('a real tools/call', () => {
  it("gives validateInput's verdict on every value of every row (one server, a tool per row; a second one for the closed rows)", async () => {
    @McpServer({ name: 'agreement', version: '1' })
    class Probes {}
    const wrong: string[] = [];
    for (const closed of [false, true]) {
      const app = McpFactory.create(Probes, { logger: createLogger({ level: 'silent' }), validation: { forbidNonWhitelisted: closed } });
      const rows = [...CLASSES].filter(([r]) => !r.refused && (r.closed ?? false) === closed);
      rows.forEach(([, cls], i) => app.addTool({ name: `row_${i}`, input: cls }, () => 'accepted'));
      const client = await createTestClient(app);
      try {
        for (const [i, [r, cls]] of rows.entries()) {
          for (const value of [...ANY, ...r.values]) {
            // What the client sends is JSON: -0 arrives as 0.
            const sent = () => JSON.parse(JSON.stringify(inputOf(r, value))) as Record<string, unknown>;
            const input = sent();
            const called = await client.callTool(`row_${i}`, input).then(
              (result) => result.isError !== true,
              () => false,
            );
            if (called !== validateInput(cls, sent(), optionsOf(r)).ok) wrong.push(`${r.label} ${describeValue(value)}: tools/call ${called}`);
          }
        }
      } finally {
        await client.close();
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});

describe('the exceptions', () => {
  it('are all still needed (each covers at least one value of its row)', () => {
    const stale = ROWS.flatMap((r) => (r.exceptions ?? []).map((e) => `${r.label}: ${e.reason}`)).filter((key) => !used.has(key));
    expect(stale).toEqual([]);
  });
});

describe('a rule that throws', () => {
  it('makes the input refused, never the call throw (validator.js throws on a lone surrogate, isNumber on 1e-7)', () => {
    const email = classOf('ThrowingEmail', [IsEmail()]);
    const decimals = classOf('ThrowingDecimals', [IsNumber({ maxDecimalPlaces: 1 })]);
    for (const [cls, value] of [
      [email, 'ann\uD800@example.com'],
      [decimals, 1e-7],
    ] as const) {
      expect(() => validateInput(cls, { value })).not.toThrow();
      expect(validateInput(cls, { value })).toEqual({ ok: false, issues: [{ path: '', constraints: { unreadable: 'the input could not be read or checked' } }] });
    }
  });
});

describe('completeness', () => {
  it('has a row for every rule class-validator exports (@IsOptional is the conditionalValidation rows)', () => {
    const covered = new Set(ROWS.map((r) => r.rule));
    const exported = Object.entries(classValidator)
      .filter(([key, value]) => /^[A-Z][A-Z0-9_]*$/.test(key) && typeof value === 'string')
      .map(([, value]) => value as string);
    expect(exported.length).toBeGreaterThan(100);
    expect(exported.filter((rule) => !covered.has(rule)).sort()).toEqual(['isOptional']);
  });

  it('has a row for every rule the schema builder converts', () => {
    const covered = new Set(ROWS.map((r) => r.rule));
    expect(
      convertedRuleTypes()
        .filter((rule) => !covered.has(rule))
        .sort(),
    ).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// docs/schemas.md: the table of every row, rendered from what the rows above found.

const DOCS = join(__dirname, '../../../../docs/schemas.md');
const START = '<!-- decorator-table:start (rendered by packages/core/test/schema/decorator-agreement.spec.ts) -->';
const END = '<!-- decorator-table:end -->';

/** The first 20 UTF-16 units of a text, less a high surrogate left without its pair. */
const head = (text: string): string => (/[\uD800-\uDBFF]$/.test(text.slice(0, 20)) ? text.slice(0, 19) : text.slice(0, 20));

/** A schema, shortened where a pattern runs long, fit for a table cell. */
function summary(schema: unknown): string {
  const text = JSON.stringify(schema, (_key, value: unknown) => (typeof value === 'string' && value.length > 40 ? `${head(value)}… (${value.length} chars)` : value));
  return `\`${(text ?? '{}').replace(/\|/g, '\\|')}\``;
}

function renderTable(): string {
  const lines = ['| decorator | published schema | agreement | what the schema cannot say |', '| --- | --- | --- | --- |'];
  for (const [label, found] of TABLE) {
    lines.push(`| \`${label.replace(/\|/g, '\\|')}\` | ${summary(found.publishes)} | ${found.agreement} | ${found.why.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

describe('docs/schemas.md', () => {
  it('has the table this suite renders (UPDATE_DOCS=1 npx jest packages/core/test/schema/decorator-agreement.spec.ts rewrites it)', () => {
    expect(TABLE.size).toBe(ROWS.length);
    const doc = readFileSync(DOCS, 'utf8');
    const [before, rest] = doc.split(START);
    const after = rest?.split(END)[1];
    if (after === undefined) throw new Error(`docs/schemas.md has no ${START} … ${END} section`);
    const rendered = `${before}${START}\n${renderTable()}\n${END}${after}`;
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOCS, rendered);
    else if (rendered !== doc) {
      throw new Error('docs/schemas.md does not have the table this suite found; run UPDATE_DOCS=1 npx jest packages/core/test/schema/decorator-agreement.spec.ts');
    }
  });
});
