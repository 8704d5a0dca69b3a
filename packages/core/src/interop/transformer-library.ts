/**
 * class-transformer itself, and its one constant Hermes reads without it. A module of its own, with
 * no imports of Hermes': every module that transforms reaches it without reaching the others.
 */
import { onFirstUse } from '@hermes-mcp/protocol';
import type * as ClassTransformer from 'class-transformer';
import type { TransformationType } from 'class-transformer';

/**
 * class-transformer itself, loaded when first used: by the first input transformed (a tool call),
 * a schema built, or a self-check run. A start whose schemas come from the cache reads only its
 * storage (internals(), two small modules) and never loads the library (35 modules, 4-6 ms).
 *
 * @internal
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
export const transformerLibrary = onFirstUse(() => require('class-transformer') as typeof ClassTransformer);

/** class-transformer's `TransformationType.PLAIN_TO_CLASS` (0): its own value, without loading the library. */
export const PLAIN_TO_CLASS = 0 as TransformationType.PLAIN_TO_CLASS;
