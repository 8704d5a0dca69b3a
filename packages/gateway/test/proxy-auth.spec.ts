/**
 * `hermes-mcp proxy --issuer … --jwks … --resource …`: the gateway as an OAuth resource server in
 * front of its upstream. No token: 401 with a challenge naming the metadata, which is served; a
 * token without the scope: 403; a valid one: the SDK v1 client is served. And the caller's token is
 * never sent upstream: the upstream here is a URL (a second gateway, through a recording hop), and
 * what reached it carries the gateway's own `--header` only.
 */
import { IncomingHttpHeaders, Server, createServer } from 'node:http';
import { Readable } from 'node:stream';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING, RunningProxy, startProxy, textOf, listen } from './support';

const RESOURCE = 'https://gateway.test/mcp';

let jwks: Server;
let issuer: string;
let sign: (claims: Record<string, unknown>) => Promise<string>;
let inner: RunningProxy;
let hop: Server;
const reachedUpstream: IncomingHttpHeaders[] = [];
/** The JSON-RPC messages that reached the upstream. */
const bodiesUpstream: Record<string, unknown>[] = [];
let gateway: RunningProxy;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  issuer = await listen(jwks);
  sign = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(RESOURCE)
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);

  // The upstream: the everything example behind a gateway of its own, reached through a hop that
  // records the headers of every request it passes on.
  inner = await startProxy(['--http', '0', '--', ...EVERYTHING]);
  const target = new URL(inner.urls[0]);
  hop = createServer((req, res) => {
    reachedUpstream.push(req.headers);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers.set(name, value);
    const hasBody = req.method === 'POST';
    const chunks: Buffer[] = [];
    const body = hasBody
      ? new Promise<Buffer>((resolve) => {
          req.on('data', (chunk: Buffer) => chunks.push(chunk));
          req.on('end', () => resolve(Buffer.concat(chunks)));
        })
      : Promise.resolve(undefined);
    void body
      .then((bytes) => {
        if (bytes) bodiesUpstream.push(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
        return fetch(new URL(req.url!, target), { method: req.method, headers, ...(bytes && { body: new Uint8Array(bytes) }) });
      })
      .then(
        (answer) => {
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          if (answer.body) Readable.fromWeb(answer.body as never).pipe(res);
          else res.end();
        },
        () => res.writeHead(502).end(),
      );
  });
  const upstream = `${await listen(hop)}${target.pathname}`;
  gateway = await startProxy([
    upstream,
    '--http',
    '0',
    '--header',
    'X-Gateway: its-own',
    '--issuer',
    issuer,
    '--jwks',
    `${issuer}/jwks`,
    '--resource',
    RESOURCE,
    '--scope',
    'mcp:use',
  ]);
});

afterAll(async () => {
  await gateway?.stop();
  await inner?.stop();
  hop?.closeAllConnections();
  hop?.close();
  jwks?.close();
});

const initialize = (token?: string) =>
  fetch(gateway.urls[0], {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

it('answers 401 without a token, with a challenge naming its protected-resource metadata, which it serves', async () => {
  const refused = await initialize();
  expect(refused.status).toBe(401);
  const challenge = refused.headers.get('www-authenticate')!;
  expect(challenge).toMatch(/^Bearer /);
  // Named on the resource's origin (where clients reach the gateway); asked here of the gateway itself.
  const metadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]);
  expect(metadataUrl.href).toBe('https://gateway.test/.well-known/oauth-protected-resource/mcp');
  const metadata = (await (await fetch(new URL(metadataUrl.pathname, gateway.urls[0]))).json()) as Record<string, unknown>;
  expect(metadata).toMatchObject({ resource: RESOURCE, authorization_servers: [issuer], scopes_supported: ['mcp:use'] });
});

it('answers 403 to a token without the required scope', async () => {
  const refused = await initialize(await sign({ scope: 'other' }));
  expect(refused.status).toBe(403);
  expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
});

it('serves a caller with a valid token, and never sends that token upstream (only the gateway’s own header)', async () => {
  const token = await sign({ scope: 'mcp:use' });
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.urls[0]), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'authorized' }, _meta: { 'example.com/trace': 'abc' } }))).toBe('authorized');
  } finally {
    await client.close();
  }
  expect(reachedUpstream.length).toBeGreaterThan(0);
  expect(reachedUpstream.filter((headers) => headers.authorization !== undefined)).toEqual([]);
  expect(reachedUpstream.filter((headers) => JSON.stringify(headers).includes(token))).toEqual([]);
  expect(new Set(reachedUpstream.map((headers) => headers['x-gateway']))).toEqual(new Set(['its-own']));
  // The call's own _meta went on, beside the envelope the gateway's client made.
  const call = bodiesUpstream.find((message) => message.method === 'tools/call' && (message.params as { name?: string }).name === 'echo');
  expect((call?.params as { _meta?: Record<string, unknown> })._meta).toMatchObject({ 'example.com/trace': 'abc' });
});
