/**
 * Loaded by Node's own type stripping where Node has it (22.18+, 24, 26: an ES module, so the import
 * below names its file with the extension), else by ts-node, which only transpiles it (a checked
 * `.ts` import would need `allowImportingTsExtensions`; `npm run lint` type-checks this file).
 * @jest-config-loader-options {"transpileOnly": true}
 */
import type { Config } from 'jest';
import { project } from './test-support/jest/project.ts';

/**
 * `npm run test:redis-cluster`: @hermes-mcp/redis on a real 6-node Redis Cluster and a real
 * Sentinel setup (packages/redis/test/topologies/*.topology.ts), masters killed under load, TLS and
 * ACL users. Apart from `npm test`: each suite starts a dozen processes and waits out failovers.
 * One suite at a time: the failovers are timed by Redis, and a starved node fails over spuriously.
 */
const config: Config = {
  projects: [{ ...project('redis-topologies', 'packages/redis'), testMatch: ['**/test/topologies/**/*.topology.ts'] }],
  testTimeout: 120_000,
  maxWorkers: 1,
};

export default config;
