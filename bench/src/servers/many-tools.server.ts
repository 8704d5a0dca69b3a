/**
 * Bootstrap at scale: a server class with 1,000 `@Tool` methods, each with its own validated input
 * class, served over HTTP with `pageSize: 1000` so one `tools/list` returns them all.
 *
 * Writing 1,000 methods by hand would not change what runs: the class is built in a loop and
 * decorated with `Reflect.decorate` and `design:*` metadata, which is exactly what tsc emits for
 * `@IsNumber() a!: number` and `@Tool(...) toolN(input: InputN) {...}`. It reports, over IPC, how
 * long each step took (ms): `load` (process start to the first line of `main`: Node, Fastify,
 * class-validator, Hermes), `decorate` (the classes defined), `create` (`McpFactory.create`: scan,
 * schemas), `serve` (plugin registered and listening).
 */
import { performance } from 'node:perf_hooks';
import 'reflect-metadata';
import { IsNumber, IsOptional, IsString, Length, Min } from 'class-validator';
import Fastify from 'fastify';
import { McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { announce, fail, tieToRunner } from './lifeline';

/** How many tools the server has. */
export const TOOL_COUNT = 1000;

type Decorator = PropertyDecorator & MethodDecorator & ClassDecorator;

function decorateProperty(target: object, key: string, type: Function, ...decorators: PropertyDecorator[]): void {
  Reflect.decorate([...(decorators as Decorator[]), Reflect.metadata('design:type', type)], target, key, undefined);
}

/** The server class: tool_0 … tool_999, each taking its own input class (two numbers and an optional note). */
function buildServerClass(count: number): Function {
  class ManyTools {}
  const proto = ManyTools.prototype as unknown as Record<string, unknown>;
  for (let i = 0; i < count; i++) {
    class Input {}
    Object.defineProperty(Input, 'name', { value: `Tool${i}Input` });
    decorateProperty(Input.prototype, 'a', Number, IsNumber());
    decorateProperty(Input.prototype, 'b', Number, IsNumber(), Min(0));
    decorateProperty(Input.prototype, 'note', String, IsOptional(), IsString(), Length(1, 40));
    const name = `tool_${i}`;
    proto[name] = function (input: { a: number; b: number }) {
      return input.a + input.b + i;
    };
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    const decorated = Reflect.decorate(
      [
        Tool({ description: `Tool number ${i}: adds two numbers and ${i}` }),
        Reflect.metadata('design:type', Function),
        Reflect.metadata('design:paramtypes', [Input]),
        Reflect.metadata('design:returntype', Number),
      ],
      proto,
      name,
      descriptor,
    );
    if (decorated) Object.defineProperty(proto, name, decorated);
  }
  return Reflect.decorate([McpServer({ name: 'bench-many-tools', version: '1.0.0' })], ManyTools);
}

async function main(): Promise<void> {
  tieToRunner();
  const t0 = performance.now();
  const serverClass = buildServerClass(TOOL_COUNT);
  const t1 = performance.now();
  const mcp = McpFactory.create(serverClass as new () => object, { logger: createLogger({ level: 'silent' }), pageSize: TOOL_COUNT });
  const t2 = performance.now();
  const app = Fastify({ logger: false });
  await app.register(hermesMcp, { server: mcp, path: '/mcp' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const t3 = performance.now();
  announce(app.server.address(), { load: t0, decorate: t1 - t0, create: t2 - t1, serve: t3 - t2 });
}

main().catch(fail);
