import 'reflect-metadata';
import { onFirstUse } from '@hermes-mcp/protocol';
import type * as JsonSchemaLibrary from 'class-validator-jsonschema';
import { DESCRIPTION } from '../metadata/keys';

/**
 * Our own metadata key, not class-validator-jsonschema's: `@JSONSchema` keeps one object per
 * property, so a `@Description` written on top of it would erase (or be erased by) a `@JSONSchema`
 * on the same property. Stored apart, both apply.
 */

/**
 * Describes a property (or a whole class) for the model: the text becomes `description` in the
 * JSON Schema built from the class, and in the MCP prompt arguments. It only records metadata.
 *
 * Only properties that carry a class-validator decorator reach the schema (others are stripped on
 * input), so pair it with one. When both this and `@JSONSchema({ description })` are present, this
 * one wins. For other keywords (`examples`, `title`...) use {@link JSONSchema}.
 *
 * @example
 * \@Description('Arguments of a weather forecast')
 * class ForecastInput {
 *   \@Description('City name, e.g. "Paris"') \@IsString() city!: string;
 * }
 */
export function Description(text: string): ClassDecorator & PropertyDecorator {
  return (target: object, property?: string | symbol): void => {
    if (property === undefined) Reflect.defineMetadata(DESCRIPTION, text, target);
    else Reflect.defineMetadata(DESCRIPTION, text, target, property);
  };
}

/** class-validator-jsonschema, loaded when a class first uses `@JSONSchema` or a schema is first built. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
const jsonSchemaLibrary = onFirstUse(() => require('class-validator-jsonschema') as typeof JsonSchemaLibrary);

/**
 * class-validator-jsonschema's decorator, passed through so users need no direct dependency on it:
 * merges any JSON Schema keywords into a property's (or class's) schema. The library is loaded
 * when the first class uses it, not with Hermes.
 *
 * @example
 * class SearchInput {
 *   \@JSONSchema({ examples: [10, 50] }) \@IsInt() \@Max(100) limit!: number;
 * }
 */
export function JSONSchema(schema: Parameters<typeof JsonSchemaLibrary.JSONSchema>[0]): ReturnType<typeof JsonSchemaLibrary.JSONSchema> {
  return jsonSchemaLibrary().JSONSchema(schema);
}
