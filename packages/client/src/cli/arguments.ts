/**
 * `hermes-mcp call <tool> key=value …`: a tool's arguments typed on the command line, read as the
 * tool's published input schema says (httpie's `key:=<json>` for a value taken as JSON as it is).
 *
 * A value is tried as JSON first (a number, true/false, null, an array, an object) and kept when
 * the schema takes that type; else as the string typed. So `count=5` is 5 where the schema takes a
 * number and "5" where it takes only a string; where it takes both (or anything), 5 (`key:='"5"'`
 * is the string). `a.b=1` sets b inside a, and `a.0.b=1` b inside the first item of the array a.
 * The arguments so assembled (`--args` with the words set over it) are then checked against the
 * whole schema ({@link Schemas.check}), and every path that fails it is named: nothing is sent.
 */

/** A key=value the schema cannot take, or a malformed one: exit 2, nothing sent. */
export class ArgumentError extends Error {}

/** One `key=value` (`raw` the text) or `key:=json` (`value` parsed), read before the server is reached. */
export interface Assignment {
  key: string;
  raw: string;
  json?: { value: unknown };
}

type Schema = boolean | Record<string, unknown>;

/** Reads `key=value` and `key:=json` words; refuses a word without `=`, an empty key or bad JSON. */
export function parseAssignments(words: readonly string[]): Assignment[] {
  return words.map((word) => {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new ArgumentError(`"${word}" is not key=value (or key:=<json>): arguments of call are key=value words, or --args '<json>'`);
    const raw = word.slice(eq + 1);
    if (word[eq - 1] !== ':') return { key: checkedKey(word.slice(0, eq), word), raw };
    const key = checkedKey(word.slice(0, eq - 1), word);
    try {
      return { key, raw, json: { value: JSON.parse(raw) as unknown } };
    } catch (error) {
      throw new ArgumentError(`${key}:= takes JSON, and ${raw} is not: ${(error as Error).message}`);
    }
  });
}

function checkedKey(key: string, word: string): string {
  if (key === '' || key.split('.').includes('')) throw new ArgumentError(`"${word}" has an empty key (a.b=1 sets b inside a)`);
  return key;
}

/** Follows `$ref`s (JSON pointers into the root, `#/$defs/Name`) of one input schema. */
class Schemas {
  constructor(private readonly root: Schema) {}

  /** The schema a `$ref` points at; a schema without one as it is. */
  private target(ref: string): Schema {
    if (ref !== '#' && !ref.startsWith('#/')) throw new ArgumentError(`the tool's schema refers to ${ref}, outside itself: use --args '<json>'`);
    let node: unknown = this.root;
    for (const part of ref.slice(1).split('/').slice(1)) node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (typeof node !== 'boolean' && (typeof node !== 'object' || node === null)) throw new ArgumentError(`the tool's schema refers to ${ref}, which it does not hold`);
    return node as Schema;
  }

  /** The schema with its `$ref` (if any) inlined, for an error a person can read. */
  shown(schema: Schema, depth = 0): unknown {
    if (typeof schema === 'boolean' || depth > 4) return schema;
    const { $ref, ...rest } = schema;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rest)) {
      if (['anyOf', 'oneOf', 'allOf'].includes(key) && Array.isArray(value)) out[key] = value.map((branch) => this.shown(branch as Schema, depth + 1));
      else if (['items', 'not'].includes(key) && typeof value === 'object') out[key] = this.shown(value as Schema, depth + 1);
      else if (key === 'properties' && typeof value === 'object' && value !== null)
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, this.shown(sub as Schema, depth + 1)]));
      else out[key] = value;
    }
    if (typeof $ref !== 'string') return out;
    const target = this.shown(this.target($ref), depth + 1);
    return Object.keys(out).length === 0 ? target : { allOf: [target], ...out };
  }

  /** Whether the value has a type (and enum/const value) the schema takes; the rest is the server's. */
  fits(value: unknown, schema: Schema, seen = new Set<unknown>()): boolean {
    if (typeof schema === 'boolean') return schema;
    if (seen.has(schema)) return true; // a recursive $ref: as far as types go, already checked
    const inner = new Set(seen).add(schema);
    if (typeof schema.$ref === 'string' && !this.fits(value, this.target(schema.$ref), inner)) return false;
    if (schema.type !== undefined && ![schema.type].flat().some((type) => typeOf(value, type as string))) return false;
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(option, value))) return false;
    if ('const' in schema && !same(schema.const, value)) return false;
    if (Array.isArray(schema.allOf) && !schema.allOf.every((branch) => this.fits(value, branch as Schema, inner))) return false;
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches) && !branches.some((branch) => this.fits(value, branch as Schema, inner))) return false;
    }
    return true;
  }

  /** Every schema the value must meet, $refs and allOf/anyOf/oneOf opened (to find properties and items in). */
  private parts(schema: Schema, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
    if (typeof schema === 'boolean' || out.includes(schema)) return out;
    out.push(schema);
    if (typeof schema.$ref === 'string') this.parts(this.target(schema.$ref), out);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) for (const branch of (schema[key] as Schema[] | undefined) ?? []) this.parts(branch, out);
    return out;
  }

  /** The schema of an array's items, where the schema takes an array; undefined where it takes none. */
  items(schema: Schema): Schema | undefined {
    const found = this.parts(schema)
      .filter((part) => part.type === 'array' || (Array.isArray(part.type) && part.type.includes('array')) || part.items !== undefined)
      .map((part) => (part.items ?? true) as Schema);
    return found.length === 0 ? undefined : found.length === 1 ? found[0] : { anyOf: found };
  }

  /**
   * The schema of property `name` of an object the schema describes; undefined where the schema
   * is closed (`additionalProperties: false`) and names no such property.
   */
  property(schema: Schema, name: string): Schema | undefined {
    const parts = this.parts(schema);
    const found: Schema[] = [];
    for (const part of parts) {
      const properties = part.properties as Record<string, Schema> | undefined;
      if (properties && Object.prototype.hasOwnProperty.call(properties, name)) found.push(properties[name]);
      for (const [pattern, sub] of Object.entries((part.patternProperties as Record<string, Schema> | undefined) ?? {})) if (matches(pattern, name)) found.push(sub);
    }
    if (found.length > 0) return found.length === 1 ? found[0] : { anyOf: found };
    const open = parts.map((part) => part.additionalProperties).filter((value) => value !== undefined && value !== false) as Schema[];
    if (parts.some((part) => part.additionalProperties === false) && open.length === 0) return undefined;
    return open.length === 0 ? true : open.length === 1 ? open[0] : { anyOf: open };
  }

  /** The property names the schema names, for an error about one it does not. */
  names(schema: Schema): string[] {
    return [...new Set(this.parts(schema).flatMap((part) => Object.keys((part.properties as object | undefined) ?? {})))];
  }

  /** The schema of item `index` of an array the schema describes (`prefixItems`, a draft-07 `items` list, else `items`). */
  itemAt(schema: Schema, index: number): Schema {
    const found: Schema[] = [];
    for (const part of this.parts(schema)) {
      const tuple = Array.isArray(part.prefixItems) ? (part.prefixItems as Schema[]) : Array.isArray(part.items) ? (part.items as Schema[]) : undefined;
      if (tuple && index < tuple.length) found.push(tuple[index]);
      else if (tuple) found.push(((Array.isArray(part.items) ? part.additionalItems : part.items) as Schema | undefined) ?? true);
      else if (part.items !== undefined) found.push(part.items as Schema);
    }
    return found.length === 0 ? true : found.length === 1 ? found[0] : { anyOf: found };
  }

  /** Whether the schema names property `name` (in `properties`, or by a `patternProperties` pattern): `a.0` is then that property, not an index. */
  declares(schema: Schema, name: string): boolean {
    return this.parts(schema).some(
      (part) =>
        Object.prototype.hasOwnProperty.call((part.properties as object | undefined) ?? {}, name) ||
        Object.keys((part.patternProperties as object | undefined) ?? {}).some((pattern) => matches(pattern, name)),
    );
  }

  /** Whether the schema takes an object (as far as types go): `a.b=1` may set b inside it. */
  takesObject(schema: Schema): boolean {
    return this.fits({}, schema);
  }

  /** Whether the schema takes an array: `a.0=1` sets its first item. */
  takesArray(schema: Schema): boolean {
    return this.items(schema) !== undefined;
  }

  /** What a schema takes at its own level, in words (its types, its `enum` or `const`), for a message. */
  takes(schema: Schema, depth = 0): string[] {
    if (typeof schema === 'boolean') return [schema ? 'anything' : 'nothing'];
    if (depth > 8) return [];
    const out: string[] = [];
    if (Array.isArray(schema.enum)) out.push(`one of ${JSON.stringify(schema.enum)}`);
    else if ('const' in schema) out.push(JSON.stringify(schema.const));
    else if (schema.type !== undefined) out.push(...[schema.type].flat().map(String));
    if (out.length === 0 && typeof schema.$ref === 'string') out.push(...this.takes(this.resolved(schema.$ref), depth + 1));
    for (const key of ['anyOf', 'oneOf'] as const)
      if (out.length === 0 && Array.isArray(schema[key])) out.push(...(schema[key] as Schema[]).flatMap((branch) => this.takes(branch, depth + 1)));
    if (out.length === 0 && Array.isArray(schema.allOf))
      out.push(...((schema.allOf as Schema[]).map((branch) => this.takes(branch, depth + 1)).find((said) => said.length > 0) ?? []));
    return [...new Set(out)];
  }

  /** The schema a `$ref` points at; one outside the schema (or not in it) takes anything: the server checks it. */
  private resolved(ref: string): Schema {
    try {
      return this.target(ref);
    } catch {
      return true;
    }
  }

  /**
   * Every way `value` (at `at`, a key as the words spell it: `entities.0.name`) fails `schema`:
   * types, `enum`/`const`, required and closed objects, items, lengths, patterns, bounds,
   * `allOf`/`anyOf`/`oneOf`/`not`/`if`. Where no branch of an `anyOf` or `oneOf` takes the value,
   * the problems of the branch it comes closest to are given (or, when none takes its type, what
   * they take). `format` is an annotation (JSON Schema 2020-12's default), not checked.
   */
  check(value: unknown, schema: Schema, at: string, seen: ReadonlyArray<readonly [unknown, Schema]> = []): Problem[] {
    if (schema === true) return [];
    const name = at || 'the arguments';
    if (schema === false) return [{ at, says: `${shown(value)} is not taken here: the schema takes nothing at ${name}`, kind: 'type' }];
    // A $ref that comes back to itself without going into the value has nothing more to say.
    if (seen.some(([v, s]) => v === value && s === schema)) return [];
    const inner = [...seen, [value, schema] as const];
    const problems: Problem[] = [];
    const add = (says: string, kind: Problem['kind'] = 'rule', where = at) => problems.push({ at: where, says, kind });
    if (typeof schema.$ref === 'string') problems.push(...this.check(value, this.resolved(schema.$ref), at, inner));
    if (schema.type !== undefined && ![schema.type].flat().some((type) => typeOf(value, type as string))) {
      add(`${shown(value)} is not what it takes; ${name} takes ${[schema.type].flat().map(String).join(' or ')}`, 'type');
      return problems; // the rest of the schema speaks of a value of another type
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(option, value))) add(`${shown(value)} is not one of ${JSON.stringify(schema.enum)}`, 'value');
    if ('const' in schema && !same(schema.const, value)) add(`${shown(value)} is not ${JSON.stringify(schema.const)}`, 'value');
    if (typeof value === 'string') this.checkString(value, schema, add);
    if (typeof value === 'number') this.checkNumber(value, schema, add);
    if (Array.isArray(value)) problems.push(...this.checkArray(value, schema, at, inner));
    else if (typeof value === 'object' && value !== null) problems.push(...this.checkObject(value as Record<string, unknown>, schema, at, inner));
    for (const branch of (schema.allOf as Schema[] | undefined) ?? []) problems.push(...this.check(value, branch, at, inner));
    if (Array.isArray(schema.anyOf)) problems.push(...this.closest(value, schema.anyOf as Schema[], 'anyOf', at, inner));
    if (Array.isArray(schema.oneOf)) {
      const outcomes = (schema.oneOf as Schema[]).map((branch) => this.check(value, branch, at, inner));
      const taken = outcomes.flatMap((outcome, i) => (outcome.length === 0 ? [i] : []));
      if (taken.length === 0) problems.push(...this.closest(value, schema.oneOf as Schema[], 'oneOf', at, inner, outcomes));
      else if (taken.length > 1) add(`${shown(value)} fits ${taken.length} of its oneOf branches (${taken.join(', ')}), where it must fit exactly one`, 'value');
    }
    if (schema.not !== undefined && this.check(value, schema.not as Schema, at, inner).length === 0)
      add(`${shown(value)} is what the schema rules out: ${JSON.stringify(this.shown(schema.not as Schema))}`, 'value');
    if (schema.if !== undefined) {
      const then = this.check(value, schema.if as Schema, at, inner).length === 0 ? schema.then : schema.else;
      if (then !== undefined) problems.push(...this.check(value, then as Schema, at, inner));
    }
    return problems;
  }

  /** The problems of the branch of an `anyOf` or `oneOf` the value comes closest to (none takes it). */
  private closest(
    value: unknown,
    branches: Schema[],
    key: 'anyOf' | 'oneOf',
    at: string,
    seen: ReadonlyArray<readonly [unknown, Schema]>,
    outcomes = branches.map((branch) => this.check(value, branch, at, seen)),
  ): Problem[] {
    if (outcomes.some((outcome) => outcome.length === 0)) return [];
    // No branch takes its type or value: say what they take, together.
    if (outcomes.every((outcome) => outcome.some((problem) => problem.at === at && problem.kind !== 'rule')))
      return [{ at, says: `${shown(value)} is not what it takes; ${at || 'the arguments'} takes ${this.takes({ [key]: branches }).join(' or ')}`, kind: 'type' }];
    // A wrong type or value (a discriminator's const) says "another branch" more than a missing property does.
    const score = (outcome: Problem[]) => outcome.reduce((sum, problem) => sum + (problem.kind === 'rule' ? 1 : 10), 0);
    return outcomes.reduce((best, outcome) => (score(outcome) < score(best) ? outcome : best));
  }

  /** A string's rules: `minLength`, `maxLength` (in characters), `pattern`. */
  private checkString(value: string, schema: Record<string, unknown>, add: (says: string) => void): void {
    const length = [...value].length; // characters, as JSON Schema counts them (code points)
    if (typeof schema.minLength === 'number' && length < schema.minLength) add(`${shown(value)} is shorter than ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) add(`${shown(value)} is longer than ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string' && isPattern(schema.pattern) && !matches(schema.pattern, value)) add(`${shown(value)} does not match the pattern ${schema.pattern}`);
  }

  /** A number's rules: the bounds (inclusive, exclusive, draft 4's boolean form) and `multipleOf`. */
  private checkNumber(value: number, schema: Record<string, unknown>, add: (says: string) => void): void {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
    // Draft 4 spells an exclusive bound as a boolean beside minimum/maximum.
    if (typeof minimum === 'number' && (exclusiveMinimum === true ? value <= minimum : value < minimum))
      add(`${value} is below the ${exclusiveMinimum === true ? 'exclusive ' : ''}minimum ${minimum}`);
    if (typeof maximum === 'number' && (exclusiveMaximum === true ? value >= maximum : value > maximum))
      add(`${value} is above the ${exclusiveMaximum === true ? 'exclusive ' : ''}maximum ${maximum}`);
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) add(`${value} is not above ${exclusiveMinimum} (exclusiveMinimum)`);
    if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) add(`${value} is not below ${exclusiveMaximum} (exclusiveMaximum)`);
    if (typeof multipleOf === 'number' && multipleOf > 0) {
      const quotient = value / multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9) add(`${value} is not a multiple of ${multipleOf}`);
    }
  }

  /** An array's rules and its items: counts, `uniqueItems`, `prefixItems`/`items`, `contains`. */
  private checkArray(value: unknown[], schema: Record<string, unknown>, at: string, seen: ReadonlyArray<readonly [unknown, Schema]>): Problem[] {
    const problems: Problem[] = [];
    const add = (says: string) => problems.push({ at, says, kind: 'rule' });
    const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) add(`has ${items(value.length)}, and takes at least ${schema.minItems}`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) add(`has ${items(value.length)}, and takes at most ${schema.maxItems}`);
    if (schema.uniqueItems === true)
      for (let i = 0; i < value.length; i++) {
        const twin = value.findIndex((other, j) => j > i && same(other, value[i]));
        if (twin > 0) {
          add(`items ${i} and ${twin} are the same (${shown(value[i])}), and its items must differ`);
          break;
        }
      }
    const tuple = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : Array.isArray(schema.items) ? (schema.items as Schema[]) : undefined;
    const rest = (tuple ? (Array.isArray(schema.items) ? schema.additionalItems : schema.items) : schema.items) as Schema | undefined;
    value.forEach((item, i) => {
      const itemSchema = tuple && i < tuple.length ? tuple[i] : rest;
      if (itemSchema !== undefined) problems.push(...this.check(item, itemSchema, join(at, String(i)), seen));
    });
    if (schema.contains !== undefined) {
      const count = value.filter((item, i) => this.check(item, schema.contains as Schema, join(at, String(i)), seen).length === 0).length;
      const least = typeof schema.minContains === 'number' ? schema.minContains : 1;
      const shownContains = JSON.stringify(this.shown(schema.contains as Schema));
      if (count < least) add(`has ${count === 0 ? 'no item' : items(count)} like ${shownContains}, and takes at least ${least}`);
      if (typeof schema.maxContains === 'number' && count > schema.maxContains) add(`has ${items(count)} like ${shownContains}, and takes at most ${schema.maxContains}`);
    }
    return problems;
  }

  /** An object's rules and its properties: required ones, counts, names, `properties`, `patternProperties`, `additionalProperties`. */
  private checkObject(value: Record<string, unknown>, schema: Record<string, unknown>, at: string, seen: ReadonlyArray<readonly [unknown, Schema]>): Problem[] {
    const problems: Problem[] = [];
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    const patterns = Object.entries((schema.patternProperties as Record<string, Schema> | undefined) ?? {});
    const has = (key: string) => Object.prototype.hasOwnProperty.call(value, key);
    for (const key of (schema.required as string[] | undefined) ?? []) if (!has(key)) problems.push({ at: join(at, key), says: 'required, and not given', kind: 'rule' });
    for (const [key, dependents] of Object.entries((schema.dependentRequired ?? schema.dependencies ?? {}) as Record<string, unknown>))
      if (has(key) && Array.isArray(dependents))
        for (const dependent of dependents as string[])
          if (!has(dependent)) problems.push({ at: join(at, dependent), says: `required with ${join(at, key)}, and not given`, kind: 'rule' });
    const count = Object.keys(value).length;
    if (typeof schema.minProperties === 'number' && count < schema.minProperties)
      problems.push({ at, says: `has ${count} properties, and takes at least ${schema.minProperties}`, kind: 'rule' });
    if (typeof schema.maxProperties === 'number' && count > schema.maxProperties)
      problems.push({ at, says: `has ${count} properties, and takes at most ${schema.maxProperties}`, kind: 'rule' });
    for (const [key, item] of Object.entries(value)) {
      const where = join(at, key);
      if (schema.propertyNames !== undefined && this.check(key, schema.propertyNames as Schema, where, seen).length > 0)
        problems.push({ at: where, says: `the name ${JSON.stringify(key)} is not one the schema takes (propertyNames)`, kind: 'rule' });
      const named = Object.prototype.hasOwnProperty.call(properties, key);
      const matched = patterns.filter(([pattern]) => matches(pattern, key));
      if (named) problems.push(...this.check(item, properties[key], where, seen));
      for (const [, sub] of matched) problems.push(...this.check(item, sub, where, seen));
      if (named || matched.length > 0 || schema.additionalProperties === undefined) continue;
      if (schema.additionalProperties === false) {
        const known = Object.keys(properties);
        problems.push({
          at: where,
          says: `unknown argument: the schema is closed${known.length ? ` and takes ${known.join(', ')}${at ? ` inside ${at}` : ''}` : ''}`,
          kind: 'rule',
        });
      } else problems.push(...this.check(item, schema.additionalProperties as Schema, where, seen));
    }
    return problems;
  }
}

/** One way the arguments fail the schema: where (a key as the words spell it), what, and of which kind. */
export interface Problem {
  /** The path, as the words spell it: `entities.0.name`; '' for the arguments as a whole. */
  at: string;
  says: string;
  /** `type`: another type; `value`: another value (enum, const, not); `rule`: the rest (required, bounds, …). */
  kind: 'type' | 'value' | 'rule';
}

/** `a.b` from `a` and `b`; `b` at the top. */
function join(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`;
}

/** A value for a message: its JSON, cut after 60 characters. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 59)}…` : json;
}

/** Whether a `patternProperties` pattern matches a name; one JavaScript cannot compile matches none. */
function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(name);
  } catch {
    return false;
  }
}

/** Whether JavaScript compiles the pattern; a `pattern` it cannot is left for the server to apply. */
function isPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function typeOf(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The value of one `key=value` as the schema takes it: JSON first, then the string typed, then as one item of an array. */
function coerce(schemas: Schemas, raw: string, schema: Schema): unknown {
  const candidates: unknown[] = [];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed !== 'string') candidates.push(parsed);
  } catch {
    // not JSON: a string, or nothing the schema takes
  }
  candidates.push(raw);
  const fit = candidates.find((candidate) => schemas.fits(candidate, schema));
  if (fit !== undefined) return fit;
  const items = schemas.items(schema);
  const item = items === undefined ? undefined : candidates.find((candidate) => schemas.fits(candidate, items) && schemas.fits([candidate], schema));
  if (item !== undefined) return [item];
  throw new ArgumentError(`${raw === '' ? 'an empty value' : JSON.stringify(raw)} is not what it takes`);
}

/** What the schema takes, in words, from the types its parts name. */
function expected(schemas: Schemas, schema: Schema): string {
  const shown = schemas.shown(schema);
  const types = new Set<string>();
  JSON.stringify(shown, (key, value: unknown) => {
    if (key === 'type') for (const type of [value].flat()) types.add(String(type));
    if (key === 'enum' || key === 'const') types.add(`${key === 'enum' ? 'one of ' : ''}${JSON.stringify(value)}`);
    return value;
  });
  return types.size === 0 ? 'a value' : [...types].join(' or ');
}

/** An array index as a key spells it: 0, 1, 2 … (no sign, no leading zero). */
const INDEX = /^(0|[1-9]\d*)$/;

/** The most problems listed when the arguments fail the schema (the rest are counted). */
const MAX_PROBLEMS = 20;

/**
 * The tool's arguments: `base` (from --args) with each assignment set at its key (`a.b` inside
 * `a`, `a.0.b` inside the first item of the array `a`), typed by the input schema; a key given
 * more than once is an array of its values. Then the whole is checked against the schema. Throws
 * ArgumentError naming the key, what its schema takes and the schema itself, or every path at
 * which the assembled arguments fail the schema.
 */
export function coerceArguments(assignments: readonly Assignment[], inputSchema: Schema, base: Record<string, unknown> = {}): Record<string, unknown> {
  const schemas = new Schemas(inputSchema);
  const groups = new Map<string, Assignment[]>();
  for (const assignment of assignments) groups.set(assignment.key, [...(groups.get(assignment.key) ?? []), assignment]);
  const out: Record<string, unknown> = structuredClone(base);
  /** The arrays an index of a key was set in, with their key: checked for gaps once every word is set. */
  const indexed = new Map<unknown[], string>();
  for (const [key, group] of groups) {
    // A key the schema names whole (a property called "a.b") is that property, not b inside a.
    const path = schemas.names(inputSchema).includes(key) ? [key] : key.split('.');
    let schema: Schema = inputSchema;
    let target: Record<string, unknown> | unknown[] = out;
    let slot: string | number = path[0];
    for (const [i, name] of path.entries()) {
      const at = path.slice(0, i + 1).join('.');
      const within = path.slice(0, i).join('.');
      if (i > 0) {
        // `target[slot]` holds the value at `within`: an array when `name` is an index of it, else an object.
        const existing = (target as Record<string | number, unknown>)[slot];
        const index = INDEX.test(name) && (Array.isArray(existing) || (existing === undefined && schemas.takesArray(schema) && !schemas.declares(schema, name)));
        if (!index && existing === undefined) refuseInside(schemas, schema, within, path.slice(i), group[0]);
        let next: unknown = existing;
        if (next === undefined) next = (target as Record<string | number, unknown>)[slot] = index ? [] : {};
        if (index !== Array.isArray(next) || typeof next !== 'object' || next === null)
          throw new ArgumentError(`${within} is set to ${JSON.stringify(next)}, so ${key} cannot be set inside it`);
        target = next as Record<string, unknown> | unknown[];
        if (index) {
          indexed.set(target as unknown[], within);
          slot = Number(name);
          schema = schemas.itemAt(schema, slot);
          continue;
        }
      }
      slot = name;
      const sub = schemas.property(schema, name);
      if (sub === undefined) {
        const known = schemas.names(schema);
        throw new ArgumentError(
          `unknown argument ${at}: the tool's schema is closed and takes ${known.length ? known.join(', ') : 'no argument'}${i > 0 ? ` inside ${within}` : ''}`,
        );
      }
      schema = sub;
    }
    const valueOf = (assignment: Assignment, itemSchema: Schema) => {
      if (assignment.json) return assignment.json.value;
      try {
        return coerce(schemas, assignment.raw, itemSchema);
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        throw new ArgumentError(
          `${key}=${assignment.raw}: ${error.message}; ${key} takes ${expected(schemas, itemSchema)}. Its schema: ${JSON.stringify(schemas.shown(itemSchema))}`,
        );
      }
    };
    const place = target as Record<string | number, unknown>;
    if (group.length === 1) place[slot] = valueOf(group[0], schema);
    else {
      const items = schemas.items(schema);
      if (items === undefined)
        throw new ArgumentError(
          `${key} is given ${group.length} times, but it takes one value (${expected(schemas, schema)}), not an array. Its schema: ${JSON.stringify(schemas.shown(schema))}`,
        );
      place[slot] = group.map((assignment) => valueOf(assignment, items));
    }
  }
  for (const [array, at] of indexed) {
    const gap = Array.from(array.keys()).find((i) => !(i in array));
    if (gap !== undefined) throw new ArgumentError(`${at}.${gap} is not given, but ${at}.${array.length - 1} is: the items of an array are numbered from 0, without a gap`);
  }
  const problems = dedupe(schemas.check(out, inputSchema, ''));
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_PROBLEMS).map((problem) => `  ${problem.at || '(the arguments)'}: ${problem.says}`);
    if (problems.length > MAX_PROBLEMS) listed.push(`  … and ${problems.length - MAX_PROBLEMS} more`);
    throw new ArgumentError(`the arguments do not fit the tool's input schema, so nothing was sent:\n${listed.join('\n')}`);
  }
  return out;
}

/**
 * Refuses to set `rest` inside `within` where the schema there takes no object: an array wants an
 * index (`entities.name=X` → `entities.0.name=X`), a number or a string has nothing inside.
 */
function refuseInside(schemas: Schemas, schema: Schema, within: string, rest: string[], word: Assignment): void {
  if (schemas.takesObject(schema)) return;
  const typed = `${[within, ...rest].join('.')}${word.json ? ':=' : '='}${word.raw}`;
  if (schemas.takesArray(schema))
    throw new ArgumentError(
      `${typed}: ${within} takes an array, so say which item: ${[within, '0', ...rest].join('.')}=… sets it in the first item (${[within, '1', ...rest].join('.')}=… in the second, and so on)`,
    );
  throw new ArgumentError(`${typed}: ${within} takes ${schemas.takes(schema).join(' or ') || 'no object'}, so nothing can be set inside it`);
}

/** The problems, each once (a branch checked twice says the same). */
function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.at}\0${problem.says}`;
    return !seen.has(key) && (seen.add(key), true);
  });
}
