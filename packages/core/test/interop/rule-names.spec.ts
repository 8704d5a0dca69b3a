/**
 * `isClassValidatorRuleName` (interop/class-validator.ts): true for exactly the rule names
 * class-validator exports as constants (`IS_EMAIL = 'isEmail'`), whether the constant's name
 * follows from the rule's (most: answered from that one constant) or not (`IS_LATLONG =
 * 'isLatLong'`, `IS_TIMEZONE = 'isTimeZone'`: from the whole set), and false for any other name,
 * however close. Asked in both orders, each in a fresh copy of the module: the regular names before
 * and after the whole set was read.
 */
import * as classValidator from 'class-validator';

type Module = typeof import('../../src/interop/class-validator');

const exported = Object.entries(classValidator)
  .filter(([key, value]) => /^[A-Z][A-Z0-9_]*$/.test(key) && typeof value === 'string')
  .map(([, value]) => value as string);
const others: unknown[] = [
  'isFoo',
  'IS_EMAIL',
  'isemail',
  'isEmail ',
  'customValidation',
  'isLatlong',
  'isTimezone',
  'is_email',
  'IsEmail',
  '',
  'constructor',
  'toString',
  '__proto__',
  42,
  undefined,
  null,
];

/** The answers of a fresh copy of the module to `names`, asked in that order. */
function answers(names: unknown[]): Map<unknown, boolean> {
  let result = new Map<unknown, boolean>();
  jest.isolateModules(() => {
    const fresh = require('../../src/interop/class-validator') as Module;
    result = new Map(names.map((name) => [name, fresh.isClassValidatorRuleName(name)]));
  });
  return result;
}

describe("class-validator's own rule names", () => {
  it('are told apart from names that only look like them, whichever is asked first', () => {
    expect(exported).toEqual(expect.arrayContaining(['isEmail', 'isLatLong', 'isTimeZone', 'isRFC3339', 'isISO31661Alpha2', 'min', 'isOptional']));
    const expected = new Map<unknown, boolean>([...exported.map((name): [unknown, boolean] => [name, true]), ...others.map((name): [unknown, boolean] => [name, false])]);
    expect(answers([...exported, ...others])).toEqual(expected);
    expect(answers([...others, ...exported])).toEqual(expected);
  });
});
