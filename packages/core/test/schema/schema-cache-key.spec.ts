/**
 * The schema cache's key (schema/schema-cache.ts `keyOf`), in process: a digest fed value by value
 * as the classes are read. Two classes that differ only in a constraint's value get different keys
 * whenever the values differ (as a schema built from one would be wrong for the other), and the
 * same key when they are the same value; values that would read alike as text (`'1'` and `1`,
 * `['ab']` and `['a', 'b']`, `[1, [2]]` and `[[1], 2]`, `0` and `-0`) are told apart.
 */
import 'reflect-metadata';
import { isDeepStrictEqual } from 'node:util';
import { Equals, IsOptional, IsString, Length, Min } from 'class-validator';
import * as fc from 'fast-check';
import { keyOf } from '../../src/schema/schema-cache';

/** A class made the same way every time (same source, same name), with `@Equals(value)` on `v`. */
function classWith(value: unknown): Function {
  class Input {}
  Equals(value)(Input.prototype, 'v');
  Reflect.defineMetadata('design:type', Object, Input.prototype, 'v');
  return Input;
}

/** A deep copy made in this realm (structuredClone's objects would have another Object.prototype under jest). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copy(item)]));
  return value;
}

/**
 * Constraint values as users write them: JSON values, and -0 beside 0; with short strings and small
 * numbers often, alone and in arrays and objects, so that pairs that differ in one letter or one
 * digit come up.
 */
const small = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b', '1'), maxLength: 3 }), fc.integer({ min: -2, max: 2 }), fc.constantFrom(-0, 0.5, true, false, null));
const values = fc.oneof(
  small,
  fc.array(small, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'b', 'ab'), small, { maxKeys: 2, noNullPrototype: true }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe('the schema cache key', () => {
  it('is the same for two classes made alike, and differs when one constraint value differs', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        const keyA = keyOf(classWith(a));
        const keyB = keyOf(classWith(b));
        const again = keyOf(classWith(copy(a)));
        expect(keyA).toMatch(/^[0-9a-z]+\.[0-9a-z]+\.[0-9a-z]+$/);
        expect(again).toBe(keyA);
        if (!isDeepStrictEqual(a, b) || Object.is(a, -0) !== Object.is(b, -0)) expect(keyB).not.toBe(keyA);
      }),
      { numRuns: 300 },
    );
  });

  it('differs when one leaf deep in a value differs (a letter, a digit, a type)', () => {
    fc.assert(
      fc.property(fc.array(small, { minLength: 1, maxLength: 3 }), fc.nat(), small, small, (items, at, x, y) => {
        const place = (leaf: unknown) => ({ a: items.map((item, i) => (i === at % items.length ? leaf : item)) });
        const same = isDeepStrictEqual(x, y) && Object.is(x, -0) === Object.is(y, -0);
        if (same) expect(keyOf(classWith(place(y)))).toBe(keyOf(classWith(place(x))));
        else expect(keyOf(classWith(place(y)))).not.toBe(keyOf(classWith(place(x))));
      }),
      { numRuns: 300 },
    );
  });

  it('tells apart values that read alike as text', () => {
    const pairs: Array<[unknown, unknown]> = [
      ['1', 1],
      [['ab'], ['a', 'b']],
      [
        [1, [2]],
        [[1], 2],
      ],
      [0, -0],
      [{ a: 'b' }, { ab: '' }],
      [null, 'null'],
      [true, 'true'],
      [[], {}],
      [1.5, '1.5'],
      [2 ** 31, 2 ** 31 + 1],
    ];
    for (const [a, b] of pairs) expect(keyOf(classWith(a))).not.toBe(keyOf(classWith(b)));
  });

  it('follows a rule added, a property renamed, a class reached through design:type', () => {
    class Nested {
      @Min(1) n!: number;
    }
    const make = (rename: boolean, extraRule: boolean, nestedMin: number | undefined): Function => {
      class Outer {}
      IsString()(Outer.prototype, rename ? 'title' : 'name');
      if (extraRule) Length(1, 5)(Outer.prototype, rename ? 'title' : 'name');
      IsOptional()(Outer.prototype, 'child');
      if (nestedMin === undefined) Reflect.defineMetadata('design:type', Nested, Outer.prototype, 'child');
      else {
        class Other {}
        Min(nestedMin)(Other.prototype, 'n');
        Reflect.defineMetadata('design:type', Other, Outer.prototype, 'child');
      }
      return Outer;
    };
    const base = keyOf(make(false, false, undefined));
    expect(keyOf(make(false, false, undefined))).toBe(base);
    expect(keyOf(make(true, false, undefined))).not.toBe(base);
    expect(keyOf(make(false, true, undefined))).not.toBe(base);
    expect(keyOf(make(false, false, 2))).not.toBe(keyOf(make(false, false, 3)));
  });
});
