/**
 * The JWT-bearer grants of MCP authorization's extensions (RFC 7523 §2.1): the client signs in to
 * a server's authorization server with a JWT, not with a person at a browser nor with a secret.
 *
 * - Enterprise-managed authorization (SEP-990, the ID-JAG draft): the user signed in to the app at
 *   the enterprise IdP, and the app holds their ID token. For each MCP server, the client exchanges
 *   it at the IdP (RFC 8693 token exchange) for an Identity Assertion JWT Authorization Grant naming
 *   the server (`resource`) and its authorization server (`audience`), and presents that.
 * - Workload identity federation (SEP-1933): a workload presents the JWT its platform gave it (a
 *   Kubernetes service-account token in a file, a variable, a cloud metadata call), with no client
 *   secret, and often no client id.
 *
 * `OAuthClient` runs them with `grant: 'jwt_bearer'`; what is here gets the assertion, and the
 * errors say which step failed (`OAuthError.step`).
 */
import { readFile } from 'node:fs/promises';
import type { Awaitable } from '@hermes-mcp/protocol';
import { OAuthError, readTokenAnswer } from './oauth-answer';

/** RFC 7523 §2.1: the grant type of a token request that presents a JWT. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/** Which step of a JWT-bearer sign-in failed (`OAuthError.step`). */
export type OAuthGrantStep =
  /** Reading the JWT the client holds: the workload's token (file, variable, callback) or the user's ID token. */
  | 'assertion'
  /** The token exchange at the enterprise IdP (its discovery, its answer). */
  | 'token-exchange'
  /** The JWT-bearer grant at the MCP server's authorization server. */
  | 'jwt-bearer';

/** What an assertion callback is told of the server being signed in to (the official SDK's `CrossAppAccessContext`). */
export interface CrossAppAccessContext {
  /** The issuer of the server's authorization server: the audience an ID-JAG names. */
  authorizationServerUrl: string;
  /** The server's resource identifier (RFC 9728), which an ID-JAG names. */
  resourceUrl: string;
  /** The scopes being asked for, if any. */
  scope?: string;
  /** The `fetch` the OAuth client uses. */
  fetchFn: typeof fetch;
}

/** Makes the JWT to present, for the server the context names (the official SDK's `AssertionCallback`). */
export type AssertionCallback = (context: CrossAppAccessContext) => Awaitable<string>;

/**
 * Where the JWT of `grant: 'jwt_bearer'` comes from. It is read again at every sign-in — the first,
 * and each time the access token expires or is refused — never kept, so a token the platform
 * rotates (a projected service-account token file, say) is always the current one.
 */
export type AssertionSource =
  /** The JWT itself (it cannot be renewed: a callback or a file can). */
  | string
  /** A file holding it (surrounding whitespace ignored). */
  | { file: string }
  /** An environment variable holding it. */
  | { env: string }
  | AssertionCallback;

/**
 * Enterprise-managed authorization (SEP-990): where and how the client exchanges the user's ID
 * token for an ID-JAG. The client's own `clientId` (and `clientSecret`) are those registered at the
 * MCP server's authorization server; these are the client's at the IdP.
 */
export interface CrossAppAccessOptions {
  /** The IdP's issuer: its token endpoint is read from its metadata (RFC 8414, then OpenID discovery). */
  idpUrl?: string;
  /** Or the IdP's token endpoint itself. */
  tokenEndpoint?: string;
  /** The client's id at the IdP. */
  clientId: string;
  /** Its secret at the IdP, sent in the body (as SEP-990's example), for a confidential client. */
  clientSecret?: string;
  /** The user's ID token from the IdP, or a function returning the current one (asked at every sign-in). */
  idToken: string | (() => Awaitable<string>);
}

/** What `OAuthClient` passes in: the options of the grant. */
interface GrantOptions {
  grant?: string;
  clientId?: string;
  assertion?: AssertionSource;
  crossAppAccess?: CrossAppAccessOptions;
}

/**
 * Refuses options the grant cannot work with, when the `OAuthClient` is made.
 * @internal
 */
export function checkGrantOptions(options: GrantOptions): void {
  const { grant, assertion, crossAppAccess } = options;
  if (grant !== 'jwt_bearer') {
    if (assertion !== undefined || crossAppAccess !== undefined)
      throw new TypeError(`${assertion !== undefined ? 'assertion' : 'crossAppAccess'} goes with grant: 'jwt_bearer', not ${grant ?? 'the default authorization_code'}`);
    return;
  }
  if ((assertion === undefined) === (crossAppAccess === undefined))
    throw new TypeError(
      "grant: 'jwt_bearer' takes one of assertion (the workload's JWT: a string, { file }, { env } or a callback) or crossAppAccess (enterprise-managed authorization: the user's ID token exchanged at the IdP)",
    );
  if (crossAppAccess === undefined) return;
  if (options.clientId === undefined)
    throw new TypeError("crossAppAccess needs clientId: the client's id at the MCP server's authorization server, which the IdP names in the ID-JAG");
  if ((crossAppAccess.idpUrl === undefined) === (crossAppAccess.tokenEndpoint === undefined))
    throw new TypeError("crossAppAccess takes one of idpUrl (the IdP's issuer, its metadata read) or tokenEndpoint (the IdP's token endpoint)");
}

/**
 * The JWT to present for the server of `context`: read from `assertion`, or got by token exchange
 * at the IdP (`crossAppAccess`). `idpTokenEndpoint` finds the IdP's token endpoint from its issuer.
 * @internal
 */
export async function jwtBearerAssertion(options: GrantOptions, context: CrossAppAccessContext, idpTokenEndpoint: (issuer: string) => Promise<string>): Promise<string> {
  if (options.crossAppAccess) return exchangeForIdJag(options.crossAppAccess, context, idpTokenEndpoint);
  return held(options.assertion!, context, 'the assertion');
}

/** Reads a JWT the client holds; an empty one, or one that cannot be read, is an error naming where it came from. */
async function held(source: AssertionSource | (() => Awaitable<string>), context: CrossAppAccessContext, what: string): Promise<string> {
  const [from, read]: [string, () => Awaitable<string | undefined>] =
    typeof source === 'string'
      ? [what, () => source]
      : typeof source === 'function'
        ? [`${what} callback`, () => source(context)]
        : 'file' in source
          ? [`${what} file ${source.file}`, () => readFile(source.file, 'utf8')]
          : [`${what} variable ${source.env}`, () => process.env[source.env]];
  let value: string | undefined;
  try {
    value = await read();
  } catch (error) {
    throw new OAuthError(`${from} could not be read: ${(error as Error).message}`, undefined, 'assertion', { cause: error });
  }
  const jwt = typeof value === 'string' ? value.trim() : '';
  if (jwt === '') throw new OAuthError(`${from} is ${value === undefined ? 'not set' : 'empty'}`, undefined, 'assertion');
  return jwt;
}

/**
 * RFC 8693 at the IdP, as SEP-990 §4 asks: the user's ID token as subject, an ID-JAG requested for
 * the server's authorization server (`audience`) and the server (`resource`), with the scopes.
 */
async function exchangeForIdJag(idp: CrossAppAccessOptions, context: CrossAppAccessContext, idpTokenEndpoint: (issuer: string) => Promise<string>): Promise<string> {
  const idToken = await held(idp.idToken, context, 'the ID token (crossAppAccess.idToken)');
  let endpoint = idp.tokenEndpoint;
  if (endpoint === undefined) {
    try {
      endpoint = await idpTokenEndpoint(idp.idpUrl!);
    } catch (error) {
      throw new OAuthError(`the token exchange at the IdP could not start: ${(error as Error).message}`, (error as OAuthError).error, 'token-exchange');
    }
  }
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    requested_token_type: ID_JAG,
    audience: context.authorizationServerUrl,
    resource: context.resourceUrl,
    subject_token: idToken,
    subject_token_type: ID_TOKEN,
    client_id: idp.clientId,
    ...(idp.clientSecret !== undefined && { client_secret: idp.clientSecret }),
    ...(context.scope && { scope: context.scope }),
  });
  const what = `the token exchange at the IdP (${endpoint})`;
  const response = await context
    .fetchFn(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: body.toString() })
    .catch((error: unknown) => {
      throw new OAuthError(`${what} could not be reached: ${(error as Error).message}`, undefined, 'token-exchange', { cause: error });
    });
  const answer = await readTokenAnswer(response, what, 'token-exchange');
  if (answer.issued_token_type !== ID_JAG)
    throw new OAuthError(`${what} issued ${answer.issued_token_type ?? 'a token of no issued_token_type'}, not an ID-JAG (${ID_JAG})`, undefined, 'token-exchange');
  return answer.access_token;
}
