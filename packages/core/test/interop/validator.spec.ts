/**
 * The locale patterns (`@IsAlpha(locale)`, `@IsAlphanumeric(locale)`, `@IsNumberString({ locale })`)
 * must be the same whether validator.js's tables are read or, when a release moved them, found by
 * asking class-validator's public isAlpha, isAlphanumeric and isNumberString about each character:
 * including no pattern at all for a locale whose rule is not one class repeated (hi-IN has two
 * classes in a row, which single characters alone do not show) or that it does not know.
 */
import 'reflect-metadata';

type Patterns = typeof import('../../src/schema/validator-patterns');

const LETTER_LOCALES = ['en-US', 'de-DE', 'hi-IN', 'ko-KR', 'ar', 'fa-IR', 'ru-RU', 'xx-XX'];
const DECIMAL_LOCALES = ['en-US', 'de-DE', 'ar', 'xx-XX'];

/** Every pattern, worked out in a fresh module registry (a fresh interop state), the tables read or not. */
function patterns(publicOnly: boolean): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  jest.isolateModules(() => {
    if (publicOnly) process.env.HERMES_INTEROP = 'public';
    try {
      const { letterPattern, numericPattern } = require('../../src/schema/validator-patterns') as Patterns;
      const { validatorStatus } = require('../../src/interop/validator') as typeof import('../../src/interop/validator');
      expect(validatorStatus().fast).toBe(!publicOnly);
      for (const locale of LETTER_LOCALES) {
        out[`alpha ${locale}`] = letterPattern('alpha', locale);
        out[`alphanumeric ${locale}`] = letterPattern('alphanumeric', locale);
      }
      for (const locale of DECIMAL_LOCALES) out[`numeric ${locale}`] = numericPattern({ locale });
    } finally {
      delete process.env.HERMES_INTEROP;
    }
  });
  return out;
}

describe('locale patterns', () => {
  it('are the same from the public functions as from the tables', () => {
    const fromTables = patterns(false);
    expect(fromTables['alpha de-DE']).toEqual(expect.stringContaining('\\u00DF'));
    expect(fromTables['alpha hi-IN']).toBeUndefined();
    expect(fromTables['alpha xx-XX']).toBeUndefined();
    expect(fromTables['numeric de-DE']).toBe('^[+-]?(?:[0-9]*,)?[0-9]+$');
    expect(patterns(true)).toEqual(fromTables);
  });
});
