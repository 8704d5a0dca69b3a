import 'reflect-metadata';
/** Every reflect-metadata key the framework writes, in one place. @internal */
export const SERVER_OPTIONS = 'hermes:server';
/** @internal */
export const HANDLERS = 'hermes:handlers';
/** `@Skill` methods of a class. @internal */
export const SKILL_METHODS = 'hermes:skills';
/** @internal */
export const CTX_PARAM = 'hermes:ctx-param';
/** `@Description` text of a class or property. @internal */
export const DESCRIPTION = Symbol('hermes:description');
/**
 * `@McpHeader` of a property. Our own key, as for `@Description`: `@JSONSchema` keeps one value per
 * property. @internal
 */
export const MCP_HEADER = Symbol('hermes:mcp-header');
/** `@EnumTitles` of an elicitation property. @internal */
export const ENUM_TITLES = Symbol('hermes:enum-titles');
/** `@RequireScopes` of a class or method. @internal */
export const SCOPES = 'hermes:scopes';
/** `@Use` middleware of a class or method. @internal */
export const USE = 'hermes:use';
/** `@Complete` completers of a parameter. @internal */
export const COMPLETE = 'hermes:complete';

/**
 * Adds `values` to the list kept under `key` on a class (`property` undefined) or on one of its
 * methods: for decorators that may be stacked (`@Use`, `@RequireScopes`). `first` puts them
 * before what is there (decorators apply bottom-up, so the topmost comes first). @internal
 */
export function addToListMetadata(key: string, values: readonly unknown[], target: object, property: string | symbol | undefined, first: boolean): void {
  const holder = property === undefined ? target : (target as { constructor: Function }).constructor;
  const name = property === undefined ? undefined : String(property);
  const existing = ((name === undefined ? Reflect.getOwnMetadata(key, holder) : Reflect.getOwnMetadata(key, holder, name)) as unknown[] | undefined) ?? [];
  const list = first ? [...values, ...existing] : [...existing, ...values];
  if (name === undefined) Reflect.defineMetadata(key, list, holder);
  else Reflect.defineMetadata(key, list, holder, name);
}
