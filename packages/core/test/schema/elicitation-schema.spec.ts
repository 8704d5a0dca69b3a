import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsIP,
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
  ValidateNested,
} from 'class-validator';
import { HermesError } from '../../src/errors';
import { Description, JSONSchema } from '../../src/decorators/description.decorator';
import { EnumTitles } from '../../src/decorators/enum-titles.decorator';
import { type ElicitationRevision, type ElicitationSchema, elicitationSchemaFor } from '../../src/schema/elicitation-schema';
import { buildObjectSchema } from '../../src/schema/schema-builder';
import { validateInputAsync } from '../../src/validation/validator';
import { type RevisionSchema, loadSchemas } from '../../../../test-support/mcp-schema';

// ---------------------------------------------------------------------------------------------
// Fixtures: one small class per kind of field.

class Contact {
  @Description('Shown on your profile') @JSONSchema({ title: 'Name' }) @IsString() @Length(2, 40) name!: string;
  @IsEmail() email!: string;
  @IsOptional() @IsUrl() website?: string;
  @IsOptional() @IsDateString() born?: string;
  @JSONSchema({ format: 'date' }) @IsOptional() @IsString() joined?: string;
  // Neither the pattern nor the uuid/ipv4 formats can be said in a form: dropped, still validated.
  @IsString() @MaxLength(12) @Matches(/^[a-z_]+$/) handle: string = 'guest';
  @IsOptional() @IsUUID() id?: string;
  @IsOptional() @IsIP() ip?: string;
  @IsString() @IsNotEmpty() city!: string;
}

class Numbers {
  @Description('In years') @IsInt() @Min(0) @Max(150) age!: number;
  @IsOptional() @IsNumber() @Max(1.5) ratio?: number;
  // exclusiveMinimum has no form equivalent: dropped, still validated.
  @IsNumber() @IsPositive() price!: number;
  @IsInt() @Min(1) count = 3;
}

class Flags {
  @Description('I accept the terms') @IsBoolean() agree!: boolean;
  @IsBoolean() newsletter = false;
  @IsOptional() @IsBoolean() beta?: boolean;
}

enum Color {
  Red = 'red',
  Green = 'green',
}

class Choices {
  @IsIn(['c', 'f']) unit = 'c';
  @IsOptional() @IsEnum(Color) color?: Color;
  @Description('Cup size') @EnumTitles({ s: 'Small', l: 'Large' }) @IsIn(['s', 'l']) size = 'l';
  @EnumTitles({ s: 'Small', l: 'Large' }, { legacy: true }) @IsOptional() @IsIn(['s', 'l']) lid?: string;
}

class Multi {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(2) @IsIn(['a', 'b', 'c'], { each: true }) tags!: string[];
  @EnumTitles({ red: 'Red', green: 'Green' }) @IsOptional() @IsArray() @IsEnum(Color, { each: true }) colors?: Color[];
  @IsArray() @IsIn(['x', 'y'], { each: true }) picks: string[] = ['x'];
}

/** The conformance suite's `test_elicitation_sep1034_defaults` form. */
class Sep1034 {
  @Description('User name') @IsString() name = 'John Doe';
  @Description('User age') @IsInt() age = 30;
  @Description('User score') @IsNumber() score = 95.5;
  @Description('User status') @IsIn(['active', 'inactive', 'pending']) status = 'active';
  @Description('Verification status') @IsBoolean() verified = true;
}

/** The conformance suite's `test_elicitation_sep1330_enums` form: all five enum shapes. */
class Sep1330 {
  @IsIn(['option1', 'option2', 'option3']) untitledSingle!: string;
  @EnumTitles({ value1: 'First Option', value2: 'Second Option', value3: 'Third Option' })
  @IsIn(['value1', 'value2', 'value3'])
  titledSingle!: string;
  @EnumTitles({ opt1: 'Option One', opt2: 'Option Two', opt3: 'Option Three' }, { legacy: true })
  @IsIn(['opt1', 'opt2', 'opt3'])
  legacyEnum!: string;
  @IsArray() @IsIn(['option1', 'option2', 'option3'], { each: true }) untitledMulti!: string[];
  @EnumTitles({ value1: 'First Choice', value2: 'Second Choice', value3: 'Third Choice' })
  @IsArray()
  @IsIn(['value1', 'value2', 'value3'], { each: true })
  titledMulti!: string[];
}

class Empty {}

type Ctor = new () => object;
// `any`: the tests poke at whichever keys a field kind has.
const props = (schema: ElicitationSchema) => schema.properties as Record<string, Record<string, any>>;

// ---------------------------------------------------------------------------------------------
// The official schemas as referee.

const loaded = loadSchemas(['2025-06-18', '2025-11-25']);
const revisionSchema = (revision: ElicitationRevision): RevisionSchema => {
  return loaded.revisions.get(revision)!;
};

/** Violations of `requestedSchema` as the revision defines it (ElicitRequest / ElicitRequestFormParams). */
function specViolations(revision: ElicitationRevision, requestedSchema: unknown): string[] {
  const schema = revisionSchema(revision);
  const params = { message: 'Please fill in the form', requestedSchema };
  return revision === '2025-06-18'
    ? schema.validate('ElicitRequest', { method: 'elicitation/create', params })
    : schema.validate('ElicitRequestFormParams', { mode: 'form', ...params });
}

type Json = Record<string, unknown>;
const definitions = new Map<ElicitationRevision, Record<string, Json>>();
function definitionsOf(revision: ElicitationRevision): Record<string, Json> {
  let defs = definitions.get(revision);
  if (!defs) {
    const document = JSON.parse(readFileSync(revisionSchema(revision).file, 'utf8')) as Json;
    defs = (document.$defs ?? document.definitions) as Record<string, Json>;
    definitions.set(revision, defs);
  }
  return defs;
}

/**
 * The schemas leave every object open, so a field the revision lacks (`default` on a 2025-06-18
 * string, say) would still validate. This closes them: each property must match a branch of
 * PrimitiveSchemaDefinition whose `properties` declare every key it has, `items`' keys and the
 * keys of each option too.
 */
function undeclaredKeys(revision: ElicitationRevision, schema: ElicitationSchema): string[] {
  const defs = definitionsOf(revision);
  const branches = (defs.PrimitiveSchemaDefinition.anyOf as Json[]).map((b) => String(b.$ref).split('/').pop()!);
  const extra = (value: unknown, def: Json | undefined, where: string): string[] => {
    if (typeof value !== 'object' || value === null) return [];
    const declared = (def?.properties ?? {}) as Record<string, Json>;
    return Object.entries(value).flatMap(([key, child]) => {
      if (!(key in declared)) return [`${where}.${key}`];
      const sub = declared[key];
      if (Array.isArray(child)) return child.flatMap((c, i) => extra(c, sub.items as Json, `${where}.${key}[${i}]`));
      return sub.properties ? extra(child, sub, `${where}.${key}`) : [];
    });
  };
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    const accepting = branches.filter((b) => revisionSchema(revision).validate(b, property).length === 0);
    const clean = accepting.some((b) => extra(property, defs[b], name).length === 0);
    return clean ? [] : [`${name} (${accepting.join('/') || 'no branch'}): ${accepting.flatMap((b) => extra(property, defs[b], name)).join(', ')}`];
  });
}

const FOR_BOTH: Array<[string, Ctor]> = [
  ['Contact', Contact],
  ['Numbers', Numbers],
  ['Flags', Flags],
  ['Choices', Choices],
  ['Sep1034', Sep1034],
  ['Empty', Empty],
];
const LATEST_ONLY: Array<[string, Ctor]> = [
  ['Multi', Multi],
  ['Sep1330', Sep1330],
];

describe("elicitationSchemaFor: the revision's requestedSchema definition accepts it", () => {
  const cases: Array<[string, ElicitationRevision, Ctor]> = [
    ...FOR_BOTH.map(([n, c]): [string, ElicitationRevision, Ctor] => [n, '2025-06-18', c]),
    ...[...FOR_BOTH, ...LATEST_ONLY].map(([n, c]): [string, ElicitationRevision, Ctor] => [n, '2025-11-25', c]),
  ];

  it.each(cases)('%s on %s', (_name, revision, cls) => {
    const schema = elicitationSchemaFor(cls, revision);
    expect(specViolations(revision, schema)).toEqual([]);
    expect(undeclaredKeys(revision, schema)).toEqual([]);
  });

  it('the referee refuses what it should: the raw input schema, and keys a revision lacks', () => {
    // Optional fields are anyOf [X, null], which no PrimitiveSchemaDefinition is.
    expect(specViolations('2025-11-25', buildObjectSchema(Contact))).not.toEqual([]);
    const nested = { type: 'object', properties: { a: { type: 'object', properties: {} } } };
    expect(specViolations('2025-06-18', nested)).not.toEqual([]);
    expect(specViolations('2025-11-25', nested)).not.toEqual([]);
    // A 2025-11-25 string default on a 2025-06-18 form: open schema, so only the key check sees it.
    const withDefault = { type: 'object', properties: { a: { type: 'string', default: 'x' } } } as const;
    expect(specViolations('2025-06-18', withDefault)).toEqual([]);
    expect(undeclaredKeys('2025-06-18', withDefault)).toEqual(['a (StringSchema): a.default']);
    expect(undeclaredKeys('2025-11-25', withDefault)).toEqual([]);
    // Multi-selects do not exist on 2025-06-18.
    expect(specViolations('2025-06-18', elicitationSchemaFor(Multi, '2025-11-25'))).not.toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('elicitationSchemaFor: strings', () => {
  it('keeps minimum lengths, the four form formats, labels and defaults; drops patterns and other formats; unwraps optional fields', () => {
    const schema = elicitationSchemaFor(Contact, '2025-11-25');
    expect(schema.required).toEqual(['name', 'email', 'city']);
    expect(props(schema)).toEqual({
      // No maxLength: validator.js counts `❤️` as one character, maxLength as two (the builder's pattern says it).
      name: { type: 'string', title: 'Name', description: 'Shown on your profile', minLength: 2 },
      email: { type: 'string', format: 'email' },
      website: { type: 'string', format: 'uri' },
      born: { type: 'string', format: 'date-time' },
      joined: { type: 'string', format: 'date' },
      handle: { type: 'string', default: 'guest' },
      id: { type: 'string' },
      ip: { type: 'string' },
      city: { type: 'string' },
    });
  });

  it('has no string default on 2025-06-18', () => {
    expect(props(elicitationSchemaFor(Contact, '2025-06-18')).handle).toEqual({ type: 'string' });
  });

  it('what the form cannot say, validation of the answer still enforces (and initialisers fill what is left out)', async () => {
    const answer = { name: 'Ann', email: 'ann@example.com', city: 'Paris' };
    const ok = await validateInputAsync(Contact, answer);
    expect(ok).toMatchObject({ ok: true, value: { handle: 'guest' } });
    expect((await validateInputAsync(Contact, { ...answer, handle: 'Not OK' })).ok).toBe(false);
    expect((await validateInputAsync(Contact, { ...answer, id: 'abc' })).ok).toBe(false);
    expect((await validateInputAsync(Contact, { ...answer, city: '' })).ok).toBe(false);
  });
});

describe('elicitationSchemaFor: numbers', () => {
  it('integer or number, with bounds and defaults; exclusive bounds are dropped', () => {
    const schema = elicitationSchemaFor(Numbers, '2025-11-25');
    expect(schema.required).toEqual(['age', 'price']);
    expect(props(schema)).toEqual({
      age: { type: 'integer', description: 'In years', minimum: 0, maximum: 150 },
      ratio: { type: 'number', maximum: 1.5 },
      price: { type: 'number' },
      count: { type: 'integer', minimum: 1, default: 3 },
    });
    expect(props(elicitationSchemaFor(Numbers, '2025-06-18')).count).toEqual({ type: 'integer', minimum: 1 });
  });
});

describe('elicitationSchemaFor: booleans', () => {
  it.each(['2025-06-18', '2025-11-25'] as const)('keeps the default on %s (the one default 2025-06-18 has)', (revision) => {
    const schema = elicitationSchemaFor(Flags, revision);
    expect(schema.required).toEqual(['agree']);
    expect(props(schema)).toEqual({
      agree: { type: 'boolean', description: 'I accept the terms' },
      newsletter: { type: 'boolean', default: false },
      beta: { type: 'boolean' },
    });
  });
});

describe('elicitationSchemaFor: single choices', () => {
  it('2025-11-25: untitled → enum, titled → oneOf const/title, legacy → enum + enumNames; defaults kept', () => {
    const schema = elicitationSchemaFor(Choices, '2025-11-25');
    expect(schema.required).toBeUndefined();
    expect(props(schema)).toEqual({
      unit: { type: 'string', enum: ['c', 'f'], default: 'c' },
      color: { type: 'string', enum: ['red', 'green'] },
      size: {
        type: 'string',
        description: 'Cup size',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
        default: 'l',
      },
      lid: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
    });
  });

  it('2025-06-18: titles always go out as enumNames; no defaults', () => {
    expect(props(elicitationSchemaFor(Choices, '2025-06-18'))).toEqual({
      unit: { type: 'string', enum: ['c', 'f'] },
      color: { type: 'string', enum: ['red', 'green'] },
      size: { type: 'string', description: 'Cup size', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
      lid: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
    });
  });

  it('titles follow the order of the values, not of the titles object', () => {
    class Reordered {
      @EnumTitles({ b: 'Bee', a: 'Ay' }) @IsIn(['a', 'b']) letter!: string;
    }
    expect(props(elicitationSchemaFor(Reordered, '2025-11-25')).letter.oneOf).toEqual([
      { const: 'a', title: 'Ay' },
      { const: 'b', title: 'Bee' },
    ]);
    expect(props(elicitationSchemaFor(Reordered, '2025-06-18')).letter.enumNames).toEqual(['Ay', 'Bee']);
  });

  it('titles are inherited with the property', () => {
    class Child extends Choices {}
    expect(props(elicitationSchemaFor(Child, '2025-11-25')).size).toEqual(props(elicitationSchemaFor(Choices, '2025-11-25')).size);
  });
});

describe('elicitationSchemaFor: multi-selects (2025-11-25)', () => {
  it('untitled → items.enum, titled → items.anyOf; item counts and array initialisers carried', () => {
    const schema = elicitationSchemaFor(Multi, '2025-11-25');
    expect(schema.required).toEqual(['tags']);
    expect(props(schema)).toEqual({
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 },
      colors: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'red', title: 'Red' },
            { const: 'green', title: 'Green' },
          ],
        },
      },
      picks: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, default: ['x'] },
    });
  });
});

describe('SEP-1034 (conformance: elicitation-sep1034-defaults)', () => {
  const schema = elicitationSchemaFor(Sep1034, '2025-11-25');
  const p = props(schema);

  it('has a default for every primitive type', () => {
    expect(p).toEqual({
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', description: 'Verification status', default: true },
    });
    expect(schema.required).toBeUndefined();
  });

  it("passes the suite's checks", () => {
    expect([p.name.type, p.name.default]).toEqual(['string', 'John Doe']);
    expect([p.age.type, p.age.default]).toEqual(['integer', 30]);
    expect([p.score.type, p.score.default]).toEqual(['number', 95.5]);
    expect([p.status.type, p.status.default]).toEqual(['string', 'active']);
    expect(p.status.enum).toContain(p.status.default);
    expect([p.verified.type, p.verified.default]).toEqual(['boolean', true]);
  });

  it("the suite's answer is valid for the schema and the class", async () => {
    const answer = { name: 'Jane Smith', age: 25, score: 88.0, status: 'inactive', verified: false };
    expect(new Ajv2020({ strict: false }).validate(schema, answer)).toBe(true);
    expect(await validateInputAsync(Sep1034, answer)).toMatchObject({ ok: true, value: answer });
  });

  it('on 2025-06-18 only the boolean keeps its default; the class still applies all of them', async () => {
    const old = props(elicitationSchemaFor(Sep1034, '2025-06-18'));
    expect(
      Object.entries(old)
        .filter(([, f]) => 'default' in f)
        .map(([name]) => name),
    ).toEqual(['verified']);
    expect(await validateInputAsync(Sep1034, {})).toMatchObject({
      ok: true,
      value: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
  });
});

describe('SEP-1330 (conformance: elicitation-sep1330-enums)', () => {
  const schema = elicitationSchemaFor(Sep1330, '2025-11-25');
  const p = props(schema);

  it('gives the five enum shapes', () => {
    expect(p).toEqual({
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: {
        type: 'string',
        oneOf: [
          { const: 'value1', title: 'First Option' },
          { const: 'value2', title: 'Second Option' },
          { const: 'value3', title: 'Third Option' },
        ],
      },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'value1', title: 'First Choice' },
            { const: 'value2', title: 'Second Choice' },
            { const: 'value3', title: 'Third Choice' },
          ],
        },
      },
    });
  });

  it("passes the suite's checks", () => {
    const { untitledSingle, titledSingle, legacyEnum, untitledMulti, titledMulti } = p;
    expect(untitledSingle).toMatchObject({ type: 'string', enum: expect.any(Array) });
    expect(untitledSingle).not.toHaveProperty('oneOf');
    expect(untitledSingle).not.toHaveProperty('enumNames');

    expect(titledSingle.type).toBe('string');
    expect(titledSingle.oneOf.every((o: any) => typeof o.const === 'string' && typeof o.title === 'string')).toBe(true);
    expect(titledSingle).not.toHaveProperty('enum');

    expect(legacyEnum.type).toBe('string');
    expect(legacyEnum.enumNames).toHaveLength(legacyEnum.enum.length);

    expect(untitledMulti.type).toBe('array');
    expect(untitledMulti.items).toMatchObject({ type: 'string', enum: expect.any(Array) });
    expect(untitledMulti.items).not.toHaveProperty('anyOf');

    expect(titledMulti.type).toBe('array');
    expect(titledMulti.items.anyOf.every((o: any) => typeof o.const === 'string' && typeof o.title === 'string')).toBe(true);
    expect(titledMulti.items).not.toHaveProperty('enum');
  });

  it("the suite's answer is valid for the schema and the class", async () => {
    const answer = {
      untitledSingle: 'option1',
      titledSingle: 'value1',
      legacyEnum: 'opt1',
      untitledMulti: ['option1', 'option2'],
      titledMulti: ['value1', 'value2'],
    };
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    expect(ajv.validate(schema, answer)).toBe(true);
    expect(ajv.validate(schema, { ...answer, titledMulti: ['value4'] })).toBe(false);
    expect(await validateInputAsync(Sep1330, answer)).toMatchObject({ ok: true, value: answer });
  });
});

// ---------------------------------------------------------------------------------------------

describe('elicitationSchemaFor: what a form cannot ask for', () => {
  const PREFIX = 'elicitation forms only take strings, numbers, booleans and enums of strings';

  function thrown(fn: () => unknown): HermesError {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(HermesError);
      expect((error as HermesError).code).toBe('HERMES_INVALID_OPTIONS');
      return error as HermesError;
    }
    throw new Error('expected a HermesError');
  }

  class Address {
    @IsString() city!: string;
  }
  class WithAddress {
    @IsString() name!: string;
    @IsDefined() @ValidateNested() @Type(() => Address) address!: Address;
  }
  class WithAddresses {
    @IsArray() @ValidateNested({ each: true }) @Type(() => Address) addresses!: Address[];
  }
  class WithFreeList {
    @IsArray() @IsString({ each: true }) tags!: string[];
  }
  class WithUntypedList {
    @IsArray() list!: unknown[];
  }
  enum Level {
    Low,
    High,
  }
  class WithNumericEnum {
    @IsEnum(Level) level!: Level;
  }
  class WithMixedChoice {
    @IsIn(['a', 1]) mixed!: string | number;
  }
  class WithNumberChoices {
    @IsArray() @IsIn([1, 2], { each: true }) sizes!: number[];
  }
  class WithUntyped {
    @Allow() anything?: unknown;
  }

  it.each([
    ['a nested object', WithAddress, 'address', 'Move its fields into WithAddress itself'],
    ['a list of objects', WithAddresses, 'addresses', "@IsIn(['a', 'b'], { each: true })"],
    ['a list of free strings', WithFreeList, 'tags', 'a list can only be a multi-select of fixed strings'],
    ['a list of anything', WithUntypedList, 'list', 'a list can only be a multi-select of fixed strings'],
    ['a numeric enum', WithNumericEnum, 'level', 'the choices must be strings, and they are [0,1,"Low","High"]. Use a string enum'],
    ['a mixed choice', WithMixedChoice, 'mixed', 'the choices must be strings, and they are ["a",1]'],
    ['a multi-select of numbers', WithNumberChoices, 'sizes', 'the choices must be strings'],
    ['a property of unknown type', WithUntyped, 'anything', 'Add @IsString(), @IsNumber(), @IsInt() or @IsBoolean()'],
  ] as Array<[string, Ctor, string, string]>)('%s', (_label, cls, property, fix) => {
    for (const revision of ['2025-06-18', '2025-11-25'] as const) {
      const error = thrown(() => elicitationSchemaFor(cls, revision));
      expect(error.message).toContain(`${cls.name}.${property}: ${PREFIX}`);
      expect(error.message).toContain(fix);
    }
  });

  it('a multi-select on 2025-06-18, saying what to do instead', () => {
    const error = thrown(() => elicitationSchemaFor(Multi, '2025-06-18'));
    expect(error.message).toContain(`Multi.tags: ${PREFIX}`);
    expect(error.message).toContain('a multi-select needs revision 2025-11-25');
    expect(error.message).toContain('one @IsBoolean() property per option');
  });

  it('@EnumTitles that does not match the values, or sits on something else', () => {
    class Untitled {
      @EnumTitles({ a: 'Ay' }) @IsIn(['a', 'b']) letter!: string;
    }
    class Unknown {
      @EnumTitles({ a: 'Ay', b: 'Bee', z: 'Zed' }) @IsIn(['a', 'b']) letter!: string;
    }
    class OnText {
      @EnumTitles({ a: 'Ay' }) @IsString() letter!: string;
    }
    class LegacyMulti {
      @EnumTitles({ a: 'Ay' }, { legacy: true }) @IsArray() @IsIn(['a'], { each: true }) letters!: string[];
    }
    for (const revision of ['2025-06-18', '2025-11-25'] as const) {
      expect(thrown(() => elicitationSchemaFor(Untitled, revision)).message).toContain('Untitled.letter: @EnumTitles has no title for "b". Give every value a title');
      expect(thrown(() => elicitationSchemaFor(Unknown, revision)).message).toContain(
        'Unknown.letter: @EnumTitles titles "z", which the property does not accept (values: a, b). Fix the key',
      );
      expect(thrown(() => elicitationSchemaFor(OnText, revision)).message).toContain('OnText.letter: @EnumTitles applies to choices of strings only');
    }
    expect(thrown(() => elicitationSchemaFor(LegacyMulti, '2025-11-25')).message).toContain('LegacyMulti.letters: @EnumTitles({ legacy: true }) applies to single choices only');
  });

  it('a revision without form elicitation', () => {
    const error = thrown(() => elicitationSchemaFor(Flags, '2025-03-26' as ElicitationRevision));
    expect(error.message).toContain('form elicitation schemas exist for 2025-06-18 and 2025-11-25 only');
  });
});

describe('elicitationSchemaFor: caching and freezing', () => {
  it('builds once per class and revision', () => {
    expect(elicitationSchemaFor(Choices, '2025-11-25')).toBe(elicitationSchemaFor(Choices, '2025-11-25'));
    expect(elicitationSchemaFor(Choices, '2025-06-18')).toBe(elicitationSchemaFor(Choices, '2025-06-18'));
    expect(elicitationSchemaFor(Choices, '2025-06-18')).not.toBe(elicitationSchemaFor(Choices, '2025-11-25'));
  });

  it('is deeply frozen', () => {
    const schema = elicitationSchemaFor(Multi, '2025-11-25');
    const all: unknown[] = [];
    const walk = (value: unknown) => {
      if (typeof value !== 'object' || value === null) return;
      all.push(value);
      Object.values(value).forEach(walk);
    };
    walk(schema);
    expect(all.length).toBeGreaterThan(10);
    expect(all.every((value) => Object.isFrozen(value))).toBe(true);
  });

  it('an empty class asks for nothing', () => {
    expect(elicitationSchemaFor(Empty, '2025-11-25')).toEqual({ type: 'object', properties: {} });
  });
});
