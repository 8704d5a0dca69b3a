/**
 * The status of every library's fast paths, and the one warning a process logs for each library
 * whose internals Hermes had to stop reading (docs/interop.md).
 */
import { onFirstUse } from '@hermes-mcp/protocol';
import type { Logger } from '../logger';
import { classTransformerStatus } from './class-transformer';
import { classValidatorStatus } from './class-validator';
import type * as JsonSchemaInterop from './class-validator-jsonschema';
import { type InteropStatus, onInteropStatus } from './status';
import { validatorStatus } from './validator';

export type { InteropStatus } from './status';

/** class-validator-jsonschema's interop: loaded with the first schema built, or when its status is asked for. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
const jsonSchemaInterop = onFirstUse(() => require('./class-validator-jsonschema') as typeof JsonSchemaInterop);

/**
 * Which of the fast paths built on library internals are on, and why the others are off (each
 * library is checked once per process, the first time this or one of its fast paths is needed).
 * With a library release that moved what Hermes reads, `fast` is false and `reason` says what:
 * Hermes then uses that library's public API, with the same results, more slowly.
 *
 * @example
 * for (const status of interopStatus()) if (!status.fast) console.warn(status.library, status.reason);
 */
export function interopStatus(): InteropStatus[] {
  return [classValidatorStatus(), classTransformerStatus(), jsonSchemaInterop().jsonSchemaStatus(), validatorStatus()];
}

const reported = new Set<string>();

/**
 * Logs `HERMES_INTEROP_FALLBACK` at warn, once per process and library, for each library whose
 * fast paths are off, as each is checked: the first time one of its fast paths is needed, not
 * before. class-validator's are needed by the first schema read back or built (in
 * `McpFactory.create`), class-transformer's by the first schema built (or read back, once
 * something has loaded it) or the first input validated, validator's and class-validator-jsonschema's by the first
 * schema built that reads them — a start whose schemas all come from the cache checks neither, nor
 * class-transformer's while nothing has loaded it. Libraries checked before this call are
 * reported now; each later one with the logger of the last app created. Called by
 * `McpFactory.create`, with the app's logger.
 *
 * @internal
 */
export function reportInterop(logger: Logger): void {
  onInteropStatus((status) => {
    if (status.fast || reported.has(status.library)) return;
    reported.add(status.library);
    logger.warn(
      { code: 'HERMES_INTEROP_FALLBACK', library: status.library, version: status.version, reason: status.reason },
      `HERMES_INTEROP_FALLBACK: ${status.library} ${status.version}: ${status.reason}. Hermes uses its public API instead: ` +
        `the same schemas and validation, slower bootstrap and validation. Update @hermes-mcp/core, or use the ${status.library} version it was released with.`,
    );
  });
}
