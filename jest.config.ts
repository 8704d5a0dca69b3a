import type { Config } from 'jest';

const tsJest: Config['transform'] = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
};

/** Tests import the packages by name; map them to their sources so no build is needed for unit tests. */
const moduleNameMapper = {
  '^@hermes-mcp/core/internal$': '<rootDir>/packages/core/src/internal.ts',
  '^@hermes-mcp/(protocol|core|fastify|testing|client)$': '<rootDir>/packages/$1/src/index.ts',
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
    moduleNameMapper,
  };
}

const config: Config = {
  projects: [
    project('protocol', 'packages/protocol'),
    project('core', 'packages/core'),
    project('fastify', 'packages/fastify'),
    project('testing', 'packages/testing'),
    project('client', 'packages/client'),
    // Also runs the template's own tests (template/test) against the sources, before anyone scaffolds it.
    project('create-hermes-mcp', 'packages/create-hermes-mcp'),
    project('examples', 'examples'),
    // The fuzz suite's jest part (test-support/fixtures/test); `npm run fuzz` runs the full million.
    project('fixtures', 'test-support/fixtures'),
  ],
  testTimeout: 30_000,
};

export default config;
