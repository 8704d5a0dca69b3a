/**
 * `merge` and `copyInto` make what an object spread makes (`{ ...a, ...b }`), key by key: the same
 * keys in the same order, later sources winning, nothing from undefined or null, and a `__proto__`
 * key copied as data — never the copy's prototype, as a spread never calls a setter.
 */
import { copyInto, merge } from '../src';

describe('merge', () => {
  it('makes what a spread makes: same keys, same order, later sources win', () => {
    const a = { x: 1, y: 2 };
    const b = { y: 3, z: 4 };
    const c = { w: 5, x: 6 };
    expect(Object.entries(merge(a, b))).toEqual(Object.entries({ ...a, ...b }));
    expect(Object.entries(merge(a, b, c))).toEqual(Object.entries({ ...a, ...b, ...c }));
    expect(merge(a, b)).not.toBe(a);
    expect(a).toEqual({ x: 1, y: 2 });
  });

  it('skips undefined and null, as a spread does', () => {
    expect(merge(undefined, { k: 1 })).toEqual({ k: 1 });
    expect(merge({ k: 1 }, undefined)).toEqual({ k: 1 });
    expect(merge({ k: 1 }, null as unknown as undefined, { j: 2 })).toEqual({ k: 1, j: 2 });
  });

  it('copies a client "__proto__" key as data: the prototype stays Object.prototype', () => {
    const sent = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const merged = merge(sent, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.polluted).toBeUndefined();
    expect(Object.keys(merged)).toEqual(['__proto__', 'a', 'b']);
    expect(JSON.stringify(merged)).toBe(JSON.stringify({ ...sent, b: 2 }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies own enumerable keys only, not inherited ones', () => {
    const withInherited = Object.create({ inherited: 1 }) as Record<string, unknown>;
    withInherited.own = 2;
    expect(merge(withInherited, {})).toEqual({ own: 2 });
  });
});

describe('copyInto', () => {
  it('adds to the target and returns it', () => {
    const target: Record<string, unknown> = { a: 1 };
    expect(copyInto(target, { b: 2 })).toBe(target);
    expect(target).toEqual({ a: 1, b: 2 });
    expect(copyInto(target, undefined)).toEqual({ a: 1, b: 2 });
  });
});
