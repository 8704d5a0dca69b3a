/**
 * The one file that talks to typedi. Everything else asks this module for instances, so the
 * container can be swapped without touching the framework.
 */
import { Container, ContainerInstance } from 'typedi';
import { HermesError } from './errors';

/** A class that can be constructed (the shape typedi and our decorators work with). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Constructor<T = unknown> = new (...args: any[]) => T;

/** The container classes are built from: typedi's default one unless the app names another. */
export type DependencyContainer = ContainerInstance;

/** typedi's global container. */
export function defaultContainer(): DependencyContainer {
  return Container.of();
}

/**
 * A container of its own: classes registered with `@Service()` are built anew in it the first time
 * it is asked for them, so their instances are not shared with the global container or any other
 * (a test's server gets fresh services). Not kept in typedi's list of containers: it is garbage
 * once unused.
 *
 * @example
 * const app = McpFactory.create(NotesServer, { container: isolatedContainer('notes-test') });
 */
export function isolatedContainer(name: string): DependencyContainer {
  return new ContainerInstance(name);
}

/**
 * Builds (or returns the existing) instance of `cls`, with constructor injection. A class that was
 * never registered with `@Service()` is registered here, so `@McpServer` and component classes need
 * no second decorator; their own dependencies still need `@Service()` (typedi's rule).
 */
export function instantiate<T>(cls: Constructor<T>, container: DependencyContainer = defaultContainer()): T {
  assertParameterTypes(cls);
  if (!container.has(cls)) container.set({ id: cls, type: cls });
  try {
    return container.get(cls);
  } catch (error) {
    // typedi's own messages end with a full stop; ours goes on after it.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/[\s.]+$/, '');
    throw new HermesError(
      'HERMES_CONSTRUCTION_FAILED',
      `cannot build ${cls.name}: ${reason}. Every class ${cls.name} takes in its constructor must be ` +
        `decorated with @Service() from typedi (or registered with Container.set), and the file must ` +
        `be compiled with emitDecoratorMetadata so the constructor's parameter types are known.`,
      { cause: error },
    );
  }
}

/**
 * typedi builds a class with the parameter types TypeScript recorded for its constructor
 * (`design:paramtypes`, emitted under `emitDecoratorMetadata`). Without them it does not fail: it
 * passes the container itself where the first dependency should be, and the server starts, only
 * for every call to fail later (`this.api.forecast is not a function`). So a constructor that
 * takes parameters and has no recorded types is refused here, at bootstrap, with both ways out.
 */
function assertParameterTypes(cls: Constructor): void {
  if (cls.length === 0 || Reflect.hasMetadata('design:paramtypes', cls)) return;
  throw new HermesError(
    'HERMES_UNRESOLVED_DEPENDENCIES',
    `${cls.name}'s constructor takes parameters, but no decorator metadata says what they are: the ` +
      `file was compiled without emitDecoratorMetadata (tsx, esbuild and Vite never emit it), so ` +
      `typedi cannot tell which services to pass. Either compile it with experimentalDecorators and ` +
      `emitDecoratorMetadata (tsc, or ts-node to run a .ts file directly), or inject explicitly: give ` +
      `${cls.name} a constructor without parameters and each dependency a property, ` +
      `\`@Inject(() => TheService) private readonly service!: TheService;\` (Inject and @Service() from typedi).`,
  );
}
