/**
 * The require hook with which `hermes-mcp dev`, `inspect` and `run` start a .ts entry
 * (`node --require swc-register.js entry.ts`): each .ts file it loads is compiled by SWC with
 * legacy decorators and decorator metadata (`design:type`, `design:paramtypes`), as tsc does with
 * `experimentalDecorators` and `emitDecoratorMetadata`, into CommonJS. SWC does not check types:
 * a syntax error stops the process with SWC's message, a type error does not (`tsc --noEmit` does).
 */
import Module from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SWC_PATH_ENV } from './entry';

/** The part of `@swc/core` used here (it is an optional peer: its types may be absent). */
interface Swc {
  transformSync(source: string, options: object): { code: string };
}

const swc = require(process.env[SWC_PATH_ENV] ?? '@swc/core') as Swc; // eslint-disable-line @typescript-eslint/no-require-imports

/** Node's internals this hook extends (public in practice, untyped in @types/node). */
const internals = Module as unknown as {
  _extensions: Record<string, (module: { _compile(code: string, file: string): void }, file: string) => void>;
  _resolveFilename(request: string, parent: { filename?: string } | undefined, ...rest: unknown[]): string;
};

const compile = (module: { _compile(code: string, file: string): void }, file: string) => {
  let code: string;
  try {
    code = swc.transformSync(readFileSync(file, 'utf8'), {
      filename: file,
      sourceMaps: 'inline',
      module: { type: 'commonjs' },
      jsc: { target: 'es2022', parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true } },
    }).code;
  } catch (error) {
    // SWC's message shows the line; its Rust backtrace and our stack would only bury it.
    const message = (error instanceof Error ? error.message : String(error)).split(/\n\s*(?:Caused by:|Stack backtrace:)/)[0];
    process.stderr.write(`hermes-mcp: SWC could not compile ${file}:\n${message.trimEnd()}\n`);
    process.exit(1);
  }
  module._compile(code, file);
};
internals._extensions['.ts'] = compile;
internals._extensions['.cts'] = compile;

// A project written for ES modules imports `./tools.js` where the file is tools.ts: that import
// is taken to mean the .ts file when no .js file is there.
const resolve = internals._resolveFilename.bind(Module);
internals._resolveFilename = (request, parent, ...rest) => {
  if (parent?.filename && /^\.\.?\//.test(request) && /\.c?js$/.test(request)) {
    const js = path.resolve(path.dirname(parent.filename), request);
    const ts = js.replace(/js$/, 'ts');
    if (!existsSync(js) && existsSync(ts)) return ts;
  }
  return resolve(request, parent, ...rest);
};
