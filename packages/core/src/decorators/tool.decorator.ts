import type { ToolOptions } from '../metadata/options';
import { createHandlerDecorator } from './handler.decorator';

/**
 * Marks a method as an MCP tool. Its first parameter is the input (a class-validator decorated
 * class, validated before the method runs); the second, or any marked `@Ctx()`, is the context.
 *
 * @example
 * \@Tool({ description: 'Add two numbers', annotations: { readOnlyHint: true } })
 * add(input: AddInput) { return input.a + input.b; }
 */
export function Tool(options: ToolOptions = {}): MethodDecorator {
  return createHandlerDecorator('tool', options);
}
