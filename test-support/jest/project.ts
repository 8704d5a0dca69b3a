/**
 * One jest project of this repository: ts-jest over the sources, the packages mapped to their
 * sources. The main config (`npm test`) and the runtime tests' own (`npm run test:runtimes`) use it.
 */
import type { Config } from 'jest';

const tsJest: Config['transform'] = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  // jose is ES modules only; Node 20.19+ requires it natively, jest (before Node 24.9) cannot, so
  // its modules are turned into CommonJS for the tests (the module syntax only; the code is kept).
  '/node_modules/jose/.+\\.js$': ['babel-jest', { babelrc: false, configFile: false, plugins: ['@babel/plugin-transform-modules-commonjs'] }],
};
/** Everything in node_modules is taken as it is, but jose (above). */
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];

/** Tests import the packages by name; map them to their sources so no build is needed for unit tests. */
const moduleNameMapper = {
  '^@hermes-mcp/core/(internal|adapter)$': '<rootDir>/packages/core/src/$1.ts',
  '^@hermes-mcp/protocol/internal$': '<rootDir>/packages/protocol/src/internal.ts',
  '^@hermes-mcp/(protocol|core|fastify|testing|client|redis|opentelemetry|gateway)$': '<rootDir>/packages/$1/src/index.ts',
};

// The interop self-checks' verdicts are not read from their disk cache in the tests (verdict-cache.ts):
// the fallback suites hide or rename library internals in memory, which a verdict kept for the files
// on disk would not see. Set here, in jest's main process, so every worker and every process a test
// spawns inherits it; verdict-cache.spec.ts turns the cache on for its own processes.
process.env.HERMES_INTEROP_CACHE ??= 'off';
// Nor are schemas read from theirs (schema-cache.ts): the tests build every schema, as a first
// start does; schema-cache.spec.ts starts processes with it on, and compares what they read back.
process.env.HERMES_SCHEMA_CACHE ??= 'off';

/** The project `name` over the specs (`test/**\/*.spec.ts`) under `root`, for a config at the repository root. */
export function project(name: string, root: string): Config {
  return {
    displayName: name,
    rootDir: '.',
    roots: [`<rootDir>/${root}`],
    testMatch: ['**/test/**/*.spec.ts'],
    testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    testEnvironment: 'node',
    transform: tsJest,
    transformIgnorePatterns,
    moduleNameMapper,
  };
}
