/**
 * What class-transformer does to an input before class-validator sees it, said in the published
 * schema. `plainToInstance` reads a property under its `@Expose({ name })`, drops an `@Exclude()`d
 * key, converts a value with `@Type(() => Number | Boolean | String)` and runs `@Transform`
 * functions; the rules then judge what came out. The schema builder (schema-builder.ts) converts
 * the rules; this file turns their schema into one of the input as it arrives.
 *
 * - `@Expose({ name: 'x' })`: the property is published as `x` (the builder's probe says whether
 *   `x` is required). An input that also carries the class's own name for it is read in key order
 *   (the later key wins), which no schema can say: looser, warned.
 * - `@Exclude()`: the key is dropped, so it is not published; a closed schema (`forbidNonWhitelisted`)
 *   still lets it through, as the server does. Rules that refuse a missing value then refuse every
 *   input: warned (an output class may require what it excludes).
 * - `@Type(() => Boolean)`: `Boolean(value)` — exact, by asking the rules about `true` and `false`.
 * - `@Type(() => Number)`: `Number(value)`, which reads strings ("5", " 5 ", "", "0x10", "1e3")
 *   and booleans. The number rules first, then a string of Number's grammar, then the booleans the
 *   rules take: looser (a string's value is not bounded: "1e400" is Infinity), warned.
 * - `@Type(() => String)`: `String(value)`: the string rules first, then the other JSON types,
 *   looser unless the rules take what String() makes of them, warned.
 * - `@Transform(fn)`: the function is code: `{}`, looser, warned.
 * - A discriminator (`@Type(() => Base, { discriminator })`): a `oneOf` of the subtypes, each with
 *   the discriminator property `const` its name, and of `Base` for any other name.
 */
import { transformerMetadata } from '../interop/class-transformer';
import { PLAIN_TO_CLASS } from '../interop/transformer-library';

type Schema = Record<string, unknown>;

/** What validation checks that the schema does not say, for a `HERMES_SCHEMA_LOOSER` warning. */
export interface Looser {
  readonly rule: string;
  readonly reason: string;
}

/** The keys of an input a class reads, and those it drops or may read in place of another. */
export interface InputKeys {
  /** Published key (as class-validator-jsonschema named it: the `@Expose` name) → property name. */
  readonly properties: Map<string, string>;
  /** Keys the server ignores (an `@Exclude`d property) or reads in key order (a renamed property's own name). */
  readonly ignored: string[];
  /** Per property: the rename that makes an input with both keys depend on their order. */
  readonly looser: Map<string, Looser>;
}

/**
 * The input keys of `cls` for the keys its converted schema has (`converted`, class-validator-
 * jsonschema's names) and the properties its rules name (`ruled`, which an `@Exclude` may have
 * left out of `converted`). An `@Expose` or `@Exclude` that applies only to output (`toPlainOnly`)
 * changes nothing on the way in.
 */
export function inputKeysOf(cls: Function, converted: string[], ruled: string[]): InputKeys {
  const renamed = new Map<string, string>();
  for (const expose of transformerMetadata().getExposedMetadatas(cls)) {
    const name = expose.options?.name;
    if (name !== undefined && expose.propertyName !== undefined && name !== expose.propertyName && !expose.options.toPlainOnly) renamed.set(name, expose.propertyName);
  }
  const properties = new Map<string, string>();
  const ignored = [...new Set(ruled)].filter((property) => excludedOnInput(cls, property));
  const looser = new Map<string, Looser>();
  for (const key of converted) {
    const property = renamed.get(key) ?? key;
    if (excludedOnInput(cls, property)) continue;
    properties.set(key, property);
    if (property !== key) {
      ignored.push(property);
      looser.set(property, {
        rule: `@Expose({ name: '${key}' })`,
        reason: `an input that carries both \`${key}\` and \`${property}\` (class-transformer reads whichever comes later)`,
      });
    }
  }
  return { properties, ignored, looser };
}

/** True when `plainToInstance` drops the property's key (`@Exclude()`, not `toPlainOnly`). */
function excludedOnInput(cls: Function, property: string): boolean {
  const exclude = transformerMetadata().findExcludeMetadata(cls, property);
  return exclude !== undefined && exclude.options?.toPlainOnly !== true;
}

/**
 * The `@Exclude()`d properties whose rules refuse a missing value: their key is dropped from every
 * input, so no input passes, which the schema (without them) does not say. Warned rather than
 * refused: an output class may exclude a field it requires (`instanceToPlain` drops it too).
 */
export function requiredExcluded(cls: Function, ignored: string[], required: Set<string>): Map<string, Looser> {
  const out = new Map<string, Looser>();
  for (const property of ignored) {
    if (required.has(property) && excludedOnInput(cls, property)) {
      out.set(property, { rule: '@Exclude()', reason: 'that no input passes (the key is dropped from every input, and the rules refuse a missing value; add @IsOptional())' });
    }
  }
  return out;
}

/**
 * The schema of a property as it arrives, given the schema of its rules (`ruled`) and `accepts`,
 * which says whether the rules take a value once converted. `looser` when the result takes more
 * than validation does.
 */
export function convertedProperty(cls: Function, property: string, ruled: Schema, accepts: (value: unknown) => boolean): { schema: Schema; looser?: Looser } {
  if (transformerMetadata().findTransformMetadatas(cls, property, PLAIN_TO_CLASS).length > 0) {
    return { schema: {}, looser: { rule: '@Transform()', reason: 'what the @Transform function takes (its code runs before the rules)' } };
  }
  let type: unknown;
  try {
    type = transformerMetadata().findTypeMetadata(cls, property)?.typeFunction();
  } catch {
    return { schema: ruled }; // a type function that needs the object being transformed
  }
  const convert = type === Number ? toNumber : type === Boolean ? toBoolean : type === String ? toText : undefined;
  if (!convert) return { schema: ruled };
  // class-transformer converts each element of an array (`each: true` rules), and a lone value
  // itself: an `each: true` schema that takes either (class-properties.ts) is converted branch by branch.
  const convertArray = (array: Schema): { schema: Schema; looser?: Looser } => {
    const items = convert(array.items as Schema, accepts);
    return { schema: { ...array, items: items.schema }, ...(items.looser && { looser: items.looser }) };
  };
  if (isArraySchema(ruled)) return convertArray(ruled);
  const branches = ruled.anyOf;
  if (Array.isArray(branches) && branches.length === 2 && isObject(branches[0]) && !isArraySchema(branches[0]) && isArraySchema(branches[1] as Schema)) {
    const one = convert(branches[0], accepts);
    const many = convertArray(branches[1] as Schema);
    const looser = one.looser ?? many.looser;
    return { schema: { ...ruled, anyOf: [one.schema, many.schema] }, ...(looser && { looser }) };
  }
  return convert(ruled, accepts);
}

/** An array schema whose elements have a schema of their own. */
function isArraySchema(schema: Schema): boolean {
  return schema.type === 'array' && isObject(schema.items);
}

type Conversion = (ruled: Schema, accepts: (value: unknown) => boolean) => { schema: Schema; looser?: Looser };

/** JSON's values that `Boolean()` makes false (-0 is 0 in JSON). */
const FALSY = [false, 0, ''];

/** `Boolean(value)` for every JSON value but null (kept) and arrays (class-transformer converts their elements instead): the rules are asked about its two results. */
const toBoolean: Conversion = (_ruled, accepts) => {
  const truthy = accepts(true);
  const falsy = accepts(false);
  if (truthy && falsy) return { schema: { anyOf: [{ type: 'boolean' }, { type: 'number' }, { type: 'string' }, { type: 'object' }] } };
  if (truthy) return { schema: { anyOf: [{ const: true }, { type: 'number', not: { const: 0 } }, { type: 'string', minLength: 1 }, { type: 'object' }] } };
  if (falsy) return { schema: { enum: FALSY } };
  return { schema: { not: {} } };
};

/** JavaScript's white space and line terminators, which `Number()` trims (written out: `\s` differs between regex engines). */
const SPACE = '[\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';

/**
 * The strings `Number()` reads as a number: a decimal (exponent and `Infinity` included, signed),
 * a hexadecimal, octal or binary integer, or nothing (0), within white space.
 */
export const NUMBER_TEXT = `^${SPACE}*(?:[+-]?(?:Infinity|(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)?${SPACE}*$`;

/** Strings the pattern takes, whose numbers the rules may refuse (then the schema is looser). */
const NUMBER_SAMPLES = ['', '0', '1', '-1', '0.5', '-0.5', '1e3', '0x10', '1e400', '-1e400', 'Infinity'];

/** `Number(value)`: numbers as the rules say, then strings of Number's grammar, then the booleans whose number the rules take. */
const toNumber: Conversion = (ruled, accepts) => {
  const booleans = [true, false].filter((value) => accepts(Number(value)));
  return {
    schema: { anyOf: [ruled, { type: 'string', pattern: NUMBER_TEXT }, ...(booleans.length > 0 ? [{ enum: booleans }] : [])] },
    ...(!NUMBER_SAMPLES.every((text) => accepts(Number(text))) && {
      looser: { rule: '@Type(() => Number)', reason: 'the value of a string that Number() reads (the rules judge the number it makes)' },
    }),
  };
};

/** What `String()` makes of numbers, for the rules to judge. */
const TEXT_SAMPLES = ['0', '-1', '1.5', '1e+21', '-1e-7'];

/** `String(value)`: strings as the rules say, then the booleans and objects whose text the rules take, then numbers. */
const toText: Conversion = (ruled, accepts) => {
  const booleans = [true, false].filter((value) => accepts(String(value)));
  const objects = accepts('[object Object]');
  const numbers = TEXT_SAMPLES.every((text) => accepts(text));
  return {
    schema: { anyOf: [ruled, ...(booleans.length > 0 ? [{ enum: booleans }] : []), ...(objects ? [{ type: 'object' }] : []), { type: 'number' }] },
    ...(!numbers && { looser: { rule: '@Type(() => String)', reason: 'the text String() makes of a number (the rules judge the string it makes)' } }),
  };
};

/**
 * `@Type(() => Base, { discriminator: { property, subTypes }, keepDiscriminatorProperty })`: an
 * object whose `property` is a subtype's name is built as that subtype (the first listed, when two
 * share a name); any other object as `Base`. Published as `oneOf` (the branches cannot overlap):
 * each subtype with `property` its name, then `Base` with `property` none of them or absent.
 * Without `keepDiscriminatorProperty`, class-transformer deletes `property` before validation, so
 * `dropped` names the classes whose schema must not judge it (the builder leaves it out of their
 * `$defs`, lets it through their closed schema, and makes a class that requires it refuse all).
 */
export function discriminatedSchema(target: Function, property: string, refTo: (cls: Function) => string): { schema: Schema; dropped: Function[]; key: string } | undefined {
  const meta = transformerMetadata().findTypeMetadata(target, property);
  const discriminator = meta?.options?.discriminator;
  if (!meta || !discriminator?.property || !Array.isArray(discriminator.subTypes)) return undefined;
  let base: unknown;
  try {
    base = meta.typeFunction();
  } catch {
    return undefined;
  }
  const key = discriminator.property;
  const seen = new Map<string, Function>();
  for (const subType of discriminator.subTypes) if (!seen.has(subType.name)) seen.set(subType.name, subType.value);
  const branches: Schema[] = [...seen].map(([name, cls]) => ({ type: 'object', $ref: refTo(cls), properties: { [key]: { const: name } }, required: [key] }));
  const classes = [...seen.values()];
  if (typeof base === 'function') {
    branches.push({ type: 'object', $ref: refTo(base), not: { properties: { [key]: { enum: [...seen.keys()] } }, required: [key] } });
    classes.push(base);
  }
  return { schema: { oneOf: branches }, dropped: meta.options.keepDiscriminatorProperty ? [] : classes, key };
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The class `@Type(() => X)` names for a property, if any.
 *
 * @internal
 */
export function nestedClassOf(target: Function, property: string): Function | undefined {
  const meta = transformerMetadata().findTypeMetadata(target, property);
  try {
    const type = meta?.typeFunction();
    return typeof type === 'function' ? type : undefined;
  } catch {
    return undefined; // a type function that needs the object being transformed
  }
}
