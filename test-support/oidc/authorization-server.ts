/**
 * Starts the tests' authorization server (oidc-provider, in a process of its own: see
 * authorization-server.mjs) and gets tokens from it the way a client does.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** A client registered at the authorization server. */
export interface TestClient {
  client_id: string;
  client_secret: string;
  grant_types?: string[];
  redirect_uris?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  scope?: string;
}

/** What a client credentials request asks for. */
export interface TokenRequest {
  resource?: string;
  scope?: string;
  /** A DPoP proof for the token request (`htm` POST, `htu` the token endpoint): the token is bound to its key. */
  dpop?: string;
}

/** A running authorization server. */
export interface AuthorizationServer {
  readonly issuer: string;
  /**
   * An access token for `resource` (client credentials grant): what the server's token endpoint
   * gives. Without a resource, an opaque token for no resource at all (its introspection has no `aud`).
   */
  token(client: Pick<TestClient, 'client_id' | 'client_secret'>, options: TokenRequest): Promise<string>;
  /** The endpoint's raw answer, for tests of refusals. */
  tokenResponse(client: Pick<TestClient, 'client_id' | 'client_secret'>, options: TokenRequest): Promise<Response>;
  stop(): Promise<void>;
}

/** Starts one (on a free loopback port); `stop()` ends it. */
export async function startAuthorizationServer(config: {
  clients: TestClient[];
  accessTokenFormat?: 'jwt' | 'opaque';
  scopes?: string[];
  /** Listen on this port (default a free one): restarting on the same port keeps the issuer and changes the key. */
  port?: number;
  /** Seconds the tokens of clients whose id starts with "short-lived" last (default 1). */
  shortLivedTtl?: number;
  /**
   * DPoP (RFC 9449): by default a token request with a proof gets a token bound to its key;
   * `'nonce'`: proofs must also carry the server's nonce (§8); `false`: off (not advertised, proofs
   * ignored, bearer tokens only).
   */
  dpop?: false | 'nonce';
}): Promise<AuthorizationServer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc-server.mjs'), JSON.stringify(config)], {
    cwd: path.join(__dirname, '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code}): ${stderr}`)));
  });
  const tokenResponse = (client: Pick<TestClient, 'client_id' | 'client_secret'>, options: TokenRequest) =>
    fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
        ...(options.dpop !== undefined && { dpop: options.dpop }),
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        ...(options.resource !== undefined && { resource: options.resource }),
        ...(options.scope !== undefined && { scope: options.scope }),
      }).toString(),
    });
  return {
    issuer,
    tokenResponse,
    async token(client, options) {
      const response = await tokenResponse(client, options);
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!response.ok || !body.access_token) throw new Error(`no token: ${response.status} ${body.error ?? ''} ${body.error_description ?? ''} ${stderr}`);
      return body.access_token;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

/**
 * Plays the browser for an `OAuthClient`'s `authorize`: follows the authorization URL's redirects
 * (with cookies; the server's sign-in page consents by itself) to `redirectUri`, and resolves with
 * the URL it came back to. Each authorization URL is pushed to `log`.
 */
export function browserSignIn(redirectUri: string, log: URL[] = []): (authorizationUrl: URL) => Promise<URL> {
  return async (authorizationUrl) => {
    log.push(authorizationUrl);
    const cookies = new Map<string, string>();
    let next = authorizationUrl.href;
    for (let hops = 0; hops < 10; hops++) {
      if (next.startsWith(redirectUri)) return new URL(next);
      const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const set of response.headers.getSetCookie()) {
        const [pair] = set.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (!location) throw new Error(`the sign-in stopped at ${next}: HTTP ${response.status} ${await response.text()}`);
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  };
}
