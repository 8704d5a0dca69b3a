/**
 * Nested classes written out where they are used: what a tool publishes by default.
 *
 * The schema builder makes every nested class a definition under `$defs`, referred to by `$ref`.
 * The official SDKs publish their schemas (zod's) inlined, and a client or a model that does not
 * resolve `$ref` sees only `{ "$ref": "#/$defs/Address" }` where an address goes. So each `$ref`
 * is replaced by the definition it names, a class used twice is written twice, and `$defs` keeps
 * only the classes that refer to themselves, directly or through others (recursion cannot be
 * written out). A `$ref` with keywords beside it (`not: { type: 'null' }`, a discriminator's
 * `const`, the property's description) becomes the definition with those keywords merged in, where
 * that means the same; what could mean something else beside the definition's keywords goes to an
 * `allOf` of its own. The schema accepts exactly what the `$defs` form accepts (the decorator
 * agreement suite checks both).
 *
 * A class shared at every level doubles the schema at each one: when writing everything out would
 * make the schema longer than {@link INLINE_LIMIT} characters of JSON, the classes used in more
 * than one place stay under `$defs` (the others are still written out), so the schema is no longer
 * than its `$defs` form.
 */
import { ANNOTATIONS, Schema, isSchema } from './json-schema';
import { conjoin } from './conjoin';

/**
 * Past this many characters of JSON, a schema keeps under `$defs` the classes it uses more than
 * once (64 KiB: far beyond any schema a model reads well; a class used at every level of a deep
 * tree of classes would otherwise grow without bound).
 */
export const INLINE_LIMIT = 65_536;

/** The `$ref` the schema builder writes: to one of the root's `$defs` (its names need no escaping). */
const REF = /^#\/\$defs\/([A-Za-z0-9_]+)$/;

/** Keywords whose values are data, not schemas: a `$ref` key there is a value like any other. */
const DATA = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Keywords that mean the same whatever other keywords sit beside them (in a schema without
 * `unevaluatedProperties`/`unevaluatedItems`): they may join a definition's own.
 */
const INDEPENDENT = new Set(['type', 'enum', 'const', 'not', 'required', 'minProperties', 'maxProperties', 'anyOf', 'oneOf', 'allOf', 'propertyNames']);

/**
 * `schema` (a root with `$defs`, as the schema builder makes it) with every nested class written
 * out where it is used, and `$defs` left with the recursive ones only (no `$defs` when none is).
 * Returns `schema` itself when it has no `$defs`.
 *
 * @example
 * inlined({ type: 'object', properties: { home: { $ref: '#/$defs/Address' } }, $defs: { Address: { type: 'object', properties: { city: { type: 'string' } } } } });
 * // { type: 'object', properties: { home: { type: 'object', properties: { city: { type: 'string' } } } } }
 * @internal
 */
export function inlined(schema: Schema): Schema {
  if (!isSchema(schema.$defs)) return schema;
  const { $defs, ...root } = schema;
  const defs = $defs as Record<string, Schema>;
  const recursive = onCycles(defs);
  let kept = recursive;
  if (sizeWritten(root, defs, recursive) > INLINE_LIMIT) kept = new Set([...recursive, ...usedTwice(schema, defs)]);
  const written = new WeakMap<object, unknown>();
  const write = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(write);
    if (!isSchema(node)) return node;
    let done = written.get(node);
    if (done === undefined) {
      done = writeObject(node);
      written.set(node, done);
    }
    return done;
  };
  const writeObject = (node: Schema): Schema => {
    const name = refName(node);
    if (name !== undefined && name in defs && !kept.has(name)) {
      const { $ref: _ref, ...beside } = node;
      return merged(write(defs[name]) as Schema, writeEach(beside));
    }
    return writeEach(node);
  };
  const writeEach = (node: Schema): Schema => {
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) out[key] = DATA.has(key) ? value : write(value);
    return out;
  };
  const body = write(root) as Schema;
  const left = Object.keys(defs).filter((name) => kept.has(name));
  return left.length > 0 ? { ...body, $defs: Object.fromEntries(left.map((name) => [name, write(defs[name])])) } : body;
}

/** The definition a `{ $ref: '#/$defs/Name' }` names, if `node` is one. */
function refName(node: Schema): string | undefined {
  const match = typeof node.$ref === 'string' ? REF.exec(node.$ref) : null;
  return match ? match[1] : undefined;
}

/** Every `$defs` name `node` refers to (each once per reference), outside data keywords. */
function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (isSchema(node)) {
    const name = refName(node);
    if (name !== undefined) found.push(name);
    for (const [key, value] of Object.entries(node)) if (!DATA.has(key)) refsIn(value, found);
  }
  return found;
}

/** The definitions that refer to themselves, directly or through others. */
function onCycles(defs: Record<string, Schema>): Set<string> {
  const edges = new Map(Object.keys(defs).map((name) => [name, new Set(refsIn(defs[name]).filter((to) => to in defs))]));
  const cyclic = new Set<string>();
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const stack = [...edges.get(start)!];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === start) {
        cyclic.add(start);
        break;
      }
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...edges.get(at)!);
    }
  }
  return cyclic;
}

/**
 * About how long the JSON of `root` is once every definition but `kept` is written out, worked out
 * without writing it (which may be exponentially long): each definition's length once, memoized.
 */
function sizeWritten(root: Schema, defs: Record<string, Schema>, kept: ReadonlySet<string>): number {
  const sizes = new Map<string, number>();
  const sizeOf = (node: Schema): number => {
    let size = JSON.stringify(node).length;
    for (const name of refsIn(node)) {
      if (kept.has(name) || !(name in defs)) continue;
      let inner = sizes.get(name);
      if (inner === undefined) sizes.set(name, (inner = sizeOf(defs[name]))); // no cycle among those written out
      size += inner;
    }
    return size;
  };
  return sizeOf(root) + [...kept].reduce((sum, name) => sum + (name in defs ? sizeOf(defs[name]) : 0), 0);
}

/** The definitions referred to from more than one place of `schema` (its `$defs` counted once each). */
function usedTwice(schema: Schema, defs: Record<string, Schema>): Set<string> {
  const { $defs: _defs, ...root } = schema;
  const counts = new Map<string, number>();
  for (const node of [root, ...Object.values(defs)]) for (const name of refsIn(node)) counts.set(name, (counts.get(name) ?? 0) + 1);
  return new Set([...counts].filter(([, count]) => count > 1).map(([name]) => name));
}

/**
 * What `{ $ref: <def>, ...beside }` accepts, as one schema: the definition with the keywords beside
 * it merged in where that means the same, the rest in an `allOf` entry of its own. Annotations
 * beside it (the property's `description`) win over the definition's (the class's).
 */
function merged(def: Schema, beside: Schema): Schema {
  if (Object.keys(beside).length === 0) return def;
  // Keywords beside it would be seen by these: the definition stays whole, under allOf.
  if ('unevaluatedProperties' in def || 'unevaluatedItems' in def) {
    return { ...beside, allOf: [...(Array.isArray(beside.allOf) ? (beside.allOf as unknown[]) : []), def] };
  }
  const out: Schema = { ...def };
  const apart: Schema = {};
  for (const [key, value] of Object.entries(beside)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) out[key] = value;
    else if (key === 'not' && refusesNullOnly(value) && typeof out.type === 'string' && out.type !== 'null')
      continue; // implied by its type (and strict validators refuse it)
    else if (!(key in out)) (INDEPENDENT.has(key) ? out : apart)[key] = value;
    else if (equal(out[key], value)) continue;
    else if (key === 'required' && Array.isArray(out.required) && Array.isArray(value)) out.required = [...new Set([...(out.required as unknown[]), ...(value as unknown[])])];
    else if (key === 'allOf' && Array.isArray(out.allOf) && Array.isArray(value)) out.allOf = [...(out.allOf as unknown[]), ...(value as unknown[])];
    else if (key === 'properties' && isSchema(out.properties) && isSchema(value)) {
      const [joined, left] = joinProperties(out, value);
      out.properties = joined;
      if (left) apart.properties = left;
    } else apart[key] = value;
  }
  if (Object.keys(apart).length > 0) out.allOf = [...(Array.isArray(out.allOf) ? (out.allOf as unknown[]) : []), apart];
  return out;
}

/**
 * The definition's `properties` with those beside its `$ref`: a property it has takes both
 * schemas; one it has not joins it only where the definition's `additionalProperties` (if any)
 * would not have judged it instead (its `patternProperties` match the key). The rest is returned
 * apart.
 */
function joinProperties(def: Schema, beside: Schema): [Schema, Schema | undefined] {
  const own = def.properties as Schema;
  const joined: Schema = { ...own };
  const left: Schema = {};
  for (const [key, value] of Object.entries(beside)) {
    if (Object.prototype.hasOwnProperty.call(own, key)) joined[key] = isSchema(own[key]) && isSchema(value) ? both(own[key], value) : { allOf: [own[key], value] };
    else if (!('additionalProperties' in def) || matchesPattern(def.patternProperties, key)) joined[key] = value;
    else left[key] = value;
  }
  return [joined, Object.keys(left).length > 0 ? left : undefined];
}

/** One property's two schemas: combined where only plain keywords meet (a discriminator's `const`), else `allOf`. */
function both(a: Schema, b: Schema): Schema {
  const plain = (schema: Schema) => Object.keys(schema).every((key) => INDEPENDENT.has(key) || ANNOTATIONS.has(key));
  return plain(b) ? conjoin([a, b]) : { allOf: [a, b] };
}

/** `{ type: 'null' }`: what a required nested class says beside its `$ref` (`not` that). */
function refusesNullOnly(schema: unknown): boolean {
  return isSchema(schema) && Object.keys(schema).length === 1 && schema.type === 'null';
}

function matchesPattern(patterns: unknown, key: string): boolean {
  if (!isSchema(patterns)) return false;
  return Object.keys(patterns).some((pattern) => {
    try {
      return new RegExp(pattern, 'u').test(key);
    } catch {
      return false;
    }
  });
}

function equal(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
