/**
 * patternOf: a JavaScript regular expression (with its flags, without `u`) as a JSON Schema
 * `pattern` that matches exactly the same strings when compiled as JSON Schema engines compile it
 * (by code point, the `u` flag, as Ajv does). Checked both ways on fast-check-built expressions
 * and strings (fixed seeds), and on hand-picked ones; what cannot be said is undefined.
 */
import fc from 'fast-check';
import { patternOf } from '../../src/schema/regex-pattern';

const SEED = 2020;

/** Characters that case, classes and surrogates treat differently. */
// prettier-ignore
const CHARS = ['a', 'A', 'b', 'z', 'Z', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'ß', 'ẞ', 'é', 'É', 'ı', 'İ', 'i', 'I', 'µ', 'Μ', 'σ', 'ς', 'Σ', '0', '9', '_', '-', '.', ' ', '\n', '\r', '\u2028', '\t', '\u00A0', '\uFEFF', '😀', '\uD83D', '\uDE00', '𝒜', '[', ']', '^', '$', '\\', '/', '{', '}'];

/** Pieces of an expression, valid or not (an invalid one is not compiled). */
// prettier-ignore
const ATOMS = ['a', 'A', 'b', 'k', 's', 'é', 'ß', 'ς', '0', '.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\.', '\\-', '\\n', '\\t', '\\u00e9', '\\x41', '\\cJ', '\\0', '[a-z]', '[A-Z]', '[^a]', '[^a-z]', '[^\\W]', '[\\w-]', '[\\d-z]', '[.]', '[^.]', '[\\b]', '[ks]', '[^ks]', '[é-ë]', '[^\\s]', '[\\s\\S]', '[^]', '[]', '😀', '\\uD83D', '\\uDE00', '(?:a|b)', '(a|bc)', '(?:ab)', '(a)'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{1,2}', '{0,}', '+?', '{2,3}'];
const expression = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS), fc.constantFrom('', '', '', '|')), { minLength: 1, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([start, terms, end]) => `${start ? '^' : ''}${terms.map(([atom, q, bar]) => atom + q + bar).join('')}${end ? '$' : ''}`);
const FLAGS = ['', 'i', 's', 'is', 'g', 'm', 'u', 'iu'];
const strings = fc.sample(fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 5 }), { seed: SEED, numRuns: 200 });

const compiles = (source: string, flags: string): RegExp | undefined => {
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
};

describe('patternOf', () => {
  it('says exactly what the expression matches, or nothing (fast-check expressions × strings)', () => {
    const cases = fc.sample(fc.tuple(expression, fc.constantFrom(...FLAGS)), { seed: SEED, numRuns: 1500 });
    let said = 0;
    const wrong: string[] = [];
    for (const [source, flags] of cases) {
      const original = compiles(source, flags.replace('g', ''));
      if (!original) continue;
      const pattern = patternOf(source, flags);
      if (pattern === undefined) continue;
      said++;
      const published = new RegExp(pattern, 'u');
      for (const text of [...strings, ...CHARS, '', 'aa', 'AA', 'ab', 'a😀', '😀😀', 'a\n', '\na']) {
        if (original.test(text) !== published.test(text))
          wrong.push(`/${source}/${flags} as ${pattern}: ${JSON.stringify(text)} ${original.test(text)} vs ${published.test(text)}`);
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(said).toBeGreaterThan(500);
  });

  it.each([
    // Without `u`, case folding never goes from beyond ASCII into it: /[a-z]/i takes neither ſ nor the Kelvin sign.
    ['^[a-z]+$', 'i', '^[A-Za-z]+$'],
    // Without flags or escapes, an expression that reads the same by code point stays as written.
    ['^a(b|c)d$', '', '^a(b|c)d$'],
    ['^a(b|c)\\.d$', '', '^a(?:b|c)\\.d$'],
    ['^[^a]+$', 'i', '^[^Aa]+$'],
    ['^\\d{2}$', '', '^[0-9]{2}$'],
    ['^[a-z]+$', 'u', '^[a-z]+$'],
  ])('/%s/%s is published as %s', (source, flags, expected) => {
    expect(patternOf(source, flags)).toBe(expected);
  });

  it.each([
    ['^.{1,2}$', '', 'a character beyond the BMP is two units for `.`'],
    ['^(a)\\1$', '', 'a back-reference'],
    ['^a(?=b)', '', 'a look-ahead'],
    ['\\bword', '', 'a word boundary'],
    ['^a$', 'm', '`m` with anchors'],
    ['a', 'y', 'a sticky expression'],
    ['^a$', 'iu', 'case folding by code point'],
    ['^.+.+$', '', 'two classes that take surrogates'],
  ])('/%s/%s cannot be said: %s', (source, flags) => {
    expect(patternOf(source, flags)).toBeUndefined();
  });
});
