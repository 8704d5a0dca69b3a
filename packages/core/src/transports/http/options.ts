/**
 * What MCP over HTTP lets an operator tune ({@link HttpEndpointOptions}), and the defaults
 * ({@link HTTP_DEFAULTS}): one place for both, read by the endpoint and every adapter.
 */
import type { AuthInfo } from '../../context/mcp-context';
import type { ResourceServerOptions } from '../../auth/resource-server';
import { DEFAULT_EVENT_STORE_BYTES, type EventStore } from '../../stores/event-store';
import type { SessionStore } from '../../stores/session-store';
import { DEFAULT_MAX_UNREAD_BYTES } from '../backpressure';
import type { HttpRequest } from './exchange';
import type { OriginPolicy } from './origin';
import { DEFAULT_MAX_BUFFERED_BYTES } from './sse';

/** Options of an {@link HttpEndpoint}: what MCP over HTTP lets an operator tune. */
export interface HttpEndpointOptions extends OriginPolicy {
  /** Where the MCP endpoint is mounted (default `/mcp`). */
  path?: string;
  /** A session with no request for this many milliseconds is ended (default 30 minutes). */
  sessionIdleTimeout?: number;
  /**
   * Most sessions at once (default 10 000). At the limit, a new session replaces the one idle
   * longest (that has no request in flight); only when every session is busy does it get 503.
   */
  maxSessions?: number;
  /**
   * Most sessions one client may hold at once (default 1 000); one more gets 429. Clients are told
   * apart by {@link clientKey}.
   */
  maxSessionsPerClient?: number;
  /**
   * Which client a request comes from, for `maxSessionsPerClient` (default: its `ip`, as the
   * adapter trusts it). Return a user or tenant id to count per account instead.
   */
  clientKey?: (request: HttpRequest) => string;
  /**
   * Most bytes one SSE stream may hold unread before it is closed (default 4 MiB). A request's
   * stream that falls that far behind ends and its request is cancelled (answered with -32011
   * for a client that resumes); the session stays. A 2024-11-05 HTTP+SSE session has one stream,
   * so it ends.
   */
  maxBufferedBytes?: number;
  /**
   * Most bytes one client (by {@link clientKey}) may leave unread over all its connections — the
   * answers still being written, its SSE streams, its WebSockets (default 64 MiB, and at least the
   * app's `maxResultBytes`). An answer that would pass it is replaced by -32011 (ClientTooSlow);
   * a notification is dropped and its request answered with -32011. The sessions stay.
   */
  maxUnreadBytes?: number;
  /**
   * On close, how long requests in flight may take to finish before they are answered with
   * -32010, in milliseconds (default: the app's `shutdownGracePeriod`, 5 000).
   */
  shutdownGracePeriod?: number;
  /** Largest request body in bytes; larger gets 413 (default 4 MiB). Enforced by the adapter. */
  bodyLimit?: number;
  /**
   * Most milliseconds a POST's body may take to arrive once its headers did (default 60 000; 0:
   * no limit). Past it: 408 and the connection is closed, so a client that sends a byte a second
   * cannot hold a request for ever. Enforced by the adapter.
   */
  bodyTimeout?: number;
  /** Milliseconds a client waits before reconnecting a closed SSE stream (`retry`, default 1000). */
  retryMs?: number;
  /** Events kept per session for resumption by the default event store (default 1000). */
  eventStoreLimit?: number;
  /**
   * Characters of JSON the default event store keeps per session for resumption (default 16 MiB;
   * the newest event is kept whatever its size). Past it the oldest events go, and a resumption
   * from before them gets 400.
   */
  eventStoreBytes?: number;
  /**
   * The event store of a new Streamable HTTP session, where its SSE events are kept for
   * resumption (default: an {@link InMemoryEventStore} of `eventStoreLimit` events).
   */
  eventStore?: (sessionId: string) => EventStore;
  /**
   * Where the records of Streamable HTTP sessions are kept (default: an
   * {@link InMemorySessionStore}); records expire `sessionIdleTimeout` after their session's last use. With a store shared by
   * several instances, a request for a session this instance does not serve takes it up from its
   * record. Sessions of the 2024-11-05 HTTP+SSE transport and WebSocket live with their connection
   * and are not kept there.
   */
  sessionStore?: SessionStore;
  /** Serve the 2024-11-05 HTTP+SSE transport at `{path}/sse` and `{path}/messages` (default true). */
  legacySse?: boolean;
  /**
   * Who is calling, checked on every request of every route before anything else but the
   * Host/Origin check. Return the caller's {@link AuthInfo} (handlers see it as `ctx.auth`), or
   * undefined for an anonymous caller; throw an {@link HttpError} to refuse the request with its
   * status and headers (401 with `WWW-Authenticate`, say). Any other error answers 500.
   */
  authenticate?: (request: HttpRequest) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * This server as an OAuth 2.1 resource server: every request needs a bearer token the
   * `verifier` accepts (401 otherwise, with the challenge that tells a client where to sign in),
   * `ctx.auth` is what it verified, components with `scopes` are hidden from callers without them
   * and refused with 403 (step-up), a legacy session serves only the principal that opened it, and
   * the protected-resource metadata is served at `/.well-known/oauth-protected-resource{path}`.
   * Instead of `authenticate`. See docs/auth.md.
   */
  auth?: ResourceServerOptions;
  /**
   * Request headers handlers must not read, besides those that always carry credentials
   * (`authorization`, `proxy-authorization`, `cookie`): in `ctx.transport.headers` their value is
   * `[redacted]`, on every transport (Streamable HTTP, HTTP+SSE, the WebSocket upgrade). Name
   * your own credential headers here (`x-api-key`, say); the `authenticate` hook still sees them.
   */
  redactHeaders?: string[];
}

const MINUTE = 60_000;
/** The defaults of {@link HttpEndpointOptions}. */
export const HTTP_DEFAULTS = Object.freeze({
  path: '/mcp',
  sessionIdleTimeout: 30 * MINUTE,
  maxSessions: 10_000,
  maxSessionsPerClient: 1_000,
  bodyLimit: 4 * 1024 * 1024,
  bodyTimeout: 60_000,
  retryMs: 1000,
  eventStoreLimit: 1000,
  eventStoreBytes: DEFAULT_EVENT_STORE_BYTES,
  maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
  maxUnreadBytes: DEFAULT_MAX_UNREAD_BYTES,
});

/** The settings in force: the options over {@link HTTP_DEFAULTS}. */
export type HttpSettings = Required<Pick<HttpEndpointOptions, keyof typeof HTTP_DEFAULTS>>;
