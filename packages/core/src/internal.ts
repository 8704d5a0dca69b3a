/**
 * @hermes-mcp/core/internal — what adapters and other Hermes packages build on, not what
 * applications use: the HTTP endpoint every HTTP adapter shares and the pieces it answers through,
 * the engine's types and the method table. No stability promise beyond the packages of this
 * repository, which move together.
 */
export { HttpEndpoint, HTTP_DEFAULTS, bodyTimedOut, principalOf, sendError } from './transports/http/endpoint';
export { Deadlines } from './transports/http/deadlines';
export type { HttpResponse, HttpStream } from './transports/http/exchange';
export { NodeHttpResponse, NodeHttpStream, streamNodeResponse } from './transports/http/node';
export { DEFAULT_MAX_BUFFERED_BYTES } from './transports/http/sse';
export type { OutputLimits } from './transports/backpressure';
export type { ClientView, Unread } from './transports/unread';
export { allMethods, methodSpec } from './engine/methods';
export type { MethodSpec } from './engine/methods';
export type { Engine, EngineOptions } from './engine/engine';
export type { Connection, ConnectionOptions } from './engine/connection';
