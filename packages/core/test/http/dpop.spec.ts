/**
 * DPoP-bound tokens (RFC 9449) at the resource server, on both HTTP adapters, with tokens a real
 * authorization server (oidc-provider, DPoP on) bound to a client's key: a JWT with `cnf.jkt`, and
 * an opaque token whose introspection answer has it. A good proof is taken; each way an attacker
 * would reuse a token or a proof is refused with a DPoP challenge and no data: a replayed proof, a
 * proof for another URL or method, one too old or from the future, one signed by another key, one
 * that does not name the token (`ath`) or names another, a bound token presented as Bearer, an
 * unbound token presented as DPoP, a bearer token where DPoP is required, and malformed proofs.
 * Server nonces: a proof without the nonce gets 401 `use_dpop_nonce` with one in `DPoP-Nonce`,
 * and the retry with it is taken; a client that uses the newest nonce an answer gave is never
 * refused again across nonce rotations (the answers to proofs whose nonce is past half its life
 * carry the next one), in both eras, JSON answers and SSE streams alike.
 */
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { HttpEndpointOptions, McpContext, McpServer, Tool, introspectionVerifier, jwtVerifier } from '@hermes-mcp/core';
import type { DpopOptions } from '@hermes-mcp/core';
import { MAX_DPOP_HEADER_PARAMETERS, MAX_DPOP_PROOF_LENGTH } from '../../src/auth/dpop';
import { ACCEPT_BOTH, MODERN, MODERN_META, messagesOf, rpc } from '../../../../test-support/hardening';
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
  @Tool({ description: 'The secret notes, after a progress notification (an SSE answer)' })
  async streamed(ctx: McpContext) {
    await ctx.progress(1, 1);
    return 'the secret notes';
  }
  @Tool({ description: 'Writes notes (a scope no token here has: 403)', scopes: ['notes:write'] })
  write() {
    return 'written';
  }
}

/** The lifetime of the nonces of the server that rotates them while a test runs, in seconds. */
const ROTATION_SEC = 1;

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

/**
 * A client as RFC 9449 §8 and §9 have it: every proof carries the newest nonce any answer gave in
 * `DPoP-Nonce`; a request refused with `use_dpop_nonce` is sent again once, with the nonce given.
 */
class NonceClient {
  /** The newest nonce heard. */
  nonce?: string = undefined;
  /** The nonce each `use_dpop_nonce` refusal was for (undefined: the client had none yet). */
  readonly refused: Array<string | undefined> = [];
  /** The nonces answers that were not refusals gave. */
  readonly rolledTo: string[] = [];
  /** Answers that were not refusals and gave no nonce. */
  quiet = 0;

  constructor(
    private readonly key: Key,
    private readonly token: string,
  ) {}

  /** A JSON-RPC message POSTed to `url` (a session's headers in `headers`). */
  post(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
    return this.send('POST', url, { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, JSON.stringify(body));
  }

  /** One request with the token and a fresh proof, sent again once when refused for its nonce. */
  async send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Response> {
    for (let retried = false; ; retried = true) {
      const used = this.nonce;
      const dpop = await proof(this.key, { htm: method, htu: url, token: this.token, nonce: used });
      const response = await fetch(url, { method, headers: { ...headers, authorization: `DPoP ${this.token}`, dpop }, body });
      const given = response.headers.get('dpop-nonce');
      const refused = response.status === 401 && /error="use_dpop_nonce"/.test(response.headers.get('www-authenticate') ?? '');
      if (refused) this.refused.push(used);
      else if (given !== null) this.rolledTo.push(given);
      else this.quiet++;
      if (given !== null) this.nonce = given;
      if (!refused || retried) return response;
      await response.body?.cancel();
    }
  }
}

/** The `endpoint` event's data of a 2024-11-05 stream (where its POSTs go); the stream stays open. */
async function endpointOf(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  let text = '';
  while (!/event: endpoint\ndata: [^\n]+\n/.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before its endpoint event: ${text}`);
    text += Buffer.from(value).toString('utf8');
  }
  reader.releaseLock();
  return /event: endpoint\ndata: ([^\n]+)\n/.exec(text)![1];
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
  let rotating: Serving;
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
    [jwtServer, introspected, required, withNonces, rotating, bearerOnly] = await Promise.all([
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
      serveOn(adapter, NotesServer, jwt({ mode: 'required', nonce: { lifetimeSec: ROTATION_SEC } })),
      serveOn(adapter, NotesServer, jwt(false)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([jwtServer, introspected, required, withNonces, rotating, bearerOnly].map((s) => s?.close()));
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

  it('gives the next nonce with the answer to a proof whose nonce is past half its life: a client that uses the newest is never refused again, across rotations, in both eras, JSON and SSE', async () => {
    const token = await tokenFor(jwtAs, rotating.url, key);
    const client = new NonceClient(key, token);
    const { url } = rotating;
    const served = async (response: Response, stream = false) => {
      expect([response.status, (response.headers.get('content-type') ?? '').split(';')[0]]).toEqual([200, stream ? 'text/event-stream' : 'application/json']);
      expect(JSON.stringify(await messagesOf(response))).toContain('the secret notes');
    };
    // The first request has no nonce yet: refused once, and sent again with the one given.
    const modern = (name: string, meta: Record<string, unknown> = {}) =>
      client.post(
        url,
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
        rpc(1, 'tools/call', { name, arguments: {}, _meta: { ...MODERN_META, ...meta } }),
      );
    await served(await modern('notes'));
    expect(client.refused).toEqual([undefined]);
    // A legacy session, over the same rotations.
    const opened = await client.post(url, {}, rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rotating', version: '1.0.0' } }));
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await opened.text();
    expect((await client.post(url, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const legacy = (name: string, meta?: Record<string, unknown>) => client.post(url, session, rpc(2, 'tools/call', { name, arguments: {}, ...(meta && { _meta: meta }) }));
    // Past three rotations, every kind of answer in turn: JSON and SSE in both eras, and a 2024-11-05 stream.
    const until = Date.now() + 3.5 * ROTATION_SEC * 1000;
    for (let turn = 0; Date.now() < until; turn++) {
      switch (turn % 5) {
        case 0:
          await served(await modern('notes'));
          break;
        case 1:
          await served(await modern('streamed', { progressToken: 'p' }), true);
          break;
        case 2:
          await served(await legacy('notes'));
          break;
        case 3:
          await served(await legacy('streamed', { progressToken: 'p' }), true);
          break;
        case 4: {
          const stream = await client.send('GET', `${url}/sse`, { accept: 'text/event-stream' });
          expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
          await stream.body!.cancel();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await client.send('DELETE', url, session)).status).toBe(200);
    // Never refused once it had a nonce: it heard the next one in time, at each rotation.
    expect(client.refused).toEqual([undefined]);
    expect(new Set(client.rolledTo).size).toBeGreaterThanOrEqual(2);
    // Only the answers to proofs with a nonce past half its life carry one: not every answer.
    expect(client.quiet).toBeGreaterThan(client.rolledTo.length);
  });

  it("gives the next nonce with every kind of answer: JSON and SSE in both eras, a session's GET stream and DELETE, a 2024-11-05 stream and its POSTs, a 403 for scopes; none while the nonce is current", async () => {
    const token = await tokenFor(jwtAs, rotating.url, key);
    const client = new NonceClient(key, token);
    const { url } = rotating;
    const modern = (name: string, meta: Record<string, unknown> = {}) =>
      client.post(
        url,
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
        rpc(1, 'tools/call', { name, arguments: {}, _meta: { ...MODERN_META, ...meta } }),
      );
    const opened = await client.post(url, {}, rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'kinds', version: '1.0.0' } }));
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await opened.text();
    await client.post(url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacy = (name: string, meta?: Record<string, unknown>) => client.post(url, session, rpc(2, 'tools/call', { name, arguments: {}, ...(meta && { _meta: meta }) }));
    const sse = await client.send('GET', `${url}/sse`, { accept: 'text/event-stream' });
    const messages = new URL(await endpointOf(sse), rotating.origin).href;
    /** Each kind of answer, and what it is: its status and content type (the adapter's own for a 202 or a DELETE's 200). */
    const kinds: Array<[string, () => Promise<Response>, number, string | undefined]> = [
      ['2026-07-28, JSON', () => modern('notes'), 200, 'application/json'],
      ['2026-07-28, SSE', () => modern('streamed', { progressToken: 'p' }), 200, 'text/event-stream'],
      ['2026-07-28, 403 for scopes', () => modern('write'), 403, 'application/json'],
      ['legacy, JSON', () => legacy('notes'), 200, 'application/json'],
      ['legacy, SSE', () => legacy('streamed', { progressToken: 'p' }), 200, 'text/event-stream'],
      ['legacy, 403 for scopes', () => legacy('write'), 403, 'application/json'],
      ['legacy, the GET stream', () => client.send('GET', url, { accept: 'text/event-stream', ...session }), 200, 'text/event-stream'],
      ['2024-11-05, a POST', () => client.post(messages, {}, { jsonrpc: '2.0', id: 3, method: 'ping' }), 202, undefined],
      ['2024-11-05, the stream', () => client.send('GET', `${url}/sse`, { accept: 'text/event-stream' }), 200, 'text/event-stream'],
      ['legacy, DELETE', () => client.send('DELETE', url, session), 200, undefined],
    ];
    const answer = async ([kind, send, , type]: (typeof kinds)[number]) => {
      const response = await send();
      const seen = [kind, response.status, type && response.headers.get('content-type')?.split(';')[0], response.headers.get('dpop-nonce')];
      await response.body?.cancel();
      return seen;
    };
    const expected =
      (nonce: unknown) =>
      ([kind, , status, type]: (typeof kinds)[number]) => [kind, status, type, nonce];
    const slotNow = () => Math.floor(Date.now() / (ROTATION_SEC * 1000));
    const nextRotation = async (): Promise<number> => {
      const slot = slotNow();
      while (slotNow() === slot) await new Promise((resolve) => setTimeout(resolve, 5));
      return slotNow();
    };
    // Each phase runs within one slot, begun just after a rotation (again, should the next rotation come meanwhile).
    const withinOneSlot = async (phase: (slot: number) => Promise<unknown[]>): Promise<unknown[]> => {
      for (let attempt = 1; ; attempt++) {
        const slot = await nextRotation();
        const seen = await phase(slot);
        if (slotNow() === slot || attempt === 3) return seen;
      }
    };
    const [del] = kinds.splice(-1);
    // The nonce current (the first answer of the slot rolled the client over): no answer gives one.
    const quiet = await withinOneSlot(async () => {
      await answer(kinds[0]);
      const seen = [];
      for (const kind of kinds) seen.push(await answer(kind));
      return seen;
    });
    expect(quiet).toEqual(kinds.map(expected(null)));
    // Its slot over, it is past half its life: every answer to a proof that carries it gives the next.
    let held = client.nonce!;
    const rolled = await withinOneSlot(async (slot) => {
      const seen = [];
      for (const kind of kinds) {
        client.nonce = held;
        seen.push(await answer(kind));
      }
      held = client.nonce!;
      return seen.map(([kind, status, type, nonce]) => [kind, status, type, typeof nonce === 'string' && nonce.startsWith(`${slot}.`) ? 'the next' : nonce]);
    });
    expect(rolled).toEqual(kinds.map(expected('the next')));
    // The session's DELETE, last.
    await nextRotation();
    client.nonce = held;
    expect(await answer(del)).toEqual(expected(expect.stringMatching(/^\d+\./))(del));
    await sse.body!.cancel();
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
