/**
 * `mcp.client.session.duration` (and the server's `mcp.server.session.duration` where the server
 * runs in this process) for sessions that end otherwise than by a clean `close()` after a clean
 * `initialize` — the cases an outside harness meets: the server unreachable at connect (connection
 * refused; a server that takes the connection and never answers), a 401 or 403 before `initialize`
 * completes, `close()` before or during `initialize`, the server killed mid-session (a process of
 * its own, SIGKILL), a session the server forgets (a new one after HTTP 404), a 401 mid-session, a
 * WebSocket that reconnects (a new session), the official SDK's class names, a `fetch` given to the
 * transport, OAuth sign-in (`OAuthClient`, sign-in during `initialize`, and a sign-in that fails),
 * and 2026-07-28, which has no session. A session that began (an `initialize` answered) has exactly
 * one row, whatever ended it, and every row names its transport as the conventions' "Recording MCP
 * transport" asks: `network.transport`, `network.protocol.name`, `network.protocol.version` where
 * it is known; with the server's address on the client's. Nothing that did not begin has a row.
 * (Every method on every transport, cleanly: conventions.spec.ts. The `hermes-mcp` CLI: cli-sessions.spec.ts.)
 */
import 'reflect-metadata';
import { createServer, type Server, type Socket } from 'node:net';
import WebSocket from 'ws';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { Attributes } from '@opentelemetry/api';
import { HttpError, McpServer, Tool, jwtVerifier } from '@hermes-mcp/core';
import {
  ConnectionClosedError,
  McpClient,
  OAuthClient,
  SSEClientTransport,
  SseClientTransport,
  StreamableHTTPClientTransport,
  StreamableHttpClientTransport,
  WebSocketClientTransport,
  WebSocketConstructor,
} from '@hermes-mcp/client';
import type { McpClientOptions, Transport } from '@hermes-mcp/client';
import { instrumentOpenTelemetry } from '@hermes-mcp/opentelemetry';
import { Serving, serveOn } from '../../../test-support/adapters';
import { HttpFixture, spawnHttpFixture } from '../../../test-support/hardening';
import { AuthorizationServer, browserSignIn, startAuthorizationServer } from '../../../test-support/oidc/authorization-server';
import { freePort } from '../../../test-support/redis/redis-server';

@McpServer({ name: 'endings', version: '1.0.0' })
class EndingsServer {
  @Tool({ description: 'Says hello' }) hello() {
    return 'hello';
  }
}

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const REDIRECT = 'http://127.0.0.1:9/callback';
const WS = WebSocket as unknown as WebSocketConstructor;

/** One point of a histogram: the attributes of its rows, and how many rows have them. */
interface Row {
  attributes: Attributes;
  count: number;
}

/** A meter provider of its own and the instrumentation on it, both sides; its session rows. */
function telemetry() {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const instrumentation = instrumentOpenTelemetry({ meterProvider });
  const rows = async (name: string): Promise<Row[]> => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((point) => ({ attributes: point.attributes, count: (point.value as { count: number }).count }));
  };
  return {
    /** `mcp.client.session.duration`'s rows. */
    client: () => rows('mcp.client.session.duration'),
    /** `mcp.server.session.duration`'s rows. */
    server: () => rows('mcp.server.session.duration'),
    async shutdown() {
      instrumentation.uninstall();
      await meterProvider.shutdown();
    },
  };
}

let recorded: ReturnType<typeof telemetry>;
beforeEach(() => {
  recorded = telemetry();
});
afterEach(async () => {
  await recorded.shutdown();
});

/** What a client's session row says over HTTP or WebSocket (exactly: nothing more). */
function clientRow(
  port: number,
  { protocol = 'http', httpVersion = '1.1', version = LEGACY }: { protocol?: 'http' | 'websocket'; httpVersion?: string | null; version?: string } = {},
) {
  return {
    'mcp.protocol.version': version,
    'network.transport': 'tcp',
    'network.protocol.name': protocol,
    ...(protocol === 'http' && httpVersion !== null && { 'network.protocol.version': httpVersion }),
    'server.address': '127.0.0.1',
    'server.port': port,
  };
}

/** What a server's session row says over HTTP or WebSocket. */
function serverRow(protocol: 'http' | 'websocket' = 'http') {
  return { 'mcp.protocol.version': LEGACY, 'network.transport': 'tcp', 'network.protocol.name': protocol };
}

/** Waits until `check` holds, polling (bounded generously; no timing asserted). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/** The three network transports to a server at `url` (Streamable HTTP's endpoint), as a harness makes them. */
const TRANSPORTS: Record<'Streamable HTTP' | 'HTTP+SSE' | 'WebSocket', (url: string) => Transport> = {
  'Streamable HTTP': (url) => new StreamableHttpClientTransport({ url }),
  'HTTP+SSE': (url) => new SseClientTransport({ url: `${url}/sse`, connectTimeout: 2_000 }),
  WebSocket: (url) => new WebSocketClientTransport({ url: `${url.replace('http:', 'ws:')}/ws`, WebSocket: WS }),
};
const NAMES = Object.keys(TRANSPORTS) as Array<keyof typeof TRANSPORTS>;
const PROTOCOL = { 'Streamable HTTP': 'http', 'HTTP+SSE': 'http', WebSocket: 'websocket' } as const;

describe('sessions that never began have no row', () => {
  it.each(NAMES)('%s: connection refused at connect, in a legacy session and with auto negotiation', async (name) => {
    const port = await freePort();
    for (const options of [{ protocolVersion: LEGACY }, {}] as McpClientOptions[]) {
      const client = new McpClient(TRANSPORTS[name](`http://127.0.0.1:${port}/mcp`), { ...options, requestTimeout: 5_000 });
      await expect(client.connect()).rejects.toThrow();
      await client.close();
    }
    expect(await recorded.client()).toEqual([]);
  });

  describe('a server that takes the connection and never answers', () => {
    let silent: Server;
    let port: number;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      silent = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it.each(NAMES)('%s: initialize timed out, or close() while connecting', async (name) => {
      const url = `http://127.0.0.1:${port}/mcp`;
      // The request times out (HTTP+SSE: its endpoint event never comes).
      if (name !== 'WebSocket') {
        const timedOut = new McpClient(name === 'HTTP+SSE' ? new SseClientTransport({ url: `${url}/sse`, connectTimeout: 100 }) : TRANSPORTS[name](url), {
          protocolVersion: LEGACY,
          requestTimeout: 100,
        });
        await expect(timedOut.connect()).rejects.toThrow();
        await timedOut.close();
      }
      // close() while the handshake or initialize is under way.
      const before = sockets.size;
      const closed = new McpClient(TRANSPORTS[name](url), { protocolVersion: LEGACY, requestTimeout: 10_000 });
      const connecting = closed.connect();
      await until(() => sockets.size > before, 'the client connected');
      await closed.close();
      await expect(connecting).rejects.toThrow();
      expect(await recorded.client()).toEqual([]);
    });
  });

  describe('refused by the server before initialize completes', () => {
    const refusals: Record<number, HttpError> = {
      401: new HttpError(401, 'Unauthorized: no token', { 'www-authenticate': 'Bearer realm="mcp"' }),
      403: new HttpError(403, 'Forbidden: not for you'),
    };
    let refusing: Serving;
    let status = 401;
    beforeAll(async () => {
      refusing = await serveOn('fastify', EndingsServer, () => ({
        authenticate: () => {
          throw refusals[status];
        },
      }));
    });
    afterAll(() => refusing?.close());

    it.each([401, 403])('%s, on each transport', async (refusal) => {
      status = refusal;
      for (const name of NAMES) {
        const client = new McpClient(TRANSPORTS[name](refusing.url), { protocolVersion: LEGACY });
        await expect(client.connect()).rejects.toThrow();
        await client.close();
      }
      expect(await recorded.client()).toEqual([]);
      expect(await recorded.server()).toEqual([]);
    });
  });

  it('close() before connect(), and a connect() begun after close()', async () => {
    const serving = await serveOn('fastify', EndingsServer);
    try {
      for (const name of NAMES) {
        const client = new McpClient(TRANSPORTS[name](serving.url), { protocolVersion: LEGACY });
        await client.close();
        await expect(client.connect()).rejects.toThrow();
        await client.close();
      }
    } finally {
      await serving.close();
    }
    expect(await recorded.client()).toEqual([]);
    expect(await recorded.server()).toEqual([]);
  });
});

describe('sessions that began and ended abnormally have exactly one row each, naming their transport', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serveOn('fastify', EndingsServer);
  });
  afterAll(() => serving?.close());

  describe('the server killed mid-session (SIGKILL)', () => {
    let fixture: HttpFixture | undefined;
    afterEach(() => fixture?.kill());

    it.each(NAMES)('%s: the next request fails, or the connection ends by itself; then close()', async (name) => {
      fixture = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'silent' });
      const client = new McpClient(TRANSPORTS[name](fixture.url), { protocolVersion: LEGACY, requestTimeout: 5_000, logger: { error: () => undefined } });
      await client.connect();
      await client.callTool('echo', { text: 'hi' });
      fixture.kill();
      await fixture.exited;
      if (name === 'Streamable HTTP') {
        // HTTP has no connection to lose: the next request finds the server gone, and close() ends the session.
        await expect(client.callTool('echo', { text: 'again' })).rejects.toThrow(ConnectionClosedError);
        expect(await recorded.client()).toEqual([]);
      } else {
        // The stream or the socket ended: the session with it.
        await until(async () => (await recorded.client()).length > 0, 'the session row');
      }
      await client.close();
      expect(await recorded.client()).toEqual([{ attributes: clientRow(fixture.port, { protocol: PROTOCOL[name] }), count: 1 }]);
    });

    it('WebSocket with reconnect: the attempts fail, the transport gives up, and the session has its row', async () => {
      fixture = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'silent' });
      const transport = new WebSocketClientTransport({
        url: `${fixture.url.replace('http:', 'ws:')}/ws`,
        WebSocket: WS,
        reconnect: { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 },
      });
      const client = new McpClient(transport, { protocolVersion: LEGACY, logger: { error: () => undefined } });
      await client.connect();
      fixture.kill();
      await fixture.exited;
      await until(async () => (await recorded.client()).length > 0, 'the session row');
      await client.close();
      expect(await recorded.client()).toEqual([{ attributes: clientRow(fixture.port, { protocol: 'websocket' }), count: 1 }]);
    });
  });

  it('WebSocket with reconnect, the socket dropped by the server: a new session, and a row for each', async () => {
    const sockets = new Set<Socket>();
    const track = (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    };
    serving.app!.server.on('connection', track);
    try {
      const client = new McpClient(
        new WebSocketClientTransport({ url: `${serving.url.replace('http:', 'ws:')}/ws`, WebSocket: WS, reconnect: { initialDelayMs: 10, maxDelayMs: 20 } }),
        { protocolVersion: LEGACY, logger: { error: () => undefined } },
      );
      await client.connect();
      await client.callTool('hello');
      for (const socket of sockets) socket.destroy();
      // The old session's row comes when the new one begins.
      await until(async () => (await recorded.client()).length > 0, 'the first session row');
      expect(await client.callTool('hello')).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
      await client.close();
      expect(await recorded.client()).toEqual([{ attributes: clientRow(serving.port, { protocol: 'websocket' }), count: 2 }]);
      await until(async () => (await recorded.server()).reduce((sum, row) => sum + row.count, 0) === 2, 'both server sessions ended');
      expect(await recorded.server()).toEqual([{ attributes: serverRow('websocket'), count: 2 }]);
    } finally {
      serving.app!.server.off('connection', track);
    }
  });

  it('Streamable HTTP: the server forgets the session (HTTP 404), the client begins a new one; a row for each', async () => {
    const transport = new StreamableHttpClientTransport({ url: serving.url });
    const client = new McpClient(transport, { protocolVersion: LEGACY });
    await client.connect();
    const first = transport.sessionId!;
    // Ended behind the client's back (another instance, an idle timeout): its next request gets 404.
    const ended = await fetch(serving.url, { method: 'DELETE', headers: { 'mcp-session-id': first, 'mcp-protocol-version': LEGACY } });
    expect(ended.status).toBe(200);
    expect(await client.callTool('hello')).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect(transport.sessionId).not.toBe(first);
    await client.close();
    expect(await recorded.client()).toEqual([{ attributes: clientRow(serving.port), count: 2 }]);
    await until(async () => (await recorded.server()).reduce((sum, row) => sum + row.count, 0) === 2, 'both server sessions ended');
    expect(await recorded.server()).toEqual([{ attributes: serverRow(), count: 2 }]);
  });

  it("the official SDK's class names, with a URL object; a fetch given (no HTTP version known)", async () => {
    const sdk = [new StreamableHTTPClientTransport(new URL(serving.url)), new SSEClientTransport(new URL(`${serving.url}/sse`))];
    const withFetch = [new StreamableHttpClientTransport({ url: serving.url, fetch }), new SseClientTransport({ url: `${serving.url}/sse`, fetch })];
    for (const transport of [...sdk, ...withFetch]) {
      const client = new McpClient(transport, { protocolVersion: LEGACY });
      await client.connect();
      await client.callTool('hello');
      await client.close();
    }
    expect(await recorded.client()).toEqual([
      { attributes: clientRow(serving.port), count: 2 },
      { attributes: clientRow(serving.port, { httpVersion: null }), count: 2 },
    ]);
    // The server's side of the same four sessions (an HTTP+SSE one ends when the server sees its stream close).
    await until(async () => (await recorded.server()).reduce((sum, row) => sum + row.count, 0) === 4, 'the four server sessions ended');
    expect(await recorded.server()).toEqual([{ attributes: serverRow(), count: 4 }]);
  });

  it('2026-07-28 has no session: no row, whether it ends cleanly or against a server gone', async () => {
    for (const name of ['Streamable HTTP', 'WebSocket'] as const) {
      const client = new McpClient(TRANSPORTS[name](serving.url), { protocolVersion: MODERN });
      await client.connect();
      await client.callTool('hello');
      await client.close();
    }
    const fixture = await spawnHttpFixture({ HERMES_LOG_LEVEL: 'silent' });
    try {
      const client = new McpClient(TRANSPORTS['Streamable HTTP'](fixture.url), { requestTimeout: 5_000 });
      await client.connect();
      expect(client.era).toBe('modern');
      fixture.kill();
      await fixture.exited;
      await expect(client.callTool('echo', { text: 'hi' })).rejects.toThrow();
      await client.close();
    } finally {
      fixture.kill();
    }
    expect(await recorded.client()).toEqual([]);
    expect(await recorded.server()).toEqual([]);
  });

  describe('with authentication', () => {
    let gated: Serving;
    let refuseFrom = Infinity;
    let requests = 0;
    beforeAll(async () => {
      gated = await serveOn('fastify', EndingsServer, () => ({
        authenticate: () => {
          if (++requests >= refuseFrom) throw new HttpError(401, 'Unauthorized: the token was revoked', { 'www-authenticate': 'Bearer error="invalid_token"' });
          return { subject: 'ada', scopes: [] };
        },
      }));
    });
    afterAll(() => gated?.close());

    it('a 401 mid-session (the token revoked): the request fails, close() ends the session', async () => {
      for (const name of NAMES) {
        requests = 0;
        refuseFrom = Infinity;
        const client = new McpClient(TRANSPORTS[name](gated.url), { protocolVersion: LEGACY, logger: { error: () => undefined } });
        await client.connect();
        refuseFrom = requests + 1;
        // WebSocket: admitted once, at the upgrade; its messages are not HTTP requests.
        if (name === 'WebSocket') await client.callTool('hello');
        else await expect(client.callTool('hello')).rejects.toThrow(/401/);
        await client.close();
      }
      refuseFrom = Infinity;
      expect(await recorded.client()).toEqual([
        { attributes: clientRow(gated.port), count: 2 },
        { attributes: clientRow(gated.port, { protocol: 'websocket' }), count: 1 },
      ]);
    });
  });

  describe('OAuth (OAuthClient): signed in during initialize, and a sign-in that fails', () => {
    let as: AuthorizationServer;
    let protectedServer: Serving;
    beforeAll(async () => {
      as = await startAuthorizationServer({ clients: [] });
      protectedServer = await serveOn('fastify', EndingsServer, (resource) => ({
        auth: { resource, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: resource }), scopesSupported: ['notes:read'] },
      }));
    });
    afterAll(async () => {
      await protectedServer?.close();
      await as?.stop();
    });

    it('Streamable HTTP and HTTP+SSE: one row each for the sessions signed in; none for the one that could not sign in', async () => {
      const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read' });
      for (const transport of [
        new StreamableHttpClientTransport({ url: protectedServer.url, auth }),
        new SseClientTransport({ url: `${protectedServer.url}/sse`, auth }),
        new StreamableHttpClientTransport({ url: protectedServer.url, auth, fetch }),
      ]) {
        const client = new McpClient(transport, { protocolVersion: LEGACY });
        await client.connect();
        await client.callTool('hello');
        await client.close();
      }
      const refused = new OAuthClient({
        redirectUri: REDIRECT,
        authorize: () => Promise.reject(new Error('the user closed the browser')),
        scope: 'notes:read',
      });
      const client = new McpClient(new StreamableHttpClientTransport({ url: protectedServer.url, auth: refused }), { protocolVersion: LEGACY });
      await expect(client.connect()).rejects.toThrow(/closed the browser/);
      await client.close();
      expect(await recorded.client()).toEqual([
        { attributes: clientRow(protectedServer.port), count: 2 },
        { attributes: clientRow(protectedServer.port, { httpVersion: null }), count: 1 },
      ]);
    });
  });
});
