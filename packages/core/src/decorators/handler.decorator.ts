import 'reflect-metadata';
import { HANDLERS } from '../metadata/keys';
import type { HandlerKind, HandlerMetadata } from '../metadata/options';

/**
 * The factory behind `@Tool`, `@Resource` and `@Prompt`: a decorator that only records metadata.
 * @internal
 */
export function createHandlerDecorator<O extends object>(kind: HandlerKind, options: O): MethodDecorator {
  return (target, propertyKey) => {
    const ctor = target.constructor;
    const entry = { kind, method: String(propertyKey), options } as HandlerMetadata;
    // Appended in place: copying the list for every method made a class of N handlers cost N².
    const own = Reflect.getOwnMetadata(HANDLERS, ctor) as HandlerMetadata[] | undefined;
    if (own) own.push(entry);
    else Reflect.defineMetadata(HANDLERS, [entry], ctor);
  };
}
