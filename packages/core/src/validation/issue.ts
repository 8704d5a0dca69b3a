/**
 * The one shape of a validation problem, shared by the validator and the declared-shape check
 * (declared-shape.ts) that runs before it.
 */

/**
 * One problem with the input. `path` names the field: `city`, `address.city`, `items[2].name`;
 * it is `''` for the input itself (not an object, or unreadable). `constraints` maps each failed
 * class-validator constraint (`isString`, `minLength`, `whitelistValidation`...) to its message,
 * as messages.ts says it (`items[2].name is required: a string`; a message the user wrote, as
 * written). Constraints that failed for one reason share one message.
 */
export interface ValidationIssue {
  path: string;
  constraints: Record<string, string>;
}
