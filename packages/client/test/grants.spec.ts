/**
 * The JWT-bearer grants of OAuthClient (`grant: 'jwt_bearer'`), end to end against real parts: our
 * server with the `auth` option (Fastify, 127.0.0.1) as the resource server, and an enterprise IdP
 * and an authorization server built on jose (test-support/grants, a process of their own) that do
 * RFC 8693 token exchange and the RFC 7523 JWT-bearer grant. Enterprise-managed authorization: the
 * user's ID token becomes an ID-JAG at the IdP, presented at the authorization server — no
 * browser. Workload identity federation: the workload's own JWT, from a file, a variable or a
 * callback, read again when the access token expires. Each step's failure says which it was.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { McpContext, McpServer, Tool, jwtVerifier } from '@hermes-mcp/core';
import {
  CrossAppAccessContext,
  InMemoryOAuthStore,
  McpClient,
  OAuthClient,
  OAuthClientOptions,
  OAuthError,
  StreamableHttpClientTransport,
  canonicalResource,
  unwrap,
} from '@hermes-mcp/client';
import { Serving, serveOn } from '../../../test-support/adapters';
import { GrantServers, startGrantServers } from '../../../test-support/grants/grant-servers';

@McpServer({ name: 'payroll', version: '1.0.0' })
class PayrollServer {
  @Tool({ description: 'Who is asking', scopes: ['payroll:read'] }) whoami(ctx: McpContext) {
    return `${ctx.auth?.subject} via ${ctx.auth?.clientId}`;
  }
}

let servers: GrantServers;
let serving: Serving;
let url: string;
let dir: string;

beforeAll(async () => {
  servers = await startGrantServers({
    idpClients: { 'idp-client': null, 'idp-confidential': 'idp-secret' },
    mcpClients: { 'mcp-client': 'mcp-secret' },
    workloads: ['billing-job', 'rotating-job'],
    shortLived: ['rotating-job'],
  });
  serving = await serveOn('fastify', PayrollServer, (resource) => ({
    auth: {
      resource,
      authorizationServers: [servers.as],
      verifier: jwtVerifier({ issuer: servers.as, audience: resource, clockToleranceSec: 0 }),
      scopesSupported: ['payroll:read'],
    },
  }));
  url = serving.url;
  dir = mkdtempSync(path.join(tmpdir(), 'hermes-grants-'));
});

afterAll(async () => {
  await serving?.close();
  await servers?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Connects a client signing in with `options` (and `grant: 'jwt_bearer'`). */
async function connect(options: Omit<OAuthClientOptions, 'grant'>): Promise<McpClient> {
  const client = new McpClient(new StreamableHttpClientTransport({ url, auth: new OAuthClient({ grant: 'jwt_bearer', ...options }) }), { protocolVersion: '2025-11-25' });
  await client.connect();
  return client;
}

/** What `promise` rejected with (it must reject). */
async function rejection(promise: Promise<unknown>): Promise<OAuthError> {
  return promise.then(
    () => {
      throw new Error('it did not fail');
    },
    (error: OAuthError) => error,
  );
}

describe('enterprise-managed authorization (ID-JAG)', () => {
  it('exchanges the user’s ID token at the IdP for an ID-JAG naming this server, signs in with it, and calls tools as the user — no browser', async () => {
    const idToken = await servers.idToken('ada', { aud: 'idp-client' });
    const before = (await servers.log()).length;
    const client = await connect({ clientId: 'mcp-client', clientSecret: 'mcp-secret', crossAppAccess: { idpUrl: servers.idp, clientId: 'idp-client', idToken } });
    try {
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'ada via mcp-client' }]);
    } finally {
      await client.close();
    }
    const [exchange, grant, ...more] = (await servers.log()).slice(before);
    expect(more).toEqual([]);
    // SEP-990 §4: at the IdP, the ID token for an ID-JAG whose audience is the authorization server and resource the server.
    expect(exchange).toMatchObject({
      at: servers.idp,
      ok: true,
      params: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: idToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience: servers.as,
        resource: url,
        scope: 'payroll:read',
        client_id: 'idp-client',
      },
    });
    // §5: the ID-JAG as a JWT-bearer grant, the client authenticated with its secret (HTTP Basic: not in the body).
    expect(grant).toMatchObject({ at: servers.as, ok: true, sub: 'ada', params: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', resource: url } });
    expect(grant.params).not.toHaveProperty('client_secret');
  });

  it('asks a callback for the current ID token at each sign-in, and sends a confidential client’s IdP secret', async () => {
    const asked: number[] = [];
    const auth = new OAuthClient({
      grant: 'jwt_bearer',
      clientId: 'mcp-client',
      clientSecret: 'mcp-secret',
      crossAppAccess: {
        tokenEndpoint: `${servers.idp}/token`,
        clientId: 'idp-confidential',
        clientSecret: 'idp-secret',
        idToken: () => (asked.push(1), servers.idToken('grace', { aud: 'idp-confidential' })),
      },
    });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'grace via mcp-client' }]);
      expect(asked).toHaveLength(1);
      // Signed out: the next call signs in again, with the ID token the callback gives now.
      await auth.forget(url);
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'grace via mcp-client' }]);
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('says when the token exchange at the IdP failed, with the IdP’s error, and goes no further', async () => {
    const before = (await servers.log()).length;
    // An expired ID token, then one for another client of the IdP: both refused there.
    for (const [idToken, description] of [
      [await servers.idToken('ada', { aud: 'idp-client', ttl: -60 }), 'the ID token has expired'],
      [await servers.idToken('ada', { aud: 'someone-else' }), 'the ID token has the wrong aud'],
    ]) {
      const error = await rejection(connect({ clientId: 'mcp-client', clientSecret: 'mcp-secret', crossAppAccess: { idpUrl: servers.idp, clientId: 'idp-client', idToken } }));
      expect(error).toBeInstanceOf(OAuthError);
      expect(error).toMatchObject({ step: 'token-exchange', error: 'invalid_grant' });
      expect(error.message).toBe(`the token exchange at the IdP (${servers.idp}/token) refused: invalid_grant (${description})`);
    }
    // Nothing reached the authorization server.
    expect((await servers.log()).slice(before).map((entry) => entry.at)).toEqual([servers.idp, servers.idp]);
  });

  it('says when the JWT-bearer grant at the authorization server failed, with its error', async () => {
    const idToken = await servers.idToken('ada', { aud: 'idp-client' });
    const error = await rejection(connect({ clientId: 'mcp-client', clientSecret: 'wrong', crossAppAccess: { idpUrl: servers.idp, clientId: 'idp-client', idToken } }));
    expect(error).toMatchObject({ step: 'jwt-bearer', error: 'invalid_client' });
    expect(error.message).toBe(`the JWT-bearer grant at ${servers.as}/token refused: invalid_client (wrong secret for client mcp-client)`);
  });

  it('says when the IdP issues something other than an ID-JAG, or the authorization server does not take the grant', async () => {
    const idToken = await servers.idToken('ada', { aud: 'idp-client' });
    const options = { clientId: 'mcp-client', clientSecret: 'mcp-secret', crossAppAccess: { idpUrl: servers.idp, clientId: 'idp-client', idToken } };
    await servers.configure({ issuedTokenType: 'urn:ietf:params:oauth:token-type:access_token' });
    try {
      expect(await rejection(connect(options))).toMatchObject({
        step: 'token-exchange',
        message: `the token exchange at the IdP (${servers.idp}/token) issued urn:ietf:params:oauth:token-type:access_token, not an ID-JAG (urn:ietf:params:oauth:token-type:id-jag)`,
      });
    } finally {
      await servers.configure({ issuedTokenType: undefined });
    }
    await servers.configure({ grantTypes: ['client_credentials'] });
    try {
      expect(await rejection(connect(options))).toMatchObject({
        step: 'jwt-bearer',
        message: `${servers.as} does not take the JWT-bearer grant (urn:ietf:params:oauth:grant-type:jwt-bearer is not in its grant_types_supported)`,
      });
    } finally {
      await servers.configure({ grantTypes: undefined });
    }
  });

  it('says when the IdP cannot be discovered, or the ID token callback fails', async () => {
    const nowhere = await rejection(
      connect({ clientId: 'mcp-client', clientSecret: 'mcp-secret', crossAppAccess: { idpUrl: servers.as.replace(/:\d+$/, ':9'), clientId: 'idp-client', idToken: 'x' } }),
    );
    expect(nowhere).toMatchObject({
      step: 'token-exchange',
      message: 'the token exchange at the IdP could not start: no authorization server metadata found for http://127.0.0.1:9',
    });
    const signedOut = await rejection(
      connect({
        clientId: 'mcp-client',
        clientSecret: 'mcp-secret',
        crossAppAccess: {
          idpUrl: servers.idp,
          clientId: 'idp-client',
          idToken: () => {
            throw new Error('the user signed out');
          },
        },
      }),
    );
    expect(signedOut).toMatchObject({ step: 'assertion', message: 'the ID token (crossAppAccess.idToken) callback could not be read: the user signed out' });
  });
});

describe('workload identity federation (JWT-bearer with the workload’s own token)', () => {
  it('signs in with the token in a file — no client id, no secret — and reads the file again when the access token expires', async () => {
    const file = path.join(dir, 'token');
    const first = await servers.workloadToken('rotating-job');
    writeFileSync(file, `${first}\n`);
    const store = new InMemoryOAuthStore();
    const before = (await servers.log()).length;
    const client = await connect({ assertion: { file }, store });
    try {
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'rotating-job via rotating-job' }]);
      // The platform rotates the token; the access token (three seconds) expires: the next call signs in with the new one.
      const second = await servers.workloadToken('rotating-job');
      writeFileSync(file, second);
      const held = store.getTokens(canonicalResource(url))!;
      while (held.expiresAt! >= Date.now()) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'rotating-job via rotating-job' }]);
      const grants = (await servers.log()).slice(before);
      expect(grants.every((entry) => entry.ok && entry.params.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer')).toBe(true);
      expect(grants[0].params).toMatchObject({ assertion: first, resource: url, scope: 'payroll:read' });
      expect(grants[0].params).not.toHaveProperty('client_id');
      expect(grants[grants.length - 1].params.assertion).toBe(second);
    } finally {
      await client.close();
    }
  });

  it('takes the token from an environment variable, or from a callback told which server it is for', async () => {
    process.env.HERMES_TEST_WORKLOAD_TOKEN = await servers.workloadToken('billing-job');
    try {
      const client = await connect({ assertion: { env: 'HERMES_TEST_WORKLOAD_TOKEN' }, clientId: 'billing' });
      try {
        expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'billing-job via billing' }]);
      } finally {
        await client.close();
      }
    } finally {
      delete process.env.HERMES_TEST_WORKLOAD_TOKEN;
    }
    const contexts: CrossAppAccessContext[] = [];
    const client = await connect({ assertion: (context) => (contexts.push(context), servers.workloadToken('billing-job')) });
    try {
      expect(unwrap(await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'billing-job via billing-job' }]);
      expect(contexts).toEqual([{ authorizationServerUrl: servers.as, resourceUrl: url, scope: 'payroll:read', fetchFn: expect.any(Function) }]);
    } finally {
      await client.close();
    }
  });

  it('surfaces a refused grant with the authorization server’s error, once: no retry, no other grant', async () => {
    for (const [assertion, error, description] of [
      [await servers.workloadToken('intruder'), 'unauthorized_client', 'the workload intruder may not use this server'],
      [await servers.workloadToken('billing-job', { ttl: -60 }), 'invalid_grant', 'the workload token has expired'],
      [await servers.workloadToken('billing-job', { aud: 'https://elsewhere.example' }), 'invalid_grant', 'the workload token has the wrong aud'],
    ]) {
      const before = (await servers.log()).length;
      const refused = await rejection(connect({ assertion }));
      expect(refused).toMatchObject({ step: 'jwt-bearer', error });
      expect(refused.message).toBe(`the JWT-bearer grant at ${servers.as}/token refused: ${error} (${description})`);
      expect((await servers.log()).slice(before)).toHaveLength(1);
    }
  });

  it('says which source could not be read: a missing file, an unset variable, an empty callback', async () => {
    const missing = path.join(dir, 'absent');
    expect(await rejection(connect({ assertion: { file: missing } }))).toMatchObject({
      step: 'assertion',
      message: expect.stringContaining(`the assertion file ${missing} could not be read: ENOENT`),
    });
    expect(await rejection(connect({ assertion: { env: 'HERMES_TEST_UNSET_TOKEN' } }))).toMatchObject({
      step: 'assertion',
      message: 'the assertion variable HERMES_TEST_UNSET_TOKEN is not set',
    });
    expect(await rejection(connect({ assertion: () => ' ' }))).toMatchObject({ step: 'assertion', message: 'the assertion callback is empty' });
  });
});

describe('the grant’s options', () => {
  it('are refused when the OAuthClient is made, saying what is missing', () => {
    expect(() => new OAuthClient({ grant: 'jwt_bearer' })).toThrow("grant: 'jwt_bearer' takes one of assertion (the workload's JWT");
    expect(() => new OAuthClient({ grant: 'jwt_bearer', assertion: 'x', crossAppAccess: { idpUrl: 'https://idp', clientId: 'c', idToken: 'x' } })).toThrow(
      "grant: 'jwt_bearer' takes one of",
    );
    expect(() => new OAuthClient({ assertion: 'x' })).toThrow("assertion goes with grant: 'jwt_bearer', not the default authorization_code");
    expect(() => new OAuthClient({ grant: 'jwt_bearer', crossAppAccess: { idpUrl: 'https://idp', clientId: 'c', idToken: 'x' } })).toThrow('crossAppAccess needs clientId');
    expect(() => new OAuthClient({ grant: 'jwt_bearer', clientId: 'm', crossAppAccess: { clientId: 'c', idToken: 'x' } })).toThrow('crossAppAccess takes one of idpUrl');
  });
});
