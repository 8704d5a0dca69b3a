/**
 * The client side of MCP authorization (OAuth 2.1): when a server answers 401, find where to sign
 * in (the server's RFC 9728 metadata, then its authorization server's RFC 8414 / OpenID metadata),
 * get a client id (pre-registered, a Client ID Metadata Document, or dynamic registration), sign in
 * (authorization code with PKCE through your `authorize` handler, client credentials, or a
 * JWT-bearer grant: `grants.ts`), with the server as the `resource` (RFC 8707), and send the
 * token; on 403 `insufficient_scope`, sign in again with the scopes asked for (step-up); refresh
 * tokens when they expire, or are refused (401) while the refresh token's scope covers what the
 * server asks for. It is a wrapper around the transport's `fetch`, so every HTTP transport has it
 * the same way.
 */
import { JsonWebKey, createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { base64urlJson, signJws } from '@hermes-mcp/protocol';
import { DpopClientOptions, DpopProver } from './dpop';
import { JWT_BEARER_GRANT, checkGrantOptions, jwtBearerAssertion } from './grants';
import type { AssertionSource, CrossAppAccessOptions, OAuthGrantStep } from './grants';
import { OAuthError, answerJson, checkTokenAnswer, discard, tokenAnswerBody } from './oauth-answer';
import type { FetchInit, FetchLike, FetchResponse } from './node-fetch';
import { InMemoryOAuthStore, OAuthStore, StoredClient, StoredTokens, TokenEndpointAuthMethod } from './oauth-store';

/** Options of an {@link OAuthClient}. */
export interface OAuthClientOptions {
  /**
   * `authorization_code` (default: a user signs in through `authorize`), `client_credentials`
   * (the client acts for itself, with `clientId` and `clientSecret`), or `jwt_bearer` (RFC 7523:
   * the client presents a JWT — the workload's own, `assertion`, or an ID-JAG the enterprise IdP
   * gives for the user, `crossAppAccess`).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /**
   * Workload identity federation (`grant: 'jwt_bearer'`): the JWT the workload presents — a string,
   * `{ file }`, `{ env }` or a callback — read again at every sign-in. No secret is needed; a
   * `clientId` is sent only when given.
   */
  assertion?: AssertionSource;
  /**
   * Enterprise-managed authorization (`grant: 'jwt_bearer'`): the user's ID token is exchanged at
   * the IdP for an ID-JAG naming the server, presented with `clientId` (and `clientSecret`).
   */
  crossAppAccess?: CrossAppAccessOptions;
  /** A client id registered beforehand at the authorization server. */
  clientId?: string;
  /** Its secret, for a confidential client (sent with HTTP Basic, or in the body with `tokenEndpointAuthMethod: 'client_secret_post'`). */
  clientSecret?: string;
  /** How the client authenticates at the token endpoint (default: `private_key_jwt` with a key, `client_secret_basic` with a secret, else `none`). */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /**
   * The client's private key, for `private_key_jwt` (RFC 7523): each token request carries a
   * short-lived JWT signed with it, for the authorization server as audience.
   */
  privateKey?: { pem: string; algorithm?: 'ES256' | 'ES384' | 'RS256' | 'PS256' | 'EdDSA' };
  /** An HTTPS URL serving this client's metadata document, used as its client id where the server takes those. */
  clientMetadataUrl?: string;
  /** What dynamic registration (RFC 7591) sends: a name, and more fields if wanted. */
  clientMetadata?: { client_name?: string; [field: string]: unknown };
  /** Where the authorization server sends the user back (authorization code). */
  redirectUri?: string;
  /**
   * Sends the user to `authorizationUrl` (opens a browser, prints it…) and resolves with the URL the
   * authorization server redirected back to (with `code`, `state`, `iss`).
   */
  authorize?: (authorizationUrl: URL) => Promise<URL | string>;
  /** Scopes to ask for when the server names none (default: its `scopes_supported`). */
  scope?: string;
  /** Where tokens and registrations are kept (default in memory). */
  store?: OAuthStore;
  /** How many times a request signs in again for more scopes before its 403 stands (default 2). */
  maxStepUps?: number;
  /** The `fetch` for the OAuth requests (default the global one). */
  fetch?: typeof fetch;
  /**
   * DPoP (RFC 9449): tokens bound to a key pair of this client, each request signed with it. By
   * default (`undefined`, or an object) token requests carry proofs where the authorization server
   * advertises `dpop_signing_alg_values_supported`; `true` (or `always: true`): to every
   * authorization server; `false`: never. A token answered with `token_type: DPoP` is presented as
   * `Authorization: DPoP <token>` with a fresh proof on every request; a server's nonce
   * (`use_dpop_nonce`) is signed in on one retry. See {@link DpopClientOptions} for the key.
   */
  dpop?: boolean | DpopClientOptions;
}

/** The parameters of the `Bearer` challenge of a `WWW-Authenticate` value. */
export function parseBearerChallenge(header: string | null): Record<string, string> | undefined {
  return parseChallenges(header).bearer;
}

/**
 * The challenges of a `WWW-Authenticate` value by scheme, in lower case (`bearer`, `dpop`): each
 * one's parameters, names in lower case. A server that takes both schemes sends both challenges
 * in one value (`Bearer resource_metadata="…", DPoP algs="ES256", …`): a word without `=` starts
 * the next challenge.
 */
export function parseChallenges(header: string | null): Record<string, Record<string, string>> {
  // Without a prototype: the names are the server's (`__proto__` is a name like any other).
  const challenges: Record<string, Record<string, string>> = Object.create(null) as Record<string, Record<string, string>>;
  let current: Record<string, string> | undefined;
  for (const [, name, quoted, token] of (header ?? '').matchAll(/([\w!#$%&'*+.^`|~-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?/g)) {
    if (quoted === undefined && token === undefined) challenges[name.toLowerCase()] = current = Object.create(null) as Record<string, string>;
    else if (current) current[name.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : token;
  }
  return challenges;
}

/** Protected-resource metadata, as read. */
interface ResourceMetadata {
  resource?: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
}

/** Authorization-server metadata, as read. */
interface ServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  registration_endpoint?: string;
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  token_endpoint_auth_methods_supported?: string[];
  grant_types_supported?: string[];
  scopes_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
}

/** What one server's sign-in needs, found once. */
interface Discovered {
  resource: string;
  metadata: ServerMetadata;
  scopesSupported?: string[];
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

/** The canonical URI of an MCP server: no fragment, no query, no trailing slash (RFC 8707, the spec's advice). */
export function canonicalResource(url: URL | string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '')}`;
}

/**
 * Signs a client in to MCP servers and keeps its tokens; give it to an HTTP transport's `auth`.
 *
 * @example
 * const auth = new OAuthClient({ redirectUri: 'http://127.0.0.1:8912/callback', authorize: openBrowserAndWaitForCallback });
 * const client = new McpClient(new StreamableHttpClientTransport({ url, auth }));
 */
export class OAuthClient {
  private readonly store: OAuthStore;
  private readonly doFetch: typeof fetch;
  /** Per server: its discovery, once. */
  private readonly discovered = new Map<string, Promise<Discovered>>();
  /** Per server: the sign-in under way, so that concurrent 401s share one. */
  private readonly signingIn = new Map<string, Promise<unknown>>();
  /** The DPoP key and the servers' nonces, unless `dpop: false`. */
  private readonly dpop?: DpopProver;

  constructor(private readonly options: OAuthClientOptions = {}) {
    checkGrantOptions(options);
    this.store = options.store ?? new InMemoryOAuthStore();
    this.doFetch = options.fetch ?? fetch;
    if (options.dpop !== false) this.dpop = new DpopProver(options.dpop === true ? { always: true } : (options.dpop ?? {}));
  }

  /**
   * The private DPoP key this client signs proofs with, as a JWK (made now if none was given): keep
   * it where the tokens are kept, and give it back as `dpop: { key }` after a restart, so that the
   * kept tokens, bound to it, stay usable. Throws with `dpop: false`, and for a WebCrypto key pair
   * given as `dpop.key` whose private key is not extractable: it is never exported (keep the pair).
   */
  dpopKey(): JsonWebKey {
    if (!this.dpop) throw new OAuthError('this OAuthClient has DPoP turned off (dpop: false): it has no DPoP key');
    const key = this.dpop.exportKey();
    if (key === undefined)
      throw new OAuthError(
        'this OAuthClient signs DPoP proofs with the WebCrypto key pair given as dpop.key, whose private key is not extractable: it is never exported; keep the CryptoKeyPair itself',
      );
    return key;
  }

  /**
   * `fetch` with the token of `serverUrl` on every request: a 401 refreshes the token (when a
   * refresh token covers the scope the challenge names) or signs in, and sends the request again —
   * a 401 after a refresh signs in anew; a 403 `insufficient_scope` signs in with the scopes asked for.
   * A DPoP-bound token goes with a proof, signed again once with the server's nonce when it asks
   * for one (401 `use_dpop_nonce`).
   */
  wrap(inner: FetchLike, serverUrl: URL): FetchLike {
    const resource = canonicalResource(serverUrl);
    const maxStepUps = this.options.maxStepUps ?? 2;
    return async (url: URL, init: FetchInit): Promise<FetchResponse> => {
      let stepUps = 0;
      let refreshed = false;
      let signedIn = false;
      let nonceRetried = false;
      for (;;) {
        const tokens = await this.validTokens(serverUrl, resource);
        const bound = tokens?.tokenType === 'DPoP' && this.dpop !== undefined;
        const response = await inner(url, tokens ? { ...init, headers: { ...init.headers, ...(await this.credentials(tokens, init.method, url)) } } : init);
        const nonceGiven = this.dpop?.heard(url, response) === true;
        if (response.status !== 401 && response.status !== 403) return response;
        const challenges = parseChallenges(response.headers.get('www-authenticate'));
        // The error is on the challenge of the scheme the token went in; without a token, either will do.
        const challenge = (bound ? (challenges.dpop ?? challenges.bearer) : (challenges.bearer ?? challenges.dpop)) ?? {};
        // RFC 9449 §9: the server wants its nonce in the proof; signed again with it, once a request.
        if (response.status === 401 && bound && challenge.error === 'use_dpop_nonce' && nonceGiven && !nonceRetried) {
          nonceRetried = true;
          await discard(response);
          continue;
        }
        // A server that takes DPoP-bound tokens only: a bearer token is no use, nor signing in for one.
        if (response.status === 401 && challenges.dpop && !challenges.bearer && (!this.dpop || (signedIn && !bound))) {
          throw new OAuthError(
            `${resource} takes DPoP-bound tokens only (its challenge names the DPoP scheme alone), and ${
              this.dpop
                ? 'the authorization server gave a bearer token (token requests carry DPoP proofs only where the authorization server advertises dpop_signing_alg_values_supported, or with dpop: true)'
                : 'this OAuthClient has DPoP turned off (dpop: false)'
            }`,
          );
        }
        if (response.status === 403 && challenge.error !== 'insufficient_scope') return response;
        // A 401 after signing in once, or too many step-ups: the answer stands.
        if (response.status === 401 && signedIn) return response;
        if (response.status === 403 && stepUps++ >= maxStepUps) return response;
        // Read to the end: the connection goes back to the pool for the next try.
        await discard(response);
        const scope = response.status === 403 ? unionOfScopes(tokens?.scope, challenge.scope) : challenge.scope;
        // A refreshed token refused again (the server moved to another authorization server, say): sign in anew.
        const done = await this.signIn(serverUrl, resource, challenge, scope, response.status === 401, tokens, !refreshed);
        if (done === 'refreshed') refreshed = true;
        else signedIn = true;
      }
    };
  }

  /** The `Authorization` header for `tokens`, with a DPoP proof for `method` `url` when they are bound to the key. */
  private async credentials(tokens: StoredTokens, method: string, url: URL): Promise<Record<string, string>> {
    if (tokens.tokenType !== 'DPoP' || !this.dpop) return { authorization: `Bearer ${tokens.accessToken}` };
    return { authorization: `DPoP ${tokens.accessToken}`, dpop: await this.dpop.proof(method, url, tokens.accessToken) };
  }

  /** Forgets the tokens of a server (sign out). */
  async forget(serverUrl: URL | string): Promise<void> {
    await this.store.setTokens(canonicalResource(serverUrl), undefined);
  }

  private async validTokens(serverUrl: URL, resource: string): Promise<StoredTokens | undefined> {
    const tokens = await this.store.getTokens(resource);
    if (!tokens) return undefined;
    // Expired (with a little margin): refreshed on the 401 that follows, or now if it can be.
    if (tokens.expiresAt !== undefined && tokens.expiresAt - 5_000 <= Date.now() && tokens.refreshToken) {
      const signing = this.signingIn.get(resource);
      if (signing) await signing.catch(() => undefined);
      else await this.once(resource, () => this.refresh(serverUrl, resource, tokens)).catch(() => undefined);
      return this.store.getTokens(resource);
    }
    return tokens;
  }

  /** One sign-in per server at a time; the others wait for it (and get what it resolved with). */
  private once<T>(resource: string, work: () => Promise<T>): Promise<T> {
    let pending = this.signingIn.get(resource) as Promise<T> | undefined;
    if (!pending) {
      pending = work().finally(() => this.signingIn.delete(resource));
      this.signingIn.set(resource, pending);
    }
    return pending;
  }

  /**
   * Signs in to `resource`. A refused token (401) is refreshed first (`mayRefresh`) when a refresh
   * token is held whose scope covers the one the challenge names — a server names one on every 401
   * when it lists `scopes_supported`, and a sign-in may ask a person; else, and when the refresh
   * fails, the server's metadata is read again and the client signs in anew. Resolves with
   * `refreshed` when it refreshed, else `signed-in` (by this call, or by another meanwhile).
   */
  private signIn(
    serverUrl: URL,
    resource: string,
    challenge: Record<string, string>,
    scope: string | undefined,
    refused: boolean,
    held: StoredTokens | undefined,
    mayRefresh: boolean,
  ): Promise<'refreshed' | 'signed-in'> {
    return this.once(resource, async () => {
      if (refused) {
        // Another request may have refreshed meanwhile: a refresh token is used once (servers
        // rotate them, and revoke the grant when an old one comes back), so refresh from what is
        // kept now, and not at all when what is kept now is another token than the refused one.
        const kept = (await this.store.getTokens(resource)) ?? held;
        if (kept && held && kept.accessToken !== held.accessToken) return 'signed-in';
        if (mayRefresh && kept?.refreshToken && scopeCovers(kept.scope, challenge.scope)) {
          try {
            await this.refresh(serverUrl, resource, kept);
            return 'refreshed';
          } catch {
            // The refresh token is no good any more: sign in anew.
          }
        }
      }
      // A token refused (401) may mean the server moved to another authorization server (SEP-2352):
      // its metadata is read again, and a new server gets a registration of its own (kept per issuer).
      if (refused) this.discovered.delete(resource);
      const found = await this.discover(serverUrl, resource, challenge.resource_metadata);
      const wanted = scope ?? this.options.scope ?? found.scopesSupported?.join(' ');
      const tokens =
        this.options.grant === 'client_credentials'
          ? await this.clientCredentials(found, wanted)
          : this.options.grant === 'jwt_bearer'
            ? await this.jwtBearer(found, wanted)
            : await this.authorizationCode(found, wanted);
      await this.store.setTokens(resource, tokens);
      return 'signed-in';
    });
  }

  /** The server's metadata, then its authorization server's; cached per server. */
  private discover(serverUrl: URL, resource: string, metadataUrl: string | undefined): Promise<Discovered> {
    let found = this.discovered.get(resource);
    if (!found) {
      found = (async (): Promise<Discovered> => {
        const prm = await this.resourceMetadata(serverUrl, metadataUrl);
        // Servers of 2025-03-26 have no metadata: their own origin is the authorization server.
        const issuer = prm?.authorization_servers?.[0] ?? new URL(serverUrl).origin;
        if (prm?.resource !== undefined && !resourceCovers(prm.resource, resource)) {
          throw new OAuthError(`the protected-resource metadata is for ${prm.resource}, not for ${resource}`);
        }
        const metadata = await this.serverMetadata(issuer, prm === undefined);
        return { resource: prm?.resource ?? resource, metadata, scopesSupported: prm?.scopes_supported };
      })();
      found.catch(() => this.discovered.delete(resource));
      this.discovered.set(resource, found);
    }
    return found;
  }

  /** RFC 9728: from the challenge's `resource_metadata`, else the well-known URLs (with the path, then without). */
  private async resourceMetadata(serverUrl: URL, fromChallenge: string | undefined): Promise<ResourceMetadata | undefined> {
    const url = new URL(serverUrl);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    const candidates = fromChallenge
      ? [fromChallenge]
      : [`${url.origin}/.well-known/oauth-protected-resource${path}`, ...(path ? [`${url.origin}/.well-known/oauth-protected-resource`] : [])];
    for (const candidate of candidates) {
      const document = await this.getJson<ResourceMetadata>(candidate);
      if (document) return document;
    }
    return undefined;
  }

  /**
   * RFC 8414 and OpenID discovery, in the order the spec gives (path-aware first); for a server
   * without protected-resource metadata (`march2025`), the default endpoints of MCP 2025-03-26.
   */
  private async serverMetadata(issuer: string, march2025: boolean): Promise<ServerMetadata> {
    const url = new URL(issuer);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    const candidates = path
      ? [
          `${url.origin}/.well-known/oauth-authorization-server${path}`,
          `${url.origin}/.well-known/openid-configuration${path}`,
          `${url.origin}${path}/.well-known/openid-configuration`,
        ]
      : [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
    for (const candidate of candidates) {
      const metadata = await this.getJson<ServerMetadata>(candidate);
      if (!metadata) continue;
      // RFC 8414 §3.3: the document must name the issuer it was asked for.
      if (metadata.issuer !== issuer && metadata.issuer !== issuer.replace(/\/$/, ''))
        throw new OAuthError(`the metadata at ${candidate} names the issuer ${metadata.issuer}, not ${issuer}`);
      if (typeof metadata.token_endpoint !== 'string') throw new OAuthError(`the metadata of ${issuer} has no token_endpoint`);
      return metadata;
    }
    // A 2025-03-26 server without metadata: the endpoints that revision gives by default.
    if (march2025) {
      const origin = new URL(issuer).origin;
      return {
        issuer,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        code_challenge_methods_supported: ['S256'],
      };
    }
    throw new OAuthError(`no authorization server metadata found for ${issuer}`);
  }

  private async getJson<T>(url: string): Promise<T | undefined> {
    const response = await this.doFetch(url, { headers: { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' } }).catch(() => undefined);
    if (!response?.ok) return undefined;
    return (await answerJson(response, url)) as T | undefined;
  }

  /** True when the redirect URI is on this machine (loopback, localhost) or has a scheme of its own. */
  private nativeRedirect(): boolean {
    if (!this.options.redirectUri) return true;
    const url = new URL(this.options.redirectUri);
    return !/^https?:$/.test(url.protocol) || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  }

  /** The client id at this authorization server: given, a metadata document URL, kept, or registered now. */
  private async client(metadata: ServerMetadata): Promise<StoredClient> {
    if (this.options.clientId !== undefined) return { clientId: this.options.clientId, clientSecret: this.options.clientSecret };
    if (this.options.clientMetadataUrl && metadata.client_id_metadata_document_supported) return { clientId: this.options.clientMetadataUrl };
    const kept = await this.store.getClient(metadata.issuer);
    if (kept) return kept;
    if (!metadata.registration_endpoint) throw new OAuthError(`${metadata.issuer} takes no registration and no client id was given (clientId)`);
    const grant = this.options.grant ?? 'authorization_code';
    // Ask for a method the server takes: none for a public client where it can, else a secret, basic first.
    const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const method: TokenEndpointAuthMethod =
      this.options.tokenEndpointAuthMethod ??
      (grant === 'authorization_code' && supported.includes('none')
        ? 'none'
        : supported.includes('client_secret_basic')
          ? 'client_secret_basic'
          : supported.includes('client_secret_post')
            ? 'client_secret_post'
            : 'none');
    const response = await this.doFetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: 'Hermes MCP client',
        redirect_uris: this.options.redirectUri ? [this.options.redirectUri] : [],
        grant_types: grant === 'client_credentials' ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
        response_types: grant === 'client_credentials' ? [] : ['code'],
        token_endpoint_auth_method: method,
        // SEP-837: a client on this machine (a loopback redirect, or a scheme of its own) is native.
        application_type: this.nativeRedirect() ? 'native' : 'web',
        ...this.options.clientMetadata,
      }),
    });
    const answer = ((await answerJson(response, `the registration at ${metadata.registration_endpoint}`)) ?? {}) as {
      client_id?: string;
      client_secret?: string;
      token_endpoint_auth_method?: TokenEndpointAuthMethod;
      error?: string;
      error_description?: string;
    };
    if (!response.ok || !answer.client_id)
      throw new OAuthError(`registration at ${metadata.issuer} failed: ${answer.error_description ?? answer.error ?? `HTTP ${response.status}`}`, answer.error);
    const client: StoredClient = {
      clientId: answer.client_id,
      ...(answer.client_secret !== undefined && { clientSecret: answer.client_secret }),
      tokenEndpointAuthMethod: answer.token_endpoint_auth_method ?? method,
    };
    await this.store.setClient(metadata.issuer, client);
    return client;
  }

  private async authorizationCode(found: Discovered, scope: string | undefined): Promise<StoredTokens> {
    const { metadata } = found;
    const { authorize, redirectUri } = this.options;
    if (!authorize || !redirectUri) throw new OAuthError('signing in needs `authorize` and `redirectUri` (or grant: client_credentials)');
    if (!metadata.authorization_endpoint) throw new OAuthError(`${metadata.issuer} has no authorization_endpoint`);
    // The spec: no PKCE support advertised, no authorization.
    if (!metadata.code_challenge_methods_supported?.includes('S256'))
      throw new OAuthError(`${metadata.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported)`);
    const client = await this.client(metadata);
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', base64url(createHash('sha256').update(verifier).digest()));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    url.searchParams.set('resource', found.resource);
    if (scope) url.searchParams.set('scope', scope);
    // RFC 9449 §10: the code is bound to the DPoP key, so that only this client can redeem it.
    const dpop = this.dpopFor(metadata);
    if (dpop) url.searchParams.set('dpop_jkt', dpop.thumbprint());
    const back = new URL(await authorize(url));
    // RFC 9207: the issuer of the answer, before anything in it is believed.
    const iss = back.searchParams.get('iss');
    if (iss !== null ? iss !== metadata.issuer : metadata.authorization_response_iss_parameter_supported === true) {
      throw new OAuthError(
        iss === null
          ? `the authorization response has no iss, though ${metadata.issuer} says it sends one`
          : `the authorization response comes from ${iss}, not ${metadata.issuer}`,
      );
    }
    if (back.searchParams.get('state') !== state) throw new OAuthError('the authorization response does not carry the state sent');
    const error = back.searchParams.get('error');
    if (error) throw new OAuthError(`authorization refused: ${back.searchParams.get('error_description') ?? error}`, error);
    const code = back.searchParams.get('code');
    if (!code) throw new OAuthError('the authorization response has no code');
    return this.token(metadata, client, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, resource: found.resource }, scope);
  }

  private async clientCredentials(found: Discovered, scope: string | undefined): Promise<StoredTokens> {
    const client = await this.client(found.metadata);
    return this.token(found.metadata, client, { grant_type: 'client_credentials', resource: found.resource, ...(scope && { scope }) }, scope);
  }

  /**
   * The JWT-bearer grant (RFC 7523 §2.1) with the assertion of `grants.ts`. A workload needs no
   * client id (SEP-1933): the client authenticates only when `clientId` is given.
   */
  private async jwtBearer(found: Discovered, scope: string | undefined): Promise<StoredTokens> {
    const { metadata, resource } = found;
    // A server that lists its grants and not this one would refuse it: say so before getting a JWT for it.
    if (metadata.grant_types_supported && !metadata.grant_types_supported.includes(JWT_BEARER_GRANT))
      throw new OAuthError(`${metadata.issuer} does not take the JWT-bearer grant (${JWT_BEARER_GRANT} is not in its grant_types_supported)`, undefined, 'jwt-bearer');
    const context = { authorizationServerUrl: metadata.issuer, resourceUrl: resource, scope, fetchFn: this.doFetch };
    const assertion = await jwtBearerAssertion(this.options, context, async (issuer) => (await this.serverMetadata(issuer, false)).token_endpoint);
    const client = this.options.clientId !== undefined ? await this.client(metadata) : undefined;
    return this.token(metadata, client, { grant_type: JWT_BEARER_GRANT, assertion, resource, ...(scope && { scope }) }, scope, 'jwt-bearer');
  }

  /** Refreshes the tokens of `resource` (discovering its authorization server first when this process has not yet: tokens from a kept store). */
  private async refresh(serverUrl: URL, resource: string, tokens: StoredTokens): Promise<void> {
    const { metadata, resource: canonical } = await this.discover(serverUrl, resource, undefined);
    const client = await this.client(metadata);
    const refreshed = await this.token(metadata, client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken!, resource: canonical }, tokens.scope);
    await this.store.setTokens(resource, { ...refreshed, refreshToken: refreshed.refreshToken ?? tokens.refreshToken });
  }

  /** A token request, authenticated as the client (unless there is none: a workload's JWT-bearer grant); `step` names it in its errors. */
  private async token(
    metadata: ServerMetadata,
    client: StoredClient | undefined,
    params: Record<string, string>,
    scope: string | undefined,
    step?: OAuthGrantStep,
  ): Promise<StoredTokens> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const body = new URLSearchParams(params);
    const method = client && (this.options.tokenEndpointAuthMethod ?? client.tokenEndpointAuthMethod ?? defaultAuthMethod(client, metadata, this.options.privateKey));
    const privateKey = this.options.privateKey;
    if (client === undefined) {
      // RFC 7523 §3.1: the JWT is the grant; client authentication is optional.
    } else if (method === 'private_key_jwt') {
      if (!privateKey) throw new OAuthError('private_key_jwt needs privateKey');
      body.set('client_id', client.clientId);
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    } else if (method === 'client_secret_basic' && client.clientSecret !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', client.clientId);
      if (method === 'client_secret_post' && client.clientSecret !== undefined) body.set('client_secret', client.clientSecret);
    }
    const dpop = this.dpopFor(metadata);
    const endpoint = new URL(metadata.token_endpoint);
    const post = async () => {
      // A client assertion and a DPoP proof each time: an authorization server takes each jti once.
      if (client && method === 'private_key_jwt') body.set('client_assertion', clientAssertion(client.clientId, metadata.issuer, privateKey!));
      const response = await this.doFetch(endpoint, { method: 'POST', headers: dpop ? { ...headers, dpop: await dpop.proof('POST', endpoint) } : headers, body: body.toString() });
      dpop?.heard(endpoint, response);
      return { response, answer: await tokenAnswerBody(response, 'the token endpoint', step) };
    };
    let { response, answer } = await post();
    // RFC 9449 §8: an authorization server that wants its nonce in the proof answers 400
    // use_dpop_nonce with one; asked again with it, once.
    if (dpop && answer.error === 'use_dpop_nonce' && response.headers.has('dpop-nonce')) ({ response, answer } = await post());
    checkTokenAnswer(response, answer, step === 'jwt-bearer' ? `the JWT-bearer grant at ${metadata.token_endpoint}` : 'the token endpoint', step);
    return {
      accessToken: answer.access_token,
      ...(answer.refresh_token !== undefined && { refreshToken: answer.refresh_token }),
      ...(typeof answer.expires_in === 'number' && { expiresAt: Date.now() + answer.expires_in * 1000 }),
      ...((answer.scope ?? scope) !== undefined && { scope: answer.scope ?? scope }),
      ...(dpop && answer.token_type?.toLowerCase() === 'dpop' && { tokenType: 'DPoP' as const }),
    };
  }

  /**
   * The DPoP prover when token requests to this authorization server carry proofs: where it
   * advertises `dpop_signing_alg_values_supported`, or with `dpop: true`. Throws when the server
   * lists algorithms and the key signs none of them.
   */
  private dpopFor(metadata: ServerMetadata): DpopProver | undefined {
    const listed = metadata.dpop_signing_alg_values_supported;
    const supported = Array.isArray(listed) && listed.length > 0 ? listed : undefined;
    if (!this.dpop || !(supported || this.dpop.always)) return undefined;
    const alg = this.dpop.algorithm(supported);
    if (supported && !supported.includes(alg))
      throw new OAuthError(`${metadata.issuer} takes DPoP proofs signed with ${supported.join(', ')}, and this client's DPoP key signs ${alg} (the dpop option's key or alg)`);
    return this.dpop;
  }
}

/** For a client with a secret, the first of basic and post the server takes; none without one. */
function defaultAuthMethod(client: StoredClient, metadata: ServerMetadata, privateKey: unknown): TokenEndpointAuthMethod {
  if (privateKey !== undefined) return 'private_key_jwt';
  if (client.clientSecret === undefined) return 'none';
  const supported = metadata.token_endpoint_auth_methods_supported;
  return supported && !supported.includes('client_secret_basic') && supported.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/**
 * A client assertion (RFC 7523 §2.2, as MCP's client credentials extension uses it): the client
 * as issuer and subject, the authorization server's issuer as audience, valid for a minute.
 */
function clientAssertion(clientId: string, audience: string, key: NonNullable<OAuthClientOptions['privateKey']>): string {
  const algorithm = key.algorithm ?? 'ES256';
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 60, jti: base64url(randomBytes(16)) };
  return signJws(base64urlJson({ alg: algorithm, typ: 'JWT' }), claims, createPrivateKey(key.pem), algorithm);
}

/** The scopes of both, each once (step-up keeps what was granted before). */
function unionOfScopes(...scopes: Array<string | undefined>): string | undefined {
  const all = new Set(scopes.flatMap((s) => (s ? s.split(' ').filter((x) => x !== '') : [])));
  return all.size === 0 ? undefined : [...all].join(' ');
}

/** True when the scopes `granted` hold every scope `wanted` names (true when it names none). */
function scopeCovers(granted: string | undefined, wanted: string | undefined): boolean {
  const held = new Set(granted?.split(' '));
  return (wanted ?? '').split(' ').every((one) => one === '' || held.has(one));
}

/** True when the metadata's `resource` is the server, or a prefix of it (same origin, path below). */
function resourceCovers(declared: string, resource: string): boolean {
  const a = new URL(canonicalResource(declared));
  const b = new URL(resource);
  if (a.origin !== b.origin) return false;
  const path = a.pathname === '/' ? '' : a.pathname;
  return b.pathname === path || b.pathname.startsWith(`${path}/`) || path === '';
}
