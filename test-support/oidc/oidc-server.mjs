// A real OAuth 2.1 / OpenID Connect authorization server for the tests: oidc-provider on
// 127.0.0.1, in a process of its own (it is an ES module; the tests are CommonJS under jest).
//
//   node test-support/oidc/oidc-server.mjs '{"clients":[…],"accessTokenFormat":"jwt"}'
//
// It prints one JSON line on stdout once it listens — {"issuer":"http://127.0.0.1:PORT"} — and
// serves until killed. Tokens for any resource indicator (RFC 8707) are issued with `aud` set to
// it, as JWTs (RFC 9068) or opaque tokens with introspection; a client whose id starts with
// "short-lived" gets tokens that expire after one second (`config.shortLivedTtl` seconds if
// given), and three seconds for those a refresh grant gives (a refreshed token must outlive the
// request it is retried with, on a busy machine). A token asked for with no resource is opaque, for no audience (what oidc-provider gives
// for its userinfo endpoint). The signing key is made at start. Clients may register themselves (RFC 7591). Sign-in needs no person: the interaction signs the
// user `config.account` (default "ada") in and consents to whatever was asked, so an authorization
// request followed through its redirects (with cookies) ends at the client's redirect URI. A token
// request that carries a DPoP proof gets a token bound to its key (RFC 9449; oidc-provider's default);
// with `config.dpop: 'nonce'`, a proof must carry the server's nonce (400 use_dpop_nonce with one in
// `DPoP-Nonce` otherwise, RFC 9449 §8); with `config.dpop: false`, DPoP is off (not advertised,
// proofs ignored, bearer tokens only).
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] ?? '{}');
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
const scopes = config.scopes ?? ['notes:read', 'notes:write'];

// Listen first: the issuer must name the port.
const { createServer } = await import('node:http');
const server = createServer();
// `config.port`: the same issuer again (a restart with a new signing key is a key rotation).
await new Promise((resolve) => server.listen(config.port ?? 0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: config.clients ?? [],
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  issueRefreshToken: () => true,
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', ...scopes],
  cookies: { keys: [randomUUID()] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    ...(config.dpop === 'nonce' && { dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true } }),
    ...(config.dpop === false && { dPoP: { enabled: false } }),
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resourceIndicator, client) => ({
        scope: scopes.join(' '),
        audience: resourceIndicator,
        accessTokenTTL: !client.clientId.startsWith('short-lived') ? 600 : ctx.oidc?.params?.grant_type === 'refresh_token' ? 3 : (config.shortLivedTtl ?? 1),
        accessTokenFormat: config.accessTokenFormat ?? 'jwt',
        ...((config.accessTokenFormat ?? 'jwt') === 'jwt' && { jwt: { sign: { alg: 'RS256' } } }),
      }),
    },
  },
  // Plain HTTP on loopback is what the tests speak.
  pkce: { required: () => true },
});
provider.proxy = false;
const serve = provider.callback();

/** The interaction: the user signs in, then consents to every scope and resource asked for. */
async function interact(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: config.account ?? 'ada' } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, wanted] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, wanted.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

server.on('request', (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interact(req, res).catch((error) => {
      process.stderr.write(`interaction failed: ${error.stack}\n`);
      res.writeHead(500).end(String(error));
    });
    return;
  }
  serve(req, res);
});
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
