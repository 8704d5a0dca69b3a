/**
 * Serving upstreams: over Streamable HTTP on one Node HTTP server (core's Web handler, so sessions,
 * resumability, both eras, HTTP+SSE and the OAuth resource server are core's own), one endpoint per
 * upstream; or one upstream over this process's stdio.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySessionStore, McpFactory, createLogger, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import type { Logger, ResourceServerOptions, WebHandler, WebHandlerOptions } from '@hermes-mcp/core';
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
  http?: Omit<WebHandlerOptions, 'path' | 'auth'>;
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
  const served: { path: string; proxy: UpstreamProxy; handler: WebHandler }[] = [];
  try {
    for (const upstream of options.upstreams) {
      const proxy = await UpstreamProxy.create(upstream.spec, { name: upstream.name, ...options.upstream });
      const app = McpFactory.create(proxy, { logger });
      proxy.attach(app);
      const sessionStore = proxy.watchSessions(options.http?.sessionStore ?? new InMemorySessionStore());
      const handler = createWebHandler(app, { ...options.http, sessionStore, path: upstream.path, ...(options.auth && { auth: options.auth }) });
      served.push({ path: upstream.path, proxy, handler });
    }
  } catch (error) {
    await Promise.all(served.map(({ proxy }) => proxy.close()));
    throw error;
  }
  const listeners = served.map(({ path, handler }) => ({ path, listener: toNodeListener(handler) }));
  const server: Server = createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    const owner = listeners.find(({ path }) => pathname === path || pathname.startsWith(`${path}/`) || pathname === `/.well-known/oauth-protected-resource${path}`) ?? listeners[0];
    owner.listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const address = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    address,
    urls: Object.fromEntries(options.upstreams.map((upstream) => [upstream.name, `${address}${upstream.path}`])),
    async close() {
      await Promise.all(served.map(({ handler }) => handler.close()));
      await Promise.all(served.map(({ proxy }) => proxy.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
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
