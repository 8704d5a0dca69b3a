/**
 * What Hermes reads of validator.js (the copy class-validator uses) beyond its public API, in one
 * place: `validator/lib/alpha`, its tables of letters and decimal separators by locale, from which
 * the schema builder writes the patterns of `@IsAlpha(locale)`, `@IsAlphanumeric(locale)` and
 * `@IsNumberString({ locale })` (schema/validator-patterns.ts).
 *
 * The tables are shape-checked, then checked once, on first use, against class-validator's public
 * `isAlpha`, `isAlphanumeric` and `isNumberString` for a few locales. If they are missing or
 * disagree, the same answers are found by asking those functions about each character instead:
 * slower (65,536 calls per locale, once), same patterns. {@link validatorStatus} says which, and why.
 */
import { isAlpha, isAlphanumeric, isNumberString } from 'class-validator';
import * as path from 'node:path';
import { InteropStatus, fastPathSwitch } from './status';

/** What `isAlpha(text, locale)` (or `isAlphanumeric`) accepts: one class of characters, repeated. */
export interface LetterClass {
  /** Whether this one UTF-16 code unit is in the class. */
  accepts(unit: string): boolean;
  /** `+`, or `*` when the empty string passes too (ko-KR). */
  readonly repeat: '+' | '*';
  /** The rule itself, on a whole string: to check that the class, repeated, is all it says. */
  test(text: string): boolean;
}

// ---------------------------------------------------------------------------------------------
// The switch

/** Where class-validator is: validator.js is the copy found from there. */
const FROM = (() => {
  try {
    return [path.dirname(require.resolve('class-validator'))];
  } catch {
    return undefined;
  }
})();

const paths = fastPathSwitch('validator', check, typeof __filename === 'string' ? __filename : undefined, FROM);

/** Whether the tables are read (checked once, on the first call), and why not. */
export const validatorStatus: () => InteropStatus = paths.status;

const fast = paths.fast;

// ---------------------------------------------------------------------------------------------
// What the rest of Hermes uses

/**
 * The class of characters `isAlpha(text, locale)` (`kind` alpha) or `isAlphanumeric(text, locale)`
 * accepts, repeated; undefined for a locale it does not know, or whose rule has another shape.
 *
 * @internal
 */
export function letterClass(kind: 'alpha' | 'alphanumeric', locale: string): LetterClass | undefined {
  return fast() ? tableClass(tables() as Tables, kind, locale) : publicClass(kind, locale);
}

/**
 * The one character `isNumberString(text, { locale })` takes between the integer and the decimal
 * digits; undefined for a locale it does not know.
 *
 * @internal
 */
export function decimalSeparator(locale: string): string | undefined {
  if (fast()) {
    const separator = (tables() as Tables).decimal[locale];
    return typeof separator === 'string' ? separator : undefined;
  }
  let found: string | undefined;
  for (let code = 0; code <= 0xffff; code++) {
    const unit = String.fromCharCode(code);
    if (/[0-9+-]/.test(unit) || !isNumberString(`1${unit}5`, { locale } as never)) continue;
    if (found !== undefined) return undefined; // more than one: not a locale it knows
    found = unit;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The tables, guarded

interface Tables {
  alpha: Record<string, unknown>;
  alphanumeric: Record<string, unknown>;
  decimal: Record<string, unknown>;
}

/**
 * validator.js's alpha module: the copy class-validator uses, found from where class-validator is;
 * else the one a plain `require` gives — in a bundle (esbuild, a worker, a snapshot) that is the one
 * copy the bundler included, and there is no folder to resolve from. (validator.js is
 * class-validator's dependency; core names it as an optional peer for this require.)
 */
function alphaModule(): unknown {
  /* eslint-disable @typescript-eslint/no-require-imports */
  try {
    return require(require.resolve('validator/lib/alpha', FROM && { paths: FROM }));
  } catch {
    return require('validator/lib/alpha');
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}

let loaded: Tables | string | undefined;

function tables(): Tables | string {
  if (loaded === undefined) {
    try {
      const found = alphaModule() as Partial<Tables>;
      const table = (value: unknown) => typeof value === 'object' && value !== null;
      loaded =
        table(found.alpha) && table(found.alphanumeric) && table(found.decimal) && found.alpha['en-US'] instanceof RegExp
          ? (found as Tables)
          : 'validator/lib/alpha no longer exports the alpha, alphanumeric and decimal tables';
    } catch (error) {
      loaded = `validator/lib/alpha cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
  }
  return loaded;
}

/** The class from the table's expression, when it is one class repeated (`^[...]+$`, at most the `i` flag). */
function tableClass(found: Tables, kind: 'alpha' | 'alphanumeric', locale: string): LetterClass | undefined {
  const expression = found[kind][locale];
  if (!(expression instanceof RegExp) || !/^i?$/.test(expression.flags)) return undefined;
  const shape = /^\^\[(?:[^\]\\]|\\.)*\]([+*])\$$/.exec(expression.source);
  if (!shape) return undefined;
  return { accepts: (unit) => expression.test(unit), repeat: shape[1] as '+' | '*', test: (text) => expression.test(text) };
}

/** The class from class-validator's public functions, asked about single characters. */
function publicClass(kind: 'alpha' | 'alphanumeric', locale: string): LetterClass | undefined {
  const rule = kind === 'alpha' ? isAlpha : isAlphanumeric;
  const test = (text: string) => {
    try {
      return rule(text, locale as never);
    } catch {
      return undefined; // a locale it does not know
    }
  };
  const empty = test('');
  if (empty === undefined) return undefined;
  return { accepts: (unit) => test(unit) === true, repeat: empty ? '*' : '+', test: (text) => test(text) === true };
}

// ---------------------------------------------------------------------------------------------
// The self-check

const LOCALES = ['en-US', 'de-DE', 'ko-KR', 'ar'];
const UNITS = ['a', 'Z', 'ß', 'ä', 'Ä', 'é', '0', '9', '٣', ' ', '-', '_', '가', 'ㄱ', 'ب', '😀'.charAt(0)];

/** Undefined when the tables agree with isAlpha, isAlphanumeric and isNumberString; else the first difference. */
function check(): string | undefined {
  const found = tables();
  if (typeof found === 'string') return found;
  for (const locale of LOCALES) {
    for (const kind of ['alpha', 'alphanumeric'] as const) {
      const fromTable = tableClass(found, kind, locale);
      const fromRule = publicClass(kind, locale);
      if (!fromTable || !fromRule) return `the ${kind} table has no rule of one class for ${locale}`;
      if (fromTable.repeat !== fromRule.repeat) return `the ${kind} table of ${locale} disagrees with the rule on the empty string`;
      for (const unit of UNITS) {
        if (fromTable.accepts(unit) !== fromRule.accepts(unit)) return `the ${kind} table of ${locale} disagrees with the rule on ${JSON.stringify(unit)}`;
      }
    }
  }
  for (const locale of ['en-US', 'de-DE']) {
    const separator = found.decimal[locale];
    if (typeof separator !== 'string' || !isNumberString(`1${separator}5`, { locale } as never)) return `the decimal table of ${locale} disagrees with isNumberString()`;
  }
  return undefined;
}
