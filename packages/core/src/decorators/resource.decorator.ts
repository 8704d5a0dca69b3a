import type { ResourceOptions } from '../metadata/options';
import { createHandlerDecorator } from './handler.decorator';

/**
 * Marks a method as an MCP resource. A `uri` with `{var}` parts makes it a resource template; the
 * variables are passed as the first parameter (validated into `params:` or the parameter's class).
 *
 * @example
 * \@Resource({ uri: 'notes://note/{id}', mimeType: 'text/markdown' })
 * note(params: NoteParams) { return this.notes.get(params.id); }
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return createHandlerDecorator('resource', options);
}
