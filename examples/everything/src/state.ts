import { Service } from 'typedi';

/** What the server observed, so a test (or a curious person) can ask: aborted handlers, roots changes. */
@Service()
export class Observations {
  /** Labels of `slow` calls whose handler saw `ctx.signal.aborted`. */
  readonly aborted: string[] = [];
  /** How many `notifications/roots/list_changed` arrived, and the roots read after the last one. */
  rootsChanges = 0;
  lastRoots: unknown[] = [];
}
