/**
 * The floor of a new session kept in Redis: a bare Fastify route that answers `initialize` after
 * node-redis alone sent what Hermes's stores send for one (the record kept with its expiry, the
 * session's channel subscribed), and past 10,000 sessions forgets the oldest (its record deleted,
 * its channel left), as Hermes's `maxSessions` does — no MCP machinery, no Lua, no bus. On the
 * Redis of `HERMES_BENCH_REDIS` (one node: `SUBSCRIBE` on a second connection) or of
 * `HERMES_BENCH_REDIS_CLUSTER` (a cluster: sharded `SSUBSCRIBE` on the slot's master).
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { bareSessions } from './bare-sessions';
import { announce, fail, tieToRunner } from './lifeline';

async function main(): Promise<void> {
  tieToRunner();
  const cluster = process.env.HERMES_BENCH_REDIS_CLUSTER;
  const sessions = await bareSessions(cluster ?? process.env.HERMES_BENCH_REDIS!, cluster !== undefined);
  /** The sessions kept, oldest first. */
  const kept = new Set<string>();
  const app = Fastify({ logger: false });
  app.post('/mcp', async (request, reply) => {
    const body = request.body as { id: string | number; method: string; params?: Record<string, unknown> };
    if (body.method !== 'initialize') {
      reply.code(404);
      return { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } };
    }
    const id = randomUUID();
    const record = JSON.stringify({ id, protocolVersion: body.params?.protocolVersion, clientInfo: body.params?.clientInfo, clientCapabilities: body.params?.capabilities });
    await sessions.keep(id, record);
    kept.add(id);
    if (kept.size > 10_000) {
      const [oldest] = kept;
      kept.delete(oldest);
      await sessions.forget(oldest);
    }
    reply.header('mcp-session-id', id);
    return {
      jsonrpc: '2.0',
      id: body.id,
      result: { protocolVersion: body.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1.0.0' } },
    };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
