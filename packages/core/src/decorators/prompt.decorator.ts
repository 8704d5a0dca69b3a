import type { PromptOptions } from '../metadata/options';
import { createHandlerDecorator } from './handler.decorator';

/**
 * Marks a method as an MCP prompt. Its arguments class becomes the prompt's `arguments` list and
 * is validated on `prompts/get` (invalid → -32602). Return a string, messages, or a full result.
 *
 * @example
 * \@Prompt({ description: 'Plan a trip' })
 * plan(args: PlanArgs) { return `Plan a trip to ${args.city}`; }
 */
export function Prompt(options: PromptOptions = {}): MethodDecorator {
  return createHandlerDecorator('prompt', options);
}
