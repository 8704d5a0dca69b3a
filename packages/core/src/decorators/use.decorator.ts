import { USE, addToListMetadata } from '../metadata/keys';
import type { MiddlewareLike } from '../metadata/options';

/**
 * Wraps every handler of a class, or one method, in middleware.
 *
 * @example
 * const audit: Middleware = async (ctx, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { ctx.log.info({ ms: Date.now() - started }, 'done'); }
 * };
 * \@Use(audit) \@Tool() deleteNote(input: NoteRef) { ... }
 */
export function Use(...middleware: MiddlewareLike[]): ClassDecorator & MethodDecorator {
  return (target: object, property?: string | symbol) => addToListMetadata(USE, middleware, target, property, true);
}
