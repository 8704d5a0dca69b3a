/**
 * The Streamable HTTP refusals of packages/core/test/http/http-edges.spec.ts (test-support/http-edges.ts)
 * under Bun and Deno: the Web handler served by `Bun.serve` and `Deno.serve` answers every refusal
 * as it does on Node's HTTP server, with the same status and JSON-RPC error. workerd is not run
 * here (runtimes.spec.ts drives it in both eras): Bun and Deno keep this suite within about a
 * minute of `npm run test:runtimes`.
 */
import { describeRefusals } from '../../http-edges';
import { Served, bun, deno } from './runtimes';

describe.each([
  ['Bun', bun],
  ['Deno', deno],
])('Streamable HTTP refusals under %s', (_name, start) => {
  let served: Served;

  beforeAll(async () => {
    served = await start();
  });

  afterAll(async () => {
    await served?.stop();
  });

  describeRefusals(() => served);
});
