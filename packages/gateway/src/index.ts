/**
 * @hermes-mcp/gateway: put any MCP server behind Hermes. `hermes-mcp proxy` serves a stdio server
 * over Streamable HTTP (both eras, sessions, resumability, an optional OAuth resource server) and a
 * remote server over stdio; several upstreams come from a hosts' `mcpServers` file. Upstreams are
 * reached through @hermes-mcp/client ({@link UpstreamConnection}), served through @hermes-mcp/core.
 *
 * @example
 * const gateway = await serveHttp({ upstreams: [{ name: 'notes', spec: { command: 'node', args: ['dist/main.js'] }, path: '/mcp' }], port: 3000 });
 */
export { MAX_UPSTREAM_SUBSCRIPTIONS, UpstreamConnection, isStdioUpstream } from './upstream';
export type { DownstreamRequest, StdioUpstream, UpstreamOptions, UpstreamSpec, UrlUpstream } from './upstream';
export { UpstreamProxy } from './proxy';
export type { ProxyListener, UpstreamProxyOptions } from './proxy';
export { serveHttp, serveStdio } from './serve';
export type { HttpGateway, ServeHttpOptions, ServeStdioOptions, ServedUpstream } from './serve';
export { GatewayConfigError, upstreamsOf } from './config';
export { GATEWAY_ERRORS, gatewayError } from './errors';
export type { GatewayErrorCode } from './errors';
export { PROXY_USAGE, proxyMain } from './cli';
export { mountRemote } from './remote-mount';
export type { RemoteMount, RemoteMountOptions } from './remote-mount';
