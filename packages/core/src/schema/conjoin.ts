/**
 * The schema of one property with several rules: what every rule's schema accepts.
 *
 * class-validator-jsonschema deep-merges the rules' schemas (lodash.merge), so two rules that use
 * one keyword keep only the last: `@IsString() @IsNotEmpty() @NotContains(' ')` came out as
 * `not: { enum: ['', null], pattern: ' ' }`, which accepts both '' and 'a b'; `@Length(2, 10)
 * @MaxLength(5)` kept `maxLength: 10`; `@IsNumber() @IsInt()` kept "number"; `@IsUUID()
 * @Matches(...)` kept one pattern. Here a keyword two rules both use is combined so that both
 * hold: bounds tighten, "number" and "integer" make "integer", enums intersect, sub-schemas of
 * `items` and `additionalProperties` combine, anything else goes to `allOf`.
 */
type Schema = Record<string, unknown>;

const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
const SUBSCHEMAS = new Set(['items', 'additionalProperties']);

/** What every one of these schemas accepts; a new object, sharing nothing with them. */
export function conjoin(schemas: ReadonlyArray<Schema | undefined>): Schema {
  let out: Schema = {};
  for (const schema of schemas) if (isObject(schema)) out = both(out, copy(schema) as Schema);
  return out;
}

function both(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  const also: Schema[] = [];
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    const current = out[key];
    if (equal(current, value)) continue;
    if (typeof current === 'number' && typeof value === 'number' && LOWER_BOUNDS.has(key)) out[key] = Math.max(current, value);
    else if (typeof current === 'number' && typeof value === 'number' && UPPER_BOUNDS.has(key)) out[key] = Math.min(current, value);
    else if (SUBSCHEMAS.has(key) && isObject(current) && isObject(value)) out[key] = both(current, value);
    else if (key === 'type' && isNumeric(current) && isNumeric(value)) out[key] = 'integer';
    else if (key === 'type')
      also.push({ not: {} }); // a string that is a number: nothing is both
    else if (key === 'enum' && Array.isArray(current) && Array.isArray(value)) {
      const common = current.filter((x) => value.some((y) => equal(x, y)));
      if (common.length > 0) out[key] = common;
      else also.push({ not: {} });
    } else if (key === 'allOf' && Array.isArray(current) && Array.isArray(value))
      out[key] = [...(current as unknown[]), ...(value as unknown[]).filter((x) => !(current as unknown[]).some((y) => equal(x, y)))];
    else if (key === 'description' && typeof current === 'string' && typeof value === 'string') out[key] = `${current}; ${value}`;
    else also.push({ [key]: value });
  }
  if (also.length > 0) {
    const all: unknown[] = Array.isArray(out.allOf) ? [...(out.allOf as unknown[])] : [];
    for (const schema of also) if (!all.some((existing) => equal(existing, schema))) all.push(schema);
    out.allOf = all;
  }
  return out;
}

function isNumeric(type: unknown): boolean {
  return type === 'number' || type === 'integer';
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON-like data (schemas made of plain objects, arrays and primitives). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (isObject(value) && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Schema = {};
    for (const [key, item] of Object.entries(value)) out[key] = copy(item);
    return out;
  }
  return value;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && equal(a[key], b[key]));
  }
  return false;
}

const NUMERIC_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/**
 * Gives a `type` to a schema (its `items`, its `anyOf` branches) that has none but whose keywords
 * imply one: bounds mean a number (min/max/isPositive refuse anything else), an enum the type its
 * values share. A rule's schema carries no `type` of its own where another rule may choose it
 * (`@Min(1) @IsInt()` is an integer), so this runs once the rules are combined.
 */
export function withTypes(schema: Schema): Schema {
  const out = { ...schema };
  if (isObject(out.items)) out.items = withTypes(out.items);
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((branch: unknown) => (isObject(branch) ? withTypes(branch) : branch));
  if (out.type === undefined) {
    const type = NUMERIC_KEYWORDS.some((key) => key in out) ? 'number' : Array.isArray(out.enum) ? sharedType(out.enum) : undefined;
    if (type) out.type = type;
  }
  return out;
}

function sharedType(values: unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}
