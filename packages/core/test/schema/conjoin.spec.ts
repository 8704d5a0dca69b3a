import 'reflect-metadata';
import { IsNotEmpty, IsString, NotContains } from 'class-validator';
import { JSONSchema } from '../../src/decorators/description.decorator';
import { conjoin } from '../../src/schema/conjoin';
import { buildObjectSchema } from '../../src/schema/schema-builder';

describe('conjoin: what every rule schema accepts', () => {
  it('keeps keywords only one rule uses, and drops repeats', () => {
    expect(conjoin([{ type: 'string' }, { minLength: 1 }, { type: 'string' }, undefined])).toEqual({ type: 'string', minLength: 1 });
  });

  it('tightens bounds, makes number and integer an integer, intersects enums', () => {
    expect(conjoin([{ minLength: 2, maxLength: 10 }, { maxLength: 5 }, { minimum: 1 }, { minimum: 3, maximum: 8 }])).toEqual({
      minLength: 2,
      maxLength: 5,
      minimum: 3,
      maximum: 8,
    });
    expect(conjoin([{ type: 'number' }, { type: 'integer' }])).toEqual({ type: 'integer' });
    expect(conjoin([{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }])).toEqual({ enum: ['b'] });
  });

  it('says nothing passes when the rules exclude each other', () => {
    expect(conjoin([{ type: 'string' }, { type: 'integer' }])).toEqual({ type: 'string', allOf: [{ not: {} }] });
    expect(conjoin([{ enum: ['a'] }, { enum: ['b'] }])).toEqual({ enum: ['a'], allOf: [{ not: {} }] });
  });

  it('combines item schemas, and puts any other keyword two rules use in allOf (once)', () => {
    expect(
      conjoin([
        { type: 'array', items: {} },
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { maxLength: 3 } },
      ]),
    ).toEqual({
      type: 'array',
      items: { type: 'string', maxLength: 3 },
    });
    expect(conjoin([{ not: { type: 'null' } }, { not: { enum: ['', null] } }, { not: { enum: ['', null] } }])).toEqual({
      not: { type: 'null' },
      allOf: [{ not: { enum: ['', null] } }],
    });
    expect(conjoin([{ pattern: '^a' }, { pattern: 'b' }])).toEqual({ pattern: '^a', allOf: [{ pattern: 'b' }] });
  });

  it('shares nothing with the schemas it is given', () => {
    const rule = { not: { enum: ['', null] } };
    const out = conjoin([rule]);
    (out.not as { enum: unknown[] }).enum.push('x');
    expect(rule).toEqual({ not: { enum: ['', null] } });
  });
});

describe('buildObjectSchema: every rule of a property holds', () => {
  it('on an inherited property, with its @JSONSchema keywords', () => {
    class Base {
      @IsString() @IsNotEmpty() @NotContains(' ') @JSONSchema({ examples: ['word'] }) word!: string;
    }
    class Child extends Base {
      @IsString() other!: string;
    }
    expect(buildObjectSchema(Child).properties!.word).toEqual({
      type: 'string',
      not: { pattern: ' ' },
      allOf: [{ not: { enum: ['', null] } }],
      examples: ['word'],
    });
  });
});
