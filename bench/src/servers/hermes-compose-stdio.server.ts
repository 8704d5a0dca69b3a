/**
 * The floor of a remote mount built as the gateway is built, from Hermes' own server and client
 * and nothing else: a Hermes stdio server whose one tool, `math_add`, has its input validated and
 * then calls `add` on the Hermes stdio add server (hermes-stdio.server.ts, spawned here) with one
 * `McpClient.request` on the request's signal, and returns that answer as it came. No namespace, no
 * lists learned from the upstream, no routing of its questions, no restart: what any forwarder
 * written with `@hermes-mcp/core` and `@hermes-mcp/client` pays per call. The runner's CPU reading
 * of this process includes its upstream's. Ends when stdin closes.
 */
import { join } from 'node:path';
import { McpClient, StdioClientTransport } from '@hermes-mcp/client';
import { McpContext, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { AddInput } from './add.server';
import { LEGACY_VERSION } from '../mcp';
import { fail } from './lifeline';

const upstream = new McpClient(new StdioClientTransport({ command: process.execPath, args: [join(__dirname, 'hermes-stdio.server.js')] }), {
  clientInfo: { name: 'bench-compose', version: '1.0.0' },
  // The revision the runner speaks to every stdio row (as the gateway's connection for a legacy session speaks its session's).
  protocolVersion: LEGACY_VERSION,
});

/** One tool that forwards to the upstream's `add`. */
@McpServer({ name: 'bench-compose', version: '1.0.0' })
class ComposeServer {
  /** `add` upstream, its answer as the upstream gave it. */
  @Tool({ name: 'math_add', description: 'Adds two numbers (upstream)' })
  async add(input: AddInput, ctx: McpContext): Promise<object> {
    return upstream.request('tools/call', { name: 'add', arguments: { a: input.a, b: input.b } }, { signal: ctx.signal });
  }
}

async function main(): Promise<void> {
  process.once('SIGTERM', () => process.exit(0));
  await upstream.connect();
  await McpFactory.create(ComposeServer, { logger: createLogger({ level: 'silent' }) }).listen();
}

main().catch(fail);
