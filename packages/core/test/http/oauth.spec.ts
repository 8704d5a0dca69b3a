/**
 * The `auth` option against a real authorization server (oidc-provider on 127.0.0.1, in a process
 * of its own): JWT access tokens verified with the issuer's JWKS, opaque ones by introspection.
 * A request without a token (or with another scheme), or with one for another audience, expired,
 * tampered with or from another issuer, is refused 401 with the challenge that names the metadata
 * document, a malformed Bearer header 400 invalid_request; an introspection answer without `aud`
 * is refused, and a JWT the authorization server will not introspect is a 401, not a 500; a token
 * without a component's scopes does not see it listed and is refused 403 with a step-up challenge;
 * a token with them calls it; a session serves only the principal that opened it; the metadata
 * document is served; every route of every transport is guarded (POST, GET, DELETE, HTTP+SSE,
 * WebSocket), on the Fastify plugin and the Web-standard handler.
 */
import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Logger,
  McpContext,
  McpServer,
  RequireScopes,
  IntrospectionVerifierOptions,
  ResourceServerOptions,
  Tool,
  createLogger,
  introspectionVerifier,
  jwtVerifier,
} from '@hermes-mcp/core';
import { McpClient, StreamableHttpClientTransport, WebSocketClientTransport, WebSocketConstructor, unwrap } from '@hermes-mcp/client';
import { ACCEPT_BOTH, MODERN_META, PINO_LEVELS, capturingLogger, modernPost, rpc } from '../../../../test-support/hardening';
import { AuthorizationServer, TestClient, startAuthorizationServer } from '../../../../test-support/oidc/authorization-server';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

@RequireScopes('notes:read')
class NoteTools {
  @Tool({ description: 'Reads the notes (notes:read, from the class)' })
  read(ctx: McpContext) {
    // What a tool sees of the caller: never the token.
    return { client: ctx.auth?.clientId, scopes: [...(ctx.auth?.scopes ?? [])], issuer: ctx.auth?.issuer, keys: Object.keys(ctx.auth ?? {}).sort() };
  }

  @Tool({ description: 'Writes a note (notes:read and notes:write)', scopes: ['notes:write'] })
  write() {
    return 'written';
  }
}

@McpServer({ name: 'notes', version: '1.0.0', components: [NoteTools] })
class NotesServer {
  @Tool({ description: 'Who calls (any valid token)' })
  whoami(ctx: McpContext) {
    return ctx.auth?.clientId ?? 'anonymous';
  }
}

const CLIENTS: TestClient[] = [
  { client_id: 'alice-app', client_secret: 'alice-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read notes:write' },
  { client_id: 'bob-app', client_secret: 'bob-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read notes:write' },
  { client_id: 'short-lived-app', client_secret: 'short-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read' },
  { client_id: 'mcp-resource-server', client_secret: 'rs-secret', grant_types: [], redirect_uris: [], response_types: [] },
];
const [ALICE, BOB, SHORT] = CLIENTS;

let as: AuthorizationServer;
let other: AuthorizationServer;

beforeAll(async () => {
  [as, other] = await Promise.all([startAuthorizationServer({ clients: CLIENTS }), startAuthorizationServer({ clients: CLIENTS })]);
});
afterAll(async () => {
  await Promise.all([as?.stop(), other?.stop()]);
});

function authOptions(resource: string): ResourceServerOptions {
  return {
    resource,
    authorizationServers: [as.issuer],
    verifier: jwtVerifier({ issuer: as.issuer, audience: resource, clockToleranceSec: 0 }),
    scopesSupported: ['notes:read'],
    resourceName: 'Notes',
  };
}

const silent = createLogger({ level: 'silent' });

/** The notes server on `adapter`, with the `auth` option `options` gives for its URL. */
function serveNotes(adapter: Adapter, options: (resource: string) => ResourceServerOptions = authOptions, logger: Logger = silent): Promise<Serving> {
  return serveOn(adapter, NotesServer, (url) => ({ auth: options(url) }), { logger });
}

/** The parameters of a `WWW-Authenticate: Bearer …` header. */
function challenge(response: Response): Record<string, string> {
  const [header, dpop] = (response.headers.get('www-authenticate') ?? '').split(/, (?=DPoP )/);
  expect(header).toMatch(/^Bearer /);
  // The server takes DPoP-bound tokens too (the default): its challenge follows (dpop.spec.ts).
  expect(dpop).toMatch(/^DPoP algs="[^"]+", /);
  const params: Record<string, string> = {};
  for (const [, name, value] of header.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) params[name] = value.replace(/\\(.)/g, '$1');
  return params;
}

function initializeBody(): Record<string, unknown> {
  return rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(body) });
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe.each(ADAPTERS)('the auth option (%s)', (adapter) => {
  let server: Serving;
  beforeAll(async () => {
    server = await serveNotes(adapter);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('publishes the protected-resource metadata (RFC 9728) at the well-known path of the resource, without a token', async () => {
    const response = await fetch(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      resource: server.url,
      authorization_servers: [as.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['notes:read'],
      resource_name: 'Notes',
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'],
    });
  });

  it('refuses every route without a token: 401 and a challenge naming the metadata and the scopes to ask for', async () => {
    const metadata = `${server.origin}/.well-known/oauth-protected-resource/mcp`;
    const sessionId = { 'mcp-session-id': 'whatever' };
    const answers = [
      await post(server.url, initializeBody()),
      await modernPost(server.url, 1, 'tools/list', { _meta: MODERN_META }),
      await fetch(server.url, { headers: { accept: 'text/event-stream', ...sessionId } }),
      await fetch(server.url, { method: 'DELETE', headers: sessionId }),
      await fetch(`${server.url}/sse`, { headers: { accept: 'text/event-stream' } }),
      await post(`${server.url}/messages?sessionId=x`, rpc(1, 'ping')),
    ];
    for (const response of answers) {
      expect(response.status).toBe(401);
      expect(challenge(response)).toEqual({ resource_metadata: metadata, scope: 'notes:read' });
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^Unauthorized: this server needs an OAuth access token/);
    }
  });

  it('answers another scheme with a challenge without an error code (401), and a malformed Bearer header with 400 invalid_request (RFC 6750 §3.1)', async () => {
    const metadata = `${server.origin}/.well-known/oauth-protected-resource/mcp`;
    for (const scheme of ['Basic YWxpY2U6c2VjcmV0', 'MAC abc.def', 'Bearerabc', 'DPoPabc']) {
      const response = await post(server.url, initializeBody(), { authorization: scheme });
      expect({ scheme, status: response.status }).toEqual({ scheme, status: 401 });
      expect(challenge(response)).toEqual({ resource_metadata: metadata, scope: 'notes:read' });
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/in the Bearer or DPoP scheme only/);
    }
    for (const malformed of ['Bearer', 'Bearer two tokens', 'Bearer ab"c', 'bearer =abc']) {
      const response = await post(server.url, initializeBody(), { authorization: malformed });
      expect({ malformed, status: response.status }).toEqual({ malformed, status: 400 });
      expect(challenge(response)).toMatchObject({ error: 'invalid_request', resource_metadata: metadata, error_description: expect.stringMatching(/not "Bearer <token>"/) });
      expect(((await response.json()) as { error: { code: number; message: string } }).error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Bad Request: /) });
    }
  });

  it('refuses tokens for another audience, expired, tampered with or from another issuer: 401 invalid_token', async () => {
    const otherAudience = await as.token(ALICE, { resource: 'http://127.0.0.1:1/elsewhere', scope: 'notes:read' });
    const shortLived = await as.token(SHORT, { resource: server.url, scope: 'notes:read' });
    const good = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    const [head, payload, signature] = good.split('.');
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: 'notes:read notes:write' })).toString('base64url')}.${signature}`;
    const foreign = await other.token(ALICE, { resource: server.url, scope: 'notes:read' });
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the short-lived token is now expired
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['audience', bearer(otherAudience), /not for this server \(aud\)/],
      ['expired', bearer(shortLived), /has expired/],
      ['tampered', bearer(tampered), /signature is not valid/],
      ['issuer', bearer(foreign), /a key the issuer does not publish|another issuer/],
      ['garbage', bearer('not-a-jwt'), /not a valid JWT/],
    ];
    for (const [what, headers, message] of cases) {
      const response = await post(server.url, initializeBody(), headers);
      expect({ what, status: response.status }).toEqual({ what, status: 401 });
      const params = challenge(response);
      expect(params.resource_metadata).toBe(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
      expect({ what, error: params.error }).toEqual({ what, error: 'invalid_token' });
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
  });

  it('lists only what the token’s scopes allow, refuses the rest with 403 and a step-up challenge, and calls it once stepped up', async () => {
    const readOnly = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    const client = new McpClient(new StreamableHttpClientTransport({ url: server.url, headers: bearer(readOnly) }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      expect((await client.listTools()).items.map((t) => t.name).sort()).toEqual(['read', 'whoami']);
      const seen = unwrap(await client.callTool('read')).structuredContent as Record<string, unknown>;
      // oidc-provider names the client as the subject of a client-credentials token.
      expect(seen).toEqual({ client: 'alice-app', scopes: ['notes:read'], issuer: as.issuer, keys: ['claims', 'clientId', 'expiresAt', 'issuer', 'scopes', 'subject'] });
      expect(JSON.stringify(seen)).not.toContain(readOnly);
      await expect(client.callTool('write')).rejects.toMatchObject({ code: -32012, data: { requiredScopes: ['notes:read', 'notes:write'] } });
    } finally {
      await client.close();
    }
    // The same refusal as HTTP sees it: 403, and the scopes to step up to.
    const sessionResponse = await post(server.url, initializeBody(), bearer(readOnly));
    const sessionId = sessionResponse.headers.get('mcp-session-id')!;
    await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer(readOnly), 'mcp-session-id': sessionId });
    const refused = await post(server.url, rpc(2, 'tools/call', { name: 'write', arguments: {} }), {
      ...bearer(readOnly),
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(refused.status).toBe(403);
    expect(challenge(refused)).toMatchObject({
      error: 'insufficient_scope',
      scope: 'notes:read notes:write',
      resource_metadata: `${server.origin}/.well-known/oauth-protected-resource/mcp`,
    });
    const modern = await modernPost(
      server.url,
      3,
      'tools/call',
      { name: 'write', arguments: {}, _meta: MODERN_META },
      {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'write',
          ...bearer(readOnly),
        },
      },
    );
    expect(modern.status).toBe(403);
    expect(challenge(modern)).toMatchObject({ error: 'insufficient_scope', scope: 'notes:read notes:write' });
    // Stepped up: a token with both scopes sees and calls it, in both eras.
    const full = await as.token(ALICE, { resource: server.url, scope: 'notes:read notes:write' });
    for (const protocolVersion of ['2025-11-25', 'auto'] as const) {
      const stepped = new McpClient(new StreamableHttpClientTransport({ url: server.url, headers: bearer(full) }), { protocolVersion });
      await stepped.connect();
      expect((await stepped.listTools()).items.map((t) => t.name).sort()).toEqual(['read', 'whoami', 'write']);
      expect(unwrap(await stepped.callTool('write')).content).toEqual([{ type: 'text', text: 'written' }]);
      await stepped.close();
    }
  });

  it('serves a session only to the principal that opened it: another client’s token gets 404', async () => {
    const alice = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    const bob = await as.token(BOB, { resource: server.url, scope: 'notes:read' });
    const opened = await post(server.url, initializeBody(), bearer(alice));
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer(alice), ...headers })).status).toBe(202);
    const asBob = await post(server.url, rpc(2, 'tools/call', { name: 'whoami', arguments: {} }), { ...bearer(bob), ...headers });
    expect(asBob.status).toBe(404);
    expect((await fetch(server.url, { method: 'DELETE', headers: { ...bearer(bob), ...headers } })).status).toBe(404);
    // Alice's session is still hers, with a fresh token of hers too.
    const again = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    const asAlice = await post(server.url, rpc(3, 'tools/call', { name: 'whoami', arguments: {} }), { ...bearer(again), ...headers });
    expect(asAlice.status).toBe(200);
    expect(JSON.stringify(await asAlice.json())).toContain('alice-app');
  });

  it('is spoken to by the official SDK v1 client with its token', async () => {
    const token = await as.token(BOB, { resource: server.url, scope: 'notes:read notes:write' });
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer(token) } }));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'bob-app' }]);
    } finally {
      await client.close();
    }
  });
});

// WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
describe('the auth option over WebSocket (fastify)', () => {
  let server: Serving;
  beforeAll(async () => {
    server = await serveNotes('fastify');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses an upgrade without a token with 401, and serves one with a token as its caller', async () => {
    const wsUrl = `${server.url.replace('http', 'ws')}/ws`;
    // fetch cannot ask for an upgrade: the raw request a WebSocket client sends.
    const refused = await new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
      const request = httpRequest(`${server.url}/ws`, {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'mcp' },
      });
      request.on('response', (response) => {
        response.resume();
        resolve({ status: response.statusCode!, headers: response.headers });
      });
      request.on('upgrade', () => reject(new Error('upgraded without a token')));
      request.on('error', reject);
      request.end();
    });
    expect(refused.status).toBe(401);
    expect(String(refused.headers['www-authenticate'])).toContain(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`);
    const token = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    class BearerSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: bearer(token) });
      }
    }
    const client = new McpClient(new WebSocketClientTransport({ url: wsUrl, WebSocket: BearerSocket as unknown as WebSocketConstructor }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      expect((await client.listTools()).items.map((t) => t.name).sort()).toEqual(['read', 'whoami']);
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'alice-app' }]);
      await expect(client.callTool('write')).rejects.toMatchObject({ code: -32012 });
    } finally {
      await client.close();
    }
  });
});

describe.each(ADAPTERS)('key rotation (%s)', (adapter) => {
  it('takes tokens signed with the issuer’s new key once it publishes it (the JWKS fetched again for an unknown kid)', async () => {
    const first = await startAuthorizationServer({ clients: CLIENTS });
    const port = Number(new URL(first.issuer).port);
    const server = await serveNotes(adapter, (resource) => ({
      resource,
      authorizationServers: [first.issuer],
      verifier: jwtVerifier({ issuer: first.issuer, audience: resource, jwksCooldownMs: 0 }),
    }));
    try {
      const before = await first.token(ALICE, { resource: server.url, scope: 'notes:read' });
      expect((await post(server.url, initializeBody(), bearer(before))).status).toBe(200);
      // The authorization server restarts with a new signing key (same issuer, same port).
      await first.stop();
      const second = await startAuthorizationServer({ clients: CLIENTS, port });
      try {
        expect(second.issuer).toBe(first.issuer);
        const after = await second.token(ALICE, { resource: server.url, scope: 'notes:read' });
        expect(JSON.parse(Buffer.from(after.split('.')[0], 'base64url').toString()).kid).not.toBe(JSON.parse(Buffer.from(before.split('.')[0], 'base64url').toString()).kid);
        expect((await post(server.url, initializeBody(), bearer(after))).status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      await server.close();
    }
  });
});

describe.each(ADAPTERS)('opaque tokens, verified by introspection (RFC 7662) (%s)', (adapter) => {
  let opaque: AuthorizationServer;
  let server: Serving;
  let introspections = 0;
  const log = capturingLogger('debug');
  beforeAll(async () => {
    opaque = await startAuthorizationServer({ clients: CLIENTS, accessTokenFormat: 'opaque' });
    const counting: typeof fetch = (input, init) => {
      introspections++;
      return fetch(input, init);
    };
    server = await serveNotes(adapter, (resource) => introspecting(resource, { issuer: opaque.issuer, fetch: counting }), log.logger);
  });
  afterAll(async () => {
    await server?.close();
    await opaque?.stop();
  });

  /** The `auth` option for `resource` with the introspection of the opaque tokens' server, and `more` of its options. */
  function introspecting(resource: string, more: Partial<IntrospectionVerifierOptions>): ResourceServerOptions {
    const verifier = introspectionVerifier({
      endpoint: `${opaque.issuer}/token/introspection`,
      clientId: 'mcp-resource-server',
      clientSecret: 'rs-secret',
      audience: resource,
      ...more,
    });
    return { resource, authorizationServers: [opaque.issuer], verifier };
  }

  it('takes an active token (asking once for many requests), refuses an unknown one and one for another audience', async () => {
    const token = await opaque.token(ALICE, { resource: server.url, scope: 'notes:read notes:write' });
    expect(token.split('.').length).toBe(1); // opaque, not a JWT
    const client = new McpClient(new StreamableHttpClientTransport({ url: server.url, headers: bearer(token) }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      for (let i = 0; i < 5; i++) expect(unwrap(await client.callTool('write')).content).toEqual([{ type: 'text', text: 'written' }]);
    } finally {
      await client.close();
    }
    expect(introspections).toBe(1);
    const unknown = await post(server.url, initializeBody(), bearer('unknown-token-value'));
    expect(unknown.status).toBe(401);
    expect(challenge(unknown)).toMatchObject({ error: 'invalid_token', error_description: 'the token is not active' });
    const elsewhere = await opaque.token(ALICE, { resource: 'http://127.0.0.1:1/elsewhere', scope: 'notes:read' });
    const refused = await post(server.url, initializeBody(), bearer(elsewhere));
    expect(refused.status).toBe(401);
    expect(challenge(refused).error_description).toBe('the token is not for this server (aud)');
  });

  it('refuses a token whose introspection names no audience: one the authorization server gave another client for no resource of ours', async () => {
    // What oidc-provider gives for its own userinfo endpoint: active, with scopes, and no `aud`.
    const unrelated = await opaque.token(BOB, { scope: 'notes:read' });
    const answer = await fetch(`${opaque.issuer}/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('mcp-resource-server:rs-secret').toString('base64')}` },
      body: new URLSearchParams({ token: unrelated }).toString(),
    });
    expect(await answer.json()).toMatchObject({ active: true, client_id: 'bob-app', scope: 'notes:read' });
    const refused = await post(server.url, initializeBody(), bearer(unrelated));
    expect(refused.status).toBe(401);
    expect(challenge(refused)).toMatchObject({ error: 'invalid_token', error_description: 'the token is not for this server (it names no audience, aud)' });
  });

  it('takes a token without an audience only when told to (requireAudience: false), still refusing one for another audience', async () => {
    const lenient = await serveNotes(adapter, (resource) => introspecting(resource, { requireAudience: false }));
    try {
      const unrelated = await opaque.token(BOB, { scope: 'notes:read' });
      expect((await post(lenient.url, initializeBody(), bearer(unrelated))).status).toBe(200);
      const elsewhere = await opaque.token(ALICE, { resource: 'http://127.0.0.1:1/elsewhere', scope: 'notes:read' });
      const refused = await post(lenient.url, initializeBody(), bearer(elsewhere));
      expect(refused.status).toBe(401);
      expect(challenge(refused).error_description).toBe('the token is not for this server (aud)');
    } finally {
      await lenient.close();
    }
  });

  it('answers a JWT the authorization server will not introspect (400 unsupported_token_type) with 401 invalid_token, logged at debug, not as a server error', async () => {
    const jwt = await as.token(ALICE, { resource: server.url, scope: 'notes:read' });
    expect(jwt.split('.').length).toBe(3);
    const from = log.lines.length;
    const refused = await post(server.url, initializeBody(), bearer(jwt));
    expect(refused.status).toBe(401);
    expect(challenge(refused)).toMatchObject({ error: 'invalid_token', error_description: 'the authorization server does not vouch for this token (unsupported_token_type)' });
    const lines = log.lines.slice(from);
    expect(lines.filter((line) => line.level >= PINO_LEVELS.error)).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: PINO_LEVELS.debug, status: 401, msg: 'request refused by authentication' }));
  });
});
