/**
 * The official SDK client's names that McpClient answers to as well (issue 26, item 12): the
 * transports by the SDK's names, made as the SDK makes them (`new X(new URL(…), options)`), and
 * the SDK's method names, against a Hermes server on the Fastify plugin at 127.0.0.1 (Streamable
 * HTTP, HTTP+SSE, WebSocket); and the client README's migration example, before (the SDK v1) and
 * after (this package), type-checked against both packages as installed — the built
 * `@hermes-mcp/client` (`npx tsc -b` first) and `@modelcontextprotocol/sdk`.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as ts from 'typescript';
import Fastify, { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import { McpApp, McpContext, McpFactory, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import {
  LogMessage,
  McpClient,
  SSEClientTransport,
  SseClientOptions,
  SseClientTransport,
  StreamableHTTPClientTransport,
  StreamableHttpClientTransport,
  Transport,
  WebSocketClientTransport,
  WebSocketConstructor,
} from '@hermes-mcp/client';

@McpServer({ name: 'sdk-names', version: '1.0.0', instructions: 'Names as the SDK has them.' })
class NamesServer {
  @Tool({ description: 'Logs at two levels' }) async chatty(ctx: McpContext) {
    await ctx.notify('debug', 'quiet');
    await ctx.notify('warning', 'loud');
    return 'logged';
  }
  @Resource({ uri: 'notes://one', description: 'One note' }) one() {
    return 'note one';
  }
}

let app: FastifyInstance;
let mcp: McpApp;
let origin: string;
const clients: McpClient[] = [];

beforeAll(async () => {
  mcp = McpFactory.create(NamesServer, { logger: createLogger({ level: 'silent' }) });
  app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(hermesMcp, { server: mcp, path: '/mcp', websocket: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await app.close();
});

async function connected(transport: Transport, options: ConstructorParameters<typeof McpClient>[1] = {}): Promise<McpClient> {
  const client = new McpClient(transport, options);
  clients.push(client);
  await client.connect();
  return client;
}

describe('the official SDK’s transport names', () => {
  it('are our transports, made from a URL as the SDK makes them (a string works too)', async () => {
    expect(StreamableHTTPClientTransport).toBe(StreamableHttpClientTransport);
    expect(SSEClientTransport).toBe(SseClientTransport);
    const transports: Transport[] = [
      new StreamableHTTPClientTransport(new URL(`http://${origin}/mcp`)),
      new StreamableHTTPClientTransport(`http://${origin}/mcp`, { headers: { 'x-trace': 'abc' } }),
      new SSEClientTransport(new URL(`http://${origin}/mcp/sse`)),
      // The SDK's takes only the URL (and the global WebSocket, which Node 20 lacks): ours takes its options after it.
      new WebSocketClientTransport(new URL(`ws://${origin}/mcp/ws`), { WebSocket: WebSocket as unknown as WebSocketConstructor }),
    ];
    for (const transport of transports) {
      const client = await connected(transport);
      expect({ kind: transport.info?.kind, tools: (await client.listTools()).items.map((t) => t.name) }).toEqual({ kind: transport.info?.kind, tools: ['chatty'] });
    }
  });

  it('without a URL in either place, say what they need', () => {
    expect(() => new StreamableHTTPClientTransport(undefined as unknown as URL)).toThrow(
      new TypeError(
        "new StreamableHttpClientTransport(url, options?) or new StreamableHttpClientTransport({ url, ...options }) needs the server's URL, a string or a URL; got nothing",
      ),
    );
    expect(() => new SSEClientTransport({ headers: {} } as unknown as SseClientOptions)).toThrow(/^new SseClientTransport\(url, options\?\) .* got options whose url is missing$/);
    expect(() => new WebSocketClientTransport(42 as unknown as URL)).toThrow(/^new WebSocketClientTransport\(url, options\?\) .* got a number$/);
  });
});

describe('the official SDK’s method names', () => {
  it('setLoggingLevel, subscribeResource and unsubscribeResource ({ uri }) do what setLogLevel, subscribe and unsubscribe do', async () => {
    const logs: LogMessage[] = [];
    let updated: (uri: string) => void = () => undefined;
    const client = await connected(new StreamableHTTPClientTransport(new URL(`http://${origin}/mcp`)), {
      protocolVersion: '2025-11-25',
      onLog: (message) => logs.push(message),
      onResourceUpdated: (uri) => updated(uri),
    });
    await client.setLoggingLevel('warning');
    await client.callTool('chatty');
    expect(logs.map((m) => [m.level, m.data])).toEqual([['warning', 'loud']]);
    await client.subscribeResource({ uri: 'notes://one' });
    const heard = new Promise<string>((resolve) => (updated = resolve));
    mcp.notifyResourceUpdated('notes://one');
    expect(await heard).toBe('notes://one');
    await client.unsubscribeResource({ uri: 'notes://one' });
  });

  it('getServerCapabilities, getServerVersion, getInstructions and getNegotiatedProtocolVersion read what connect() learnt', async () => {
    for (const protocolVersion of ['2025-11-25', 'auto'] as const) {
      const client = await connected(new StreamableHTTPClientTransport(new URL(`http://${origin}/mcp`)), { protocolVersion });
      expect({
        capabilities: client.getServerCapabilities(),
        version: client.getServerVersion(),
        instructions: client.getInstructions(),
        protocolVersion: client.getNegotiatedProtocolVersion(),
      }).toEqual({
        capabilities: client.serverCapabilities,
        version: expect.objectContaining({ name: 'sdk-names', version: '1.0.0' }),
        instructions: 'Names as the SDK has them.',
        protocolVersion: protocolVersion === 'auto' ? '2026-07-28' : '2025-11-25',
      });
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    }
  });
});

/** The code block after `<!-- migration: NAME -->` in the client README. */
function readmeBlock(name: string): string {
  const readme = readFileSync(path.join(__dirname, '../README.md'), 'utf8');
  const found = new RegExp(`<!-- migration: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!found) throw new Error(`packages/client/README.md has no block marked <!-- migration: ${name} -->`);
  return found[1];
}

/**
 * The type errors of `source` as an ES module in this folder (so that packages resolve from the
 * repository's node_modules, as a project's would), with TypeScript's strictest usual settings.
 */
function typeErrors(source: string): string[] {
  const file = path.join(__dirname, 'readme-migration.mts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : read(name, language, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the client README’s migration example', () => {
  it('compiles before (against @modelcontextprotocol/sdk) and after (against @hermes-mcp/client)', () => {
    const before = readmeBlock('before');
    const after = readmeBlock('after');
    expect(before).toContain("from '@modelcontextprotocol/sdk/client/index.js'");
    expect(after).toContain("from '@hermes-mcp/client'");
    expect({ before: typeErrors(before), after: typeErrors(after) }).toEqual({ before: [], after: [] });
  });
});
