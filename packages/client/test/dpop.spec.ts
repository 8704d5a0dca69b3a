/**
 * The client's DPoP (RFC 9449), end to end against real parts: our server requiring DPoP-bound
 * tokens with its nonces (`dpop: { mode: 'required', nonce: true }`, Fastify on 127.0.0.1) and a
 * real authorization server (oidc-provider, its own process) that binds tokens to the key of the
 * proof a token request carries and wants its nonce in those proofs. The client signs in, calls
 * tools and refreshes with bound tokens, a proof on every request; it keeps working across a
 * restart when the application keeps its key; with DPoP off it says why the server refuses it.
 * Against a server whose nonces rotate every second, a client that keeps calling is refused for
 * its nonce once, at first, and never again: it takes the next one from the answers that give it.
 * A WebCrypto key pair signs with WebCrypto, for every algorithm, a non-extractable one too.
 * Every request is recorded by a `fetch` that hands it on to the real one.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { JsonWebKey, createHash, createPublicKey, generateKeyPairSync, verify, webcrypto } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { McpContext, McpServer, Tool, jwtVerifier } from '@hermes-mcp/core';
import {
  InMemoryOAuthStore,
  McpClient,
  OAuthClient,
  OAuthError,
  SseClientTransport,
  StreamableHttpClientTransport,
  canonicalResource,
  parseChallenges,
  unwrap,
} from '@hermes-mcp/client';
import { Serving, serveOn } from '../../../test-support/adapters';
import { AuthorizationServer, browserSignIn, startAuthorizationServer } from '../../../test-support/oidc/authorization-server';

@McpServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  @Tool({ description: 'Reads notes', scopes: ['notes:read'] }) read(ctx: McpContext) {
    return `notes of ${ctx.auth?.subject ?? 'nobody'}`;
  }
}

const REDIRECT = 'http://127.0.0.1:9/callback';

let as: AuthorizationServer;
let server: Serving;
let url: string;
/** A server like `server` whose nonces live one second (one to two, by when they were issued). */
let rotating: Serving;

beforeAll(async () => {
  as = await startAuthorizationServer({ clients: [], dpop: 'nonce' });
  server = await serveOn('fastify', NotesServer, (resource) => ({
    auth: {
      resource,
      authorizationServers: [as.issuer],
      verifier: jwtVerifier({ issuer: as.issuer, audience: resource }),
      scopesSupported: ['notes:read'],
      dpop: { mode: 'required', nonce: true },
    },
  }));
  url = server.url;
  rotating = await serveOn('fastify', NotesServer, (resource) => ({
    auth: {
      resource,
      authorizationServers: [as.issuer],
      verifier: jwtVerifier({ issuer: as.issuer, audience: resource }),
      scopesSupported: ['notes:read'],
      dpop: { mode: 'required', nonce: { lifetimeSec: 1 } },
    },
  }));
});

afterAll(async () => {
  await rotating?.close();
  await server?.close();
  await as?.stop();
});

/** One request as it went out, and what came back. */
interface Exchange {
  method: string;
  url: string;
  authorization?: string;
  dpop?: string;
  body?: string;
  status: number;
  nonce: string | null;
  challenge: string | null;
}

/** A `fetch` that records each request and hands it on to the real one. */
function recorder(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const response = await fetch(input, init);
    log.push({
      method: init?.method ?? 'GET',
      url: String(input),
      authorization: headers.get('authorization') ?? undefined,
      dpop: headers.get('dpop') ?? undefined,
      body: typeof init?.body === 'string' ? init.body : undefined,
      status: response.status,
      nonce: response.headers.get('dpop-nonce'),
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
}

/** The header and claims of a JWT (a proof, or an access token). */
function decode(jwt: string): { header: Record<string, any>; claims: Record<string, any> } {
  const [header, claims] = jwt
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, claims };
}

/** The RFC 7638 thumbprint of a public EC key, computed here (not with the code under test). */
function thumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
}

describe('DPoP-bound tokens, against a server that requires them and asks for nonces', () => {
  it('signs in, calls a tool and refreshes with bound tokens: a fresh proof on every token request and MCP request, each nonce signed in after one retry', async () => {
    const asked: URL[] = [];
    const oauthLog: Exchange[] = [];
    const mcpLog: Exchange[] = [];
    const store = new InMemoryOAuthStore();
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT, asked), scope: 'notes:read offline_access', store, fetch: recorder(oauthLog) });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth, fetch: recorder(mcpLog) }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      const jkt = thumbprint(auth.dpopKey() as never);

      // Signed in once, the code bound to the key (RFC 9449 §10).
      expect(asked).toHaveLength(1);
      expect(asked[0].searchParams.get('dpop_jkt')).toBe(jkt);

      // The token endpoint: a proof without its nonce refused (400 use_dpop_nonce), then one with it taken.
      const tokenRequests = oauthLog.filter((e) => e.url === `${as.issuer}/token`);
      expect(tokenRequests.map((e) => e.status)).toEqual([400, 200]);
      expect(tokenRequests[0].nonce).toEqual(expect.any(String));
      const [refused, taken] = tokenRequests.map((e) => decode(e.dpop!));
      expect(refused.claims.nonce).toBeUndefined();
      expect(taken.claims).toMatchObject({ htm: 'POST', htu: `${as.issuer}/token`, nonce: tokenRequests[0].nonce });
      expect(taken.header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
      expect(thumbprint(taken.header.jwk)).toBe(jkt);
      expect(taken.header.jwk.d).toBeUndefined();

      // The token is bound to the key, kept as a DPoP token.
      const tokens = store.getTokens(canonicalResource(url))!;
      expect(tokens.tokenType).toBe('DPoP');
      expect(decode(tokens.accessToken).claims.cnf).toEqual({ jkt });

      // The MCP server: every request with the token presents it as DPoP with a fresh proof for
      // that request; the first is answered 401 use_dpop_nonce, and sent again with the nonce.
      const authorized = mcpLog.filter((e) => e.authorization !== undefined);
      expect(authorized.length).toBeGreaterThanOrEqual(3);
      expect(authorized.every((e) => e.authorization === `DPoP ${tokens.accessToken}`)).toBe(true);
      const proofs = authorized.map((e) => decode(e.dpop!));
      const ath = createHash('sha256').update(tokens.accessToken).digest('base64url');
      for (const [i, proof] of proofs.entries()) {
        expect(proof.claims).toMatchObject({ htm: authorized[i].method, htu: url, ath, jti: expect.any(String), iat: expect.any(Number) });
        expect(thumbprint(proof.header.jwk)).toBe(jkt);
      }
      expect(new Set(proofs.map((p) => p.claims.jti)).size).toBe(proofs.length);
      expect(authorized[0].status).toBe(401);
      expect(parseChallenges(authorized[0].challenge).dpop).toMatchObject({ error: 'use_dpop_nonce' });
      expect(proofs[0].claims.nonce).toBeUndefined();
      expect(proofs[1].claims.nonce).toBe(authorized[0].nonce);
      expect(authorized.slice(1).every((e) => e.status < 300)).toBe(true);

      // A refresh (the kept token past its expiry): a refresh grant with a proof, a new bound token.
      store.setTokens(canonicalResource(url), { ...tokens, expiresAt: Date.now() });
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      const refresh = oauthLog.filter((e) => e.url === `${as.issuer}/token`).slice(2);
      expect(refresh.map((e) => new URLSearchParams(e.body).get('grant_type'))).toEqual(['refresh_token']);
      expect(decode(refresh[0].dpop!).claims).toMatchObject({ htm: 'POST', htu: `${as.issuer}/token`, nonce: expect.any(String) });
      const refreshed = store.getTokens(canonicalResource(url))!;
      expect(refreshed).toMatchObject({ tokenType: 'DPoP' });
      expect(refreshed.accessToken).not.toBe(tokens.accessToken);
      expect(decode(refreshed.accessToken).claims.cnf).toEqual({ jkt });
      expect(mcpLog[mcpLog.length - 1].authorization).toBe(`DPoP ${refreshed.accessToken}`);
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("sends a proof with a session's GET stream and its DELETE, and with HTTP+SSE's stream and posts", async () => {
    const log: Exchange[] = [];
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read' });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth, fetch: recorder(log) }), { protocolVersion: '2025-11-25' });
    await client.connect();
    // The GET stream opens once the session is initialized; its answer is awaited here.
    for (let i = 0; i < 400 && !log.some((e) => e.method === 'GET'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await client.close();
    const sseLog: Exchange[] = [];
    const legacy = new McpClient(new SseClientTransport({ url: `${url}/sse`, auth, fetch: recorder(sseLog) }));
    await legacy.connect();
    try {
      expect(unwrap(await legacy.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
    } finally {
      await legacy.close();
    }
    const get = log.find((e) => e.method === 'GET');
    const del = log.find((e) => e.method === 'DELETE');
    const stream = sseLog.find((e) => e.method === 'GET' && e.status === 200);
    const posts = sseLog.filter((e) => e.method === 'POST' && e.status < 300);
    // initialize, initialized (the answer to tools/call may come on the stream before its POST's 202, and close() end that POST).
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const [exchange, htu] of [[get, url], [del, url], [stream, `${url}/sse`], ...posts.map((post) => [post, `${url}/messages`] as const)] as const) {
      expect(exchange).toMatchObject({ status: expect.any(Number), authorization: expect.stringMatching(/^DPoP /) });
      expect(exchange!.status).toBeLessThan(300);
      expect(decode(exchange!.dpop!).claims).toMatchObject({ htm: exchange!.method, htu });
    }
  });

  it('keeps using the kept tokens after a restart when the application kept the key (dpopKey() → dpop.key); without it, signs in anew', async () => {
    const asked: URL[] = [];
    const store = new InMemoryOAuthStore();
    const options = { redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT, asked), scope: 'notes:read', store };
    const first = new OAuthClient(options);
    const before = new McpClient(new StreamableHttpClientTransport({ url, auth: first }), { protocolVersion: '2025-11-25' });
    await before.connect();
    await before.close();
    const kept = JSON.parse(JSON.stringify(first.dpopKey())) as JsonWebKey; // as an application would write it down
    const tokens = store.getTokens(canonicalResource(url))!;

    // A restart with the kept store and the kept key: the kept token is used as it is.
    const tokenRequests: Exchange[] = [];
    const again = new OAuthClient({ ...options, dpop: { key: kept }, fetch: recorder(tokenRequests) });
    const restarted = new McpClient(new StreamableHttpClientTransport({ url, auth: again }), { protocolVersion: '2025-11-25' });
    await restarted.connect();
    try {
      expect(unwrap(await restarted.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      expect(asked).toHaveLength(1);
      expect(tokenRequests.filter((e) => e.url.endsWith('/token'))).toEqual([]);
      expect(store.getTokens(canonicalResource(url))!.accessToken).toBe(tokens.accessToken);
    } finally {
      await restarted.close();
    }

    // A restart without the key: the kept token, bound to the old key, is refused; signed in anew.
    const forgetful = new OAuthClient(options);
    const fresh = new McpClient(new StreamableHttpClientTransport({ url, auth: forgetful }), { protocolVersion: '2025-11-25' });
    await fresh.connect();
    try {
      expect(unwrap(await fresh.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      expect(asked).toHaveLength(2);
      expect(store.getTokens(canonicalResource(url))!.accessToken).not.toBe(tokens.accessToken);
    } finally {
      await fresh.close();
    }
  });

  it('keeps calling across nonce rotations, in both eras, refused for its nonce only at first: the answers give the next one in time', async () => {
    for (const protocolVersion of ['2025-11-25', '2026-07-28'] as const) {
      const log: Exchange[] = [];
      const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read' });
      const client = new McpClient(new StreamableHttpClientTransport({ url: rotating.url, auth, fetch: recorder(log) }), { protocolVersion });
      await client.connect();
      try {
        // Past two rotations: without the next nonce, the first one would be refused by the second.
        for (const until = Date.now() + 2_500; Date.now() < until;) {
          expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await client.close();
      }
      const authorized = log.filter((e) => e.authorization !== undefined);
      const refused = authorized.filter((e) => e.status === 401);
      expect([protocolVersion, refused.map((e) => parseChallenges(e.challenge).dpop?.error)]).toEqual([protocolVersion, ['use_dpop_nonce']]);
      expect(authorized.indexOf(refused[0])).toBe(0);
      // The answers that gave the next nonce, each used by the proofs made after it (when there were any).
      const rolled = authorized.filter((e) => e.status < 300 && e.nonce !== null);
      expect(new Set(rolled.map((e) => e.nonce)).size).toBeGreaterThanOrEqual(2);
      for (const answer of rolled) {
        const later = authorized.slice(authorized.indexOf(answer) + 1).map((e) => decode(e.dpop!).claims.nonce);
        if (later.length > 0) expect(later).toContain(answer.nonce);
      }
    }
  });

  it('signs with a WebCrypto key pair given as dpop.key', async () => {
    const key = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const store = new InMemoryOAuthStore();
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read', store, dpop: { key } });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    await client.connect();
    try {
      expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
      const publicJwk = await webcrypto.subtle.exportKey('jwk', key.publicKey);
      expect(decode(store.getTokens(canonicalResource(url))!.accessToken).claims.cnf).toEqual({ jkt: thumbprint(publicJwk as never) });
    } finally {
      await client.close();
    }
  });

  it('with DPoP turned off, says the server takes DPoP-bound tokens only, before anyone signs in', async () => {
    const asked: URL[] = [];
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT, asked), dpop: false });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    const refusal = client.connect();
    await expect(refusal).rejects.toThrow(OAuthError);
    await expect(refusal).rejects.toThrow(
      `${url} takes DPoP-bound tokens only (its challenge names the DPoP scheme alone), and this OAuthClient has DPoP turned off (dpop: false)`,
    );
    expect(asked).toHaveLength(0);
    await client.close();
    expect(() => auth.dpopKey()).toThrow(/DPoP turned off \(dpop: false\)/);
  });

  it('refuses a key whose algorithm the authorization server does not list, naming both', async () => {
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), dpop: { alg: 'ES384' } });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: '2025-11-25' });
    await expect(client.connect()).rejects.toThrow(
      `${as.issuer} takes DPoP proofs signed with ES256, Ed25519, EdDSA, and this client's DPoP key signs ES384 (the dpop option's key or alg)`,
    );
    await client.close();
  });
});

describe('DPoP where the authorization server does not advertise it', () => {
  let plainAs: AuthorizationServer;
  let plain: Serving;
  let required: Serving;
  beforeAll(async () => {
    plainAs = await startAuthorizationServer({ clients: [], dpop: false });
    const options = (dpop: { mode: 'required' } | undefined) => (resource: string) => ({
      auth: { resource, authorizationServers: [plainAs.issuer], verifier: jwtVerifier({ issuer: plainAs.issuer, audience: resource }), scopesSupported: ['notes:read'], dpop },
    });
    [plain, required] = await Promise.all([serveOn('fastify', NotesServer, options(undefined)), serveOn('fastify', NotesServer, options({ mode: 'required' }))]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), required?.close()]);
    await plainAs?.stop();
  });

  it('sends no proof by default; with dpop: true sends one, and uses the bearer token answered as a bearer token', async () => {
    for (const dpop of [undefined, true]) {
      const oauthLog: Exchange[] = [];
      const mcpLog: Exchange[] = [];
      const store = new InMemoryOAuthStore();
      const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read', store, fetch: recorder(oauthLog), dpop });
      const client = new McpClient(new StreamableHttpClientTransport({ url: plain.url, auth, fetch: recorder(mcpLog) }), { protocolVersion: '2025-11-25' });
      await client.connect();
      try {
        expect(unwrap(await client.callTool('read')).content).toEqual([{ type: 'text', text: 'notes of ada' }]);
        const tokenRequests = oauthLog.filter((e) => e.url === `${plainAs.issuer}/token`);
        expect(tokenRequests.map((e) => ({ status: e.status, proof: e.dpop !== undefined }))).toEqual([{ status: 200, proof: dpop === true }]);
        expect(store.getTokens(canonicalResource(plain.url))!.tokenType).toBeUndefined();
        const authorized = mcpLog.filter((e) => e.authorization !== undefined);
        expect(authorized.length).toBeGreaterThan(0);
        expect(authorized.filter((e) => !e.authorization!.startsWith('Bearer ') || e.dpop !== undefined)).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it('says why a server that takes DPoP-bound tokens only refuses the bearer token such an authorization server gives', async () => {
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: browserSignIn(REDIRECT), scope: 'notes:read' });
    const client = new McpClient(new StreamableHttpClientTransport({ url: required.url, auth }), { protocolVersion: '2025-11-25' });
    await expect(client.connect()).rejects.toThrow(
      `${required.url} takes DPoP-bound tokens only (its challenge names the DPoP scheme alone), and the authorization server gave a bearer token (token requests carry DPoP proofs only where the authorization server advertises dpop_signing_alg_values_supported, or with dpop: true)`,
    );
    await client.close();
  });
});

describe('the dpop option', () => {
  it('refuses, at once and saying why, a key that is not private, of no DPoP kind, or not for the alg asked', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = publicKey.export({ format: 'jwk' });
    const privateJwk = privateKey.export({ format: 'jwk' });
    expect(() => new OAuthClient({ dpop: { key: publicJwk } })).toThrow(/dpop.key must be a private key/);
    expect(() => new OAuthClient({ dpop: { key: privateJwk, alg: 'PS256' } })).toThrow('OAuthClient: dpop.key is an EC key on P-256, which does not sign PS256');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' });
    expect(() => new OAuthClient({ dpop: { key: small } })).toThrow('OAuthClient: dpop.key is an RSA key shorter than 2048 bits');
    expect(() => new OAuthClient({ dpop: { alg: 'HS256' as never } })).toThrow('OAuthClient: dpop.alg must be one of ES256, EdDSA, Ed25519, ES384, PS256, RS256, not "HS256"');
    // A key given back as it was exported signs as it did.
    expect(new OAuthClient({ dpop: { key: { ...privateJwk, alg: 'ES256' } } }).dpopKey()).toEqual({ ...privateJwk, alg: 'ES256' });
  });
});

/** A WebCrypto key pair for each DPoP algorithm, and how its signatures are checked here (with `node:crypto`, not the code under test). */
const WEBCRYPTO_KINDS = [
  { alg: 'ES256', params: { name: 'ECDSA', namedCurve: 'P-256' }, check: { hash: 'sha256', dsaEncoding: 'ieee-p1363' } },
  { alg: 'ES384', params: { name: 'ECDSA', namedCurve: 'P-384' }, check: { hash: 'sha384', dsaEncoding: 'ieee-p1363' } },
  { alg: 'EdDSA', params: { name: 'Ed25519' }, check: { hash: null } },
  {
    alg: 'PS256',
    params: { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    check: { hash: 'sha256', padding: 6, saltLength: 32 },
  },
  { alg: 'RS256', params: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, check: { hash: 'sha256', padding: 1 } },
] as const;

/** A WebCrypto key pair of `params`, extractable or not. */
function webcryptoPair(params: webcrypto.AlgorithmIdentifier | webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams, extractable: boolean): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(params, extractable, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

/** The proof `auth` sends with a DPoP-bound token for `method` `target`, as the `fetch` it wraps sees it (no network). */
async function proofOf(auth: OAuthClient, store: InMemoryOAuthStore, method: string, target: string): Promise<string> {
  const url = new URL(target);
  store.setTokens(canonicalResource(url), { accessToken: 'bound-token', tokenType: 'DPoP' });
  let proof: string | undefined;
  const send = auth.wrap(async (_url, init) => {
    proof = init.headers.dpop;
    return new Response('ok');
  }, url);
  await send(url, { method, headers: {} });
  expect(proof).toEqual(expect.any(String));
  return proof!;
}

/**
 * Checks a proof for a POST to https://mcp.example/mcp with the token 'bound-token', signed by `alg`:
 * its header names `alg` and the public key, no private member, and its signature verifies with
 * `publicJwk` (the pair's own public key) and with the key its header names.
 */
function expectProof(proof: string, alg: string, publicJwk: JsonWebKey): void {
  const { header, claims } = decode(proof);
  expect(header).toEqual({ typ: 'dpop+jwt', alg, jwk: expect.objectContaining({ kty: publicJwk.kty }) });
  expect(header.jwk.d).toBeUndefined();
  expect(claims).toMatchObject({ htm: 'POST', htu: 'https://mcp.example/mcp', ath: createHash('sha256').update('bound-token').digest('base64url') });
  const { hash, ...options } = WEBCRYPTO_KINDS.find((kind) => kind.alg === alg)!.check;
  const [head, body, signature] = proof.split('.');
  for (const key of [publicJwk, header.jwk as JsonWebKey]) {
    expect(verify(hash, Buffer.from(`${head}.${body}`), { key: createPublicKey({ key, format: 'jwk' }), ...options }, Buffer.from(signature, 'base64url'))).toBe(true);
  }
}

describe('a WebCrypto key pair as dpop.key', () => {
  it('signs with the key where it is, for every algorithm: a non-extractable pair works, its proofs verify with its public key', async () => {
    for (const kind of WEBCRYPTO_KINDS) {
      const key = await webcryptoPair(kind.params, false);
      const store = new InMemoryOAuthStore();
      const proof = await proofOf(new OAuthClient({ store, dpop: { key } }), store, 'POST', 'https://mcp.example/mcp?q=1');
      expectProof(proof, kind.alg, (await webcrypto.subtle.exportKey('jwk', key.publicKey)) as JsonWebKey);
    }
  });

  it('in a process of its own, signs with a non-extractable pair of every algorithm without DEP0204 (KeyObject.from() of a non-extractable CryptoKey, deprecated by Node 24)', async () => {
    // Node warns of a deprecation once a process, and jest's `process` hears none of the real one's warnings: a child process (the built client) tells.
    const fixture = path.join(__dirname, 'fixtures/dpop-webcrypto-proofs.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [fixture], { encoding: 'utf8', timeout: 20_000 });
    const { proofs, warnings } = JSON.parse(stdout) as { proofs: { alg: string; proof: string; publicJwk: JsonWebKey }[]; warnings: string[] };
    expect(warnings).not.toContain('DEP0204');
    expect(proofs.map((p) => p.alg)).toEqual(WEBCRYPTO_KINDS.map((kind) => kind.alg));
    for (const { alg, proof, publicJwk } of proofs) expectProof(proof, alg, publicJwk);
  });

  it('dpopKey() exports an extractable pair, and never a non-extractable one', async () => {
    const kept = await webcryptoPair(WEBCRYPTO_KINDS[0].params, true);
    const exported = new OAuthClient({ dpop: { key: kept } }).dpopKey();
    const { ext, key_ops, ...privateJwk } = await webcrypto.subtle.exportKey('jwk', kept.privateKey);
    expect([ext, key_ops]).toEqual([true, ['sign']]);
    expect(exported).toEqual({ ...privateJwk, alg: 'ES256' });
    // Given back as a JWK, it signs as the pair did.
    const store = new InMemoryOAuthStore();
    const proof = await proofOf(new OAuthClient({ store, dpop: { key: exported } }), store, 'POST', 'https://mcp.example/mcp');
    expectProof(proof, 'ES256', (await webcrypto.subtle.exportKey('jwk', kept.publicKey)) as JsonWebKey);

    const sealed = new OAuthClient({ dpop: { key: await webcryptoPair(WEBCRYPTO_KINDS[0].params, false) } });
    expect(() => sealed.dpopKey()).toThrow(OAuthError);
    expect(() => sealed.dpopKey()).toThrow(/not extractable/);
  });

  it('refuses, at once and saying why, a pair that signs no DPoP algorithm, or not the alg asked', async () => {
    const pss = await webcryptoPair(WEBCRYPTO_KINDS[3].params, false);
    expect(() => new OAuthClient({ dpop: { key: pss, alg: 'RS256' } })).toThrow('OAuthClient: dpop.key is an RSA-PSS key with SHA-256, which does not sign RS256');
    const sha384 = await webcryptoPair({ ...WEBCRYPTO_KINDS[3].params, hash: 'SHA-384' }, false);
    expect(() => new OAuthClient({ dpop: { key: sha384 } })).toThrow('OAuthClient: dpop.key is an RSA-PSS key with SHA-384, which does not sign any DPoP algorithm');
    const ecdh = await webcrypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    expect(() => new OAuthClient({ dpop: { key: ecdh } })).toThrow('OAuthClient: dpop.key is an ECDH key on P-256, which does not sign any DPoP algorithm');
  });
});

describe('parseChallenges', () => {
  it('reads each challenge of a WWW-Authenticate value by scheme', () => {
    expect(
      parseChallenges('Bearer resource_metadata="https://x/m", scope="a b", DPoP algs="ES256 EdDSA", error="use_dpop_nonce", error_description="say \\"nonce\\"", realm=mcp'),
    ).toEqual({
      bearer: { resource_metadata: 'https://x/m', scope: 'a b' },
      dpop: { algs: 'ES256 EdDSA', error: 'use_dpop_nonce', error_description: 'say "nonce"', realm: 'mcp' },
    });
    expect(parseChallenges('DPoP')).toEqual({ dpop: {} });
    expect(parseChallenges(null)).toEqual({});
  });
});
