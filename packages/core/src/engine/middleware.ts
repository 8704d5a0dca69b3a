/**
 * Middleware: `(ctx, next) => result`, wrapped around a handler like an onion — server-level
 * first, then class-level, then method-level (`@Use`). `next()` runs the rest and resolves with the
 * handler's return value; a guard is middleware that throws (`ToolError`, `McpError`) instead.
 */
import 'reflect-metadata';
import { Constructor, DependencyContainer, instantiate } from '../container';
import type { McpContext } from '../context/mcp-context';
import { HermesError } from '../errors';
import { USE } from '../metadata/keys';
import type { McpMiddleware, Middleware, MiddlewareLike } from '../metadata/options';

/** The middleware `@Use` put on a class (with its base classes) or on one of its methods. @internal */
export function middlewareOf(cls: Function, method?: string): MiddlewareLike[] {
  if (method !== undefined) return (Reflect.getMetadata(USE, cls, method) as MiddlewareLike[] | undefined) ?? [];
  const chain: MiddlewareLike[][] = [];
  for (let c: Function | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    const own = Reflect.getOwnMetadata(USE, c) as MiddlewareLike[] | undefined;
    if (own) chain.unshift(own);
  }
  return chain.flat();
}

/** Resolves middleware classes to instances, once, at bootstrap. @internal */
export function resolveMiddleware(list: readonly MiddlewareLike[], container: DependencyContainer, owner: string): Middleware[] {
  return list.map((item) => {
    if (typeof item !== 'function') throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: middleware must be a function or a class with a use(ctx, next) method.`);
    if (typeof (item.prototype as Partial<McpMiddleware> | undefined)?.use === 'function') {
      const instance = instantiate(item as Constructor<McpMiddleware>, container);
      return (ctx, next) => instance.use(ctx, next);
    }
    return item as Middleware;
  });
}

/** Wraps `call` in the middleware, outermost first; no middleware → `call` itself. @internal */
export function compose(middleware: readonly Middleware[], call: (input: unknown, ctx: McpContext) => unknown): (input: unknown, ctx: McpContext) => unknown {
  if (middleware.length === 0) return call;
  return (input, ctx) => {
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that a middleware that throws rejects
    const run = async (index: number): Promise<unknown> => {
      if (index === middleware.length) return call(input, ctx);
      let called = false;
      return middleware[index](ctx, () => {
        if (called) return Promise.reject(new Error('next() called more than once'));
        called = true;
        return run(index + 1);
      });
    };
    return run(0);
  };
}
