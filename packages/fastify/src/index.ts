/**
 * @hermes-mcp/fastify — mount a Hermes MCP server in any Fastify app: Streamable HTTP with sessions
 * and resumable SSE streams, MCP 2026-07-28 stateless requests, the 2024-11-05 HTTP+SSE transport,
 * DNS-rebinding protection. The HTTP semantics are core's `HttpEndpoint`; this package is the
 * Fastify adapter.
 */
export { hermesMcp } from './plugin';
export type { HermesMcpOptions } from './plugin';
export { InMemoryEventStore, InMemorySessionStore } from '@hermes-mcp/core';
export type { EventStore, HttpSession, OriginPolicy, SessionStore, StoredEvent } from '@hermes-mcp/core';
