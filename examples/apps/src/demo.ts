import 'reflect-metadata';
import Fastify from 'fastify';
import { McpClient, McpClientOptions, StreamableHttpClientTransport, cspFor } from '@hermes-mcp/client';
import { McpFactory, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { Counter, CounterServer } from './counter.server';
import { HostChannel, hostChannel } from './host-channel';
import { webAssets } from './web';

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /** The host page's port (the MCP endpoint shares it); default: a free one. */
  port?: number;
  /** The sandbox proxy's port, a second origin; default: a free one. */
  sandboxPort?: number;
  /** The revision the demo host's client speaks: `2025-11-25` (a session) or `2026-07-28` (stateless); default: the newest. */
  protocolVersion?: McpClientOptions['protocolVersion'];
  /** The log level of the server and both Fastify apps (JSON lines on stderr); default: `silent`. */
  logLevel?: string;
}

/** A running demo: the counter server, the host page and its sandbox proxy, on 127.0.0.1. */
export interface Demo {
  /** The demo host page. */
  hostUrl: string;
  /** The same view under the official host stack: the SDK v2 Client in the page, AppBridge forwarding to it. */
  sdkHostUrl: string;
  /** The counter server's MCP endpoint (Streamable HTTP). */
  mcpUrl: string;
  /** The sandbox proxy page, on its own origin. */
  sandboxUrl: string;
  /** The server's counter. */
  counter: Counter;
  /** The demo host's client of the server. */
  client: McpClient;
  close(): Promise<void>;
}

/** The `csp` a view declared, from the sandbox page's query; anything unreadable gives the restrictive default. */
function declaredCsp(query: string | undefined): Parameters<typeof cspFor>[0] {
  try {
    return query === undefined ? undefined : (JSON.parse(query) as Parameters<typeof cspFor>[0]);
  } catch {
    return undefined;
  }
}

/**
 * Starts the counter server at `/mcp` with the demo host page at `/`, and the sandbox proxy on a
 * second port (MCP Apps: a web host renders views in a sandbox on another origin). The host page's
 * MCP side — an `McpClient` of the same server — answers the page at `POST /host`.
 */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const assets = await webAssets();
  const container = isolatedContainer('hermes-counter-demo');
  const logger = createLogger({ name: 'hermes-counter', level: options.logLevel ?? 'silent' });
  const mcp = McpFactory.create(CounterServer, { container, logger });

  const sandbox = Fastify({ loggerInstance: logger });
  // The view's Content-Security-Policy, from what its resource declared (`?csp=`): as an HTTP
  // header, which the view's document cannot change, and which its inner iframe inherits.
  sandbox.get<{ Querystring: { csp?: string } }>('/sandbox.html', (request, reply) =>
    reply
      .header('content-security-policy', cspFor(declaredCsp(request.query.csp)))
      .type('text/html')
      .send(assets.sandboxHtml),
  );
  sandbox.get('/sandbox.js', (_request, reply) => reply.type('text/javascript').send(assets.sandboxJs));
  const sandboxOrigin = await sandbox.listen({ host: '127.0.0.1', port: options.sandboxPort ?? 0 });

  const site = Fastify({ loggerInstance: logger });
  await site.register(hermesMcp, { server: mcp, path: '/mcp' });
  site.get('/', (_request, reply) => reply.type('text/html').send(assets.hostHtml));
  site.get('/host.js', (_request, reply) => reply.type('text/javascript').send(assets.hostJs));
  site.get('/host.css', (_request, reply) => reply.type('text/css').send(assets.hostCss));
  site.get('/sdk.html', (_request, reply) => reply.type('text/html').send(assets.sdkHostHtml));
  site.get('/sdk-host.js', (_request, reply) => reply.type('text/javascript').send(assets.sdkHostJs));
  // Known once both are listening and the client connected (routes are added before listening).
  const host: { origin?: string; channel?: HostChannel } = {};
  site.post<{ Body: { method?: unknown; params?: Record<string, unknown> } }>('/host', async (request, reply) => {
    // Only the host page may drive the client: another page in the same browser may not.
    if (request.headers.origin !== host.origin || !host.channel) return reply.code(403).send({ error: { code: -32600, message: 'only the demo host page may call /host' } });
    try {
      return { result: await host.channel(String(request.body.method), request.body.params ?? {}) };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { error: { code: typeof code === 'number' ? code : -32603, message: error instanceof Error ? error.message : String(error) } };
    }
  });
  const hostOrigin = await site.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  host.origin = hostOrigin;
  const mcpUrl = `${hostOrigin}/mcp`;
  const client = new McpClient(new StreamableHttpClientTransport(mcpUrl), {
    protocolVersion: options.protocolVersion,
    // Declares the Apps extension (text/html;profile=mcp-app): this client's host renders views.
    apps: true,
  });
  await client.connect();
  const sandboxUrl = `${sandboxOrigin}/sandbox.html`;
  host.channel = await hostChannel(client, sandboxUrl);
  return {
    hostUrl: `${hostOrigin}/`,
    sdkHostUrl: `${hostOrigin}/sdk.html?sandbox=${encodeURIComponent(sandboxUrl)}`,
    mcpUrl,
    sandboxUrl,
    counter: container.get(Counter),
    client,
    close: async () => {
      await client.close();
      await Promise.all([site.close(), sandbox.close()]);
    },
  };
}
