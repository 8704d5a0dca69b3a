/**
 * Small helpers over JSON Schema objects, shared by the schema builder and its rule converters:
 * annotations kept apart from constraints, `null` let through, frozen results.
 */

/** A JSON Schema object (or a part of one) while it is being built. */
export type Schema = Record<string, unknown>;

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // no `\-`: invalid with the `u` flag
}

/** Keywords that describe rather than constrain: they stay outside the `anyOf`. */
export const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated']);

/**
 * Lets `null` through as well. `anyOf` rather than `type: [t, 'null']`: it works for `$ref`,
 * `enum` and `not` alike, and strict validators (Ajv's strictTypes) accept it.
 */
export function orNull(schema: Schema): Schema {
  const [annotations, rest] = splitAnnotations(schema);
  const keys = Object.keys(rest);
  const takesNull = keys.length === 0 || (keys.length === 1 && Array.isArray(rest.enum) && rest.enum.includes(null));
  if (takesNull) return schema; // `{}`, or @IsEmpty's enum
  return { anyOf: [rest, { type: 'null' }], ...annotations };
}

/** A schema's annotations ({@link ANNOTATIONS}), and the rest. */
export function splitAnnotations(schema: Schema): [Schema, Schema] {
  const annotations: Schema = {};
  const rest: Schema = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.has(key) ? annotations : rest)[key] = value;
  return [annotations, rest];
}

/** True for a JSON object (a schema or a part of one). @internal */
export function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Freezes a value and everything in it. @internal */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
