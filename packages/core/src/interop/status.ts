/**
 * The status of one library's fast paths: on, or off and why. Each interop module works its own
 * out once (shape checks, then the self-check on the canary classes) and reports it in this form.
 */
import * as path from 'node:path';
import type * as CanaryModule from './canary';
import { cachedVerdict } from './verdict-cache';

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
 * public paths). A pass is kept on disk for the code it was worked out on (verdict-cache.ts), so a
 * later process on the same installed code does not check again. `checker` is the module that
 * checks (its `__filename`; undefined where a bundle has none, as in a worker: then nothing is kept).
 */
export function statusOf(library: string, check: () => string | undefined, checker: string | undefined, paths?: string[]): InteropStatus {
  // A fast path that asked for its own status while being checked would run the check again, and again.
  if (checking.has(library)) throw new Error(`the self-check of ${library} asked for its own status`);
  checking.add(library);
  const root = rootOf(library, paths);
  let reason: string | undefined;
  try {
    reason = process.env.HERMES_INTEROP === 'public' ? 'HERMES_INTEROP=public asks for the public API only' : cachedVerdict(library, root, checker, check);
  } catch (error) {
    reason = `its self-check threw: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    checking.delete(library);
  }
  const version = versionOf(root);
  return Object.freeze(reason === undefined ? { library, version, fast: true } : { library, version, fast: false, reason });
}

const checking = new Set<string>();

/** One library's switch: its status, worked out once on first use, and whether its fast paths are on. */
export interface FastPathSwitch {
  readonly status: () => InteropStatus;
  readonly fast: () => boolean;
}

/** Every status worked out so far in this process, and who is told of the ones worked out from now on (report.ts). */
const workedOut: InteropStatus[] = [];
let tell: ((status: InteropStatus) => void) | undefined;

/**
 * Calls `listener` with every library status worked out so far, then with each one worked out
 * later (a library is checked the first time one of its fast paths is needed, which may be after
 * bootstrap). The last listener given is the one told. @internal
 */
export function onInteropStatus(listener: (status: InteropStatus) => void): void {
  tell = listener;
  for (const status of workedOut) listener(status);
}

/** The {@link FastPathSwitch} of `library`, whose checks are `check` in the module `checker` (see {@link statusOf}). */
export function fastPathSwitch(library: string, check: () => string | undefined, checker: string | undefined, paths?: string[]): FastPathSwitch {
  let status: InteropStatus | undefined;
  const get = (): InteropStatus => {
    if (status === undefined) {
      status = statusOf(library, check, checker, paths);
      workedOut.push(status);
      tell?.(status);
    }
    return status;
  };
  return { status: get, fast: () => get().fast };
}

/** The folder of `library` (where its package.json is) as found from `paths` (default: from here), if it is found. @internal */
export function rootOf(library: string, paths?: string[]): string | undefined {
  try {
    return path.dirname(require.resolve(`${library}/package.json`, paths && { paths }));
  } catch {
    return undefined;
  }
}

/** The version of the library in `root`. */
function versionOf(root: string | undefined): string {
  if (root === undefined) return 'unknown';
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { version } = require(path.join(root, 'package.json')) as { version?: unknown };
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

/**
 * The canary classes (canary.ts), decorated now if they were not yet. Its module is loaded here, by
 * a self-check, and not with core: a start whose verdicts were kept (verdict-cache.ts) never loads it.
 */
export function canaryClasses(): ReturnType<typeof CanaryModule.canary> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./canary') as typeof CanaryModule).canary();
}
