/**
 * Completions (`completion/complete`): suggestions for a prompt argument or a resource template
 * variable. A `complete` function on the decorator or `@Complete()` on the property provides them;
 * a property with a fixed set of values (`@IsIn`, `@IsEnum`) completes by itself.
 */
import 'reflect-metadata';
import type { CompleteFn, CompletionContext } from '../metadata/options';
import { buildObjectSchema } from '../schema/schema-builder';
import { COMPLETE } from '../metadata/keys';

/**
 * The completion functions of a prompt's arguments or a template's variables: explicit ones from
 * the decorator options, then `@Complete()` on the class, then the enum values of the class's
 * schema. `names` limits them to the template's variables. @internal
 */
export function completersFor(cls: Function | undefined, explicit: Record<string, CompleteFn> | undefined, names?: readonly string[]): Record<string, CompleteFn> {
  const result: Record<string, CompleteFn> = {};
  if (cls) {
    const properties = buildObjectSchema(cls, { nested: 'defs' }).properties ?? {};
    for (const [name, schema] of Object.entries(properties)) {
      const values = enumValues(schema);
      if (values) result[name] = byPrefix(values);
    }
    for (let c: Function | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
      const own = Reflect.getOwnMetadata(COMPLETE, c) as Record<string, CompleteFn> | undefined;
      if (own) for (const [name, fn] of Object.entries(own)) if (!(name in result) || c === cls) result[name] = fn;
    }
  }
  Object.assign(result, explicit);
  if (names) for (const name of Object.keys(result)) if (!names.includes(name)) delete result[name];
  return result;
}

/** Runs a completion function and shapes its answer as MCP's `completion` object. @internal */
export async function complete(fn: CompleteFn | undefined, value: string, ctx: CompletionContext): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
  if (!fn) return { values: [] };
  const all = await fn(value, ctx);
  const values = all.slice(0, 100).map(String);
  return all.length > 100 ? { values, total: all.length, hasMore: true } : { values, total: all.length, hasMore: false };
}

function enumValues(schema: object): string[] | undefined {
  const s = schema as { enum?: unknown[]; anyOf?: object[]; items?: object };
  if (Array.isArray(s.enum)) return s.enum.filter((v) => v !== null).map(String);
  if (Array.isArray(s.anyOf))
    for (const branch of s.anyOf) {
      const found = enumValues(branch);
      if (found) return found;
    }
  return undefined;
}

function byPrefix(values: string[]): CompleteFn {
  return (value) => {
    const lower = value.toLowerCase();
    return values.filter((v) => v.toLowerCase().startsWith(lower));
  };
}
