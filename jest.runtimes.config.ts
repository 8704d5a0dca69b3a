import type { Config } from 'jest';
import { project } from './test-support/jest-project';

/**
 * `npm run test:runtimes`: the Web handler under the real runtimes (Bun, Deno, workerd), installed
 * from npm as devDependencies. Apart from `npm test`: each suite starts a runtime of its own.
 */
const config: Config = {
  projects: [project('runtimes', 'test-support/runtimes')],
  testTimeout: 120_000,
};

export default config;
