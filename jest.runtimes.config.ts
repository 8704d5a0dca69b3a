/**
 * Loaded by Node's own type stripping where Node has it (22.18+, 24, 26: an ES module, so the import
 * below names its file with the extension), else by ts-node, which only transpiles it (a checked
 * `.ts` import would need `allowImportingTsExtensions`; `npm run lint` type-checks this file).
 * @jest-config-loader-options {"transpileOnly": true}
 */
import type { Config } from 'jest';
import { project } from './test-support/jest/project.ts';

/**
 * `npm run test:runtimes`: the Web handler under the real runtimes (Bun, Deno, workerd), installed
 * from npm as devDependencies. Apart from `npm test`: each suite starts a runtime of its own.
 */
const config: Config = {
  projects: [project('runtimes', 'test-support/runtimes')],
  testTimeout: 120_000,
};

export default config;
