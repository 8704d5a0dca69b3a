/**
 * A stdio server starts and answers without core's HTTP, WebSocket, OAuth resource-server and
 * skills-host modules, and without pino: index.ts declares those exports and loads each module the
 * first time one of its exports is read, the factory loads the skills host only for a server with
 * skills, and an app's default logger loads pino when it first writes a line (a server spawned by a
 * host writes none: its "listening" line is at debug when stderr is not a terminal). The exports
 * stay exports: CommonJS `require` and ES module `import { … }` give the real values.
 * Checked in fresh Node processes on the built packages (`tsc -b`), as a host starts a server.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CORE = join(__dirname, '..');

/** The folders of core's modules a stdio server does without… */
const LAZY = ['/dist/transports/http/', '/dist/auth/', '/dist/transports/websocket.js', '/dist/skills/host.js', '/node_modules/pino/'];
/** …but these two, which it needs: `HttpError` (exported as it is, 20 lines) and the scopes `@RequireScopes` checks. */
const EAGER = ['/dist/transports/http/http-error.js', '/dist/auth/scopes.js'];

/** The lazily loaded exports, by the module that defines them. */
const EXPORTS: Record<string, string[]> = {
  'auth/resource-server': ['InvalidTokenError', 'bearerChallenge', 'protectedResourceMetadataUrl'],
  'auth/jwt': ['jwtVerifier'],
  'auth/introspection': ['introspectionVerifier'],
  'transports/http/node': ['toNodeListener'],
  'transports/websocket': ['MCP_SUBPROTOCOL', 'WS_CLOSE', 'WebSocketTransport'],
  'transports/http/web': ['createWebHandler'],
};

describe("core's modules that a stdio server does without", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-lazy-modules-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs a script file (CommonJS, or ES module for `.mjs`) in `dir`; its stdout (and stderr). */
  const run = (name: string, source: string, input = ''): string & { stderr?: string } => {
    writeFileSync(join(dir, name), source);
    const env = { ...process.env };
    delete env.HERMES_LOG_LEVEL; // the default level: info
    const result = spawnSync(process.execPath, [join(dir, name)], { input, encoding: 'utf8', env });
    if (result.status !== 0) throw new Error(`${name} exited with ${result.status}:\n${result.stderr}`);
    return Object.assign(result.stdout, { stderr: result.stderr });
  };
  const resolver = `const from = (name) => require(require.resolve(name, { paths: [${JSON.stringify(CORE)}] }));`;
  const loadedLazy = `Object.keys(require.cache).filter((file) => ${JSON.stringify(LAZY)}.some((part) => file.includes(part)) && !${JSON.stringify(EAGER)}.some((part) => file.endsWith(part))).map((file) => file.slice(file.lastIndexOf('/dist/') + 6))`;

  it('are not loaded by a stdio server that starts, lists its tools and answers a call', () => {
    const stdout = run(
      'server.js',
      `${resolver}
       from('reflect-metadata');
       const { IsNumber } = from('class-validator');
       const core = from('@hermes-mcp/core');
       class AddInput {}
       Reflect.decorate([IsNumber(), Reflect.metadata('design:type', Number)], AddInput.prototype, 'a');
       class S { twice(input) { return input.a * 2; } }
       Reflect.decorate([core.Tool({ description: 'Twice' }), Reflect.metadata('design:paramtypes', [AddInput])], S.prototype, 'twice', Object.getOwnPropertyDescriptor(S.prototype, 'twice'));
       Reflect.decorate([core.McpServer({ name: 's', version: '1' })], S);
       const app = core.McpFactory.create(S);
       void app.listen();
       process.on('exit', () => {
         // Asked before this handler opens stderr: the server did not load node:tty.
         const opened = { tty: process.moduleLoadList.includes('NativeModule tty') };
         process.stderr.write('loaded:' + JSON.stringify(${loadedLazy}) + '\\nopened:' + JSON.stringify(opened) + '\\n');
       });`,
      [
        { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { method: 'notifications/initialized' },
        { id: 2, method: 'tools/list' },
        { id: 3, method: 'tools/call', params: { name: 'twice', arguments: { a: 21 } } },
      ]
        .map((message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
        .join(''),
    );
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { content?: unknown } });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(answers[2].result.content).toEqual([{ type: 'text', text: '42' }]);
    expect(/loaded:(.*)/.exec(stdout.stderr ?? '')?.[1]).toBe('[]');
    // stderr is a pipe here, as a host gives it: the "listening" line's level is told without node:tty.
    expect(JSON.parse(/opened:(.*)/.exec(stdout.stderr ?? '')?.[1] ?? 'null')).toMatchObject({ tty: false });
  });

  it("nor is class-transformer, where the server's classes use none of its decorators and its input passes, nor validator.js's self-check asked for; a class with @Type loads it, and its input is built", () => {
    const cache = mkdtempSync(join(tmpdir(), 'hermes-lazy-transformer-'));
    // Whether validator.js's files are stamped: they are only to check the verdict on its tables,
    // which a schema of a locale's letters needs, and these classes have none.
    const server = (nested: boolean) => `${resolver}
       const fs = require('node:fs');
       const statSync = fs.statSync;
       let stamped = false;
       fs.statSync = function (file, ...rest) { stamped ||= String(file).includes('/node_modules/validator/'); return statSync.call(this, file, ...rest); };
       from('reflect-metadata');
       const { IsNumber, Min, ValidateNested } = from('class-validator');
       const core = from('@hermes-mcp/core');
       class Child {}
       Reflect.decorate([Min(1), Reflect.metadata('design:type', Number)], Child.prototype, 'n');
       class Input {}
       Reflect.decorate([IsNumber(), Reflect.metadata('design:type', Number)], Input.prototype, 'a');
       ${nested ? "Reflect.decorate([ValidateNested(), from('class-transformer').Type(() => Child), Reflect.metadata('design:type', Child)], Input.prototype, 'child');" : ''}
       class S { twice(input) { return JSON.stringify({ twice: input.a * 2, child: input.child instanceof Child }); } }
       Reflect.decorate([core.Tool({ description: 'Twice' }), Reflect.metadata('design:paramtypes', [Input])], S.prototype, 'twice', Object.getOwnPropertyDescriptor(S.prototype, 'twice'));
       Reflect.decorate([core.McpServer({ name: 's', version: '1' })], S);
       void core.McpFactory.create(S).listen();
       process.on('exit', () => process.stderr.write('transformer:' + Object.keys(require.cache).some((file) => file.includes('/class-transformer/cjs/storage')) + '\\n' + 'validator:' + stamped + '\\n'));`;
    const calls = (args: object[]) =>
      [
        { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { method: 'notifications/initialized' },
        { id: 2, method: 'tools/list' },
        ...args.map((a, i) => ({ id: 3 + i, method: 'tools/call', params: { name: 'twice', arguments: a } })),
      ]
        .map((message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
        .join('');
    /**
     * Two starts on one schema cache and one cache of the self-checks' verdicts (the first builds
     * and checks, the second reads back, as every start after the first does): the second's answers,
     * and whether it loaded class-transformer.
     */
    const twice = (name: string, nested: boolean, args: object[]) => {
      const interop = process.env.HERMES_INTEROP_CACHE;
      process.env.HERMES_SCHEMA_CACHE = cache;
      process.env.HERMES_INTEROP_CACHE = cache;
      try {
        run(name, server(nested), calls(args));
        const out = run(name, server(nested), calls(args));
        const answers = out
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { id: number; result: { isError?: boolean; content: Array<{ text: string }> } });
        return {
          answers: answers.slice(2).map((answer) => [answer.result.isError === true, answer.result.content[0].text]),
          loaded: /transformer:(.*)/.exec(out.stderr ?? '')?.[1],
          validatorStamped: /validator:(.*)/.exec(out.stderr ?? '')?.[1],
        };
      } finally {
        delete process.env.HERMES_SCHEMA_CACHE;
        if (interop === undefined) delete process.env.HERMES_INTEROP_CACHE;
        else process.env.HERMES_INTEROP_CACHE = interop;
      }
    };
    try {
      const plain = twice('plain.js', false, [{ a: 21 }, { a: 4 }]);
      expect(plain.loaded).toBe('false');
      // Nor is validator.js's self-check asked for (its verdict read back, its files stamped): nothing needs its tables.
      expect(plain.validatorStamped).toBe('false');
      expect(plain.answers).toEqual([
        [false, JSON.stringify({ twice: 42, child: false })],
        [false, JSON.stringify({ twice: 8, child: false })],
      ]);
      // Input that fails takes the general path, which builds it with plainToInstance: that loads it.
      const refused = twice('refused.js', false, [{ a: 'x' }]);
      expect(refused.answers[0][0]).toBe(true);
      expect(refused.answers[0][1]).toMatch(/\ba\b.*number/);
      const nested = twice('nested.js', true, [
        { a: 1, child: { n: 2 } },
        { a: 1, child: { n: 0 } },
      ]);
      expect(nested.loaded).toBe('true');
      expect(nested.answers[0]).toEqual([false, JSON.stringify({ twice: 2, child: true })]);
      expect(nested.answers[1][0]).toBe(true);
      expect(nested.answers[1][1]).toMatch(/child\.n/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('nor by loading the package; reading createWebHandler loads the HTTP modules', () => {
    const out = run(
      'load.js',
      `${resolver}
       from('reflect-metadata');
       const core = from('@hermes-mcp/core');
       const before = ${loadedLazy};
       const kind = typeof core.createWebHandler;
       console.log(JSON.stringify({ before, kind, after: ${loadedLazy} }));`,
    );
    const { before, kind, after } = JSON.parse(out) as { before: string[]; kind: string; after: string[] };
    expect(before).toEqual([]);
    expect(kind).toBe('function');
    expect(after).toEqual(expect.arrayContaining(['transports/http/web.js', 'transports/http/endpoint.js']));
  });

  it('each is the value of its module, through require() and through an ES module import', () => {
    const names = Object.values(EXPORTS).flat();
    const cjs = run(
      'cjs.js',
      `${resolver}
       const core = from('@hermes-mcp/core');
       const modules = ${JSON.stringify(EXPORTS)};
       const same = Object.entries(modules).flatMap(([module, names]) => names.map((name) => [name, core[name] === require(${JSON.stringify(join(CORE, 'dist'))} + '/' + module)[name] && core[name] !== undefined]));
       console.log(JSON.stringify({ same, enumerable: ${JSON.stringify(names)}.filter((name) => Object.keys(core).includes(name)) }));`,
    );
    const { same, enumerable } = JSON.parse(cjs) as { same: Array<[string, boolean]>; enumerable: string[] };
    expect(same).toEqual(names.map((name) => [name, true]));
    expect(enumerable).toEqual(names);
    const esm = run(
      'esm.mjs',
      `import { createRequire } from 'node:module';
       import { ${names.join(', ')} } from ${JSON.stringify(join(CORE, 'dist/index.js'))};
       const require = createRequire(import.meta.url);
       const modules = ${JSON.stringify(EXPORTS)};
       const values = { ${names.join(', ')} };
       const same = Object.entries(modules).flatMap(([module, names]) => names.map((name) => [name, values[name] === require(${JSON.stringify(join(CORE, 'dist'))} + '/' + module)[name]]));
       console.log(JSON.stringify(same));`,
    );
    expect(JSON.parse(esm)).toEqual(names.map((name) => [name, true]));
  });
});
