/**
 * DPoP-bound tokens (RFC 9449) at the resource server, on both HTTP adapters, with tokens a real
 * authorization server (oidc-provider, DPoP on) bound to a client's key: a JWT with `cnf.jkt`, and
 * an opaque token whose introspection answer has it. A good proof is taken; each way an attacker
 * would reuse a token or a proof is refused with a DPoP challenge and no data: a replayed proof, a
 * proof for another URL or method, one too old or from the future, one signed by another key, one
 * that does not name the token (`ath`) or names another, a bound token presented as Bearer, an
 * unbound token presented as DPoP, a bearer token where DPoP is required, and malformed proofs.
 * Server nonces: a proof without the nonce gets 401 `use_dpop_nonce` with one in `DPoP-Nonce`,
 * and the retry with it is taken.
 */
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { HttpEndpointOptions, McpServer, Tool, introspectionVerifier, jwtVerifier } from '@hermes-mcp/core';
import type { DpopOptions } from '@hermes-mcp/core';
import { MAX_DPOP_HEADER_PARAMETERS, MAX_DPOP_PROOF_LENGTH } from '../../src/auth/dpop';
import { ACCEPT_BOTH, MODERN, MODERN_META, rpc } from '../../../../test-support/hardening';
import { AuthorizationServer, TestClient, startAuthorizationServer } from '../../../../test-support/oidc/authorization-server';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

type Jose = typeof import('jose');
let jose: Jose;

@McpServer({ name: 'dpop', version: '1.0.0' })
class NotesServer {
  @Tool({ description: 'The secret notes' })
  notes() {
    return 'the secret notes';
  }
}

const CLIENT: TestClient = {
  client_id: 'dpop-app',
  client_secret: 'dpop-secret',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'notes:read',
};

/** A client's key pair, and its public JWK as a proof embeds it. */
interface Key {
  privateKey: import('jose').CryptoKey;
  jwk: import('jose').JWK;
}

async function newKey(alg = 'ES256'): Promise<Key> {
  const pair = await jose.generateKeyPair(alg, { extractable: true });
  return { privateKey: pair.privateKey, jwk: await jose.exportJWK(pair.publicKey) };
}

/** What a proof says; each field may be changed (or left out, as undefined) by a test. */
interface ProofClaims {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string;
  ath?: string;
  nonce?: string;
  /** A claim of any length, to make a proof as long as a test needs. */
  pad?: string;
}

/** A DPoP proof signed by `key`: by default for a POST to `htu` now, naming `token` if given. */
async function proof(key: Key, claims: ProofClaims & { token?: string }, header: Record<string, unknown> = {}): Promise<string> {
  const { token, ...given } = claims;
  const payload: Record<string, unknown> = { htm: 'POST', iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...(token !== undefined && { ath: hash(token) }), ...given };
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  return new jose.SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...header }).sign(key.privateKey);
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

let jwtAs: AuthorizationServer;
let opaqueAs: AuthorizationServer;
beforeAll(async () => {
  jose = await import('jose');
  [jwtAs, opaqueAs] = await Promise.all([startAuthorizationServer({ clients: [CLIENT] }), startAuthorizationServer({ clients: [CLIENT], accessTokenFormat: 'opaque' })]);
});
afterAll(async () => {
  await Promise.all([jwtAs?.stop(), opaqueAs?.stop()]);
});

/** A token for `resource`, bound to `key` when one is given (the token request carries a proof). */
async function tokenFor(as: AuthorizationServer, resource: string, key?: Key): Promise<string> {
  const dpop = key && (await proof(key, { htu: `${as.issuer}/token` }));
  return as.token(CLIENT, { resource, scope: 'notes:read', ...(dpop && { dpop }) });
}

/** A 2026-07-28 `tools/call` of `notes`, with these credentials. */
function callNotes(url: string, headers: Record<string, string>, method = 'POST'): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'notes', ...headers },
    body: JSON.stringify(rpc(1, 'tools/call', { name: 'notes', arguments: {}, _meta: MODERN_META })),
  });
}

/** The request is refused with 401, a DPoP challenge with `error` that says `why`, and no data. */
async function expectRefused(response: Response, error: string, why: RegExp, scheme = 'DPoP'): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status: 401 });
  expect(text).not.toContain('the secret notes');
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(new RegExp(`${scheme} [^]*error="${error}"`));
  expect(challenge).toMatch(why);
  expect(challenge).toContain('resource_metadata="');
}

async function expectServed(response: Response): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status: 200 });
  expect(text).toContain('the secret notes');
}

describe.each(ADAPTERS)('DPoP on %s', (adapter) => {
  let jwtServer: Serving;
  let introspected: Serving;
  let required: Serving;
  let withNonces: Serving;
  let bearerOnly: Serving;
  let key: Key;

  const jwt =
    (dpop?: DpopOptions | false) =>
    (url: string): HttpEndpointOptions => ({
      auth: {
        resource: url,
        authorizationServers: [jwtAs.issuer],
        scopesSupported: ['notes:read'],
        verifier: jwtVerifier({ issuer: jwtAs.issuer, audience: url }),
        ...(dpop !== undefined && { dpop }),
      },
    });

  beforeAll(async () => {
    key = await newKey();
    [jwtServer, introspected, required, withNonces, bearerOnly] = await Promise.all([
      serveOn(adapter, NotesServer, jwt()),
      serveOn(adapter, NotesServer, (url) => ({
        auth: {
          resource: url,
          authorizationServers: [opaqueAs.issuer],
          scopesSupported: ['notes:read'],
          verifier: introspectionVerifier({ endpoint: `${opaqueAs.issuer}/token/introspection`, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret, audience: url }),
        },
      })),
      serveOn(adapter, NotesServer, jwt({ mode: 'required' })),
      serveOn(adapter, NotesServer, jwt({ nonce: true })),
      serveOn(adapter, NotesServer, jwt(false)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([jwtServer, introspected, required, withNonces, bearerOnly].map((s) => s?.close()));
  });

  it('takes a bound token with a fresh proof for each request, JWT and introspected, and publishes the algorithms it takes', async () => {
    for (const server of [jwtServer, introspected]) {
      const as = server === jwtServer ? jwtAs : opaqueAs;
      const token = await tokenFor(as, server.url, key);
      for (let i = 0; i < 2; i++) await expectServed(await callNotes(server.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: server.url, token }) }));
    }
    const metadata = await (await fetch(`${jwtServer.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'] });
    expect(metadata).not.toHaveProperty('dpop_bound_access_tokens_required');
    const challenge = (await callNotes(jwtServer.url, {})).headers.get('www-authenticate');
    expect(challenge).toMatch(/^Bearer resource_metadata="[^"]+", scope="notes:read", DPoP algs="ES256 EdDSA Ed25519 PS256 RS256", resource_metadata="/);
  });

  it('refuses a proof used twice, on the JWT and the introspection path', async () => {
    for (const server of [jwtServer, introspected]) {
      const token = await tokenFor(server === jwtServer ? jwtAs : opaqueAs, server.url, key);
      const once = await proof(key, { htu: server.url, token });
      await expectServed(await callNotes(server.url, { authorization: `DPoP ${token}`, dpop: once }));
      await expectRefused(await callNotes(server.url, { authorization: `DPoP ${token}`, dpop: once }), 'invalid_dpop_proof', /used before \(jti\)/);
    }
  });

  it('refuses a proof made for another URL, another path, another method, or with no htu', async () => {
    const token = await tokenFor(jwtAs, jwtServer.url, key);
    const as = (claims: ProofClaims) => proof(key, { token, ...claims });
    for (const htu of ['https://elsewhere.example/mcp', `${jwtServer.origin}/other`, 'not a url', undefined]) {
      await expectRefused(await callNotes(jwtServer.url, { authorization: `DPoP ${token}`, dpop: await as({ htu }) }), 'invalid_dpop_proof', /htu/);
    }
    await expectRefused(
      await callNotes(jwtServer.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: jwtServer.url, htm: 'GET', token }) }),
      'invalid_dpop_proof',
      /another method \(htm/,
    );
    // A query is not part of what a proof names (RFC 9449 §4.3).
    await expectServed(await callNotes(`${jwtServer.url}?x=1`, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: `${jwtServer.url}#f`, token }) }));
  });

  it('refuses a proof too old, or from the future', async () => {
    const token = await tokenFor(jwtAs, jwtServer.url, key);
    const now = Math.floor(Date.now() / 1000);
    for (const iat of [now - 120, now + 120]) {
      await expectRefused(
        await callNotes(jwtServer.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: jwtServer.url, token, iat }) }),
        'invalid_dpop_proof',
        /iat/,
      );
    }
  });

  it('refuses a proof signed by another key than the one the token is bound to, JWT and introspected', async () => {
    const thief = await newKey();
    for (const server of [jwtServer, introspected]) {
      const token = await tokenFor(server === jwtServer ? jwtAs : opaqueAs, server.url, key);
      await expectRefused(
        await callNotes(server.url, { authorization: `DPoP ${token}`, dpop: await proof(thief, { htu: server.url, token }) }),
        'invalid_dpop_proof',
        /another key/,
      );
    }
  });

  it('refuses a proof that does not name the token, or names another', async () => {
    const token = await tokenFor(jwtAs, jwtServer.url, key);
    const other = await tokenFor(jwtAs, jwtServer.url, key);
    await expectRefused(await callNotes(jwtServer.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: jwtServer.url }) }), 'invalid_dpop_proof', /\(ath\)/);
    await expectRefused(
      await callNotes(jwtServer.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: jwtServer.url, token: other }) }),
      'invalid_dpop_proof',
      /another token \(ath\)/,
    );
  });

  it('refuses a bound token presented as Bearer, and an unbound one presented as DPoP', async () => {
    for (const server of [jwtServer, introspected]) {
      const as = server === jwtServer ? jwtAs : opaqueAs;
      const bound = await tokenFor(as, server.url, key);
      await expectRefused(await callNotes(server.url, { authorization: `Bearer ${bound}` }), 'invalid_token', /bound to a key/, 'Bearer');
      const unbound = await tokenFor(as, server.url);
      await expectServed(await callNotes(server.url, { authorization: `Bearer ${unbound}` }));
      await expectRefused(
        await callNotes(server.url, { authorization: `DPoP ${unbound}`, dpop: await proof(key, { htu: server.url, token: unbound }) }),
        'invalid_dpop_proof',
        /not bound to a key/,
      );
    }
  });

  it('where DPoP is required, refuses a bearer token and says so in the metadata', async () => {
    const unbound = await tokenFor(jwtAs, required.url);
    await expectRefused(await callNotes(required.url, { authorization: `Bearer ${unbound}` }), 'invalid_token', /DPoP-bound tokens only/);
    const challenge = (await callNotes(required.url, {})).headers.get('www-authenticate');
    expect(challenge).toMatch(/^DPoP algs="ES256 EdDSA Ed25519 PS256 RS256", resource_metadata="[^"]+", scope="notes:read"$/);
    const bound = await tokenFor(jwtAs, required.url, key);
    await expectServed(await callNotes(required.url, { authorization: `DPoP ${bound}`, dpop: await proof(key, { htu: required.url, token: bound }) }));
    expect(await (await fetch(`${required.origin}/.well-known/oauth-protected-resource/mcp`)).json()).toMatchObject({ dpop_bound_access_tokens_required: true });
  });

  it('refuses malformed proofs: none, two, not a JWS, another typ, HMAC or none, a key of another type, crit, a private key inside, a forged signature', async () => {
    const token = await tokenFor(jwtAs, jwtServer.url, key);
    const auth = { authorization: `DPoP ${token}` };
    const good = await proof(key, { htu: jwtServer.url, token });
    await expectRefused(await callNotes(jwtServer.url, auth), 'invalid_dpop_proof', /needs a DPoP header/);
    await expectRefused(
      await callNotes(jwtServer.url, { ...auth, dpop: `${good}, ${await proof(key, { htu: jwtServer.url, token })}` }),
      'invalid_dpop_proof',
      /more than one DPoP header/,
    );
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: 'garbage' }), 'invalid_dpop_proof', /not a compact JWS/);
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: await proof(key, { htu: jwtServer.url, token }, { typ: 'JWT' }) }), 'invalid_dpop_proof', /typ/);
    const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!');
    const hmac = await new jose.SignJWT({ htm: 'POST', htu: jwtServer.url, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ath: hash(token) })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: jose.base64url.encode(secret) } as import('jose').JWK })
      .sign(secret);
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: hmac }), 'invalid_dpop_proof', /an algorithm this server does not accept/);
    const unsigned = `${jose.base64url.encode(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk }))}.${good.split('.')[1]}.`;
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: `${unsigned}AAAA` }), 'invalid_dpop_proof', /an algorithm this server does not accept/);
    const rsa = await newKey('RS256');
    const mismatched = await proof(key, { htu: jwtServer.url, token }, { jwk: rsa.jwk });
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: mismatched }), 'invalid_dpop_proof', /not a key for ES256/);
    await expectRefused(
      await callNotes(jwtServer.url, { ...auth, dpop: await proof(key, { htu: jwtServer.url, token }, { crit: ['b64'], b64: true }) }),
      'invalid_dpop_proof',
      /critical/,
    );
    const withPrivate = await proof(key, { htu: jwtServer.url, token }, { jwk: await jose.exportJWK(key.privateKey) });
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: withPrivate }), 'invalid_dpop_proof', /private or symmetric key/);
    const [head, , signature] = good.split('.');
    const forged = `${head}.${jose.base64url.encode(JSON.stringify({ htm: 'POST', htu: jwtServer.url, iat: Math.floor(Date.now() / 1000), jti: 'forged', ath: hash(token) }))}.${signature}`;
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: forged }), 'invalid_dpop_proof', /signature/);
  });

  it('refuses a validly signed proof longer than 8 KiB, or whose header has more than 16 parameters, and takes one just inside both', async () => {
    const token = await tokenFor(jwtAs, jwtServer.url, key);
    const auth = { authorization: `DPoP ${token}` };
    const padded = async (length: number) => {
      const base = await proof(key, { htu: jwtServer.url, token, pad: '' });
      return proof(key, { htu: jwtServer.url, token, pad: 'x'.repeat(Math.floor(((length - base.length) * 3) / 4)) });
    };
    const long = await padded(MAX_DPOP_PROOF_LENGTH + 64);
    expect(long.length).toBeGreaterThan(MAX_DPOP_PROOF_LENGTH);
    await expectRefused(await callNotes(jwtServer.url, { ...auth, dpop: long }), 'invalid_dpop_proof', /longer than 8192 characters/);
    const inside = await padded(MAX_DPOP_PROOF_LENGTH - 64);
    expect(inside.length).toBeLessThanOrEqual(MAX_DPOP_PROOF_LENGTH);
    await expectServed(await callNotes(jwtServer.url, { ...auth, dpop: inside }));
    const extra = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`x${i}`, i]));
    await expectRefused(
      await callNotes(jwtServer.url, { ...auth, dpop: await proof(key, { htu: jwtServer.url, token }, extra(MAX_DPOP_HEADER_PARAMETERS - 2)) }),
      'invalid_dpop_proof',
      /more than 16 parameters/,
    );
    await expectServed(await callNotes(jwtServer.url, { ...auth, dpop: await proof(key, { htu: jwtServer.url, token }, extra(MAX_DPOP_HEADER_PARAMETERS - 3)) }));
  });

  it('asks for a nonce when it gives them, and takes the proof that carries it', async () => {
    const token = await tokenFor(jwtAs, withNonces.url, key);
    const first = await callNotes(withNonces.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: withNonces.url, token }) });
    await expectRefused(first.clone(), 'use_dpop_nonce', /nonce/);
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    await expectServed(await callNotes(withNonces.url, { authorization: `DPoP ${token}`, dpop: await proof(key, { htu: withNonces.url, token, nonce: nonce! }) }));
    await expectRefused(
      await callNotes(withNonces.url, {
        authorization: `DPoP ${token}`,
        dpop: await proof(key, { htu: withNonces.url, token, nonce: `${nonce!.split('.')[0]}.${'A'.repeat(22)}` }),
      }),
      'use_dpop_nonce',
      /nonce/,
    );
  });

  it('with dpop: false, takes bearer tokens only, still refuses a bound token as Bearer, and publishes no DPoP', async () => {
    const bound = await tokenFor(jwtAs, bearerOnly.url, key);
    const response = await callNotes(bearerOnly.url, { authorization: `DPoP ${bound}`, dpop: await proof(key, { htu: bearerOnly.url, token: bound }) });
    expect(response.status).toBe(401);
    expect(await response.text()).toMatch(/in the Bearer scheme only/);
    expect(response.headers.get('www-authenticate')).not.toContain('DPoP');
    await expectRefused(await callNotes(bearerOnly.url, { authorization: `Bearer ${bound}` }), 'invalid_token', /bound to a key/, 'Bearer');
    expect(await (await fetch(`${bearerOnly.origin}/.well-known/oauth-protected-resource/mcp`)).json()).not.toHaveProperty('dpop_signing_alg_values_supported');
  });
});
