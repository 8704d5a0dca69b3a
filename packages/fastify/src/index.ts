/**
 * @hermes-mcp/fastify — mount a Hermes MCP server in any Fastify app: Streamable HTTP with sessions
 * and resumable SSE streams, MCP 2026-07-28 stateless requests, the 2024-11-05 HTTP+SSE transport,
 * MCP over WebSocket (with the optional peer `@fastify/websocket`), DNS-rebinding protection. The
 * HTTP semantics are core's `HttpEndpoint`; this package is the Fastify adapter.
 */
export { hermesMcp } from './plugin';
export type { HermesMcpOptions } from './plugin';
export type { WebSocketOptions } from './websocket-route';
export { InMemoryEventStore, InMemorySessionStore, MCP_SUBPROTOCOL, WS_CLOSE, WebSocketTransport } from '@hermes-mcp/core';
export type { EventStore, HttpSession, OriginPolicy, SessionChange, SessionRecord, SessionStore, StoredEvent, WebSocketLike, WebSocketTransportOptions } from '@hermes-mcp/core';
