import 'reflect-metadata';
import { CTX_PARAM } from '../metadata/keys';

/**
 * Marks the parameter that receives the request context (`McpContext`). Without it the context is
 * the second parameter (or the parameter typed `McpContext`).
 *
 * @example
 * \@Tool() whoami(\@Ctx() ctx: McpContext) { return ctx.session.clientInfo?.name ?? 'unknown'; }
 */
export function Ctx(): ParameterDecorator {
  return (target, propertyKey, index) => {
    if (propertyKey === undefined) return;
    Reflect.defineMetadata(CTX_PARAM, index, target.constructor, propertyKey);
  };
}
