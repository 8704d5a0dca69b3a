/**
 * Serving upstreams: over Streamable HTTP on one Fastify server (the `@hermes-mcp/fastify` plugin,
 * Node's own request and response objects: sessions, resumability, both eras, HTTP+SSE and the
 * OAuth resource server are core's own), one endpoint per upstream; or one upstream over this
 * process's stdio.
 *
 * Fastify rather than core's Web handler on `node:http`: the gateway reads each request's body as
 * Node hands it over, so the calls of requests that arrive together reach the upstream in one write
 * (`StdioClientTransport`); through the Web handler each body is a `ReadableStream` read in turns
 * of its own. Measured on the gateway's bench rows: 55–95 µs of CPU per call against 126–230 µs,
 * p99 3–6 ms against 25 ms at 10 connections.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { InMemorySessionStore, McpFactory, createLogger } from '@hermes-mcp/core';
import type { HttpEndpointOptions, Logger, ResourceServerOptions } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { UpstreamProxy, UpstreamProxyOptions } from './proxy';
import type { UpstreamSpec } from './upstream';

/** One upstream served at one path. */
export interface ServedUpstream {
  /** Its name (the `mcpServers` key), for logs and errors. */
  name: string;
  spec: UpstreamSpec;
  /** Where its MCP endpoint is (default `/mcp`; `/{name}/mcp` for each of several). */
  path: string;
}

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  upstreams: ServedUpstream[];
  /** Port to listen on (0: a free one). */
  port: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** An OAuth resource server in front of every endpoint (core's `auth` option): the caller's token is checked here and never sent upstream. */
  auth?: ResourceServerOptions;
  /** More options of core's HTTP endpoint (allowed hosts and origins, limits, session idle timeout…). */
  http?: Omit<HttpEndpointOptions, 'path' | 'auth' | 'clientKey'>;
  /** Options of the upstream connections. */
  upstream?: UpstreamProxyOptions;
  /** Server-side logger (default: JSON lines on stderr at `warn`). */
  logger?: Logger;
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** `http://host:port`, without a path. */
  readonly address: string;
  /** Each endpoint's full URL, by upstream name. */
  readonly urls: Readonly<Record<string, string>>;
  /** Ends the sessions, stops every upstream and the HTTP server. */
  close(): Promise<void>;
}

/**
 * Serves each upstream over Streamable HTTP (and the 2024-11-05 HTTP+SSE transport) at its path:
 * connects to each first (a failure rejects), then listens.
 *
 * @example
 * const gateway = await serveHttp({ upstreams: [{ name: 'fs', spec: { command: 'npx', args: ['-y', 'some-mcp-server'] }, path: '/mcp' }], port: 3000 });
 * console.error(gateway.urls.fs); // http://127.0.0.1:3000/mcp
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpGateway> {
  const logger = options.logger ?? createLogger({ level: process.env.HERMES_LOG_LEVEL ?? 'warn' });
  const proxies: UpstreamProxy[] = [];
  // Core answers every path it serves; Fastify's own request log stays off (the gateway's logger has what matters).
  const fastify = Fastify({ logger: false });
  try {
    for (const upstream of options.upstreams) {
      const proxy = await UpstreamProxy.create(upstream.spec, { name: upstream.name, ...options.upstream });
      proxies.push(proxy);
      const app = McpFactory.create(proxy, { logger });
      proxy.attach(app);
      const sessionStore = proxy.watchSessions(options.http?.sessionStore ?? new InMemorySessionStore());
      await fastify.register(hermesMcp, { ...options.http, server: app, sessionStore, path: upstream.path, ...(options.auth && { auth: options.auth }) });
    }
    await fastify.listen({ port: options.port, host: options.host ?? '127.0.0.1' });
  } catch (error) {
    await fastify.close().catch(() => undefined);
    await Promise.all(proxies.map((proxy) => proxy.close()));
    throw error;
  }
  const { port } = fastify.server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const address = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    address,
    urls: Object.fromEntries(options.upstreams.map((upstream) => [upstream.name, `${address}${upstream.path}`])),
    async close() {
      // Fastify ends the endpoints first (their sessions and open streams), then the server.
      await fastify.close();
      await Promise.all(proxies.map((proxy) => proxy.close()));
    },
  };
}

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  name?: string;
  spec: UpstreamSpec;
  upstream?: UpstreamProxyOptions;
  /** Server-side logger (default: JSON lines on stderr at `warn`): stdout carries the protocol only. */
  logger?: Logger;
}

/**
 * Serves one upstream on this process's stdin and stdout, for a host that only spawns servers:
 * nothing but MCP on stdout, logs on stderr. Resolves once serving; the process ends when stdin
 * closes.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<UpstreamProxy> {
  const logger = options.logger ?? createLogger({ level: process.env.HERMES_LOG_LEVEL ?? 'warn' });
  const proxy = await UpstreamProxy.create(options.spec, { name: options.name ?? 'upstream', onStderr: (chunk) => process.stderr.write(chunk), ...options.upstream });
  const app = McpFactory.create(proxy, { logger });
  proxy.attach(app);
  const connection = await app.listen();
  void connection.closed.then(() => proxy.close());
  return proxy;
}
