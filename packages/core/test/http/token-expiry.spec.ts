/**
 * A long-lived connection serves no longer than the access token it was opened with (tokens of a
 * few seconds from the tests' real authorization server): the session's GET stream, a 2024-11-05
 * HTTP+SSE stream and a 2026-07-28 `subscriptions/listen` stream end at the token's expiry (the
 * listen stream with -32014 as its answer), and come back with a fresh token — or get the 401
 * challenge that says to get one; a WebSocket answers the requests in flight with -32014 and
 * closes with 4401, and one that reaches it after the expiry (before the timer could fire) is
 * answered -32014 rather than served. Nothing waits a fixed time: each test waits for the end it expects.
 */
import 'reflect-metadata';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { HttpEndpointOptions, McpContext, McpFactory, McpServer, Tool, WebSocketTransport, createLogger, jwtVerifier } from '@hermes-mcp/core';
import { ACCEPT_BOTH, MODERN_META, messagesOf, modernPost, rpc } from '../../../../test-support/hardening';
import { AuthorizationServer, TestClient, startAuthorizationServer } from '../../../../test-support/oidc/authorization-server';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

@McpServer({ name: 'expiry', version: '1.0.0' })
class ExpiryServer {
  @Tool({ description: 'Runs until it is cancelled' })
  async wait(ctx: McpContext) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'cancelled';
  }

  @Tool({ description: 'Answers at once' })
  now() {
    return 'served';
  }
}

/** Its tokens last `shortLivedTtl` seconds. */
const SHORT: TestClient = {
  client_id: 'short-lived-app',
  client_secret: 'short-secret',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'notes:read',
};
/** Its tokens last ten minutes. */
const LONG: TestClient = {
  client_id: 'long-lived-app',
  client_secret: 'long-secret',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'notes:read',
};
/** Seconds a token lasts: long enough to open a stream on a busy machine, short enough to wait for. */
const TTL = 4;

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({ clients: [SHORT, LONG], shortLivedTtl: TTL });
});
afterAll(() => as?.stop());

function options(url: string): HttpEndpointOptions {
  return { path: '/mcp', auth: { resource: url, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: url, clockToleranceSec: 0 }) } };
}

/** The expiry server on `adapter`, warmed up. */
async function serveExpiry(adapter: Adapter): Promise<Serving> {
  return warmedUp(await serveOn(adapter, ExpiryServer, options));
}

/**
 * One request with a long-lived token, so that the verifier has fetched the issuer's keys before
 * a test's short-lived token starts running out.
 */
async function warmedUp(serving: Serving): Promise<Serving> {
  await openSession(serving.url, await as.token(LONG, { resource: serving.url, scope: 'notes:read' }));
  return serving;
}

/** A token of `SHORT` for `resource`, and when it expires (ms since the epoch, from its `exp`). */
async function shortToken(resource: string): Promise<{ token: string; expiresAt: number }> {
  const token = await as.token(SHORT, { resource, scope: 'notes:read' });
  const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
  return { token, expiresAt: exp * 1000 };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The `error_description` of a 401's challenge. */
function challengeDescription(response: Response): string | undefined {
  return /error_description="([^"]*)"/.exec(response.headers.get('www-authenticate') ?? '')?.[1];
}

/** A legacy session opened with `token` (initialized): its id. */
async function openSession(url: string, token: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...bearer(token) };
  const opened = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'expiry', version: '1' } })),
  });
  expect(opened.status).toBe(200);
  await opened.text();
  const sessionId = opened.headers.get('mcp-session-id')!;
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return sessionId;
}

function listen(url: string, token: string, id: number): Promise<Response> {
  return modernPost(
    url,
    id,
    'subscriptions/listen',
    { notifications: { toolsListChanged: true }, _meta: MODERN_META },
    {
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen', ...bearer(token) },
    },
  );
}

describe.each(ADAPTERS)('streams end when their token expires (%s)', (adapter) => {
  let running: Serving;
  beforeAll(async () => {
    running = await serveExpiry(adapter);
  });
  afterAll(() => running?.close());

  it("ends the session's GET stream at the token's expiry; the client is told to get a new token, and resumes with one", async () => {
    const { token, expiresAt } = await shortToken(running.url);
    const sessionId = await openSession(running.url, token);
    const session = { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const stream = await fetch(running.url, { headers: { ...session, ...bearer(token) } });
    expect(stream.status).toBe(200);
    const events = await stream.text(); // ends when the server ends the stream
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    const lastEventId = /^id: (.+)$/m.exec(events)![1]; // the priming event (2025-11-25)
    const stale = await fetch(running.url, { headers: { ...session, ...bearer(token), 'last-event-id': lastEventId } });
    expect(stale.status).toBe(401);
    expect(challengeDescription(stale)).toBe('the token has expired');
    await stale.text();
    const fresh = await shortToken(running.url);
    const resumed = await fetch(running.url, { headers: { ...session, ...bearer(fresh.token), 'last-event-id': lastEventId } });
    expect(resumed.status).toBe(200);
    await resumed.text(); // the fresh token expires too, and the resumed stream ends with it
    expect(Date.now()).toBeGreaterThanOrEqual(fresh.expiresAt);
  });

  it('ends a 2024-11-05 HTTP+SSE stream, and with it its session, at the token’s expiry', async () => {
    const { token, expiresAt } = await shortToken(running.url);
    const stream = await fetch(`${running.url}/sse`, { headers: { accept: 'text/event-stream', ...bearer(token) } });
    expect(stream.status).toBe(200);
    const events = await stream.text();
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    const endpoint = /^event: endpoint\ndata: (.+)$/m.exec(events)![1];
    const fresh = await shortToken(running.url);
    const after = await fetch(new URL(endpoint, running.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(fresh.token) },
      body: JSON.stringify(rpc(1, 'ping')),
    });
    expect(after.status).toBe(404);
  });

  it('ends a subscriptions/listen stream at the token’s expiry with -32014 as its answer; listening again needs a fresh token', async () => {
    const { token, expiresAt } = await shortToken(running.url);
    const stream = await listen(running.url, token, 7);
    expect(stream.status).toBe(200);
    const messages = await messagesOf(stream);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32014, message: expect.stringMatching(/access token .* expired/) } });
    const stale = await listen(running.url, token, 8);
    expect(stale.status).toBe(401);
    expect(challengeDescription(stale)).toBe('the token has expired');
    await stale.text();
  });
});

// WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
describe('a WebSocket ends when its token expires (fastify)', () => {
  it('answers the requests in flight with -32014 and closes with 4401; upgrading again needs a fresh token', async () => {
    const running = await serveExpiry('fastify');
    try {
      const { token, expiresAt } = await shortToken(running.url);
      const wsUrl = `${running.url.replace('http', 'ws')}/ws`;
      const socket = new WebSocket(wsUrl, 'mcp', { headers: bearer(token) });
      const messages: Array<Record<string, unknown>> = [];
      socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
      const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify(rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '1' } })));
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      socket.send(JSON.stringify(rpc(2, 'tools/call', { name: 'wait', arguments: {} })));
      expect(await closed).toEqual({ code: 4401, reason: 'the access token expired: reconnect with a fresh one' });
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      expect(messages.find((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32014, message: expect.stringMatching(/access token .* expired/) } });
      const again = new WebSocket(wsUrl, 'mcp', { headers: bearer(token) });
      const status = await new Promise<number>((resolve, reject) => {
        again.once('unexpected-response', (_request, response) => resolve(response.statusCode!));
        again.once('open', () => reject(new Error('upgraded with an expired token')));
      });
      expect(status).toBe(401);
    } finally {
      await running.close();
    }
  });
});

describe('a WebSocketTransport on a ws server of your own', () => {
  it('answers a message that arrives after the expiry but before the timer fired (a busy event loop) with -32014, unserved, and closes with 4401', async () => {
    const app = McpFactory.create(ExpiryServer, { logger: createLogger({ level: 'silent' }) });
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
    await once(wss, 'listening');
    const expiresAt = Math.ceil(Date.now() / 1000) + 2; // seconds, as AuthInfo.expiresAt
    wss.on('connection', (socket) => {
      // Ahead of the transport's listener: the frame with id 3 finds the event loop held until the
      // token expired, so the transport reads it before its timer can fire.
      socket.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { id?: unknown }).id === 3) while (Date.now() < expiresAt * 1000);
      });
      void app.connect(new WebSocketTransport(socket, { info: { auth: { subject: 'alice', scopes: [], expiresAt } } }));
    });
    try {
      const socket = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, 'mcp');
      const messages: Array<Record<string, unknown>> = [];
      const initialized = new Promise<void>((resolve) =>
        socket.on('message', (data: Buffer) => {
          const message = JSON.parse(data.toString()) as Record<string, unknown>;
          messages.push(message);
          if (message.id === 1) resolve();
        }),
      );
      const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      await once(socket, 'open');
      socket.send(JSON.stringify(rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '1' } })));
      await initialized;
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      socket.send(JSON.stringify(rpc(3, 'tools/call', { name: 'now', arguments: {} })));
      expect(await closed).toEqual({ code: 4401, reason: 'the access token expired: reconnect with a fresh one' });
      expect(messages.filter((m) => m.id === 3)).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: -32014, message: expect.stringMatching(/access token .* expired/) } }]);
    } finally {
      wss.close();
      await app.close();
    }
  });
});
