/**
 * What is the Fastify plugin's own, beside core's HTTP behaviour (packages/core/test/http, run on
 * every adapter): its routes live in an encapsulated context, so the app's other routes keep
 * Fastify's JSON parser and error handler; and the default `clientKey` is Fastify's `request.ip`,
 * which follows the app's `trustProxy`.
 */
import 'reflect-metadata';
import Fastify, { FastifyInstance } from 'fastify';
import { McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { HermesMcpOptions, hermesMcp } from '@hermes-mcp/fastify';
import { ACCEPT_BOTH, rpc } from '../../../test-support/hardening';

@McpServer({ name: 'plugin', version: '1.0.0' })
class PluginServer {
  @Tool({ description: 'pong' })
  pong() {
    return 'pong';
  }
}

const apps: FastifyInstance[] = [];

/** An app (with `trustProxy`) with the plugin at /mcp (`options` added) and a route of its own, `POST /echo`, on a free port. */
async function start(trustProxy = false, options: Partial<HermesMcpOptions> = {}): Promise<string> {
  const app: FastifyInstance = Fastify({ logger: false, trustProxy });
  apps.push(app);
  await app.register(hermesMcp, { server: PluginServer, path: '/mcp', appOptions: { logger: createLogger({ level: 'silent' }) }, ...options });
  app.post('/echo', (request) => ({ echoed: request.body }));
  return app.listen({ host: '127.0.0.1', port: 0 });
}

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

const initialize = rpc('i', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'plugin-test', version: '1' } });

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body });
}

describe('the plugin in a Fastify app', () => {
  it("leaves the app's other routes to Fastify: its JSON parser and error handler, not the plugin's", async () => {
    const origin = await start();
    // The plugin's route: a body that is not JSON is a JSON-RPC parse error.
    const mcp = await post(`${origin}/mcp`, '{"jsonrpc":');
    expect(mcp.status).toBe(400);
    expect(await mcp.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    // The app's own route: Fastify's answer to the same body, and its parser for a good one.
    const echo = await post(`${origin}/echo`, '{"jsonrpc":');
    expect(echo.status).toBe(400);
    const refused = (await echo.json()) as Record<string, unknown>;
    expect(refused).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    expect(refused.jsonrpc).toBeUndefined();
    expect(await (await post(`${origin}/echo`, '{"a":1}')).json()).toEqual({ echoed: { a: 1 } });
  });

  it("counts maxSessionsPerClient by Fastify's request.ip, which follows trustProxy", async () => {
    const origin = await start(true, { maxSessionsPerClient: 1 });
    const from = (ip: string) => post(`${origin}/mcp`, JSON.stringify(initialize), { 'x-forwarded-for': ip });
    expect((await from('203.0.113.1')).status).toBe(200);
    const second = await from('203.0.113.1');
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ error: { message: expect.stringMatching(/maxSessionsPerClient/) } });
    // Another address behind the same proxy is another client.
    expect((await from('203.0.113.2')).status).toBe(200);
  });
});
