/**
 * The patterns written to say what validator.js accepts (iso8601.ts, validator-patterns.ts), checked
 * against validator.js itself — through class-validator's own functions — on many more strings than
 * the decorator table uses: grids over every part of a date, and fast-check samples (fixed seeds).
 * Patterns are compiled as Ajv compiles them: `new RegExp(pattern, 'u')`.
 */
import { contains, isFQDN, isIP, isISO8601, isLowercase, isNumberString, isUppercase, length } from 'class-validator';
import fc from 'fast-check';
import { ISO_DATE_PATTERN, iso8601Pattern, isIso8601Pattern } from '../../src/schema/iso8601';
import { IPV4_PATTERN, containsPattern, fqdnPattern, ipv6Pattern, lengthPattern, letterPattern, numericPattern, seedText } from '../../src/schema/validator-patterns';

const SEED = 1997;

/** The strings on which `pattern` and `accepts` disagree (the first few). */
function disagreements(pattern: string, accepts: (value: string) => boolean, values: Iterable<string>): string[] {
  const compiled = new RegExp(pattern, 'u');
  const out: string[] = [];
  for (const value of values) if (compiled.test(value) !== accepts(value) && out.push(JSON.stringify(value)) >= 10) break;
  return out;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('iso8601Pattern: validator.js isISO8601', () => {
  const OPTIONS = [{}, { strict: true }, { strictSeparator: true }, { strict: true, strictSeparator: true }];

  /** Years around every rule: below 100 (read as another date by the strict check), leap years, centuries. */
  const YEARS = ['0000', '0004', '0031', '0099', '0100', '0104', '0400', '1900', '1996', '1997', '2000', '2100', '2400', '9999'];

  function* grid(): Generator<string> {
    for (const year of YEARS) {
      for (const sign of ['', '+', '-']) {
        const y = `${sign}${year}`;
        yield y;
        for (let month = 0; month <= 13; month++) {
          yield `${y}-${pad(month)}`;
          yield `${y}${pad(month)}T10`;
          for (let day = 0; day <= 32; day++) {
            yield `${y}-${pad(month)}-${pad(day)}`;
            yield `${y}${pad(month)}${pad(day)}`;
          }
        }
        for (let day = 0; day <= 399; day++) {
          for (const tail of ['', 'T1', ' 1', '\t1']) {
            yield `${y}-${pad(day, 3)}${tail}`;
            yield `${y}${pad(day, 3)}${tail}`;
          }
        }
        for (const week of ['W00', 'W01', 'W53', 'W54', 'W01-1', 'W017', 'W01-8']) yield `${y}-${week}`;
      }
    }
  }

  const TIME_PIECES = ['', 'T', ' ', '\t', '\u3000', 't', '10', '24', '25', ':', '30', '60', '.5', ',25', ':45', 'Z', 'z', '+02', '-05:30', '+0530', '24:00'];
  const times = fc.array(fc.constantFrom(...TIME_PIECES), { maxLength: 7 }).map((pieces) => `1997-01-01${pieces.join('')}`);
  const DATE_PIECES = ['', '+', '-', '1997', '2000', '0031', '-', 'W', 'W01', '-3', '01', '12', '13', '29', '30', '31', '123', '360', '366', 'T', ' ', ':', '1'];
  const anything = fc.array(fc.constantFrom(...DATE_PIECES, ...TIME_PIECES), { maxLength: 9 }).map((pieces) => pieces.join(''));
  const SAMPLES = [...fc.sample(times, { seed: SEED, numRuns: 4000 }), ...fc.sample(anything, { seed: SEED, numRuns: 8000 })];

  it.each(OPTIONS)('accepts what isISO8601 accepts, and nothing else, with %j (dates grid)', (options) => {
    expect(disagreements(iso8601Pattern(options), (value) => isISO8601(value, options), grid())).toEqual([]);
  });

  it.each(OPTIONS)('accepts what isISO8601 accepts, and nothing else, with %j (times and random pieces)', (options) => {
    expect(disagreements(iso8601Pattern(options), (value) => isISO8601(value, options), SAMPLES)).toEqual([]);
  });

  it('takes what format "date-time" refuses, and keeps validator.js quirks', () => {
    const pattern = new RegExp(iso8601Pattern(), 'u');
    for (const accepted of ['1997', '1997-01-01', '1997-W01-3', '1997-123', '19970101T1030', '1997-01-01 10:00', '1997-02-30', '1997-01-01T']) {
      expect([accepted, pattern.test(accepted)]).toEqual([accepted, true]);
    }
    for (const refused of ['1997-360', '199701', '1997-01-01T24:00:30', '1997-01-01t10:00', '1997-01-01T10:00:60', '97-01-01']) {
      expect([refused, pattern.test(refused)]).toEqual([refused, false]);
    }
    expect(new RegExp(iso8601Pattern({ strict: true }), 'u').test('1997-02-30')).toBe(false);
  });

  it('uses only portable syntax: no \\d, \\s, \\b, back-references or look-around', () => {
    for (const options of OPTIONS) expect(iso8601Pattern(options)).not.toMatch(/\\[dsbDSB1-9]|\(\?[=!<]/);
    expect(isIso8601Pattern(iso8601Pattern({ strict: true }))).toBe(true);
    expect(isIso8601Pattern('^[0-9]{4}$')).toBe(false);
  });
});

describe('ISO_DATE_PATTERN: what @Type(() => Date) takes', () => {
  it('says the calendar itself (formats may be annotations): every day of every month, leap years included, and no other', () => {
    const wrong: string[] = [];
    const pattern = new RegExp(ISO_DATE_PATTERN, 'u');
    for (const year of [0, 4, 100, 200, 400, 1900, 1996, 1997, 2000, 2023, 2024, 2100, 9996, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
          const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
          const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
          const real = month >= 1 && month <= 12 && day >= 1 && day <= days;
          for (const text of [date, `${date}T10:00:00Z`]) if (pattern.test(text) !== real) wrong.push(text);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('IPV4_PATTERN: validator.js isIP(value, 4)', () => {
  it('accepts what isIP accepts, and nothing else (format "ipv4" says the same, but may be an annotation)', () => {
    const strings = [
      ...fc.sample(fc.ipV4(), { seed: SEED, numRuns: 1000 }),
      ...fc.sample(fc.ipV4Extended(), { seed: SEED, numRuns: 1000 }),
      ...fc.sample(
        fc.array(fc.constantFrom('0', '1', '9', '25', '255', '256', '01', '.', '..', ' ', 'a', '\n'), { maxLength: 9 }).map((pieces) => pieces.join('')),
        { seed: SEED, numRuns: 8000 },
      ),
    ];
    expect(disagreements(IPV4_PATTERN, (value) => isIP(value, '4'), strings)).toEqual([]);
  });
});

describe('containsPattern: validator.js contains (@Contains, @NotContains)', () => {
  // Letters, a regex metacharacter, and surrogate halves: high, low, and the ends of both ranges.
  const UNITS = ['a', 'b', '.', '\uD83D', '\uDE00', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'];
  const upTo = (n: number): string[] =>
    n === 0
      ? ['']
      : [
          ...upTo(n - 1),
          ...upTo(n - 1)
            .filter((s) => s.length === n - 1)
            .flatMap((s) => UNITS.map((unit) => s + unit)),
        ];
  const strings = [...new Set([...upTo(3), ...fc.sample(fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 7 }), { seed: SEED, numRuns: 3000 })])];
  const seeds = [...new Set([...upTo(2), ...fc.sample(fc.string({ unit: fc.constantFrom(...UNITS), minLength: 3, maxLength: 4 }), { seed: SEED, numRuns: 60 })])];

  it('takes what contains(value, seed) takes, read by UTF-16 unit, for every seed: empty, plain, or with halves of surrogate pairs', () => {
    const wrong = seeds.flatMap((seed) => disagreements(containsPattern(seed), (value) => contains(value, seed), strings).map((value) => `${JSON.stringify(seed)}: ${value}`));
    expect(wrong).toEqual([]);
  });

  it('reads a seed that is not a string as validator.js does (null, NaN: the empty seed; an object: its text)', () => {
    const texts = [...strings, '12', 'true', '[object Object]', 'x', 'null'];
    for (const seed of [null, undefined, NaN, 12, true, {}, { toString: () => 'x' }] as unknown[]) {
      const text = seedText(seed);
      expect([seed, text === undefined ? 'none' : disagreements(containsPattern(text), (value) => contains(value, seed as string), texts)]).toEqual([seed, []]);
    }
    expect(seedText(Symbol('s'))).toBeUndefined();
  });

  it('is the escaped seed where it has no half of a pair at either end; the empty seed takes two UTF-16 units or more', () => {
    expect(containsPattern('a.b')).toBe('a\\.b');
    expect(containsPattern('😀')).toBe('😀');
    const empty = new RegExp(containsPattern(''), 'u');
    expect(['', 'a', '\uD83D', 'ab', '😀'].map((value) => empty.test(value))).toEqual([false, false, false, true, true]);
  });
});

describe('ipv6Pattern: validator.js isIP(value, 6)', () => {
  const PIECES = ['', ':', '::', '1', 'ffff', 'ABCD', '12345', 'g', '1.2.3.4', '255.255.255.255', '256.1.1.1', '01.2.3.4', '%eth0', '%', '%a.b', '.', '0'];
  const strings = [
    ...fc.sample(fc.ipV6(), { seed: SEED, numRuns: 3000 }),
    ...fc.sample(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((pieces) => pieces.join('')),
      { seed: SEED, numRuns: 8000 },
    ),
    ...fc.sample(
      fc.array(fc.constantFrom('1', ':', '::', '1.2.3.4'), { maxLength: 14 }).map((pieces) => pieces.join('')),
      { seed: SEED, numRuns: 8000 },
    ),
  ];

  it('accepts what isIP accepts, zones included, and nothing else', () => {
    expect(disagreements(ipv6Pattern(), (value) => isIP(value, '6'), strings)).toEqual([]);
    expect(new RegExp(ipv6Pattern(), 'u').test('fe80::1%eth0')).toBe(true);
  });
});

describe('fqdnPattern: validator.js isFQDN', () => {
  const PIECES = ['a', 'Z', '0', '9', '-', '_', '.', '.', '*.', 'xn--', 'ü', 'ß', 'ｅ', '\u3000', '\u00A0', '😀', 'com', 'de', 'c', '123'];
  const strings = [
    ...fc.sample(fc.domain(), { seed: SEED, numRuns: 1000 }),
    ...fc.sample(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }).map((pieces) => pieces.join('')),
      { seed: SEED, numRuns: 6000 },
    ),
    `${'a'.repeat(63)}.com`,
    `${'a'.repeat(64)}.com`,
    `a.${'b'.repeat(63)}`,
    `a.${'b'.repeat(64)}`,
  ];
  const OPTIONS = [
    {},
    { require_tld: false },
    { allow_underscores: true, allow_trailing_dot: true, allow_wildcard: true },
    { allow_numeric_tld: true },
    { require_tld: false, allow_numeric_tld: true },
    { ignore_max_length: true },
  ];

  it.each(OPTIONS)('accepts what isFQDN accepts with %j, and nothing else', (options) => {
    // validator.js counts a label's length in UTF-16 units (see fqdnPattern): strings where that matters are left out.
    const counted = strings.filter((value) => value.split('.').every((label) => label.length <= 63 || [...label].length > 63));
    expect(disagreements(fqdnPattern(options), (value) => isFQDN(value, options), counted)).toEqual([]);
  });
});

describe('letter patterns: validator.js isAlpha and isAlphanumeric, every locale', () => {
  const tables = require('validator/lib/alpha') as { alpha: Record<string, RegExp>; alphanumeric: Record<string, RegExp> };
  const cases = (['alpha', 'alphanumeric'] as const).flatMap((kind) => Object.keys(tables[kind]).map((locale) => [kind, locale] as const));

  it.each(cases)('%s %s: the same strings, or no pattern at all (the schema then says "string")', (kind, locale) => {
    const pattern = letterPattern(kind, locale);
    if (pattern === undefined) {
      expect(['hi-IN']).toContain(locale);
      return;
    }
    const expression = tables[kind][locale];
    const own = [...'aZ09ßİıÄäΣσЁё한ㄱﾟ٣', ...Array.from({ length: 40 }, (_, i) => String.fromCharCode(0x80 + i * 997))];
    const taken = own.filter((char) => expression.test(char));
    const strings = fc.sample(fc.string({ unit: fc.constantFrom(...own, ...taken, ...taken, ' ', '😀'), maxLength: 4 }), { seed: SEED, numRuns: 200 });
    expect(disagreements(pattern, (value) => expression.test(value), ['', ...strings])).toEqual([]);
  });
});

describe('numericPattern: validator.js isNumeric (@IsNumberString)', () => {
  const strings = fc.sample(fc.string({ unit: fc.constantFrom('0', '9', '.', ',', '٫', '+', '-', 'e', ' '), maxLength: 6 }), { seed: SEED, numRuns: 3000 });

  it.each([{}, { no_symbols: true }, { locale: 'de-DE' }, { locale: 'ar' }, { locale: 'en-US' }])('accepts what isNumberString accepts with %j', (options) => {
    const pattern = numericPattern(options);
    expect(pattern).toBeDefined();
    expect(disagreements(pattern!, (value) => isNumberString(value, options as never), strings)).toEqual([]);
  });
});

describe('case patterns: validator.js isLowercase and isUppercase', () => {
  it('the Unicode properties are exactly the code points toLowerCase and toUpperCase change', () => {
    const lower = /^\P{Changes_When_Lowercased}*$/u;
    const upper = /^\P{Changes_When_Uppercased}*$/u;
    const differ: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      if (lower.test(char) !== isLowercase(char) || upper.test(char) !== isUppercase(char)) differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
  });
});

describe('lengthPattern: validator.js isLength (@Length, @MinLength, @MaxLength)', () => {
  /** Every way isLength weighs a character: selectors after one, in a row, first; pairs and lone surrogates. */
  const UNITS = ['a', '\uFE0E', '\uFE0F', '😀', '\uD83D', '\uDE00', '\n', '❤'];
  const strings = fc.sample(fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 10 }), { seed: SEED, numRuns: 3000 });

  it.each([
    [0, 0],
    [1, 1],
    [2, 3],
    [0, 5],
    [3, undefined],
  ])('agrees with length(value, %p, %p) (validator.js isLength) on every string of selectors, pairs and lone surrogates', (min, max) => {
    const pattern = lengthPattern(min, max);
    if (pattern === undefined) throw new Error('no pattern');
    expect(disagreements(pattern, (value) => length(value, min, max), strings)).toEqual([]);
  });

  it('is undefined when no bound applies', () => {
    expect(lengthPattern(0, undefined)).toBeUndefined();
  });
});
