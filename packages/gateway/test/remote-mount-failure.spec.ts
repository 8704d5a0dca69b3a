/**
 * Remote mounts when things go wrong, and their security: an upstream slower than the mount's
 * `timeout` answers a tool error GATEWAY_UPSTREAM_TIMEOUT while the app's own tools keep serving;
 * an upstream that cannot be reached fails `mountRemote` with GATEWAY_UPSTREAM_UNAVAILABLE; a bad
 * namespace, an `McpHandler` app and a name the app serves already are refused with core's mount
 * codes; the app's `mountSeparator` names the mounted tools; and the upstream gets the gateway's
 * own credentials, never the caller's token. The upstream is an official SDK v2 server
 * (`createMcpHandler`) over Streamable HTTP on 127.0.0.1, the client the official SDK v1's.
 */
import 'reflect-metadata';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpApp, McpFactory, McpServer, Tool, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import type { McpContext, McpHandler } from '@hermes-mcp/core';
import { mountRemote } from '@hermes-mcp/gateway';
import { createMcpHandler, McpServer as V2Server } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { serveFetch } from '../../client/test/fixtures/http-servers';
import { rejectionOf, textOf } from './support';

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

@McpServer({ name: 'clashing', version: '1.0.0' })
class ClashingServer {
  @Tool({ description: 'Has the name a mounted tool would get' })
  sdk_add() {
    return 'mine';
  }
}

/** The `authorization` header of every request the upstream received. */
const authorizations: Array<string | null> = [];
let upstream: Server;
let upstreamUrl: string;
const silent = () => createLogger({ level: 'silent' });

beforeAll(async () => {
  const handler = createMcpHandler(() => {
    const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
    server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('wait', { description: 'Answers after a while', inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
      await sleep(ms, undefined, { signal: ctx.mcpReq.signal }).catch(() => undefined);
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    });
    return server;
  });
  const served = await serveFetch({
    fetch: (request: Request) => {
      authorizations.push(request.headers.get('authorization'));
      return handler.fetch(request);
    },
  });
  upstream = served.server;
  upstreamUrl = `${served.origin}/mcp`;
});

afterAll(() => {
  upstream?.closeAllConnections();
  upstream?.close();
});

/** `app` served over HTTP on 127.0.0.1, and a connected SDK v1 client sending `Authorization: Bearer caller-secret`. */
async function serve(app: McpApp): Promise<{ client: Client; close(): Promise<void> }> {
  const server = createServer(toNodeListener(createWebHandler(app)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: 'Bearer caller-secret' } } }));
  return {
    client,
    close: async () => {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}

it('answers a tool error GATEWAY_UPSTREAM_TIMEOUT past the mount’s timeout; the app’s own tools and quick calls keep serving', async () => {
  const app = McpFactory.create(GatewayServer, { logger: silent() });
  // Long enough that a quick call answers in time on a loaded CI machine (at 300 ms, `sdk_add`
  // itself timed out under the full suite on 2 cores), far short of the 60 s the slow call asks for.
  const mount = await mountRemote(app, 'sdk', { url: upstreamUrl }, { timeout: 3_000 });
  const served = await serve(app);
  try {
    const late = await served.client.callTool({ name: 'sdk_wait', arguments: { ms: 60_000 } });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toMatch(/^GATEWAY_UPSTREAM_TIMEOUT: /);
    expect(late.structuredContent).toEqual({ code: 'GATEWAY_UPSTREAM_TIMEOUT', upstream: 'sdk' });
    expect(textOf(await served.client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
    expect(textOf(await served.client.callTool({ name: 'sdk_add', arguments: { a: 1, b: 1 } }))).toBe('2');
  } finally {
    await served.close();
    await mount.close();
  }
});

it('sends the upstream the gateway’s own credentials, never the caller’s token', async () => {
  const app = McpFactory.create(GatewayServer, { logger: silent() });
  authorizations.length = 0;
  const mount = await mountRemote(app, 'sdk', { url: upstreamUrl, headers: { authorization: 'Bearer gateway-own' } });
  const served = await serve(app);
  try {
    expect(textOf(await served.client.callTool({ name: 'sdk_add', arguments: { a: 20, b: 22 } }))).toBe('42');
  } finally {
    await served.close();
    await mount.close();
  }
  expect(authorizations.length).toBeGreaterThan(0);
  expect(new Set(authorizations)).toEqual(new Set(['Bearer gateway-own']));
});

it('names mounted tools with the app’s mountSeparator; close() takes them out again', async () => {
  const app = McpFactory.create(GatewayServer, { logger: silent(), mountSeparator: '.' });
  const mount = await mountRemote(app, 'sdk', { url: upstreamUrl });
  expect(app.tool('sdk.add').enabled).toBe(true);
  await mount.close();
  expect(() => app.tool('sdk.add')).toThrow('there is no tool "sdk.add"');
});

it('fails mountRemote with GATEWAY_UPSTREAM_UNAVAILABLE when the upstream cannot be reached, and for a command that exits at once', async () => {
  const app = McpFactory.create(GatewayServer, { logger: silent() });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const unreachable = await rejectionOf(mountRemote(app, 'gone', { url: `http://127.0.0.1:${port}/mcp` }));
  expect(unreachable.data).toEqual({ code: 'GATEWAY_UPSTREAM_UNAVAILABLE', upstream: 'gone' });
  const exits = await rejectionOf(mountRemote(app, 'quits', { command: process.execPath, args: ['-e', 'process.exit(3)'] }, { onStderr: () => undefined }));
  expect(exits.data).toEqual({ code: 'GATEWAY_UPSTREAM_UNAVAILABLE', upstream: 'quits' });
  // Nothing of theirs was added.
  expect(app.registry!.definitions().tools.map((tool) => tool.name)).toEqual(['hello']);
});

it('refuses a bad namespace or an McpHandler app (HERMES_MOUNT_INVALID) and a name the app serves already (HERMES_MOUNT_COLLISION)', async () => {
  const app = McpFactory.create(GatewayServer, { logger: silent() });
  await expect(mountRemote(app, 'not a namespace', { url: upstreamUrl })).rejects.toMatchObject({ code: 'HERMES_MOUNT_INVALID' });
  const plain: McpHandler = {
    serverInfo: { name: 'plain', version: '1.0.0' },
    capabilities: {},
    handleRequest: (_ctx: McpContext) => Promise.resolve({}),
  };
  await expect(mountRemote(McpFactory.create(plain, { logger: silent() }), 'sdk', { url: upstreamUrl })).rejects.toMatchObject({ code: 'HERMES_MOUNT_INVALID' });
  const clashing = McpFactory.create(ClashingServer, { logger: silent() });
  const collision = await rejectionOf(mountRemote(clashing, 'sdk', { url: upstreamUrl }));
  expect(collision).toMatchObject({ code: 'HERMES_MOUNT_COLLISION' });
  expect(collision.message).toContain('"sdk_add"');
  expect(clashing.registry!.definitions().tools.map((tool) => tool.name)).toEqual(['sdk_add']);
});
