/**
 * A reason a skill is not served: the rule it breaks, under its error code. The catalog collects
 * them per skill; a folder skill with one is skipped with a warning (or fails the build under
 * `strict`), a skill given in code fails it always.
 */
import type { HermesErrorCode } from '../errors';

/** One broken rule of one skill. For the Hermes packages. */
export class SkillProblem extends Error {
  constructor(
    /** `HERMES_SKILL_INVALID`, `HERMES_SKILL_UNSAFE` or `HERMES_SKILL_TOO_LARGE`. */
    readonly code: Extract<HermesErrorCode, 'HERMES_SKILL_INVALID' | 'HERMES_SKILL_UNSAFE' | 'HERMES_SKILL_TOO_LARGE'>,
    message: string,
  ) {
    super(message);
    this.name = 'SkillProblem';
  }
}
