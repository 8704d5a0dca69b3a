/**
 * Verifies opaque access tokens with the authorization server's introspection endpoint
 * (RFC 7662), authenticating as this resource server; answers are cached (by a hash of the token,
 * never the token) until the token expires or `cacheTtlMs` passes, whichever is first, so a busy
 * client costs one introspection per token and period, not one per request.
 */
import { nodeCrypto } from '@hermes-mcp/protocol';
import type { AuthInfo } from '../context/mcp-context';
import { InvalidTokenError, TokenVerifier } from './resource-server';

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint (`introspection_endpoint` of the server's metadata). */
  endpoint: string;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its secret (sent with HTTP Basic, `client_secret_basic`). */
  clientSecret: string;
  /** The audience tokens must be for (this server's canonical URI): the answer's `aud` must hold it. */
  audience: string;
  /**
   * Refuse an answer without `aud` (default true). MCP servers must take only tokens issued for
   * them, and an answer without `aud` does not say whom a token is for: a token the same
   * authorization server gave another client for something else (its userinfo endpoint, another
   * API) would pass. `false` takes such answers — only for an authorization server that never
   * sets `aud` and issues tokens for nothing but this server; `aud`, when the answer has it, is
   * still checked.
   */
  requireAudience?: boolean;
  /** The issuer tokens must come from; checked when the answer has `iss`. */
  issuer?: string;
  /** How long an answer is reused at most (default 60 000 ms; 0: never). */
  cacheTtlMs?: number;
  /** Most answers kept (default 10 000; the oldest go first). */
  maxCacheEntries?: number;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
}

interface Cached {
  auth?: AuthInfo;
  refusal?: string;
  until: number;
}

/**
 * A verifier that asks the authorization server about each token (cached).
 *
 * @example
 * verifier: introspectionVerifier({ endpoint: 'https://id.example.com/token/introspection', clientId: 'mcp', clientSecret: process.env.SECRET!, audience: 'https://mcp.example.com/mcp' })
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const ttl = options.cacheTtlMs ?? 60_000;
  const max = options.maxCacheEntries ?? 10_000;
  const cache = new Map<string, Cached>();
  const inflight = new Map<string, Promise<Cached>>();
  const doFetch = options.fetch ?? fetch;
  const requireAudience = options.requireAudience ?? true;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;

  async function introspect(token: string): Promise<Cached> {
    const response = await doFetch(options.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: basic },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    const now = Date.now();
    if (response.status === 400) {
      // RFC 7009's `unsupported_token_type` (oidc-provider's answer for a JWT, which it does not
      // introspect): the authorization server will not vouch for this token; it is refused, not a failure.
      const error = ((await response.json().catch(() => undefined)) as { error?: unknown } | undefined)?.error;
      if (error === 'unsupported_token_type' || error === 'invalid_token')
        return { refusal: `the authorization server does not vouch for this token (${error})`, until: now + ttl };
    }
    if (!response.ok) throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
    const answer = (await response.json()) as Record<string, unknown>;
    const exp = typeof answer.exp === 'number' ? answer.exp : undefined;
    const until = Math.min(now + ttl, exp === undefined ? Infinity : exp * 1000);
    if (answer.active !== true) return { refusal: 'the token is not active', until: now + ttl };
    const audiences = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : undefined;
    if (audiences && !audiences.includes(options.audience)) return { refusal: 'the token is not for this server (aud)', until };
    if (!audiences && requireAudience) return { refusal: 'the token is not for this server (it names no audience, aud)', until };
    if (options.issuer !== undefined && answer.iss !== undefined && answer.iss !== options.issuer) return { refusal: 'the token is from another issuer (iss)', until };
    if (exp === undefined) return { refusal: 'the token has no expiry (exp)', until: now + ttl };
    const claims: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(answer)) if (!['active', 'scope', 'client_id', 'sub', 'exp', 'aud', 'iss', 'token_type'].includes(name)) claims[name] = value;
    return {
      auth: {
        ...(typeof answer.sub === 'string' && { subject: answer.sub }),
        ...(typeof answer.client_id === 'string' && { clientId: answer.client_id }),
        scopes: typeof answer.scope === 'string' ? answer.scope.split(' ').filter((s) => s !== '') : [],
        expiresAt: exp,
        ...(typeof answer.iss === 'string' ? { issuer: answer.iss } : options.issuer !== undefined && { issuer: options.issuer }),
        claims,
      },
      until,
    };
  }

  return async (token: string): Promise<AuthInfo> => {
    const key = nodeCrypto().createHash('sha256').update(token).digest('base64url');
    let entry = cache.get(key);
    if (entry && entry.until <= Date.now()) {
      cache.delete(key);
      entry = undefined;
    }
    if (!entry) {
      // Requests with the same new token wait for one introspection.
      let pending = inflight.get(key);
      if (!pending) {
        pending = introspect(token).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      entry = await pending;
      if (ttl > 0) {
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(key, entry);
      }
    }
    if (entry.refusal !== undefined) throw new InvalidTokenError(entry.refusal);
    return entry.auth!;
  };
}
