/**
 * jwtVerifier and the `typ` header of RFC 9068 §4: an issuer signs more than access tokens (ID
 * tokens, logout tokens, its own JWTs), so a resource server takes only those marked `at+jwt`
 * (`application/at+jwt` is the same type) unless told the issuer does not mark them. The issuer
 * here is a real JWKS on loopback; the tokens are signed with its key by `jose`, as an
 * authorization server signs them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidTokenError, jwtVerifier } from '@hermes-mcp/core';

type Jose = typeof import('jose');

const ISSUER = 'https://id.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';

let jose: Jose;
let privateKey: Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];
let jwks: Server;
let jwksUri: string;

beforeAll(async () => {
  jose = await import('jose');
  const pair = await jose.generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk = { ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  await new Promise((resolve) => jwks?.close(resolve));
});

/** A token the issuer signed for this server, with the `typ` header given (none when undefined). */
function token(typ: string | undefined): Promise<string> {
  return new jose.SignJWT({ scope: 'notes:read', client_id: 'alice-app' })
    .setProtectedHeader(typ === undefined ? { alg: 'RS256', kid: 'k1' } : { alg: 'RS256', kid: 'k1', typ })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

describe('jwtVerifier: the typ header (RFC 9068 §4)', () => {
  it('takes at+jwt and application/at+jwt by default', async () => {
    const verify = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri, cacheTtlMs: 0 });
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT']) {
      await expect(verify(await token(typ))).resolves.toMatchObject({ subject: 'alice', clientId: 'alice-app', scopes: ['notes:read'] });
    }
  });

  it('refuses, by default, a JWT of the same issuer and audience that is not marked as an access token (typ JWT, or none)', async () => {
    const verify = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri, cacheTtlMs: 0 });
    for (const typ of ['JWT', undefined, 'application/jwt', 'logout+jwt']) {
      const refusal = verify(await token(typ));
      await expect(refusal).rejects.toBeInstanceOf(InvalidTokenError);
      await expect(refusal).rejects.toThrow('the token is not an access token (its "typ" header is not at+jwt, RFC 9068)');
    }
  });

  it('takes any typ with typ: false (an issuer that does not mark its access tokens)', async () => {
    const verify = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri, typ: false, cacheTtlMs: 0 });
    for (const typ of ['JWT', undefined, 'at+jwt']) await expect(verify(await token(typ))).resolves.toMatchObject({ subject: 'alice' });
  });
});
