/** Every reflect-metadata key the framework writes; kept in one place. @internal */
export const SERVER_OPTIONS = 'hermes:server';
/** @internal */
export const HANDLERS = 'hermes:handlers';
/** @internal */
export const CTX_PARAM = 'hermes:ctx-param';
