/**
 * The client bench: the same Hermes server (the add tool), called by our client and by the official
 * SDK clients (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`), each in this
 * process, over stdio (each client spawns its own server process) and over Streamable HTTP (one
 * server process for all, a legacy session each). Sequential: one call at a time for a while;
 * pipelined: a burst of calls sent at once, awaited together.
 */
import * as path from 'node:path';
import { McpClient, StdioClientTransport as HermesStdio, StreamableHttpClientTransport as HermesHttp } from '@hermes-mcp/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** One client connected to one server: calls `add` and checks the answer. */
export interface BenchClient {
  call(): Promise<void>;
  close(): Promise<void>;
}

/** A client configuration: who, and how it connects. */
export interface ClientConfig {
  key: string;
  label: string;
  connect(target: { stdioServer: string; httpUrl: string }, transport: 'stdio' | 'http'): Promise<BenchClient>;
}

function check(result: { content?: unknown }): void {
  const text = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
  if (text !== '3') throw new Error(`add(1, 2) answered ${JSON.stringify(result)}`);
}

const ARGS = { a: 1, b: 2 };

/** The SDK v2 client is ESM only: loaded once, when first needed. */
type V2 = {
  Client: new (info: { name: string; version: string }) => { connect(t: unknown): Promise<void>; callTool(p: unknown): Promise<{ content?: unknown }>; close(): Promise<void> };
  StreamableHTTPClientTransport: new (url: URL) => unknown;
  StdioClientTransport: new (options: { command: string; args: string[]; stderr?: string }) => unknown;
};
let v2: Promise<V2> | undefined;
function loadV2(): Promise<V2> {
  // node16 module output keeps `import()` as it is: the ESM-only package loads from CommonJS.
  return (v2 ??= Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio')]).then(
    ([main, stdio]) => ({ ...main, ...stdio }) as unknown as V2,
  ));
}

export const CLIENT_CONFIGS: ClientConfig[] = [
  {
    key: 'hermes',
    label: '@hermes-mcp/client',
    async connect({ stdioServer, httpUrl }, transport) {
      const client = new McpClient(
        transport === 'stdio'
          ? new HermesStdio({ command: process.execPath, args: [stdioServer], onStderr: () => undefined })
          : new HermesHttp({ url: httpUrl, standaloneStream: false }),
        { protocolVersion: '2025-11-25' },
      );
      await client.connect();
      return { call: async () => check(await client.callTool('add', ARGS)), close: () => client.close() };
    },
  },
  {
    key: 'sdk-v1',
    label: 'SDK v1 1.32.2 Client',
    async connect({ stdioServer, httpUrl }, transport) {
      const client = new V1Client({ name: 'bench', version: '1.0.0' });
      await client.connect(transport === 'stdio' ? new V1Stdio({ command: process.execPath, args: [stdioServer], stderr: 'ignore' }) : new V1Http(new URL(httpUrl)));
      return { call: async () => check((await client.callTool({ name: 'add', arguments: ARGS })) as { content?: unknown }), close: () => client.close() };
    },
  },
  {
    key: 'sdk-v2',
    label: 'SDK v2 2.4.0 Client',
    async connect({ stdioServer, httpUrl }, transport) {
      const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await loadV2();
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(
        transport === 'stdio'
          ? new StdioClientTransport({ command: process.execPath, args: [stdioServer], stderr: 'ignore' })
          : new StreamableHTTPClientTransport(new URL(httpUrl)),
      );
      return { call: async () => check(await client.callTool({ name: 'add', arguments: ARGS })), close: () => client.close() };
    },
  },
];

/** Calls one at a time for `ms` milliseconds: calls per second. */
export async function sequential(client: BenchClient, ms: number): Promise<number> {
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < ms) {
    await client.call();
    calls++;
  }
  return (calls * 1000) / (performance.now() - started);
}

/** `count` calls sent at once, awaited together: calls per second. */
export async function pipelined(client: BenchClient, count: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => client.call()));
  return (count * 1000) / (performance.now() - started);
}

/** The bench's stdio add server, built. */
export const STDIO_SERVER = path.join(__dirname, 'servers/hermes-stdio.server.js');
