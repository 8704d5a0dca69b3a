/**
 * A JavaScript regular expression as a JSON Schema `pattern` that matches exactly the same strings.
 *
 * class-validator tests strings with regular expressions written for JavaScript: `@Matches` with the
 * user's own, and validator.js with its own (mostly with the `i` flag, never with `u`). A JSON
 * Schema pattern has no flags, and clients compile it by code point (Ajv uses the `u` flag), while
 * a regular expression without `u` reads a string by UTF-16 code unit: a character beyond the BMP is
 * two units, which `.` or `[^a]` take one at a time. So an expression is rewritten, not copied:
 * - `i` becomes explicit classes: each character stands for every unit JavaScript's case-insensitive
 *   matching takes for it (its Canonicalize, without `u`: upper case, but never from beyond ASCII
 *   into it), so `a` is `[Aa]` and `[a-z]` is `[A-Za-z]`;
 * - `\d`, `\w`, `\s` and their negations become the classes they are in JavaScript (other engines
 *   read them their own way: Python's `\d` takes any Unicode digit);
 * - `.`, `[^…]` and other classes that take surrogates: by unit and by code point they agree only
 *   when such a class is repeated without bound (`+`, `*`), once in the whole expression, and takes
 *   both halves of every pair, so no match can split a character; it then takes every character
 *   beyond the BMP too. Otherwise the expression cannot be said by code point.
 * - `s` turns `.` into every unit; `g` and `d` change nothing for a test.
 *
 * What cannot be said is refused (undefined): back-references, look-around and `\b` (outside the
 * subset of ECMA-262 that JSON Schema recommends to every engine), `m` with `^` or `$`, `y` (a
 * sticky expression remembers where it last matched), `v`, `u` with `i` or `s` (case folding and
 * `.` by code point are another matter), legacy octal escapes, and the surrogate cases above.
 * An expression with `u` and no other flag that matters is already a pattern: it is kept as written.
 */

/** A set of UTF-16 code units, and whether it also holds every code point beyond the BMP. */
interface Units {
  readonly bits: Uint8Array;
  astral: boolean;
}

type Node =
  | { kind: 'alt'; alternatives: Node[][] }
  | { kind: 'set'; units: Units }
  | { kind: 'pair'; text: string }
  | { kind: 'anchor'; text: '^' | '$' }
  | { kind: 'repeat'; node: Node; min: number; max: number; lazy: boolean };

/**
 * The pattern matching exactly what `new RegExp(source, flags).test(text)` matches, for every
 * string; undefined when no pattern can say it (see the file's comment).
 *
 * @example
 * patternOf('^[a-z]+$', 'i'); // '^[A-Za-z]+$'
 * patternOf('^.{1,2}$', '');  // undefined: `.` counts a character beyond the BMP as two
 */
export function patternOf(source: string, flags = ''): string | undefined {
  if (/[yv]/.test(flags)) return undefined;
  if (flags.includes('u')) return /[is]/.test(flags) || (flags.includes('m') && /[$^]/.test(source)) ? undefined : source;
  try {
    const parser = new Parser(source, flags.includes('i'), flags.includes('s'));
    const tree = parser.disjunction();
    if (parser.pos !== source.length) return undefined;
    if (flags.includes('m') && parser.anchors) return undefined;
    if (!surrogatesAreSafe(tree)) return undefined;
    return asWritten(source, flags) ?? render(tree);
  } catch {
    return undefined; // a syntax this reader does not take
  }
}

/**
 * The source itself, when it reads the same by code point (checked above) and has neither case
 * folding, dotAll, nor an escape (`\d`, `\u{…}` and identity escapes read otherwise with `u`, or in
 * other engines): it stays as its author wrote it.
 */
function asWritten(source: string, flags: string): string | undefined {
  if (/[is]/.test(flags) || source.includes('\\')) return undefined;
  try {
    new RegExp(source, 'u');
    return source;
  } catch {
    return undefined; // e.g. a lone `]` or `{`, literal without `u` only
  }
}

// ---------------------------------------------------------------------------------------------
// Sets of units

const ALL = 0x10000;
const LINE_TERMINATORS = [0x0a, 0x0d, 0x2028, 0x2029];
/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
const WHITESPACE = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, ...range(0x2000, 0x200a), 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
const DIGITS = range(0x30, 0x39);
const WORD = [...DIGITS, ...range(0x41, 0x5a), 0x5f, ...range(0x61, 0x7a)];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function unitsOf(codes: Iterable<number>, negate = false): Units {
  const bits = new Uint8Array(ALL);
  for (const code of codes) bits[code] = 1;
  if (negate) for (let i = 0; i < ALL; i++) bits[i] ^= 1;
  return { bits, astral: false };
}

function union(into: Units, from: Units): void {
  for (let i = 0; i < ALL; i++) if (from.bits[i]) into.bits[i] = 1;
}

let canonical: Uint16Array | undefined;

/** ECMA-262 Canonicalize for an expression with `i` and without `u`, for every unit. */
function canonicalTable(): Uint16Array {
  if (!canonical) {
    canonical = new Uint16Array(ALL);
    for (let unit = 0; unit < ALL; unit++) {
      const upper = String.fromCharCode(unit).toUpperCase();
      const cu = upper.length === 1 ? upper.charCodeAt(0) : unit;
      canonical[unit] = unit >= 128 && cu < 128 ? unit : cu;
    }
  }
  return canonical;
}

/** Every unit a case-insensitive expression takes for one of these. */
function caseless(units: Units): Units {
  const table = canonicalTable();
  const wanted = new Uint8Array(ALL);
  for (let i = 0; i < ALL; i++) if (units.bits[i]) wanted[table[i]] = 1;
  const bits = new Uint8Array(ALL);
  for (let i = 0; i < ALL; i++) if (wanted[table[i]]) bits[i] = 1;
  return { bits, astral: units.astral };
}

// ---------------------------------------------------------------------------------------------
// The reader: ECMA-262 without `u`, Annex B included

class Parser {
  pos = 0;
  anchors = false;

  constructor(
    private readonly source: string,
    private readonly ignoreCase: boolean,
    private readonly dotAll: boolean,
  ) {}

  disjunction(): Node {
    const alternatives: Node[][] = [this.alternative()];
    while (this.source[this.pos] === '|') {
      this.pos++;
      alternatives.push(this.alternative());
    }
    return { kind: 'alt', alternatives };
  }

  private alternative(): Node[] {
    const terms: Node[] = [];
    while (this.pos < this.source.length && this.source[this.pos] !== '|' && this.source[this.pos] !== ')') {
      const atom = this.atom();
      terms.push(atom.kind === 'anchor' ? atom : this.quantified(atom));
    }
    return terms;
  }

  private atom(): Node {
    const c = this.source[this.pos++];
    switch (c) {
      case '^':
      case '$':
        this.anchors = true;
        return { kind: 'anchor', text: c };
      case '.':
        return this.set(unitsOf(this.dotAll ? [] : LINE_TERMINATORS, true));
      case '[': {
        // With `i`, `[^…]` takes what no member matches caselessly: case first, then the negation.
        const { units, negate } = this.characterClass();
        const cased = this.ignoreCase ? caseless(units) : units;
        if (negate) for (let i = 0; i < ALL; i++) cased.bits[i] ^= 1;
        return { kind: 'set', units: cased };
      }
      case '(': {
        if (this.source.startsWith('?:', this.pos)) this.pos += 2;
        else if (this.source[this.pos] === '?') throw new Error('look-around or a named group');
        const inner = this.disjunction();
        if (this.source[this.pos++] !== ')') throw new Error('unclosed group');
        return inner;
      }
      case '\\':
        return this.escapeAtom();
      case '*':
      case '+':
      case '?':
      case ')':
        throw new Error('nothing to repeat');
      case '{':
        if (this.isQuantifierAt(this.pos - 1)) throw new Error('nothing to repeat');
        return this.literal(c.charCodeAt(0));
      default:
        return this.literal(c.charCodeAt(0));
    }
  }

  /** A literal unit; a surrogate pair written out is one character. */
  private literal(code: number): Node {
    const next = this.source.charCodeAt(this.pos);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff && !this.isQuantifierAt(this.pos + 1)) {
      this.pos++;
      return { kind: 'pair', text: String.fromCharCode(code, next) };
    }
    return this.set(unitsOf([code]));
  }

  private set(units: Units): Node {
    return { kind: 'set', units: this.ignoreCase ? caseless(units) : units };
  }

  private escapeAtom(): Node {
    const c = this.source[this.pos];
    if (c === 'b' || c === 'B' || /[1-9]/.test(c) || c === 'k') throw new Error('word boundaries and back-references');
    const escaped = this.classEscape();
    if (escaped.units) return this.set(escaped.units);
    return this.literal(escaped.code);
  }

  /** After a backslash: a class (`\d`...) or one unit. */
  private classEscape(inClass = false): { units?: Units; code: number } {
    const c = this.source[this.pos++];
    const shorthand: Record<string, [number[], boolean]> = {
      d: [DIGITS, false],
      D: [DIGITS, true],
      s: [WHITESPACE, false],
      S: [WHITESPACE, true],
      w: [WORD, false],
      W: [WORD, true],
    };
    if (c in shorthand) return { units: unitsOf(...shorthand[c]), code: -1 };
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
    if (c in simple) return { code: simple[c] };
    if (c === 'b' && inClass) return { code: 8 };
    if (c === '0' && !/[0-9]/.test(this.source[this.pos] ?? '')) return { code: 0 };
    if (/[0-9]/.test(c)) throw new Error('octal escape');
    if (c === 'c') {
      const letter = this.source[this.pos];
      if (!/[A-Za-z]/.test(letter ?? '')) throw new Error('\\c without a letter');
      this.pos++;
      return { code: letter.charCodeAt(0) % 32 };
    }
    if (c === 'x' && /^[0-9a-fA-F]{2}/.test(this.source.slice(this.pos))) {
      this.pos += 2;
      return { code: parseInt(this.source.slice(this.pos - 2, this.pos), 16) };
    }
    if (c === 'u' && /^[0-9a-fA-F]{4}/.test(this.source.slice(this.pos))) {
      this.pos += 4;
      return { code: parseInt(this.source.slice(this.pos - 4, this.pos), 16) };
    }
    if (c === undefined) throw new Error('a trailing backslash');
    return { code: c.charCodeAt(0) }; // an identity escape
  }

  private characterClass(): { units: Units; negate: boolean } {
    const negate = this.source[this.pos] === '^';
    if (negate) this.pos++;
    const units = unitsOf([]);
    while (this.source[this.pos] !== ']') {
      if (this.pos >= this.source.length) throw new Error('unclosed class');
      const from = this.classAtom();
      if (this.source[this.pos] === '-' && this.source[this.pos + 1] !== ']' && this.pos + 1 < this.source.length) {
        this.pos++;
        const to = this.classAtom();
        if (from.units || to.units) {
          // Annex B: a class escape at either end makes the hyphen a literal.
          for (const end of [from, to]) if (end.units) union(units, end.units);
          units.bits[0x2d] = 1;
          for (const end of [from, to]) if (!end.units) units.bits[end.code] = 1;
        } else {
          if (from.code > to.code) throw new Error('range out of order');
          for (let code = from.code; code <= to.code; code++) units.bits[code] = 1;
        }
      } else if (from.units) union(units, from.units);
      else units.bits[from.code] = 1;
    }
    this.pos++;
    return { units, negate };
  }

  private classAtom(): { units?: Units; code: number } {
    const c = this.source[this.pos++];
    return c === '\\' ? this.classEscape(true) : { code: c.charCodeAt(0) };
  }

  private isQuantifierAt(at: number): boolean {
    return /^(?:[*+?]|\{[0-9]+(?:,[0-9]*)?\})/.test(this.source.slice(at));
  }

  private quantified(node: Node): Node {
    const rest = this.source.slice(this.pos);
    const found = /^(?:([*+?])|\{([0-9]+)(?:(,)([0-9]*))?\})(\??)/.exec(rest);
    if (!found) return node;
    this.pos += found[0].length;
    const [, symbol, low, comma, high, lazy] = found;
    const [min, max] =
      symbol === '*' ? [0, Infinity] : symbol === '+' ? [1, Infinity] : symbol === '?' ? [0, 1] : [Number(low), comma ? (high ? Number(high) : Infinity) : Number(low)];
    if (min > max) throw new Error('quantifier out of order');
    return { kind: 'repeat', node, min, max, lazy: lazy === '?' };
  }
}

// ---------------------------------------------------------------------------------------------
// Surrogates

const HIGH = { from: 0xd800, to: 0xdbff };
const LOW = { from: 0xdc00, to: 0xdfff };

function takesSurrogate(units: Units): boolean {
  for (let i = HIGH.from; i <= LOW.to; i++) if (units.bits[i]) return true;
  return false;
}

function takesEverySurrogate(units: Units): boolean {
  for (let i = HIGH.from; i <= LOW.to; i++) if (!units.bits[i]) return false;
  return true;
}

/**
 * True when matching by code point gives the same answers as by unit (see the file's comment): at
 * most one class in the expression takes surrogates, it takes them all, it is repeated without an
 * upper bound and at most once from its start, and it is not inside another repetition. That class
 * then also takes every character beyond the BMP (marked on it, for rendering).
 */
function surrogatesAreSafe(tree: Node): boolean {
  const found: Array<{ units: Units; repeat?: { min: number; max: number }; nested: boolean }> = [];
  const visit = (node: Node, repeat: { min: number; max: number } | undefined, nested: boolean): void => {
    if (node.kind === 'set') {
      if (takesSurrogate(node.units)) found.push({ units: node.units, repeat, nested });
    } else if (node.kind === 'alt') {
      for (const terms of node.alternatives) for (const term of terms) visit(term, undefined, nested);
    } else if (node.kind === 'repeat') {
      const direct = node.node.kind === 'set';
      visit(node.node, direct ? node : undefined, nested || !direct);
    }
  };
  visit(tree, undefined, false);
  if (found.length === 0) return true;
  if (found.length > 1) return false;
  const [only] = found;
  if (only.nested || !only.repeat || only.repeat.min > 1 || only.repeat.max !== Infinity || !takesEverySurrogate(only.units)) return false;
  only.units.astral = true;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Writing the pattern

/** Characters beyond the BMP, as class contents (written as the characters: engines without `\u{…}` read them too). */
const ASTRAL_RANGE = `${String.fromCodePoint(0x10000)}-${String.fromCodePoint(0x10ffff)}`;
const SYNTAX = new Set('^$\\.*+?()[]{}|/');

function render(node: Node, top = true): string {
  switch (node.kind) {
    case 'anchor':
      return node.text;
    case 'pair':
      return node.text;
    case 'set':
      return renderSet(node.units);
    case 'alt': {
      // The top level keeps its alternatives bare; a group is written non-capturing.
      const text = node.alternatives.map((terms) => terms.map((term) => render(term, false)).join('')).join('|');
      return top ? text : `(?:${text})`;
    }
    case 'repeat': {
      const inner = render(node.node, false);
      const wrapped = node.node.kind === 'pair' ? `(?:${inner})` : inner;
      const count =
        node.min === 0 && node.max === Infinity ? '*' : node.min === 1 && node.max === Infinity ? '+' : node.min === 0 && node.max === 1 ? '?' : braces(node.min, node.max);
      return `${wrapped}${count}${node.lazy ? '?' : ''}`;
    }
  }
}

/** A bounded quantifier. */
function braces(min: number, max: number): string {
  return max === Infinity ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
}

function renderSet(units: Units): string {
  const members: number[] = [];
  for (let i = 0; i < ALL; i++) if (units.bits[i]) members.push(i);
  if (members.length === 0 && !units.astral) throw new Error('a class that takes nothing');
  if (members.length === 1 && !units.astral) return literal(members[0]);
  const inside = rangesOf(members);
  if (!units.astral) return `[${inside}]`;
  // Shorter as a negation when it takes most units: [^…] takes every character beyond the BMP too.
  const missing: number[] = [];
  for (let i = 0; i < ALL; i++) if (!units.bits[i]) missing.push(i);
  return missing.length < members.length && missing.length > 0 ? `[^${rangesOf(missing)}]` : `[${inside}${ASTRAL_RANGE}]`;
}

function literal(code: number): string {
  const c = String.fromCharCode(code);
  if (/[A-Za-z0-9]/.test(c)) return c;
  if (SYNTAX.has(c)) return `\\${c}`;
  if (code > 0x20 && code < 0x7f) return c;
  return hex4(code);
}

function classMember(code: number): string {
  const c = String.fromCharCode(code);
  if (/[A-Za-z0-9]/.test(c)) return c;
  if (c === ']' || c === '\\' || c === '^' || c === '-' || c === '[') return `\\${c}`;
  if (code > 0x20 && code < 0x7f) return c;
  return hex4(code);
}

function hex4(code: number): string {
  return `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Class contents for these sorted units, as ranges. */
function rangesOf(units: number[]): string {
  let out = '';
  for (let i = 0; i < units.length;) {
    let j = i;
    while (j + 1 < units.length && units[j + 1] === units[j] + 1) j++;
    out += i === j ? classMember(units[i]) : j === i + 1 ? classMember(units[i]) + classMember(units[j]) : `${classMember(units[i])}-${classMember(units[j])}`;
    i = j + 1;
  }
  return out;
}
