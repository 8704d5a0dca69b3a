/**
 * The limit: a bare Fastify route that parses the same JSON-RPC body and answers what an MCP
 * server would, with no MCP machinery. `tools/call` of `add` computes the sum; `tools/list`
 * answers a pre-built result read from `BENCH_LIST_RESULT` (a file), spliced with the request id.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { announce, fail, tieToRunner } from './lifeline';
import { MEMORY_PATH, memoryProbeEnabled, settledMemory } from './memory';
import { benchTelemetry, withServerSpan } from './telemetry';

interface RpcBody {
  id: string | number;
  method: string;
  params?: { name?: string; arguments?: { a: number; b: number } };
}

async function main(): Promise<void> {
  tieToRunner();
  const listResult = process.env.BENCH_LIST_RESULT ? readFileSync(process.env.BENCH_LIST_RESULT, 'utf8') : undefined;
  const app = Fastify({ logger: false });
  // HERMES_BENCH_OTEL: OpenTelemetry's own cost, one span and one duration per call.
  const traced = benchTelemetry({ hermes: false });
  app.post('/mcp', async (request, reply) => {
    const body = request.body as RpcBody;
    if (body.method === 'tools/call' && body.params?.name === 'add' && body.params.arguments) {
      const { a, b } = body.params.arguments;
      const answer = async () => ({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: String(a + b) }] } });
      return traced ? withServerSpan(body.id, answer) : answer();
    }
    if (body.method === 'tools/list' && listResult !== undefined) {
      reply.header('content-type', 'application/json');
      return `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${listResult}}`;
    }
    reply.code(404);
    return { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } };
  });
  if (memoryProbeEnabled) app.get(MEMORY_PATH, () => settledMemory());
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
