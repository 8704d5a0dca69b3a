/**
 * An MCP server as an OAuth 2.1 resource server (MCP authorization, RFC 6750, RFC 8707, RFC 9728):
 * every HTTP request carries `Authorization: Bearer <token>`; the token is verified (a JWT against
 * the issuer's keys, RFC 7662 introspection, or a function of yours) and becomes `ctx.auth`;
 * a missing or bad token is answered 401, a token without the scopes a component needs 403, each
 * with the `WWW-Authenticate` challenge that tells a client where to sign in
 * (`resource_metadata`) and with what (`scope`). The protected-resource metadata document is served
 * at `/.well-known/oauth-protected-resource{path of the resource}`.
 *
 * Tokens bound to a client's key (DPoP, RFC 9449) come as `Authorization: DPoP <token>` with a
 * proof in the `DPoP` header, checked by {@link DpopVerifier}; the `dpop` option says whether they
 * are taken beside bearer tokens (the default), required, or not taken.
 *
 * One object ({@link ResourceServer}) owns it all; the HTTP endpoint asks it, whatever the adapter.
 */
import type { AuthInfo } from '../context/mcp-context';
import { HermesError } from '../errors';
import type { HttpRequest } from '../transports/http/exchange';
import { headerOf } from '../transports/http/accept';
import { HttpError } from '../transports/http/http-error';
import { DpopError, DpopOptions, DpopVerifier } from './dpop';
import type { ReplayStore } from '../stores/replay-store';
import { hasScopes, unionOfScopes } from './scopes';

/**
 * Checks an access token and says who it is for. Throw {@link InvalidTokenError} for a token
 * that is not good (expired, forged, for another audience): the client gets 401. Any other error
 * answers 500 and is logged.
 */
export type TokenVerifier = (token: string) => AuthInfo | Promise<AuthInfo>;

/** What a {@link TokenVerifier} throws for a token it refuses (answered 401 `invalid_token`). */
export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** The `auth` option: this server as an OAuth resource server. */
export interface ResourceServerOptions {
  /**
   * This server's canonical URI (RFC 8707), as clients reach it: `https://mcp.example.com/mcp`.
   * Tokens must be issued for it (their audience), and the metadata document names it.
   */
  resource: string;
  /** The authorization servers whose tokens this server takes (their issuer URLs). */
  authorizationServers: string[];
  /** Verifies each token: {@link jwtVerifier}, {@link introspectionVerifier}, or your own. */
  verifier: TokenVerifier;
  /** Scopes a client may ask for, published as `scopes_supported` (the basic set; more by step-up). */
  scopesSupported?: string[];
  /** Scopes every request needs, whatever it calls (default none). */
  requiredScopes?: string[];
  /** A name for humans (`resource_name`). */
  resourceName?: string;
  /**
   * DPoP-bound tokens (RFC 9449): taken beside bearer tokens by default (`{}`, mode `'allowed'`),
   * or required (`{ mode: 'required' }`); `false` takes bearer tokens only. A DPoP-bound token
   * presented as `Bearer` is refused in every case. See {@link DpopOptions}.
   */
  dpop?: DpopOptions | false;
  /** Where people read about this server (`resource_documentation`). */
  resourceDocumentation?: string;
}

/** The RFC 9728 protected-resource metadata document. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  scopes_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  /** The algorithms DPoP proofs may use, when this server takes DPoP-bound tokens (RFC 9449 §5.1). */
  dpop_signing_alg_values_supported?: string[];
  /** Whether only DPoP-bound tokens are taken. */
  dpop_bound_access_tokens_required?: boolean;
}

/** A `WWW-Authenticate: Bearer …` value; each parameter quoted as RFC 6750 writes them. */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  return challengeOf('Bearer', params);
}

/** One challenge of a `WWW-Authenticate` value: the scheme, then each parameter quoted. */
function challengeOf(scheme: 'Bearer' | 'DPoP', params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    // A quoted-string: backslash and quote escaped, and nothing that would end the header.
    parts.push(`${name}="${value.replace(/[\\"]/g, '\\$&').replace(/[\r\n]/g, ' ')}"`);
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`;
}

/**
 * Where the metadata of `resource` is published (RFC 9728 §3.1): the well-known path inserted
 * between the origin and the resource's path.
 *
 * @example
 * protectedResourceMetadataUrl('https://mcp.example.com/mcp') // 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The two schemes a token comes in. */
type Scheme = 'Bearer' | 'DPoP';
/** What an error challenge says: the error code and its description, and the scheme it is for. */
interface Refusal {
  error?: string;
  description?: string;
  /** The scheme the request used: its challenge carries the error (default: every challenge). */
  scheme?: Scheme;
}

/** The OAuth resource server of an HTTP endpoint, made from its `auth` option. */
export class ResourceServer {
  /** The URL of the metadata document, as the challenge names it. */
  readonly metadataUrl: string;
  /** The path the metadata document is served at (the URL's path). */
  readonly metadataPath: string;
  /** The metadata document. */
  readonly metadata: ProtectedResourceMetadata;
  private readonly requiredScopes: readonly string[];
  /** The DPoP proof checks, unless `dpop: false`. */
  private readonly dpop?: DpopVerifier;
  /**
   * True when DPoP proofs carry this server's nonces: the answer to a request may then give the
   * next one ({@link nextNonce}). False, the endpoint asks nothing of a request.
   */
  readonly rollsNonces: boolean;
  /** The next nonce of each request whose proof's nonce is past half its life, for its answer. */
  private readonly nextNonces = new WeakMap<HttpRequest, string>();

  /** `replayStore`: where DPoP proofs are remembered when the option names none (a cluster's). */
  constructor(
    private readonly options: ResourceServerOptions,
    replayStore?: ReplayStore,
  ) {
    let resource: URL;
    try {
      resource = new URL(options.resource);
    } catch {
      throw new HermesError('HERMES_INVALID_OPTIONS', `auth.resource must be an absolute URL (the server's canonical URI), not "${options.resource}".`);
    }
    if (resource.hash !== '') throw new HermesError('HERMES_INVALID_OPTIONS', `auth.resource must have no fragment: "${options.resource}".`);
    if (!Array.isArray(options.authorizationServers) || options.authorizationServers.length === 0) {
      throw new HermesError('HERMES_INVALID_OPTIONS', 'auth.authorizationServers must name at least one authorization server (its issuer URL).');
    }
    if (typeof options.verifier !== 'function')
      throw new HermesError('HERMES_INVALID_OPTIONS', 'auth.verifier must be a function (jwtVerifier(…), introspectionVerifier(…) or yours).');
    this.metadataUrl = protectedResourceMetadataUrl(options.resource);
    this.metadataPath = new URL(this.metadataUrl).pathname;
    this.requiredScopes = options.requiredScopes ?? [];
    if (options.dpop !== false) this.dpop = new DpopVerifier(options.dpop ?? {}, resource.origin, replayStore);
    this.rollsNonces = this.dpop?.usesNonces === true;
    this.metadata = {
      resource: options.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ['header'],
      ...(options.scopesSupported && { scopes_supported: [...options.scopesSupported] }),
      ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
      ...(options.resourceDocumentation !== undefined && { resource_documentation: options.resourceDocumentation }),
      ...(this.dpop && { dpop_signing_alg_values_supported: [...this.dpop.algorithms] }),
      ...(this.dpop?.required && { dpop_bound_access_tokens_required: true }),
    };
  }

  /**
   * The caller of `request`, from its bearer or DPoP-bound token; throws an {@link HttpError}: 401
   * without a token, with one that is refused, or with a DPoP proof that is; 400 for an
   * `Authorization` header without a well-formed token; 403 when the token lacks the scopes every
   * request needs. When the nonce of the request's DPoP proof is past half its life, the next one
   * is kept for the answer ({@link nextNonce}).
   */
  async authenticate(request: HttpRequest): Promise<AuthInfo> {
    const { scheme, token } = this.credentialsOf(headerOf(request.headers, 'authorization'));
    let auth: AuthInfo;
    try {
      auth = await this.options.verifier(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw this.unauthorized(`Unauthorized: ${error.message}`, { error: 'invalid_token', description: error.message, scheme });
      throw error;
    }
    if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now())
      throw this.unauthorized('Unauthorized: the token has expired', { error: 'invalid_token', description: 'the token has expired', scheme });
    let next: string | undefined;
    if (scheme === 'DPoP') next = await this.checkProof(request, token, auth);
    else if ((auth.claims?.cnf as { jkt?: unknown } | undefined)?.jkt !== undefined) {
      const why = 'the token is bound to a key (DPoP): present it as "Authorization: DPoP <token>" with a DPoP proof';
      throw this.unauthorized(`Unauthorized: ${why}`, { error: 'invalid_token', description: why, scheme });
    }
    if (!hasScopes(auth.scopes, this.requiredScopes)) throw this.forbidden(this.requiredScopes);
    if (next !== undefined) this.nextNonces.set(request, next);
    return auth;
  }

  /**
   * The nonce the answer to `request` gives in `DPoP-Nonce`, once {@link authenticate} took it:
   * the next one, when the nonce its proof carried is past half its life (RFC 9449 §8 lets a
   * server give a new nonce with any answer; the client uses the newest), so that a client that
   * keeps making requests rolls over before its nonce expires instead of being refused
   * (`use_dpop_nonce`) and sending again. Undefined for any other request.
   */
  nextNonce(request: HttpRequest): string | undefined {
    return this.nextNonces.get(request);
  }

  /**
   * Refuses a request whose DPoP proof is not good for `token` and this very request; the next
   * nonce, when the proof's is past half its life ({@link DpopVerifier.verify}).
   */
  private async checkProof(request: HttpRequest, token: string, auth: AuthInfo): Promise<string | undefined> {
    try {
      return await this.dpop!.verify(request.headers.dpop, request.method, request.url, token, auth);
    } catch (error) {
      if (!(error instanceof DpopError)) throw error;
      const refusal = this.unauthorized(`Unauthorized: ${error.message}`, { error: error.error, description: error.message, scheme: 'DPoP' });
      if (error.error !== 'use_dpop_nonce') throw refusal;
      throw new HttpError(401, refusal.message, { ...refusal.headers, 'dpop-nonce': this.dpop!.nonce()! });
    }
  }

  /** The headers of a 403 for a request that needs `requiredScopes` (step-up). */
  insufficientScopeHeaders(requiredScopes: readonly string[]): Record<string, string> {
    return {
      'www-authenticate': this.challenges(
        { error: 'insufficient_scope', description: 'the token lacks scopes this request needs' },
        unionOfScopes(this.requiredScopes, requiredScopes).join(' '),
      ),
    };
  }

  /**
   * The scheme and token of an `Authorization` header, as RFC 6750 §3.1 sorts the ways it can be
   * wrong: no header, or a scheme this server does not take, is a 401 challenge without an error
   * code (the client may not know which schemes this server takes); a `Bearer` or `DPoP` header
   * that holds no single token is a 400 `invalid_request`.
   */
  private credentialsOf(header: string | undefined): { scheme: Scheme; token: string } {
    if (header === undefined) throw this.unauthorized(`Unauthorized: this server needs an OAuth access token (${this.expected()})`);
    const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    const scheme: Scheme | undefined = match
      ? match[1].length === 4
        ? 'DPoP'
        : 'Bearer'
      : /^Bearer(?: |$)/i.test(header)
        ? 'Bearer'
        : /^DPoP(?: |$)/i.test(header)
          ? 'DPoP'
          : undefined;
    if (scheme === undefined || (scheme === 'DPoP' && !this.dpop))
      throw this.unauthorized(`Unauthorized: this server takes OAuth access tokens in the ${this.schemes().join(' or ')} scheme only (${this.expected()})`);
    if (scheme === 'Bearer' && this.dpop?.required) {
      const why = 'this server takes DPoP-bound tokens only (Authorization: DPoP <token>, with a DPoP proof)';
      throw this.unauthorized(`Unauthorized: ${why}`, { error: 'invalid_token', description: why });
    }
    if (match) return { scheme, token: match[2] };
    const why = `the Authorization header is not "${scheme} <token>" (one token of the characters RFC 6750 allows)`;
    throw this.challenge(400, `Bad Request: ${why}`, { error: 'invalid_request', description: why, scheme });
  }

  /** The schemes this server takes tokens in. */
  private schemes(): Scheme[] {
    return !this.dpop ? ['Bearer'] : this.dpop.required ? ['DPoP'] : ['Bearer', 'DPoP'];
  }

  /** The header forms this server takes, for messages. */
  private expected(): string {
    return !this.dpop ? 'Authorization: Bearer …' : this.dpop.required ? 'Authorization: DPoP … with a DPoP proof' : 'Authorization: Bearer …, or DPoP … with a DPoP proof';
  }

  private unauthorized(message: string, refusal: Refusal = {}): HttpError {
    return this.challenge(401, message, refusal);
  }

  /** A refusal with the challenges that name the metadata document and the scopes to ask for. */
  private challenge(status: number, message: string, refusal: Refusal): HttpError {
    return new HttpError(status, message, { 'www-authenticate': this.challenges(refusal, (this.options.scopesSupported ?? this.requiredScopes).join(' ')) });
  }

  /**
   * The `WWW-Authenticate` value: a challenge for each scheme this server takes (Bearer, then DPoP
   * with its `algs`), each naming the metadata document and the scopes; the error on the challenge
   * of the scheme the request used (on each, when the request used none of them).
   */
  private challenges(refusal: Refusal, scope: string): string {
    return this.schemes()
      .map((scheme) =>
        challengeOf(scheme, {
          ...(scheme === 'DPoP' && { algs: this.dpop!.algorithms.join(' ') }),
          ...((refusal.scheme ?? scheme) === scheme && { error: refusal.error, error_description: refusal.description }),
          resource_metadata: this.metadataUrl,
          ...(scope && { scope }),
        }),
      )
      .join(', ');
  }

  private forbidden(requiredScopes: readonly string[]): HttpError {
    return new HttpError(403, `Forbidden: this server needs the scopes ${requiredScopes.join(' ')}`, this.insufficientScopeHeaders(requiredScopes));
  }
}
