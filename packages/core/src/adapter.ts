/**
 * @hermes-mcp/core/adapter — the contract an HTTP adapter builds on: everything a server of any
 * kind (Fastify, a Fetch-API runtime, Bun, Deno, `node:http`) needs to serve MCP through the one
 * {@link HttpEndpoint}, and nothing of the engine. Covered by semver like the main entry: what is
 * here changes only in a major release (docs/http.md, "Writing an adapter").
 *
 * An adapter turns its request into an {@link HttpRequest} (the body parsed with the protocol's
 * `parseJson`, within `bodyLimit`), answers through an {@link HttpResponse} (and an
 * {@link HttpStream} for SSE), and hands both to {@link HttpEndpoint.handle} (or to the route's own
 * method). Refusals of its own (a body too large, too slow, not JSON) are rows of
 * {@link HTTP_REFUSALS}, sent with {@link refuse}. A WebSocket upgrade is admitted with
 * {@link HttpEndpoint.admitWebSocket} before it is accepted, and the socket handed to
 * {@link HttpEndpoint.acceptWebSocket} after.
 */
export { HttpEndpoint, REFUSED } from './transports/http/endpoint';
export type { AcceptedWebSocket, WebSocketAdmission } from './transports/http/endpoint';
export { HTTP_DEFAULTS } from './transports/http/options';
export type { HttpEndpointOptions, HttpSettings } from './transports/http/options';
export type { HttpRequest, HttpResponse, HttpStream } from './transports/http/exchange';
export type { HeadersRecord } from './engine/modern-headers';
export { HTTP_REFUSALS, refuse, sendError } from './transports/http/refusals';
export type { HttpRefusal, HttpRefusalName } from './transports/http/refusals';
export { Deadlines } from './transports/http/deadlines';
export { NodeHttpResponse, NodeHttpStream, streamNodeResponse } from './transports/http/node';
export type { HttpSession } from './transports/http/sessions';
export { MCP_SUBPROTOCOL, WS_CLOSE } from './transports/websocket';
export type { WebSocketLike } from './transports/websocket';
export type { AuthInfo } from './context/mcp-context';
export { parseJson } from '@hermes-mcp/protocol';
