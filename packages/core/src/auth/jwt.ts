/**
 * Verifies JWT access tokens (RFC 9068 and the like) with the issuer's published keys, through
 * `jose`: the signature against the JWKS (fetched once, cached, fetched again when a token names a
 * key it does not have — key rotation — at most every `jwksCooldownMs`), then the `typ` header
 * (`at+jwt`, RFC 9068), `iss`, `aud` (this resource, RFC 8707), `exp` and `nbf` with a clock
 * tolerance.
 */
import type { AuthInfo } from '../context/mcp-context';
import { InvalidTokenError, TokenVerifier } from './resource-server';

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions {
  /** The issuer (`iss`) tokens must name, exactly. */
  issuer: string;
  /** The audience tokens must be for: this server's canonical URI (its `auth.resource`). */
  audience: string | string[];
  /**
   * The issuer's JWKS URL. Default: the `jwks_uri` of its metadata, read once from
   * `{issuer}/.well-known/oauth-authorization-server`, else `/.well-known/openid-configuration`.
   */
  jwksUri?: string;
  /** Signature algorithms accepted (default RS256, PS256, ES256, EdDSA; never `none` or HMAC). */
  algorithms?: string[];
  /** Seconds of clock difference tolerated on `exp` and `nbf` (default 30). */
  clockToleranceSec?: number;
  /** The claim holding the scopes: a space-separated string or an array (default `scope`, then `scp`). */
  scopeClaim?: string;
  /** Least time between two fetches of the JWKS for a key it lacks (default 30 000 ms). */
  jwksCooldownMs?: number;
  /**
   * The `typ` header tokens must have (default `at+jwt`, which also takes `application/at+jwt`):
   * RFC 9068 §4 has a resource server refuse other JWTs, so that an ID token or another JWT the
   * issuer signed cannot pass for an access token. `false` takes any `typ`, or none — only for an
   * authorization server that does not mark its access tokens, since nothing then tells them from
   * its other JWTs but their `aud`.
   */
  typ?: string | false;
  /**
   * A token verified once is taken again without checking its signature for this long at most,
   * and never past its `exp` (default 60 000 ms; 0: verify every time). Its claims cannot change:
   * a JWT is what it says until it expires.
   */
  cacheTtlMs?: number;
  /** Most verified tokens remembered (default 10 000; the oldest go first). */
  maxCacheEntries?: number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** Claims read into {@link AuthInfo}'s own fields, not repeated in `claims`. */
const STANDARD = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'scope', 'scp', 'client_id', 'azp']);

type Jose = typeof import('jose');
let joseModule: Promise<Jose> | undefined;
/** `jose` is ESM: loaded on first use, so that servers without `auth` never load it. */
function loadJose(): Promise<Jose> {
  return (joseModule ??= import('jose'));
}

/** The `jwks_uri` of the issuer's metadata (RFC 8414, else OpenID Connect discovery). */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = issuer.replace(/\/$/, '');
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${base}/.well-known/openid-configuration`];
  for (const candidate of candidates) {
    const response = await fetch(candidate, { headers: { accept: 'application/json' } }).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => undefined)) as { issuer?: unknown; jwks_uri?: unknown } | undefined;
    if (metadata?.issuer === issuer && typeof metadata.jwks_uri === 'string') return metadata.jwks_uri;
  }
  throw new Error(`no jwks_uri found in the metadata of the issuer ${issuer}`);
}

/** The scopes of a claim: a space-separated string, or an array of strings. */
function scopesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string');
  return [];
}

/**
 * A verifier of JWT access tokens signed by `issuer`, for `audience`.
 *
 * @example
 * auth: {
 *   resource: 'https://mcp.example.com/mcp',
 *   authorizationServers: ['https://id.example.com'],
 *   verifier: jwtVerifier({ issuer: 'https://id.example.com', audience: 'https://mcp.example.com/mcp' }),
 * }
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  let keys: Promise<ReturnType<Jose['createRemoteJWKSet']>> | undefined;
  const keySet = () =>
    (keys ??= (async () => {
      const jose = await loadJose();
      const uri = options.jwksUri ?? (await discoverJwksUri(options.issuer));
      return jose.createRemoteJWKSet(new URL(uri), { cooldownDuration: options.jwksCooldownMs ?? 30_000 });
    })().catch((error: unknown) => {
      keys = undefined; // the next token tries again
      throw error;
    }));
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  const typ = options.typ ?? 'at+jwt';
  const ttl = options.cacheTtlMs ?? 60_000;
  const max = options.maxCacheEntries ?? 10_000;
  const verified = new Map<string, { auth: AuthInfo; until: number }>();
  return async (token: string): Promise<AuthInfo> => {
    const hit = verified.get(token);
    if (hit !== undefined) {
      if (hit.until > Date.now()) return hit.auth;
      verified.delete(token);
    }
    const auth = await verify(token);
    if (ttl > 0) {
      if (verified.size >= max) verified.delete(verified.keys().next().value!);
      // Until the earlier of the cache period and the token's expiry (less the tolerance granted).
      verified.set(token, { auth, until: Math.min(Date.now() + ttl, auth.expiresAt! * 1000) });
    }
    return auth;
  };

  async function verify(token: string): Promise<AuthInfo> {
    const jose = await loadJose();
    const jwks = await keySet();
    let payload: import('jose').JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, jwks, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        clockTolerance: options.clockToleranceSec ?? 30,
        ...(typ !== false && { typ }),
      }));
    } catch (error) {
      if (error instanceof jose.errors.JOSEError) throw new InvalidTokenError(describe(error, typ));
      throw error;
    }
    if (payload.exp === undefined) throw new InvalidTokenError('the token has no expiry (exp)');
    const claims: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(payload)) if (!STANDARD.has(name)) claims[name] = value;
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
    return {
      ...(payload.sub !== undefined && { subject: payload.sub }),
      ...(clientId !== undefined && { clientId }),
      scopes: scopesOf(options.scopeClaim ? payload[options.scopeClaim] : (payload.scope ?? payload.scp)),
      expiresAt: payload.exp,
      issuer: options.issuer,
      claims,
    };
  }
}

/** What was wrong with a token, in words a client may read (never the token). */
function describe(error: Error & { code?: string; claim?: string }, typ: string | false): string {
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return error.claim === 'aud'
        ? 'the token is not for this server (aud)'
        : error.claim === 'iss'
          ? 'the token is from another issuer (iss)'
          : error.claim === 'typ'
            ? `the token is not an access token (its "typ" header is not ${typ}, RFC 9068)`
            : `the token's "${error.claim}" claim is not valid`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the token signature is not valid';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'the token is signed with a key the issuer does not publish';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'the token is signed with an algorithm this server does not accept';
    default:
      return 'the token is not a valid JWT';
  }
}
