/**
 * McpClient signing in with OAuthClient, end to end against real parts: our server with the `auth`
 * option (Fastify, 127.0.0.1) and a real authorization server (oidc-provider, its own process; its
 * sign-in page consents by itself, so following the authorization URL's redirects with cookies
 * ends at the redirect URI, as a browser would). The client discovers the authorization server
 * from the 401, registers itself (RFC 7591), signs in with authorization code + PKCE and the
 * server as `resource`, steps up on 403 insufficient_scope, refreshes an expired token and one the
 * server refuses (401), and signs in with client credentials.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { McpContext, McpServer, Tool, createLogger, jwtVerifier } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import {
  InMemoryOAuthStore,
  McpClient,
  OAuthClient,
  OAuthError,
  StoredTokens,
  StreamableHttpClientTransport,
  canonicalResource,
  parseBearerChallenge,
  unwrap,
} from '@hermes-mcp/client';
import { AuthorizationServer, browserSignIn, startAuthorizationServer } from '../../../test-support/oidc/authorization-server';

@McpServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  @Tool({ description: 'Reads notes', scopes: ['notes:read'] }) read(ctx: McpContext) {
    return `notes of ${ctx.auth?.subject ?? 'nobody'}`;
  }
  @Tool({ description: 'Writes a note', scopes: ['notes:write'] }) write(ctx: McpContext) {
    return `written by ${ctx.auth?.subject ?? ctx.auth?.clientId ?? 'nobody'}`;
  }
}

const REDIRECT = 'http://127.0.0.1:9/callback';

let as: AuthorizationServer;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  as = await startAuthorizationServer({
    clients: [
      { client_id: 'robot', client_secret: 'robot-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read notes:write' },
      { client_id: 'short-lived-cli', client_secret: 'cli-secret', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [REDIRECT], response_types: ['code'] },
    ],
  });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  url = `http://127.0.0.1:${port}/mcp`;
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(hermesMcp, {
    server: NotesServer,
    path: '/mcp',
    appOptions: { logger: createLogger({ level: 'silent' }) },
    auth: { resource: url, authorizationServers: [as.issuer], verifier: jwtVerifier({ issuer: as.issuer, audience: url, clockToleranceSec: 0 }), scopesSupported: ['notes:read'] },
  });
  await app.listen({ host: '127.0.0.1', port });
});

afterAll(async () => {
  await app?.close();
  await as?.stop();
});

/** Plays the browser: follows the authorization URL's redirects (with cookies) to the redirect URI. */
const browser = (log: URL[] = []) => browserSignIn(REDIRECT, log);

describe('signing in with authorization code + PKCE', () => {
  it('discovers, registers, signs in for the scopes the server names, steps up on 403, and keeps the token', async () => {
    const asked: URL[] = [];
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browser(asked), clientMetadata: { client_name: 'notes test' } });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      // Signed in once, for what the 401 named (the server's scopes_supported): notes:read.
      expect(asked).toHaveLength(1);
      const first = asked[0].searchParams;
      expect({
        resource: first.get('resource'),
        scope: first.get('scope'),
        method: first.get('code_challenge_method'),
        challenge: first.get('code_challenge')?.length,
        redirect: first.get('redirect_uri'),
      }).toEqual({ resource: url, scope: 'notes:read', method: 'S256', challenge: 43, redirect: REDIRECT });
      expect((await client.listTools()).items.map((t) => t.name)).toEqual(['read']);
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      // A tool needing more: 403 insufficient_scope, signed in again for both scopes, then called.
      expect(unwrap(await client.callTool('write')).content).toEqual([{ type: 'text', text: 'written by ada' }]);
      expect(asked).toHaveLength(2);
      expect(asked[1].searchParams.get('scope')).toBe('notes:read notes:write');
      // The same client id both times: registered once.
      expect(asked[1].searchParams.get('client_id')).toBe(first.get('client_id'));
      expect((await client.listTools()).items.map((t) => t.name).sort()).toEqual(['read', 'write']);
    } finally {
      await client.close();
    }
  });

  it('refreshes an expired token with its refresh token, without signing in again, in this process or another with the kept store', async () => {
    const asked: URL[] = [];
    const store = new InMemoryOAuthStore();
    const auth = new OAuthClient({
      clientId: 'short-lived-cli',
      clientSecret: 'cli-secret',
      redirectUri: REDIRECT,
      authorize: browser(asked),
      scope: 'notes:read offline_access',
      store,
    });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      const before = store.getTokens(canonicalResource(url))!;
      expect(before.refreshToken).toEqual(expect.any(String));
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the access token lives one second
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      expect(asked).toHaveLength(1);
      expect(store.getTokens(canonicalResource(url))!.accessToken).not.toBe(before.accessToken);
    } finally {
      await client.close();
    }
    // Another process with the kept store (a restart): it refreshes too, without signing in.
    const again = new OAuthClient({
      clientId: 'short-lived-cli',
      clientSecret: 'cli-secret',
      redirectUri: REDIRECT,
      authorize: browser(asked),
      scope: 'notes:read offline_access',
      store,
    });
    const restarted = new McpClient(new StreamableHttpClientTransport({ url, auth: again }), { protocolVersion: '2025-11-25' });
    await new Promise((resolve) => setTimeout(resolve, 3500)); // a refreshed token lives three seconds
    await restarted.connect();
    try {
      expect(unwrap(await restarted.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      expect(asked).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });

  it('refreshes a held token the server refuses (401 naming a scope the refresh token covers) instead of signing in again', async () => {
    const asked: URL[] = [];
    const grants: Array<string | null> = [];
    const recording: typeof fetch = (input, init) => {
      if (String(input).endsWith('/token')) grants.push(new URLSearchParams(String(init?.body)).get('grant_type'));
      return fetch(input, init);
    };
    // A store that keeps no expiry (as one that persists only the tokens does): the client holds
    // the token as good until the server refuses it.
    class ExpiryLessStore extends InMemoryOAuthStore {
      override setTokens(key: string, tokens: StoredTokens | undefined): void {
        super.setTokens(key, tokens && { ...tokens, expiresAt: undefined });
      }
    }
    const store = new ExpiryLessStore();
    // Bearer tokens (no DPoP): the probe below presents the held token as the client does.
    const auth = new OAuthClient({
      clientId: 'short-lived-cli',
      clientSecret: 'cli-secret',
      redirectUri: REDIRECT,
      authorize: browser(asked),
      store,
      fetch: recording,
      dpop: false,
    });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }));
    await client.connect();
    try {
      const held = store.getTokens(canonicalResource(url))!;
      expect(held).toMatchObject({ refreshToken: expect.any(String), scope: expect.stringContaining('notes:read') });
      // Wait for the server to refuse the held token (it lives one second), as it will refuse the
      // client's next request: 401 with a challenge that names the scope (scopesSupported is set).
      let refusal: Response | undefined;
      for (let i = 0; i < 200 && refusal === undefined; i++) {
        const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${held.accessToken}`, 'content-type': 'application/json' }, body: '{}' });
        if (response.status === 401) refusal = response;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(parseBearerChallenge(refusal!.headers.get('www-authenticate'))).toMatchObject({ scope: 'notes:read' });
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      // Refreshed, not signed in again: one sign-in in all, then refresh grants only (one per
      // token refused: connect() may have outlived the first one already on a busy machine).
      expect(asked).toHaveLength(1);
      expect(grants[0]).toBe('authorization_code');
      expect(grants.slice(1)).toEqual(expect.arrayContaining(['refresh_token']));
      expect(new Set(grants.slice(1))).toEqual(new Set(['refresh_token']));
      expect(store.getTokens(canonicalResource(url))!.accessToken).not.toBe(held.accessToken);
    } finally {
      await client.close();
    }
  });

  it('refuses an authorization response from another issuer (RFC 9207) or with another state', async () => {
    for (const tamper of [(u: URL) => u.searchParams.set('iss', 'http://127.0.0.1:1'), (u: URL) => u.searchParams.set('state', 'forged')]) {
      const auth = new OAuthClient({
        redirectUri: REDIRECT,
        authorize: async (authorizationUrl) => {
          const back = await browser()(authorizationUrl);
          tamper(back);
          return back;
        },
      });
      const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
      await expect(client.connect()).rejects.toThrow(OAuthError);
      await client.close();
    }
  });
});

describe('signing in with client credentials', () => {
  it('gets a token for the server as its resource, and steps up to the scopes a call needs', async () => {
    const auth = new OAuthClient({ grant: 'client_credentials', clientId: 'robot', clientSecret: 'robot-secret' });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: 'auto' });
    await client.connect();
    try {
      expect(client.era).toBe('modern');
      expect(unwrap(await client.callTool('write')).content).toEqual([{ type: 'text', text: 'written by robot' }]);
    } finally {
      await client.close();
    }
  });
});

describe('parseBearerChallenge', () => {
  it('reads quoted and bare parameters, with escapes', () => {
    expect(parseBearerChallenge('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/y", realm=mcp, x="q\\"uote"')).toEqual({
      error: 'insufficient_scope',
      scope: 'a b',
      resource_metadata: 'https://x/.well-known/y',
      realm: 'mcp',
      x: 'q"uote',
    });
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(null)).toBeUndefined();
  });
});
