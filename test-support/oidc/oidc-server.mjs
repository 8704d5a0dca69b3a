// A real OAuth 2.1 / OpenID Connect authorization server for the tests: oidc-provider on
// 127.0.0.1, in a process of its own (it is an ES module; the tests are CommonJS under jest).
//
//   node test-support/oidc/oidc-server.mjs '{"clients":[…],"accessTokenFormat":"jwt"}'
//
// It prints one JSON line on stdout once it listens — {"issuer":"http://127.0.0.1:PORT"} — and
// serves until killed. Tokens for any resource indicator (RFC 8707) are issued with `aud` set to
// it, as JWTs (RFC 9068) or opaque tokens with introspection; a client whose id starts with
// "short-lived" gets tokens that expire after one second. The signing key is made at start.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] ?? '{}');
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
const scopes = config.scopes ?? ['notes:read', 'notes:write'];

// Listen first: the issuer must name the port.
const { createServer } = await import('node:http');
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: config.clients ?? [],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', ...scopes],
  cookies: { keys: [randomUUID()] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resourceIndicator, client) => ({
        scope: scopes.join(' '),
        audience: resourceIndicator,
        accessTokenTTL: client.clientId.startsWith('short-lived') ? 1 : 600,
        accessTokenFormat: config.accessTokenFormat ?? 'jwt',
        ...((config.accessTokenFormat ?? 'jwt') === 'jwt' && { jwt: { sign: { alg: 'RS256' } } }),
      }),
    },
  },
  // Plain HTTP on loopback is what the tests speak.
  pkce: { required: () => true },
});
provider.proxy = false;
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
