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
    const own: HandlerMetadata[] = Reflect.hasOwnMetadata(HANDLERS, ctor) ? Reflect.getOwnMetadata(HANDLERS, ctor) : [];
    Reflect.defineMetadata(HANDLERS, [...own, { kind, method: String(propertyKey), options }], ctor);
  };
}
