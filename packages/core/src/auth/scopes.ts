/**
 * OAuth scopes on components: `scopes` on `@Tool`/`@Resource`/`@Prompt`/`@McpServer`, or
 * `@RequireScopes(…)` on a component class or method. They all become one guard in front of the
 * component's middleware: a caller whose `ctx.auth` lacks a scope does not see the component listed
 * (the list guards of middleware.ts) and is refused when calling it with -32012, which HTTP answers
 * 403 with a step-up challenge.
 */
import 'reflect-metadata';
import { McpError } from '@hermes-mcp/protocol';
import type { Middleware } from '../metadata/options';
import { SCOPES } from '../metadata/keys';

/** The `@RequireScopes` of a class (with its base classes), or of one of its methods. @internal */
export function requiredScopesOf(cls: Function, method?: string): string[] {
  if (method !== undefined) return (Reflect.getMetadata(SCOPES, cls, method) as string[] | undefined) ?? [];
  return (Reflect.getMetadata(SCOPES, cls) as string[] | undefined) ?? [];
}

/** True when the scopes granted cover every one required. */
export function hasScopes(granted: readonly string[] | undefined, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (!granted) return false;
  for (const scope of required) if (!granted.includes(scope)) return false;
  return true;
}

/** The scopes of all the lists, each once, in the order first named. @internal */
export function unionOfScopes(...lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const scope of list ?? []) all.add(scope);
  return [...all];
}

/** The guard in front of a component that needs `scopes`: -32012 for a caller without them. @internal */
export function scopeGuard(scopes: readonly string[], what: string): Middleware {
  return (ctx, next) => {
    if (!hasScopes(ctx.auth?.scopes, scopes)) throw McpError.insufficientScope(scopes, what);
    return next();
  };
}
