import type { Config } from 'jest';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

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
  '^@hermes-mcp/core/internal$': '<rootDir>/packages/core/src/internal.ts',
  '^@hermes-mcp/(protocol|core|fastify|testing|client|redis|opentelemetry)$': '<rootDir>/packages/$1/src/index.ts',
};

function project(name: string, root: string): Config {
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

/**
 * The Redis suites need a real `redis-server` on PATH. Locally, without one, they are left out with
 * one line saying so; in CI (`CI=true`) they always run, so a missing server fails the run.
 */
function hasRedisServer(): boolean {
  if (process.env.CI === 'true') return true;
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found) process.stderr.write('redis suites skipped: no redis-server on PATH (Debian: apt-get install redis-server)\n');
  return found;
}

const config: Config = {
  projects: [
    project('protocol', 'packages/protocol'),
    project('core', 'packages/core'),
    project('fastify', 'packages/fastify'),
    project('testing', 'packages/testing'),
    project('client', 'packages/client'),
    ...(hasRedisServer() ? [project('redis', 'packages/redis')] : []),
    project('opentelemetry', 'packages/opentelemetry'),
    // Also runs the template's own tests (template/test) against the sources, before anyone scaffolds it.
    project('create-hermes-mcp', 'packages/create-hermes-mcp'),
    project('examples', 'examples'),
    // The fuzz suite's jest part (test-support/fixtures/test); `npm run fuzz` runs the full million.
    project('fixtures', 'test-support/fixtures'),
  ],
  testTimeout: 30_000,
  // jest's default is one worker fewer than the cores: one on a 2-core machine, which then waits
  // on the suites' servers and child processes in turn (548 s for the whole suite; 258 s with two).
  maxWorkers: Math.max(2, availableParallelism()),
};

export default config;
