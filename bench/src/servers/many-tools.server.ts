/**
 * Bootstrap at scale: a server class with 1,000 `@Tool` methods, each with its own validated input
 * class, served over HTTP with `pageSize: 1000` so one `tools/list` returns them all.
 *
 * The classes are the JavaScript tsc emits (CommonJS, `experimentalDecorators`,
 * `emitDecoratorMetadata`, the repository's `useDefineForClassFields: false`) for 1,000 input
 * classes with `@IsNumber() a!: number` and the like and one class with 1,000 methods
 * `@Tool(...) tool_N(input: ToolNInput) {...}`: written out as source and compiled once, so what
 * runs is what runs in a user's process (a class body with its methods, then `__decorate` calls),
 * not a loop that adds methods to a prototype one by one (which costs V8 ~100 ms that no user pays).
 * It reports, over IPC, how long each step took (ms): `load` (process start to the first line of
 * `main`: Node, Fastify, class-validator, Hermes), `decorate` (the classes defined), of it `inputs`
 * (the input classes: class-validator's decorators alone), `create` (`McpFactory.create`: scan,
 * schemas), `serve` (plugin registered and listening). With `HERMES_BENCH_CREATE_AGAIN`, also
 * `createAgain`: a second `McpFactory.create` on 1,000 new classes of the same code, once V8 has
 * compiled and optimized it (the first create pays that).
 */
import { performance } from 'node:perf_hooks';
import 'reflect-metadata';
import * as classValidator from 'class-validator';
import Fastify from 'fastify';
import * as hermes from '@hermes-mcp/core';
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { announce, fail, tieToRunner } from './lifeline';

/** How many tools the server has. */
export const TOOL_COUNT = 1000;

/** tsc's `__decorate` and `__metadata` helpers, as it emits them at the top of a module. */
const HELPERS = `
var __decorate = function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};`;

/** The module body tsc emits for `count` input classes and the server class whose tools take them; it returns the server class. */
function emitted(count: number): string {
  const lines = [HELPERS];
  for (let i = 0; i < count; i++) {
    lines.push(
      `class Tool${i}Input {}`,
      `__decorate([(0, class_validator_1.IsNumber)(), __metadata("design:type", Number)], Tool${i}Input.prototype, "a", void 0);`,
      `__decorate([(0, class_validator_1.IsNumber)(), (0, class_validator_1.Min)(0), __metadata("design:type", Number)], Tool${i}Input.prototype, "b", void 0);`,
      `__decorate([(0, class_validator_1.IsOptional)(), (0, class_validator_1.IsString)(), (0, class_validator_1.Length)(1, 40), __metadata("design:type", String)], Tool${i}Input.prototype, "note", void 0);`,
    );
  }
  lines.push('mark();', 'let ManyTools = class ManyTools {');
  for (let i = 0; i < count; i++) lines.push(`    tool_${i}(input) { return input.a + input.b + ${i}; }`);
  lines.push('};');
  for (let i = 0; i < count; i++) {
    lines.push(
      `__decorate([(0, core_1.Tool)({ description: "Tool number ${i}: adds two numbers and ${i}" }), __metadata("design:type", Function), __metadata("design:paramtypes", [Tool${i}Input]), __metadata("design:returntype", Number)], ManyTools.prototype, "tool_${i}", null);`,
    );
  }
  lines.push('ManyTools = __decorate([(0, core_1.McpServer)({ name: "bench-many-tools", version: "1.0.0" })], ManyTools);', 'return ManyTools;');
  return lines.join('\n');
}

/** The compiled module body: run it to define the classes. */
type Define = (classValidator: unknown, core: unknown, mark: () => void) => Function;

async function main(): Promise<void> {
  tieToRunner();
  // Compiled before the clock starts, as a module's source is before its body runs.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const define = new Function('class_validator_1', 'core_1', 'mark', emitted(TOOL_COUNT)) as Define;
  const t0 = performance.now();
  let inputsDone = t0;
  const serverClass = define(classValidator, hermes, () => (inputsDone = performance.now()));
  const t1 = performance.now();
  const mcp = McpFactory.create(serverClass as new () => object, { logger: createLogger({ level: 'silent' }), pageSize: TOOL_COUNT });
  const t2 = performance.now();
  const app = Fastify({ logger: false });
  await app.register(hermesMcp, { server: mcp, path: '/mcp' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const t3 = performance.now();
  const timings: Record<string, number> = { load: t0, decorate: t1 - t0, inputs: inputsDone - t0, create: t2 - t1, serve: t3 - t2 };
  if (process.env.HERMES_BENCH_CREATE_AGAIN) {
    // The same work once more, on 1,000 new classes of the same code: what create costs once V8
    // has compiled (and optimized) its code and sized its heap, beside the first create above.
    const again = define(classValidator, hermes, () => undefined);
    const t4 = performance.now();
    McpFactory.create(again as new () => object, { logger: createLogger({ level: 'silent' }), pageSize: TOOL_COUNT });
    timings.createAgain = performance.now() - t4;
  }
  announce(app.server.address(), timings);
}

main().catch(fail);
