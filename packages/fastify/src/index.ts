/**
 * @hermes-mcp/fastify — mount a Hermes MCP server in any Fastify app: Streamable HTTP with sessions
 * and resumable SSE streams, the legacy HTTP+SSE transport, MCP over WebSocket (with the optional
 * peer `@fastify/websocket`), DNS-rebinding protection.
 */
export { hermesMcp } from './plugin';
export type { HermesMcpOptions, HttpSession } from './plugin';
export type { OriginPolicy } from './security';
export { InMemorySessionStore } from './session-store';
export type { SessionStore } from './session-store';
export { InMemoryEventStore } from './event-store';
export type { EventStore, StoredEvent } from './event-store';
export { checkParamHeaders, checkStandardHeaders, decodeHeaderValue, headerParamsOf, validateHeaderDeclarations } from './modern-headers';
export type { HeaderParam, HeaderProblem } from './modern-headers';
export { MCP_SUBPROTOCOL, WS_CLOSE, WebSocketTransport } from './websocket';
export type { WebSocketLike, WebSocketTransportOptions } from './websocket';
export type { WebSocketOptions } from './websocket-route';
