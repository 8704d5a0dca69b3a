/**
 * `hermes-mcp call <tool> key=value …`: a tool's arguments typed on the command line, read as the
 * tool's published input schema says (httpie's `key:=<json>` for a value taken as JSON as it is).
 *
 * A value is tried as JSON first (a number, true/false, null, an array, an object) and kept when
 * the schema takes it; else as the string typed. So `count=5` is 5 where the schema takes a number
 * and "5" where it takes only a string; where it takes both (or anything), 5 (`key:='"5"'` is the
 * string). The schema decides only the type: its other rules are the server's to check, and it
 * says what failed. Nothing here changes what `--args` sends.
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
    if (!ref.startsWith('#')) throw new ArgumentError(`the tool's schema refers to ${ref}, outside itself: use --args '<json>'`);
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
}

/** Whether a `patternProperties` pattern matches a name; one JavaScript cannot compile matches none. */
function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(name);
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

/**
 * The tool's arguments: `base` (from --args) with each assignment set at its key (`a.b` inside
 * `a`), typed by the input schema; a key given more than once is an array of its values. Throws
 * ArgumentError naming the key, what its schema takes and the schema itself.
 */
export function coerceArguments(assignments: readonly Assignment[], inputSchema: Schema, base: Record<string, unknown> = {}): Record<string, unknown> {
  const schemas = new Schemas(inputSchema);
  const groups = new Map<string, Assignment[]>();
  for (const assignment of assignments) groups.set(assignment.key, [...(groups.get(assignment.key) ?? []), assignment]);
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, group] of groups) {
    // A key the schema names whole (a property called "a.b") is that property, not b inside a.
    const path = schemas.names(inputSchema).includes(key) ? [key] : key.split('.');
    let schema: Schema = inputSchema;
    let target = out;
    for (const [i, name] of path.entries()) {
      const sub = schemas.property(schema, name);
      const at = path.slice(0, i + 1).join('.');
      if (sub === undefined) {
        const known = schemas.names(schema);
        throw new ArgumentError(
          `unknown argument ${at}: the tool's schema is closed and takes ${known.length ? known.join(', ') : 'no argument'}${i > 0 ? ` inside ${path.slice(0, i).join('.')}` : ''}`,
        );
      }
      schema = sub;
      if (i === path.length - 1) break;
      const next = target[name];
      if (next === undefined) target = target[name] = {};
      else if (typeof next === 'object' && next !== null && !Array.isArray(next)) target = next as Record<string, unknown>;
      else throw new ArgumentError(`${at} is set to ${JSON.stringify(next)}, so ${key} cannot be set inside it`);
    }
    const name = path[path.length - 1];
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
    if (group.length === 1) target[name] = valueOf(group[0], schema);
    else {
      const items = schemas.items(schema);
      if (items === undefined)
        throw new ArgumentError(
          `${key} is given ${group.length} times, but it takes one value (${expected(schemas, schema)}), not an array. Its schema: ${JSON.stringify(schemas.shown(schema))}`,
        );
      target[name] = group.map((assignment) => valueOf(assignment, items));
    }
  }
  return out;
}
