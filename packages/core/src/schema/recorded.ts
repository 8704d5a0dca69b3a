/**
 * What the schema decorators (decorators/description.decorator.ts, mcp-header.decorator.ts)
 * recorded on a class, read back for the schema builder and validation.
 */
import 'reflect-metadata';
import { DESCRIPTION, MCP_HEADER } from '../metadata/keys';

/** The JSON Schema keyword clients read the header name from. @internal */
export const X_MCP_HEADER = 'x-mcp-header';

/**
 * The description recorded by {@link Description} on a class (no `property`) or on one of its
 * properties (inherited from a parent class when the property is).
 *
 * @internal
 */
export function descriptionOf(cls: Function, property?: string): string | undefined {
  return property === undefined
    ? (Reflect.getOwnMetadata(DESCRIPTION, cls) as string | undefined)
    : (Reflect.getMetadata(DESCRIPTION, cls.prototype as object, property) as string | undefined);
}

/**
 * The header name {@link McpHeader} gave a property of `cls` (or of a base class it inherits the
 * property from).
 *
 * @internal
 */
export function headerOf(cls: Function, property: string): string | undefined {
  return Reflect.getMetadata(MCP_HEADER, cls.prototype as object, property) as string | undefined;
}
