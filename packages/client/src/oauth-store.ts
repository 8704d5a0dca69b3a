/**
 * Where an {@link OAuthClient} keeps what signing in gave it: tokens per server and resource, and
 * its registration per authorization server (oauth.ts).
 */
import type { Awaitable } from '@hermes-mcp/protocol';

/** Tokens as kept: what the token endpoint answered, with when the access token expires. */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; undefined when the server did not say. */
  expiresAt?: number;
  /** The scopes asked for (and, as far as the server said, granted). */
  scope?: string;
  /** `DPoP` for a token bound to the client's DPoP key (RFC 9449), presented with a proof; absent for a bearer token. */
  tokenType?: 'DPoP';
}

/** A registered client, as kept (dynamic registration's answer). */
export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  /** How it authenticates at the token endpoint, as registered. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

/** How a client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/** Where a client keeps its tokens and registrations (in memory by default; a keychain, a database…). */
export interface OAuthStore {
  getTokens(key: string): Awaitable<StoredTokens | undefined>;
  setTokens(key: string, tokens: StoredTokens | undefined): Awaitable<void>;
  getClient(issuer: string): Awaitable<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient): Awaitable<void>;
}

/** Keeps tokens and registrations in this process. */
export class InMemoryOAuthStore implements OAuthStore {
  private readonly tokens = new Map<string, StoredTokens>();
  private readonly clients = new Map<string, StoredClient>();
  getTokens(key: string): StoredTokens | undefined {
    return this.tokens.get(key);
  }
  setTokens(key: string, tokens: StoredTokens | undefined): void {
    if (tokens) this.tokens.set(key, tokens);
    else this.tokens.delete(key);
  }
  getClient(issuer: string): StoredClient | undefined {
    return this.clients.get(issuer);
  }
  setClient(issuer: string, client: StoredClient): void {
    this.clients.set(issuer, client);
  }
}
