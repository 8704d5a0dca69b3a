import 'reflect-metadata';
import { SERVER_OPTIONS } from '../metadata/keys';
import type { McpServerOptions } from '../metadata/options';

/**
 * Marks the server class. Its `@Tool/@Resource/@Prompt` methods, and those of the `components` it
 * lists, make up the server; typedi builds every class (constructor injection works).
 *
 * @example
 * \@McpServer({ name: 'weather', version: '1.0.0', components: [AlertTools] })
 * export class WeatherServer { constructor(private readonly api: WeatherApi) {} }
 */
export function McpServer(options: McpServerOptions): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(SERVER_OPTIONS, options, target);
  };
}
