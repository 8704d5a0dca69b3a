import 'reflect-metadata';
import { COMPLETE } from '../metadata/keys';
import type { CompleteFn } from '../metadata/options';

/**
 * Gives a prompt argument or template variable a completion function.
 *
 * @example
 * class TripArgs {
 *   \@Complete((value) => CITIES.filter((c) => c.startsWith(value)))
 *   \@IsString() city!: string;
 * }
 */
export function Complete(fn: CompleteFn): PropertyDecorator {
  return (target, property) => {
    const own: Record<string, CompleteFn> = { ...((Reflect.getOwnMetadata(COMPLETE, target.constructor) as Record<string, CompleteFn> | undefined) ?? {}) };
    own[String(property)] = fn;
    Reflect.defineMetadata(COMPLETE, own, target.constructor);
  };
}
