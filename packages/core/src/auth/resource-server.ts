/**
 * An MCP server as an OAuth 2.1 resource server (MCP authorization, RFC 6750, RFC 8707, RFC 9728):
 * every HTTP request carries `Authorization: Bearer <token>`; the token is verified (a JWT against
 * the issuer's keys, RFC 7662 introspection, or a function of yours) and becomes `ctx.auth`;
 * a missing or bad token is answered 401, a token without the scopes a component needs 403, each
 * with the `WWW-Authenticate` challenge that tells a client where to sign in
 * (`resource_metadata`) and with what (`scope`). The protected-resource metadata document is served
 * at `/.well-known/oauth-protected-resource{path of the resource}`.
 *
 * One object ({@link ResourceServer}) owns it all; the HTTP endpoint asks it, whatever the adapter.
 */
import type { AuthInfo } from '../engine/context';
import { HermesError } from '../errors';
import type { HttpRequest } from '../transports/http/exchange';
import { headerOf } from '../transports/http/accept';
import { HttpError } from '../transports/http/http-error';
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
}

/** A `WWW-Authenticate: Bearer …` value; each parameter quoted as RFC 6750 writes them. */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    // A quoted-string: backslash and quote escaped, and nothing that would end the header.
    parts.push(`${name}="${value.replace(/[\\"]/g, '\\$&').replace(/[\r\n]/g, ' ')}"`);
  }
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
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

/** The OAuth resource server of an HTTP endpoint, made from its `auth` option. */
export class ResourceServer {
  /** The URL of the metadata document, as the challenge names it. */
  readonly metadataUrl: string;
  /** The path the metadata document is served at (the URL's path). */
  readonly metadataPath: string;
  /** The metadata document. */
  readonly metadata: ProtectedResourceMetadata;
  private readonly requiredScopes: readonly string[];

  constructor(private readonly options: ResourceServerOptions) {
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
    this.metadata = {
      resource: options.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ['header'],
      ...(options.scopesSupported && { scopes_supported: [...options.scopesSupported] }),
      ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
      ...(options.resourceDocumentation !== undefined && { resource_documentation: options.resourceDocumentation }),
    };
  }

  /**
   * The caller of `request`, from its bearer token; throws an {@link HttpError}: 401 without a
   * token or with one that is refused, 400 for a `Bearer` header without a well-formed token, 403
   * when the token lacks the scopes every request needs.
   */
  async authenticate(request: HttpRequest): Promise<AuthInfo> {
    const token = this.tokenOf(headerOf(request.headers, 'authorization'));
    let auth: AuthInfo;
    try {
      auth = await this.options.verifier(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw this.unauthorized(`Unauthorized: ${error.message}`, 'invalid_token', error.message);
      throw error;
    }
    if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now())
      throw this.unauthorized('Unauthorized: the token has expired', 'invalid_token', 'the token has expired');
    if (!hasScopes(auth.scopes, this.requiredScopes)) throw this.forbidden(this.requiredScopes);
    return auth;
  }

  /** The headers of a 403 for a request that needs `requiredScopes` (step-up). */
  insufficientScopeHeaders(requiredScopes: readonly string[]): Record<string, string> {
    return {
      'www-authenticate': bearerChallenge({
        error: 'insufficient_scope',
        scope: unionOfScopes(this.requiredScopes, requiredScopes).join(' '),
        resource_metadata: this.metadataUrl,
        error_description: 'the token lacks scopes this request needs',
      }),
    };
  }

  /**
   * The token of an `Authorization` header, as RFC 6750 §3.1 sorts the ways it can be wrong: no
   * header, or another scheme (the client may not know this server takes bearer tokens), is a 401
   * challenge without an error code; a `Bearer` header that holds no single token is a 400
   * `invalid_request`.
   */
  private tokenOf(header: string | undefined): string {
    if (header === undefined) throw this.unauthorized('Unauthorized: this server needs an OAuth access token (Authorization: Bearer …)');
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (match) return match[1];
    if (!/^Bearer(?: |$)/i.test(header)) throw this.unauthorized('Unauthorized: this server takes OAuth access tokens in the Bearer scheme only (Authorization: Bearer …)');
    const why = 'the Authorization header is not "Bearer <token>" (one token of the characters RFC 6750 allows)';
    throw this.challenge(400, `Bad Request: ${why}`, 'invalid_request', why);
  }

  private unauthorized(message: string, error?: string, description?: string): HttpError {
    return this.challenge(401, message, error, description);
  }

  /** A refusal with the challenge that names the metadata document and the scopes to ask for. */
  private challenge(status: number, message: string, error?: string, description?: string): HttpError {
    const scope = (this.options.scopesSupported ?? this.requiredScopes).join(' ');
    return new HttpError(status, message, {
      'www-authenticate': bearerChallenge({
        ...(error && { error }),
        ...(description && { error_description: description }),
        resource_metadata: this.metadataUrl,
        ...(scope && { scope }),
      }),
    });
  }

  private forbidden(requiredScopes: readonly string[]): HttpError {
    return new HttpError(403, `Forbidden: this server needs the scopes ${requiredScopes.join(' ')}`, this.insufficientScopeHeaders(requiredScopes));
  }
}
