/**
 * JSON Schema `pattern`s that accept exactly what validator.js (which class-validator calls for its
 * string rules) accepts, where a format would say something else: IPv6 with a zone, host names,
 * base64, letters of a locale, numeric strings.
 *
 * Each is our own rewrite, written for JSON Schema: the patterns are ECMA-262, matched over code
 * points (Ajv compiles them with the `u` flag) with no flags at all, while validator.js matches
 * UTF-16 code units, often case-insensitively. So classes are spelled out (`[0-9]`, both cases),
 * and `\d`, `\s`, `\b` and back-references are avoided: other engines read them their own way.
 * The tests check every pattern against validator.js itself.
 */
import { decimalSeparator, letterClass } from '../interop/validator';
import { escapeRegExp } from './json-schema';

const hex4 = (code: number) => `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** A character class of these BMP code units, as ranges. */
function charClass(units: number[]): string {
  let out = '';
  for (let i = 0; i < units.length;) {
    let j = i;
    while (j + 1 < units.length && units[j + 1] === units[j] + 1) j++;
    const one = (code: number) => (/[A-Za-z0-9]/.test(String.fromCharCode(code)) ? String.fromCharCode(code) : hex4(code));
    out += units[i] === units[j] ? one(units[i]) : j === i + 1 ? one(units[i]) + one(units[j]) : `${one(units[i])}-${one(units[j])}`;
    i = j + 1;
  }
  return `[${out}]`;
}

const SURROGATES = { from: 0xd800, to: 0xdfff };
const alphaCache = new Map<string, string | null>();

/**
 * The pattern of `isAlpha(str, locale)` or `isAlphanumeric(str, locale)` (default locale en-US):
 * validator.js's expression for the locale is one class repeated, `^[...]+$` (`*` for ko-KR), mostly
 * with the `i` flag. Which code units that class takes (case folding included) is found by asking it about
 * each one, once per locale. Undefined for a locale whose expression has another shape, or a class
 * that takes surrogates (halves of characters, which a code-point pattern cannot split).
 */
export function letterPattern(kind: 'alpha' | 'alphanumeric', locale = 'en-US'): string | undefined {
  const key = `${kind}:${locale}`;
  let pattern = alphaCache.get(key);
  if (pattern === undefined) {
    pattern = null;
    const letters = letterClass(kind, locale);
    if (letters) {
      const units: number[] = [];
      const rejected: number[] = [];
      for (let code = 0; code <= 0xffff; code++) (letters.accepts(String.fromCharCode(code)) ? units : rejected).push(code);
      // The class, repeated, must be the whole rule: two of its characters pass, and no other character
      // passes beside one of them (as a second class in a row would: hi-IN's `^[...]+[...]*$`).
      const [first, last] = [String.fromCharCode(units[0]), String.fromCharCode(units[units.length - 1])];
      const whole =
        units.length > 0 &&
        letters.test(first + last) &&
        !rejected.some((code) => letters.test(first + String.fromCharCode(code)) || letters.test(String.fromCharCode(code) + first));
      if (whole && !units.some((code) => code >= SURROGATES.from && code <= SURROGATES.to)) pattern = `^${charClass(units)}${letters.repeat}$`;
    }
    alphaCache.set(key, pattern);
  }
  return pattern ?? undefined;
}

/** The options of `@IsNumberString()` (validator.js's `isNumeric`). */
export interface NumericOptions {
  no_symbols?: boolean;
  locale?: string;
}

/** The pattern of `isNumeric(str, options)`: digits, or a signed decimal with the locale's separator. */
export function numericPattern(options: NumericOptions = {}): string | undefined {
  if (options.no_symbols) return '^[0-9]+$';
  const separator = options.locale ? decimalSeparator(options.locale) : '.';
  if (typeof separator !== 'string' || [...separator].length !== 1) return undefined;
  const escaped = separator === '.' ? '\\.' : /[A-Za-z0-9,]/.test(separator) ? separator : hex4(separator.charCodeAt(0));
  return `^[+-]?(?:[0-9]*${escaped})?[0-9]+$`;
}

// --- lengths

/** U+FE0E and U+FE0F, the variation selectors validator.js's isLength weighs apart. */
const VS = '[\\uFE0E\\uFE0F]';

/**
 * The pattern of `isLength(str, min, max)`, which `@Length`, `@MinLength` and `@MaxLength` call.
 * validator.js counts UTF-16 units, less one per surrogate pair (so: code points, as JSON Schema
 * counts them) and less one per variation selector right after a unit that is not one (`❤️` is
 * one character; a second selector in a row, or one at the start, counts). Each repetition here is
 * one counted character: a non-selector with the selector after it (when there is one: the
 * lookahead makes the split unique), or a selector on its own. Undefined when no bound applies.
 */
export function lengthPattern(min: number, max: number | undefined): string | undefined {
  if (min <= 0 && max === undefined) return undefined;
  const bounds = max === undefined ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
  return `^(?:[^\\uFE0E\\uFE0F](?:${VS}|(?!${VS}))|${VS})${bounds}$`;
}

// --- IP addresses

/** A dotted quad without leading zeros. */
export const IPV4 = '(?:(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\.){3}(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])';

/**
 * validator.js's IPv4 (`isIP(str, 4)`), the same set as format "ipv4" asserted; said as a pattern
 * because a format may be an annotation (JSON Schema 2020-12's default), which says nothing.
 */
export const IPV4_PATTERN = `^${IPV4}$`;

/**
 * validator.js's IPv6: eight groups, or fewer with one `::`, the last two groups possibly a dotted
 * quad, then an optional zone (`fe80::1%eth0`), which format "ipv6" does not take. Its expression
 * lists, for each number of leading groups, the endings; here the endings with a dotted quad are
 * gathered so that the quad is written once.
 */
export function ipv6Pattern(): string {
  const h = '[0-9a-fA-F]{1,4}';
  const groups = (k: number) => (k === 1 ? `${h}:` : `(?:${h}:){${k}}`);
  const more = (from: number, to: number) => `(?::${h})${from === to ? `{${from}}` : `{${from},${to}}`}`;
  // Without a dotted quad: k leading groups, then `::` and 1 to 7 - k more (or the end).
  const plain = [`${groups(7)}(?:${h}|:)`, `${groups(6)}(?::${h}|:)`];
  for (let k = 5; k >= 1; k--) plain.push(`${groups(k)}(?:${more(1, 7 - k)}|:)`);
  plain.push(`:(?:${more(1, 7)}|:)`);
  // Before a dotted quad: six groups, or k leading groups, `::` and up to 5 - k more.
  const beforeQuad = [groups(6), `${groups(5)}:`];
  for (let k = 4; k >= 1; k--) beforeQuad.push(`${groups(k)}${more(0, 5 - k)}:`);
  beforeQuad.push(`:${more(0, 5)}:`);
  return `^(?:${plain.join('|')}|(?:${beforeQuad.join('|')})${IPV4})(?:%[0-9a-zA-Z.]+)?$`;
}

// --- contains

/**
 * The seed as validator.js's `contains` reads it (its `toString`): an object's own text, `''` for
 * null, undefined, NaN (and a function without parameters: `isNaN(f) && !f.length`), `String()`
 * of anything else; undefined for a symbol, which makes it throw (so no value passes).
 */
export function seedText(seed: unknown): string | undefined {
  if (typeof seed === 'string') return seed;
  if (typeof seed === 'number') return isNaN(seed) ? '' : String(seed);
  if (typeof seed === 'boolean' || typeof seed === 'bigint') return String(seed);
  if (typeof seed === 'object' && seed !== null) {
    const text = (seed as { toString?: unknown }).toString;
    return typeof text === 'function' ? String(text.call(seed)) : '[object Object]';
  }
  if (typeof seed === 'function' && seed.length > 0) return Function.prototype.toString.call(seed);
  return typeof seed === 'symbol' ? undefined : ''; // null, undefined, a function without parameters
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * The pattern of `contains(str, seed)` (`@Contains`; `@NotContains` is its negation), which is
 * `str.split(seed).length > 1`, by UTF-16 unit, where a pattern reads code points:
 * - the empty seed splits a string into its units, so it takes strings of two units or more: two
 *   characters, or one beyond the BMP (a surrogate pair);
 * - a seed that starts with the low half of a pair is found after any high half too, inside a
 *   character beyond the BMP (the 1024 characters with that low half, listed); one that ends with a
 *   high half, before any low half (the 1024 characters from that high half, a range). Halves inside
 *   the seed are whole characters of the string, or lone ones, as they are in the seed.
 * Lone halves are written `\uXXXX`, the rest as escaped text.
 *
 * @example
 * containsPattern('a.b');    // 'a\\.b'
 * containsPattern('\uD83D'); // '(?:\\uD83D|[\u{1F400}-\u{1F7FF}])' (the range as the characters): it finds 😀 too
 */
export function containsPattern(seed: string): string {
  if (seed === '') return `[\\s\\S][\\s\\S]|[${ASTRAL}]`;
  const units = Array.from({ length: seed.length }, (_, i) => seed.charCodeAt(i));
  const first = units[0];
  const last = units[units.length - 1];
  const lead = isLow(first) ? `(?:${hex4(first)}|[${Array.from({ length: 0x400 }, (_, i) => String.fromCharCode(0xd800 + i, first)).join('')}])` : '';
  const trail = isHigh(last) ? `(?:${hex4(last)}|[${String.fromCharCode(last, 0xdc00)}-${String.fromCharCode(last, 0xdfff)}])` : '';
  let middle = '';
  for (let i = lead ? 1 : 0; i < units.length - (trail ? 1 : 0); i++) {
    const unit = units[i];
    if (isHigh(unit) && isLow(units[i + 1])) {
      middle += String.fromCharCode(unit, units[++i]); // a whole character beyond the BMP
    } else if (isHigh(unit) || isLow(unit)) {
      middle += hex4(unit); // a lone half, in the seed and in the string
    } else {
      middle += escapeRegExp(String.fromCharCode(unit));
    }
  }
  return `${lead}${middle}${trail}`;
}

// --- host names

/** The options of `@IsFQDN()` (validator.js's `isFQDN`). */
export interface FqdnOptions {
  require_tld?: boolean;
  allow_underscores?: boolean;
  allow_trailing_dot?: boolean;
  allow_numeric_tld?: boolean;
  allow_wildcard?: boolean;
  ignore_max_length?: boolean;
}

/** Class contents: every code point beyond the BMP (written as the characters, which engines without `\\u{...}` read too). */
export const ASTRAL = `${String.fromCodePoint(0x10000)}-${String.fromCodePoint(0x10ffff)}`;

/** validator.js's full-width and half-width characters (isFullWidth, isHalfWidth), as classes. */
export const FULL_WIDTH = '[^\\u0020-\\u007E\\uFF61-\\uFF9F\\uFFA0-\\uFFDC\\uFFE8-\\uFFEE0-9a-zA-Z]';
export const HALF_WIDTH = '[\\u0020-\\u007E\\uFF61-\\uFF9F\\uFFA0-\\uFFDC\\uFFE8-\\uFFEE0-9a-zA-Z]';
// JavaScript's `\s` above U+00A0 (the top-level domain may not hold any).
const WIDE_WHITESPACE = [0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];

/** `[from-to]` ranges, less some code points, as class contents. */
function rangesWithout(ranges: Array<[number, number]>, without: number[]): string {
  const units: number[] = [];
  const skip = new Set(without);
  for (const [from, to] of ranges) for (let code = from; code <= to; code++) if (!skip.has(code)) units.push(code);
  return charClass(units).slice(1, -1);
}

/**
 * The pattern of `isFQDN(str, options)`: labels of letters, digits, hyphens (not at either end) and
 * any character from U+00A1 except the full-width forms U+FF01–FF5E; by default at most 63
 * characters, at least two labels, and a top-level domain of two or more letters (or `xn--…`).
 *
 * validator.js counts a label's length in UTF-16 code units, so a character beyond the BMP counts
 * twice there and once here: a label over 63 units only because of such characters is refused by
 * the server and not by this pattern (a pattern cannot weigh characters).
 */
export function fqdnPattern(options: FqdnOptions = {}): string {
  const requireTld = options.require_tld ?? true;
  const max = options.ignore_max_length ? '' : '61';
  // Label characters: validator.js's /^[a-z_\u00a1-\uffff0-9-]+$/i (in code units: surrogate pairs,
  // i.e. characters beyond the BMP, included), less the full-width forms, less `_` unless allowed.
  const wide = `${rangesWithout([[0xa1, 0xffff]], range(0xff01, 0xff5e))}${ASTRAL}`;
  const edge = `[a-zA-Z0-9${options.allow_underscores ? '_' : ''}${wide}]`;
  const inner = `[a-zA-Z0-9${options.allow_underscores ? '_' : ''}${wide}-]`;
  const label = `${edge}(?:${inner}{0,${max}}${edge})?`;
  let last: string;
  if (requireTld && !options.allow_numeric_tld) {
    // Two or more letters (the ranges of validator.js's TLD expression, no whitespace), or xn--…
    const letters = rangesWithout(
      [
        [0xa1, 0xa8],
        [0xaa, 0xd7ff],
        [0xf900, 0xfdcf],
        [0xfdf0, 0xffef],
      ],
      [...WIDE_WHITESPACE, ...range(0xff01, 0xff5e)],
    );
    const longest = options.ignore_max_length ? '' : '63';
    const xnLongest = options.ignore_max_length ? '' : '60';
    last = `(?:[a-zA-Z${letters}]{2,${longest}}|[xX][nN][a-zA-Z0-9-]{1,${xnLongest}}[a-zA-Z0-9])`;
  } else if (requireTld) {
    // Any label without whitespace (validator.js still refuses whitespace in it).
    const noSpace = rangesWithout([[0xa1, 0xffff]], [...range(0xff01, 0xff5e), ...WIDE_WHITESPACE]) + ASTRAL;
    const tldEdge = `[a-zA-Z0-9${options.allow_underscores ? '_' : ''}${noSpace}]`;
    const tldInner = `[a-zA-Z0-9${options.allow_underscores ? '_' : ''}${noSpace}-]`;
    last = `${tldEdge}(?:${tldInner}{0,${max}}${tldEdge})?`;
  } else {
    last = options.allow_numeric_tld ? label : `(?![0-9]+${options.allow_trailing_dot ? '\\.?' : ''}$)${label}`;
  }
  const labels = requireTld ? `(?:${label}\\.)+${last}` : `(?:${label}\\.)*${last}`;
  return `^${options.allow_wildcard ? '(?:\\*\\.)?' : ''}${labels}${options.allow_trailing_dot ? '\\.?' : ''}$`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

// --- base64

/** The options of `@IsBase64()` (validator.js's `isBase64`). */
export interface Base64Options {
  urlSafe?: boolean;
  padding?: boolean;
}

/**
 * The pattern of `isBase64(str, options)`: the empty string, or the alphabet (standard, or URL-safe
 * with `urlSafe`); with padding (the default unless `urlSafe`) a multiple of 4 characters, ending
 * with at most two `=`.
 */
export function base64Pattern(options: Base64Options = {}): string {
  const urlSafe = options.urlSafe ?? false;
  const padding = options.padding ?? !urlSafe;
  const c = urlSafe ? '[A-Za-z0-9_-]' : '[A-Za-z0-9+/]';
  if (!padding) return `^${c}*$`;
  return `^(?:${c}{4})*(?:${c}{4}|${c}{3}=|${c}{2}==)?$`;
}
