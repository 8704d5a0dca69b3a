/** Every reflect-metadata key the framework writes, in one place. @internal */
export const SERVER_OPTIONS = 'hermes:server';
/** @internal */
export const HANDLERS = 'hermes:handlers';
/** @internal */
export const CTX_PARAM = 'hermes:ctx-param';
/** `@Description` text of a class or property. @internal */
export const DESCRIPTION = Symbol('hermes:description');
/** `@EnumTitles` of an elicitation property. @internal */
export const ENUM_TITLES = Symbol('hermes:enum-titles');
/** `@RequireScopes` of a class or method. @internal */
export const SCOPES = 'hermes:scopes';
/** `@Use` middleware of a class or method. @internal */
export const USE = 'hermes:use';
/** `@Complete` completers of a parameter. @internal */
export const COMPLETE = 'hermes:complete';
