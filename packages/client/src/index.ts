/**
 * @hermes-mcp/client: a client for any MCP server, in either era, over stdio or any transport.
 *
 * @example
 * const client = new McpClient(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * await client.connect();
 * const tools = await client.listAllTools(); // or: for await (const tool of client.listAllTools())
 * const result = unwrap(await client.callTool('add', { a: 2, b: 3 }));
 */
export { McpClient, ToolCallError, unwrap } from './client';
export type { CallOptions, ClientLogger, ElicitationAnswer, ElicitationRequest, ListenFilter, Listing, ListPage, LogMessage, McpClientOptions } from './client';
export { AppHost, allowAttribute, appOf, cspFor, modelTools, readAppView } from './apps';
export type { AppHostOptions, AppToolInfo, AppView } from './apps';
export type { AppCsp, AppPermissions, AppVisibility } from '@hermes-mcp/protocol';
export { InMemoryResponseCache } from './cache';
export type { CachedResponse, ResponseCache } from './cache';
export type { ClientRequestTrace } from './diagnostics';
export { StdioClientTransport } from './stdio';
export { StreamableHTTPClientTransport, StreamableHttpClientTransport } from './streamable-http';
export type { StreamableHttpClientOptions } from './streamable-http';
export type { ReconnectOptions } from './reconnect';
export { OAuthClient, canonicalResource, parseBearerChallenge, parseChallenges } from './oauth';
export { MAX_OAUTH_ANSWER_BYTES, OAuthError } from './oauth-answer';
export { InMemoryOAuthStore } from './oauth-store';
export type { DpopAlgorithm, DpopClientOptions } from './dpop';
export type { OAuthClientOptions } from './oauth';
export type { OAuthStore, StoredClient, StoredTokens, TokenEndpointAuthMethod } from './oauth-store';
export type { AssertionCallback, AssertionSource, CrossAppAccessContext, CrossAppAccessOptions, OAuthGrantStep } from './grants';
export { SSEClientTransport, SseClientTransport } from './sse-legacy';
export { WebSocketClientTransport } from './websocket';
export type { WebSocketClientOptions, WebSocketConstructor, WebSocketLikeClient, WebSocketStatus } from './websocket';
export type { SseClientOptions } from './sse-legacy';
export type { StdioClientOptions, StdioInfo, TransportState } from './stdio';
export { ConnectionClosedError, InMemoryTransport, McpError } from '@hermes-mcp/protocol';
export type { PendingRequest, Transport } from '@hermes-mcp/protocol';
