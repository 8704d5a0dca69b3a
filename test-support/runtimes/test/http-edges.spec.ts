/**
 * The Streamable HTTP refusals of packages/core/test/http/http-edges.spec.ts (test-support/http-edges.ts)
 * under Bun and Deno: the Web handler served by `Bun.serve` and `Deno.serve` answers every refusal
 * as it does on Node's HTTP server, with the same status and JSON-RPC error. workerd is not run
 * here (runtimes.spec.ts drives it in both eras): Bun and Deno keep this suite within about a
 * minute of `npm run test:runtimes`.
 */
import { describeRefusals } from '../../http-edges';
import { Served, bun, deno } from './runtimes';

/**
 * Bun hands the handler an empty body as `request.body === null` (Node's and Deno's give an empty
 * stream), which the Web handler's `readBody` takes for no body at all: an empty POST is refused
 * 400 -32600 "a JSON-RPC message must be an object" instead of "the body is empty".
 */
const BUN_EMPTY_BODY = 'refuses an empty batch and an empty body';

describe.each([
  ['Bun', bun, [BUN_EMPTY_BODY]],
  ['Deno', deno, []],
])('Streamable HTTP refusals under %s', (_name, start, knownBugs) => {
  let served: Served;

  beforeAll(async () => {
    served = await start();
  });

  afterAll(async () => {
    await served?.stop();
  });

  describeRefusals(() => served, knownBugs);
});
