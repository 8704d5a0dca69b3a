/**
 * The status of one library's fast paths: on, or off and why. Each interop module works its own
 * out once (shape checks, then the self-check on the canary classes) and reports it in this form.
 */

/** Whether Hermes reads a library's internals (fast) or only its public API (slower, same results). */
export interface InteropStatus {
  /** The npm package: `class-validator`, `class-transformer`, `class-validator-jsonschema`, `validator`. */
  readonly library: string;
  /** Its version as loaded, or `unknown`. */
  readonly version: string;
  /** True while the fast paths built on its internals are in use. */
  readonly fast: boolean;
  /** Why they are not: what was missing, or where they disagreed with the public API. */
  readonly reason?: string;
}

/**
 * The status of `library` given the outcome of its checks: `reason` undefined means they all
 * passed. A check that throws is a failed check, never a failed bootstrap. `HERMES_INTEROP=public`
 * in the environment turns every fast path off without checking (to rule them out, or to test the
 * public paths).
 */
export function statusOf(library: string, check: () => string | undefined, paths?: string[]): InteropStatus {
  // A fast path that asked for its own status while being checked would run the check again, and again.
  if (checking.has(library)) throw new Error(`the self-check of ${library} asked for its own status`);
  checking.add(library);
  let reason: string | undefined;
  try {
    reason = process.env.HERMES_INTEROP === 'public' ? 'HERMES_INTEROP=public asks for the public API only' : check();
  } catch (error) {
    reason = `its self-check threw: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    checking.delete(library);
  }
  const version = versionOf(library, paths);
  return Object.freeze(reason === undefined ? { library, version, fast: true } : { library, version, fast: false, reason });
}

const checking = new Set<string>();

/** One library's switch: its status, worked out once on first use, and whether its fast paths are on. */
export interface FastPathSwitch {
  readonly status: () => InteropStatus;
  readonly fast: () => boolean;
}

/** The {@link FastPathSwitch} of `library`, whose checks are `check` (see {@link statusOf}). */
export function fastPathSwitch(library: string, check: () => string | undefined, paths?: string[]): FastPathSwitch {
  let status: InteropStatus | undefined;
  const get = (): InteropStatus => (status ??= statusOf(library, check, paths));
  return { status: get, fast: () => get().fast };
}

/** The version of `library` as found from `paths` (default: from here). */
function versionOf(library: string, paths?: string[]): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { version } = require(require.resolve(`${library}/package.json`, paths && { paths })) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A value's description for a reason: short, and never a thrown error. */
export function brief(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}
