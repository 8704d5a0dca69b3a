/**
 * What `hermes-mcp inspect` runs in a process of its own (`node inspect-child.js <entry>`, with the
 * SWC hook for a .ts entry): it installs core's CLI hook, loads the entry as written, and when the
 * entry calls `listen()` — or, if it never does, with the first exported `@McpServer` class — asks
 * the app for its lists over an in-memory link and writes the manifest as one JSON line on stdout.
 * Nothing is served. Its own process, so the entry's side effects, `process.exit` and log lines
 * (which the parent reads for warnings) stay out of the CLI.
 */
import * as path from 'node:path';
import { InMemoryTransport, ServerCapabilities, Transport } from '@hermes-mcp/protocol';
import { McpClient } from '../client';

/** What core's `McpApp` offers the hook (the client does not depend on core). */
interface App {
  connect(transport: Transport): Promise<unknown>;
  listen(): Promise<unknown>;
}

/** The server's manifest, as `inspect` prints it (warnings are added by the parent). */
export interface Manifest {
  serverInfo?: unknown;
  protocolVersion?: string;
  instructions?: string;
  capabilities: ServerCapabilities;
  extensions: Record<string, unknown>;
  tools: unknown[];
  resources: unknown[];
  resourceTemplates: unknown[];
  prompts: unknown[];
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function manifestOf(app: App): Promise<Manifest> {
  const [serverEnd, clientEnd] = InMemoryTransport.createLinkedPair();
  await app.connect(serverEnd);
  const client = new McpClient(clientEnd, { clientInfo: { name: 'hermes-mcp-inspect', version: '0.1.0' } });
  await client.connect();
  const capabilities = client.serverCapabilities ?? {};
  const extensions = capabilities.extensions;
  return {
    serverInfo: client.serverInfo,
    protocolVersion: client.protocolVersion,
    ...(client.instructions !== undefined && { instructions: client.instructions }),
    capabilities,
    extensions: extensions !== null && typeof extensions === 'object' ? (extensions as Record<string, unknown>) : {},
    tools: capabilities.tools ? await collect(client.listAllTools()) : [],
    resources: capabilities.resources ? await collect(client.listAllResources()) : [],
    resourceTemplates: capabilities.resources ? await collect(client.listAllResourceTemplates()) : [],
    prompts: capabilities.prompts ? await collect(client.listAllPrompts()) : [],
  };
}

let handed = false;
const finish = (app: App): Promise<never> => {
  handed = true;
  return manifestOf(app).then(
    (manifest) => process.stdout.write(`${JSON.stringify(manifest)}\n`, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`hermes-mcp inspect: the server did not answer its lists: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  ) as Promise<never>;
};
(globalThis as Record<symbol, unknown>)[Symbol.for('hermes-mcp.cli.listen')] = finish;

const entry = path.resolve(process.argv[2]);
process.argv.splice(1, 2, entry); // the entry sees the argv it would as `node <entry>`
const exported = require(entry) as Record<string, unknown>; // eslint-disable-line @typescript-eslint/no-require-imports
// An entry that exports its server class and does not listen: once the entry has done all it
// does (an entry that listens after a promise has called the hook by then).
process.on('beforeExit', () => {
  if (handed) return;
  const core = require(require.resolve('@hermes-mcp/core', { paths: [path.dirname(entry)] })) as { McpFactory: { create(target: unknown): App } }; // eslint-disable-line @typescript-eslint/no-require-imports
  const classes = Object.values(exported ?? {}).filter((value) => typeof value === 'function');
  for (const candidate of classes) {
    try {
      void core.McpFactory.create(candidate).listen();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'HERMES_NOT_A_SERVER') throw error;
    }
  }
  process.stderr.write(`hermes-mcp inspect: ${entry} neither calls listen() nor exports an @McpServer class\n`);
  process.exit(1);
});
