// The JWT-bearer grants' servers for the tests, built on jose (a test fixture, never shipped): an
// enterprise IdP and an MCP server's authorization server, each on its own 127.0.0.1 port, in a
// process of their own (jose is an ES module; the tests are CommonJS under jest).
//
//   node test-support/grants/idp-and-as.mjs '{"idpClients":{…},"mcpClients":{…},"workloads":[…]}'
//
// It prints one JSON line on stdout once both listen — {"idp":"http://127.0.0.1:P","as":"http://127.0.0.1:Q"}
// — and serves until killed.
//
// The IdP (OpenID discovery at /.well-known/openid-configuration, keys at /jwks) answers the RFC 8693
// token exchange of enterprise-managed authorization (SEP-990 §4): an ID token it issued, for the
// client asking (`aud`), becomes an ID-JAG (`typ: oauth-id-jag+jwt`) for the audience and resource
// asked, naming `config.jagClientId` (default "mcp-client") as the client. It is also the platform
// that issues workload tokens. POST /mint {"kind":"id_token"|"workload","sub","aud"?,"ttl"?} gives
// the tests an ID token or a workload token it signed (`ttl` seconds, default 300; negative:
// already expired).
//
// The authorization server (RFC 8414 metadata, keys at /jwks) takes the JWT-bearer grant (RFC 7523)
// only: an ID-JAG from the IdP, with the client named in it authenticated (HTTP Basic, or its
// secret in the body) and the resource it names (SEP-990 §5.1), or a workload token from the IdP
// whose subject is in `config.workloads` (SEP-1933; no client authentication). It issues RFC 9068
// access tokens for the resource, valid `config.accessTokenTtl` seconds (default 600; three seconds for
// the subjects listed in `config.shortLived`). Refusals are RFC 6749 §5.2 errors with a description.
//
// GET /log on either server: every token request both have had, in order — {at, grant_type, ok,
// error?, sub?, jti?, params} — so the tests can say what was asked and how often. POST /configure
// {…} on either merges into the config, for the tests of servers that misbehave or say no:
// `grantTypes` (the authorization server's grant_types_supported, default the JWT-bearer grant
// only), `issuedTokenType` (what the IdP says it issued, default an ID-JAG).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { URLSearchParams } from 'node:url';
import * as jose from 'jose';

const config = JSON.parse(process.argv[2] ?? '{}');
const idpClients = config.idpClients ?? {}; // id → secret (null: a public client)
const mcpClients = config.mcpClients ?? {}; // id → secret
const workloads = new Set(config.workloads ?? []);
const shortLived = new Set(config.shortLived ?? []);
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

const log = [];
const idpKey = await jose.generateKeyPair('ES256', { extractable: true });
const asKey = await jose.generateKeyPair('ES256', { extractable: true });
const jwks = async (key, kid) => ({ keys: [{ ...(await jose.exportJWK(key.publicKey)), kid, alg: 'ES256', use: 'sig' }] });

const listen = async () => {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
};
const idp = await listen();
const as = await listen();

/** A refusal (RFC 6749 §5.2). */
class Refusal extends Error {
  constructor(error, description, status = 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
}

const sign = (key, kid, issuer, claims, { typ = 'JWT', ttl = 300 } = {}) =>
  new jose.SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid, typ })
    .setIssuer(issuer)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttl)
    .setJti(randomUUID())
    .sign(key.privateKey);

/** Verifies a JWT the IdP signed; a failure is an `invalid_grant` saying what was wrong with it. */
async function fromIdp(jwt, what, options) {
  try {
    return (await jose.jwtVerify(jwt, idpKey.publicKey, { issuer: idp.origin, clockTolerance: 0, ...options })).payload;
  } catch (error) {
    const why = error.code === 'ERR_JWT_EXPIRED' ? 'has expired' : error.claim ? `has the wrong ${error.claim}` : 'is not a valid JWT from the IdP';
    throw new Refusal('invalid_grant', `the ${what} ${why}`);
  }
}

/** The client a request authenticates as (HTTP Basic, else client_id and client_secret in the body), checked against `clients`. */
function authenticated(req, params, clients) {
  let id = params.get('client_id');
  let secret = params.get('client_secret');
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString();
    const colon = decoded.indexOf(':');
    [id, secret] = [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))];
  }
  if (id === null || !(id in clients)) throw new Refusal('invalid_client', `unknown client ${id ?? '(none given)'}`, 401);
  if (clients[id] !== null && clients[id] !== secret) throw new Refusal('invalid_client', `wrong secret for client ${id}`, 401);
  return id;
}

/** RFC 8693 at the IdP: an ID token for an ID-JAG (SEP-990 §4). */
async function tokenExchange(req, params) {
  if (params.get('grant_type') !== TOKEN_EXCHANGE) throw new Refusal('unsupported_grant_type', 'the IdP takes token exchange only');
  const clientId = authenticated(req, params, idpClients);
  for (const name of ['subject_token', 'audience', 'resource']) if (!params.get(name)) throw new Refusal('invalid_request', `${name} is missing`);
  if (params.get('subject_token_type') !== ID_TOKEN) throw new Refusal('invalid_request', `subject_token_type is not ${ID_TOKEN}`);
  if (params.get('requested_token_type') !== ID_JAG) throw new Refusal('invalid_request', `requested_token_type is not ${ID_JAG}`);
  const user = await fromIdp(params.get('subject_token'), 'ID token', { audience: clientId });
  if (params.get('audience') !== as.origin) throw new Refusal('invalid_target', `no policy grants access to ${params.get('audience')}`);
  const scope = params.get('scope') ?? undefined;
  const jag = await sign(
    idpKey,
    'idp',
    idp.origin,
    { sub: user.sub, aud: params.get('audience'), resource: params.get('resource'), client_id: config.jagClientId ?? 'mcp-client', ...(scope && { scope }) },
    { typ: 'oauth-id-jag+jwt' },
  );
  return { sub: user.sub, body: { access_token: jag, issued_token_type: config.issuedTokenType ?? ID_JAG, token_type: 'N_A', expires_in: 300, ...(scope && { scope }) } };
}

/** RFC 7523 at the authorization server: an ID-JAG (SEP-990 §5) or a workload token (SEP-1933). */
async function jwtBearer(req, params) {
  if (params.get('grant_type') !== JWT_BEARER) throw new Refusal('unsupported_grant_type', 'this server takes the JWT-bearer grant only');
  const assertion = params.get('assertion');
  if (!assertion) throw new Refusal('invalid_request', 'assertion is missing');
  let header;
  try {
    header = jose.decodeProtectedHeader(assertion);
  } catch {
    throw new Refusal('invalid_grant', 'the assertion is not a JWT');
  }
  let sub;
  let clientId;
  let resource = params.get('resource');
  if (header.typ === 'oauth-id-jag+jwt') {
    clientId = authenticated(req, params, mcpClients);
    const jag = await fromIdp(assertion, 'ID-JAG', { audience: as.origin, typ: 'oauth-id-jag+jwt' });
    if (jag.client_id !== clientId) throw new Refusal('invalid_grant', `the ID-JAG was issued to ${jag.client_id}, not ${clientId}`);
    if (resource !== null && resource !== jag.resource) throw new Refusal('invalid_target', `the ID-JAG is for ${jag.resource}, not ${resource}`);
    [sub, resource] = [jag.sub, jag.resource];
  } else {
    const workload = await fromIdp(assertion, 'workload token', { audience: as.origin });
    if (!workloads.has(workload.sub)) throw new Refusal('unauthorized_client', `the workload ${workload.sub} may not use this server`);
    if (resource === null) throw new Refusal('invalid_target', 'resource is missing');
    [sub, clientId] = [workload.sub, params.get('client_id') ?? workload.sub];
  }
  const ttl = shortLived.has(sub) ? 3 : (config.accessTokenTtl ?? 600);
  const scope = params.get('scope') ?? '';
  const token = await sign(asKey, 'as', as.origin, { sub, aud: resource, client_id: clientId, scope }, { typ: 'at+jwt', ttl });
  return { sub, body: { access_token: token, token_type: 'Bearer', expires_in: ttl, scope } };
}

const json = (res, status, body) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
const readBody = (req) =>
  new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });

/** Serves the routes of one server; `token` answers its token endpoint. */
function serve({ server, origin }, routes, token) {
  server.on('request', async (req, res) => {
    const path = new URL(req.url, origin).pathname;
    try {
      if (req.method === 'GET' && path === '/log') return json(res, 200, log);
      if (req.method === 'POST' && path === '/configure') return json(res, 200, Object.assign(config, JSON.parse(await readBody(req))));
      if (req.method === 'GET' && routes[path]) return json(res, 200, await routes[path]());
      if (req.method === 'POST' && path === '/token') {
        const params = new URLSearchParams(await readBody(req));
        const entry = { at: origin, grant_type: params.get('grant_type'), params: Object.fromEntries(params), ok: false };
        log.push(entry);
        try {
          const { sub, body } = await token(req, params);
          Object.assign(entry, { ok: true, sub, jti: jose.decodeJwt(params.get('assertion') ?? params.get('subject_token')).jti });
          return json(res, 200, body);
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          entry.error = error.error;
          return json(res, error.status, { error: error.error, error_description: error.message });
        }
      }
      if (req.method === 'POST' && path === '/mint' && origin === idp.origin) {
        const { kind, sub, aud, ttl } = JSON.parse(await readBody(req));
        const audience = aud ?? (kind === 'workload' ? as.origin : Object.keys(idpClients)[0]);
        return json(res, 200, { jwt: await sign(idpKey, 'idp', idp.origin, { sub, aud: audience }, { ttl }) });
      }
      json(res, 404, { error: 'not_found' });
    } catch (error) {
      process.stderr.write(`${error.stack}\n`);
      json(res, 500, { error: 'server_error', error_description: String(error) });
    }
  });
}

serve(
  idp,
  {
    '/.well-known/openid-configuration': () => ({
      issuer: idp.origin,
      token_endpoint: `${idp.origin}/token`,
      jwks_uri: `${idp.origin}/jwks`,
      grant_types_supported: [TOKEN_EXCHANGE],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    }),
    '/jwks': () => jwks(idpKey, 'idp'),
  },
  tokenExchange,
);
serve(
  as,
  {
    '/.well-known/oauth-authorization-server': () => ({
      issuer: as.origin,
      token_endpoint: `${as.origin}/token`,
      jwks_uri: `${as.origin}/jwks`,
      grant_types_supported: config.grantTypes ?? [JWT_BEARER],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    }),
    '/jwks': () => jwks(asKey, 'as'),
  },
  jwtBearer,
);
process.stdout.write(`${JSON.stringify({ idp: idp.origin, as: as.origin })}\n`);
