/**
 * inline.ts on schemas the builder rarely makes (a class's own `@JSONSchema` can): a `$ref` with
 * keywords beside it is written out as one schema only where that means the same, and the written
 * out schema accepts exactly what the `$defs` form accepts, value by value (Ajv 2020-12).
 */
import Ajv2020 from 'ajv/dist/2020';
import { inlined } from '../../src/schema/inline';

type Json = Record<string, unknown>;

const VALUES: unknown[] = [
  {},
  { a: 1 },
  { a: 'x' },
  { a: 'x', b: 1 },
  { a: 'x', b: 'y' },
  { a: 'x', kind: 'k' },
  { kind: 'k' },
  { kind: 'other' },
  { a: 'x', extra: true },
  { a: 'x', kind: 'k', extra: true },
  null,
  'text',
  [],
];

/** The two forms agree on every value. */
function agree(schema: Json): Json {
  const written = inlined(schema);
  const ajv = new Ajv2020({ strict: false });
  const [before, after] = [ajv.compile(schema), ajv.compile(written)];
  for (const value of VALUES) expect([value, after(value)]).toEqual([value, before(value)]);
  return written;
}

describe('inlined', () => {
  it('merges keywords beside a $ref into the definition where that means the same (a discriminator branch, a required object)', () => {
    const written = agree({
      type: 'object',
      properties: {
        v: { oneOf: [{ type: 'object', $ref: '#/$defs/A', properties: { kind: { const: 'k' } }, required: ['kind'] }, { type: 'null' }] },
        w: { $ref: '#/$defs/A', not: { type: 'null' }, description: 'the property' },
      },
      $defs: { A: { type: 'object', description: 'the class', properties: { a: { type: 'string' } }, required: ['a'] } },
    });
    expect(written).toEqual({
      type: 'object',
      properties: {
        v: { oneOf: [{ type: 'object', description: 'the class', properties: { a: { type: 'string' }, kind: { const: 'k' } }, required: ['a', 'kind'] }, { type: 'null' }] },
        w: { type: 'object', description: 'the property', properties: { a: { type: 'string' } }, required: ['a'] },
      },
    });
  });

  it('keeps apart, under allOf, a property the definition’s additionalProperties would have judged', () => {
    const written = agree({
      type: 'object',
      properties: { v: { $ref: '#/$defs/A', properties: { kind: { const: 'k' } } } },
      $defs: { A: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } },
    });
    expect((written.properties as Json).v).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
      allOf: [{ properties: { kind: { const: 'k' } } }],
    });
  });

  it('joins it where the definition’s patternProperties take the key, and combines a property both have', () => {
    const written = agree({
      type: 'object',
      properties: { v: { $ref: '#/$defs/A', properties: { kind: { const: 'k' }, a: { const: 'x' } } } },
      $defs: { A: { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^(?:kind)$': {} }, additionalProperties: false } },
    });
    expect((written.properties as Json).v).toMatchObject({ properties: { a: { type: 'string', const: 'x' }, kind: { const: 'k' } } });
  });

  it('wraps a definition with unevaluatedProperties whole, under allOf', () => {
    const written = agree({
      type: 'object',
      properties: { v: { $ref: '#/$defs/A', properties: { kind: { const: 'k' } } } },
      $defs: { A: { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false } },
    });
    expect((written.properties as Json).v).toEqual({
      properties: { kind: { const: 'k' } },
      allOf: [{ type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false }],
    });
  });

  it('leaves data alone: a $ref in enum, const, default or examples is a value', () => {
    const data = { $ref: '#/$defs/A' };
    const written = inlined({
      type: 'object',
      properties: { a: { enum: [data] }, b: { const: data, default: data, examples: [data] }, c: { $ref: '#/$defs/A' } },
      $defs: { A: { type: 'string' } },
    });
    expect(written).toEqual({ type: 'object', properties: { a: { enum: [data] }, b: { const: data, default: data, examples: [data] }, c: { type: 'string' } } });
  });

  it('returns a schema without $defs as it is', () => {
    const schema = { type: 'object', properties: {} };
    expect(inlined(schema)).toBe(schema);
  });
});
