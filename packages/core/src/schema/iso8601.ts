/**
 * The JSON Schema of `@IsISO8601()` and `@IsDateString()`: a `pattern` that accepts exactly the
 * strings validator.js's `isISO8601` accepts (validator 13.x, which class-validator calls), with or
 * without its `strict` and `strictSeparator` options.
 *
 * Why not `format: "date-time"` (or date)? validator.js accepts much more than RFC 3339: a date
 * alone (`1997-01-01`), reduced precision (`1997`, `1997-01`, `1997-01-01T10`), basic format
 * (`19970101T1030`), week dates (`1997-W01-3`), ordinal dates (`1997-123`), a signed year
 * (`+1997`), a comma as decimal sign, a zone without minutes (`+02`), any whitespace in place of
 * the `T`, and (not strict) impossible days such as Feb 30. A client that trusts `date-time`
 * would never send `1997-01-01`, which the server accepts; a client validating with `date`
 * would refuse `1997-01-01T10:00`. No format says what the server takes, a pattern can.
 *
 * The pattern is our own rewrite of validator.js's regular expression, written for every JSON
 * Schema engine rather than for one: JSON Schema patterns are ECMA-262 and Ajv compiles them with
 * the `u` flag, while validator.js runs without it, and other engines read `\d`, `\s` or `\b` their
 * own way (Python's `\d` takes any Unicode digit). So it spells every class out (`[0-9]`, the
 * exact whitespace set of JavaScript's `\s`), and has no back-reference, no look-around and no
 * `\b`; those in the original are resolved into alternatives:
 * - the year's `(?!\d{2}\b)` only ever refuses a basic-format month alone (`199701`) at the end
 *   or before whitespace, so a basic month without day must be followed by `T`;
 * - the seconds repeat the minutes' separator (a back-reference): `10:30:45`, `103045`, never
 *   `10:3045`; without minutes they follow the hour (or nothing) directly;
 * - a fraction may not be followed by `:`, which only ever keeps it from preceding `:ss`.
 * Quirks are kept, since the server has them: ordinal day 360 is refused (validator.js's range
 * skips it), `24:00` takes no `:ss`, a trailing separator with nothing after it (`1997-01-01T`) is
 * accepted, and seconds may follow the separator alone (`1997-01-01T30`).
 *
 * `strict: true` adds validator.js's calendar check, which is spelled out too: February 29 only in
 * leap years, no day 31 in 30-day months, ordinal day 366 only in leap years. That check reads the
 * string its own way, which the pattern follows: an ordinal date is checked as one only when its
 * year is unsigned and it ends there or goes on with a space or `T`; otherwise (a signed year, or
 * another whitespace separator) its digits are read as month and day — `+1997-135` is month 13,
 * day 5, and refused. `strictSeparator: true` takes only `T` between date and time.
 *
 * These are plain strings built once; the tests check them against validator.js itself.
 */

/** The options of `@IsISO8601()`/`@IsDateString()` that change what is accepted. */
export interface Iso8601Options {
  strict?: boolean;
  strictSeparator?: boolean;
}

// JavaScript's `\s`, spelled out (what validator.js's `[T\s]` takes besides `T`).
const SPACE = '\\u0020';
const OTHER_WHITESPACE = '\\u0009-\\u000D\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';

const YEAR = '[0-9]{4}';
// Leap years among 0000–9999: divisible by 4 and not by 100, or by 400 (0000 is one).
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const MONTH = '(?:0[1-9]|1[0-2])';
const DAY = '(?:0[1-9]|[12][0-9]|3[01])';
const WEEK = 'W(?:[0-4][0-9]|5[0-3])(?:-?[1-7])?';
// 001–366 without 360, as validator.js has it.
const ORDINAL = '(?:00[1-9]|0[1-9][0-9]|[12][0-9]{2}|3[0-5][0-9]|36[1-6])';

// Years from 0100: the strict check builds `new Date("Y-MM-DD")` from the year as a number, and
// JavaScript reads a year below 100 written that way as another date: no day passes then.
const YEAR_FROM_100 = '(?:0[1-9][0-9]{2}|[1-9][0-9]{3})';
const YEAR_BELOW_100 = '00[0-9]{2}';
const LEAP_YEAR_FROM_100 = '(?:(?:0[1-9]|[1-9][0-9])(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const ORDINAL_TO_365 = '(?:00[1-9]|0[1-9][0-9]|[12][0-9]{2}|3[0-5][0-9]|36[1-5])';
// Ordinal days the strict check reads as month and day (see above): valid when the "month" is
// 00–12 or the "day" 0; with a year below 100, only when one of them is 0.
const ORDINAL_AS_MONTH_DAY = '(?:00[1-9]|0[1-9][0-9]|1[0-2][0-9]|(?:1[3-9]|2[0-9]|3[0-5])0)';
const ORDINAL_AS_MONTH_DAY_BELOW_100 = '(?:00[1-9]|(?:0[1-9]|[12][0-9]|3[0-5])0)';

const HOUR = '(?:[01][0-9]|2[0-3])';
const MINUTE = '[0-5][0-9]';
const FRACTION = '[.,][0-9]+';
const SECONDS = `${MINUTE}(?:${FRACTION})?`;
const ZONE = `(?:[zZ]|[+-]${HOUR}:?(?:${MINUTE})?)`;
/**
 * What may follow the separator, possibly nothing: hour (or 24:00), minutes, a fraction, seconds,
 * a zone — each optional, seconds with the minutes' separator.
 */
const TIME =
  `(?:(?:(?:${HOUR}(?:${MINUTE})?|24:?00)(?:${FRACTION})?)?(?:${SECONDS})?` + // basic, or no minutes
  `|${HOUR}:${MINUTE}(?:${FRACTION}|:${SECONDS})?)` + // extended: 10:30, 10:30.5, 10:30:45.5
  `(?:${ZONE})?`;

/** Month-day pairs that exist every year (February 29 aside), with `sep` between them. */
function monthDays(sep: string): string {
  return `(?:(?:0[13578]|1[02])${sep}${DAY}` + `|(?:0[469]|11)${sep}(?:0[1-9]|[12][0-9]|30)` + `|02${sep}(?:0[1-9]|1[0-9]|2[0-8]))`;
}

/** The `pattern` accepting exactly what validator.js's `isISO8601(value, options)` accepts. */
export function iso8601Pattern(options: Iso8601Options = {}): string {
  const separator = options.strictSeparator ? 'T' : `[T${SPACE}${OTHER_WHITESPACE}]`;
  const time = `(?:${separator}${TIME})?`;
  if (!options.strict) {
    const date = `(?:-(?:${MONTH}(?:-${DAY})?|${WEEK}|${ORDINAL})|${MONTH}${DAY}|${WEEK}|${ORDINAL})${time}` + `|${MONTH}T${TIME}`; // basic month without day: only before `T` (the year's look-ahead)
    return `^[+-]?${YEAR}(?:${date})?$`;
  }
  // Strict: the same strings, less those the calendar check refuses.
  const ordinalSeparator = options.strictSeparator ? 'T' : `[T${SPACE}]`;
  const alternatives = [
    // A year, a month or a week alone are never checked.
    `[+-]?${YEAR}(?:(?:-(?:${MONTH}|${WEEK})|${WEEK})${time}|${MONTH}T${TIME})?`,
    `[+-]?${YEAR_FROM_100}(?:-${monthDays('-')}|${monthDays('')})${time}`,
    `[+-]?${LEAP_YEAR_FROM_100}(?:-02-29|0229)${time}`,
    // Checked as ordinal dates: unsigned, then the end, a space or T.
    `${YEAR}-?${ORDINAL_TO_365}(?:${ordinalSeparator}${TIME})?`,
    `${LEAP_YEAR}-?366(?:${ordinalSeparator}${TIME})?`,
    // Read as month and day: a signed year, or another whitespace separator.
    `[+-]${YEAR_FROM_100}-?${ORDINAL_AS_MONTH_DAY}${time}`,
    `[+-]${YEAR_BELOW_100}-?${ORDINAL_AS_MONTH_DAY_BELOW_100}${time}`,
    ...(options.strictSeparator
      ? []
      : [`${YEAR_FROM_100}-?${ORDINAL_AS_MONTH_DAY}[${OTHER_WHITESPACE}]${TIME}`, `${YEAR_BELOW_100}-?${ORDINAL_AS_MONTH_DAY_BELOW_100}[${OTHER_WHITESPACE}]${TIME}`]),
  ];
  return `^(?:${alternatives.join('|')})$`;
}

let published: Set<string> | undefined;

/** True for a pattern {@link iso8601Pattern} makes (with any options). */
export function isIso8601Pattern(pattern: unknown): boolean {
  published ??= new Set([false, true].flatMap((strict) => [false, true].map((strictSeparator) => iso8601Pattern({ strict, strictSeparator }))));
  return typeof pattern === 'string' && published.has(pattern);
}

// --- what `@Type(() => Date)` takes

/**
 * An RFC 3339 full-date or date-time (`T` or `t`, an offset `Z` or `±hh:mm`), on a day its month
 * has (February 29 in leap years only), whose fields are in range and which V8 parses: a leap second
 * (`:60`) is not (V8 makes no date of it). The pattern says the calendar itself: formats "date" and
 * "date-time" beside it are annotations where a validator does not assert them (JSON Schema
 * 2020-12's default), and would then say nothing.
 */
export const ISO_DATE_PATTERN =
  `^(?:[0-9]{4}-${monthDays('-')}|${LEAP_YEAR}-02-29)` + '(?:[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]))?$';
const ISO_DATE = new RegExp(ISO_DATE_PATTERN, 'u');

/** True for a string {@link ISO_DATE_PATTERN} takes: what `@Type(() => Date)` takes for `@IsDate()`. */
export function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && ISO_DATE.test(value);
}
