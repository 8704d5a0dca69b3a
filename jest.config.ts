/**
 * Loaded by Node's own type stripping where Node has it (22.18+, 24, 26: an ES module, so the import
 * below names its file with the extension), else by ts-node, which only transpiles it (a checked
 * `.ts` import would need `allowImportingTsExtensions`; `npm run lint` type-checks this file).
 * @jest-config-loader-options {"transpileOnly": true}
 */
import type { Config } from 'jest';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { project } from './test-support/jest/project.ts';

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

/**
 * In CI (`.ci/run`), each test step names the Node it means to test in HERMES_CI_NODE: jest must be
 * running on that one (and its workers with it, which start from `process.execPath`), or the step
 * fails here rather than passing on another Node.
 */
function checkCiNode(): void {
  const wanted = process.env.HERMES_CI_NODE;
  if (!wanted) return;
  if (process.version !== wanted) throw new Error(`.ci/run asked for Node ${wanted}, but jest runs on ${process.version} (${process.execPath})`);
  process.stderr.write(`jest on Node ${process.version} (${process.execPath}), as .ci/run asked\n`);
}
checkCiNode();

const config: Config = {
  projects: [
    project('protocol', 'packages/protocol'),
    project('core', 'packages/core'),
    project('fastify', 'packages/fastify'),
    project('testing', 'packages/testing'),
    project('client', 'packages/client'),
    ...(hasRedisServer() ? [project('redis', 'packages/redis')] : []),
    project('opentelemetry', 'packages/opentelemetry'),
    project('gateway', 'packages/gateway'),
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
  // Each suite loads core's sources anew in its worker (~350 MB of heap for a small HTTP suite), and
  // what a worker keeps between suites adds up: one ran out of heap in a clean-clone run. A worker
  // that holds more than this after a suite is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};

export default config;
