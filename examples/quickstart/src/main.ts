import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { NotesServer } from './notes.server';

async function main(): Promise<void> {
  const app = McpFactory.create(NotesServer);
  await app.listen();
  // stdout carries the protocol; a person reads stderr.
  process.stderr.write(
    [
      '',
      'Hermes quickstart: an MCP server on stdio (it speaks JSON-RPC on this terminal).',
      'Connect a client by having it spawn this process, e.g. in an MCP client config:',
      `  { "command": "node", "args": ["${__filename}"] }`,
      'or explore it with: npx @modelcontextprotocol/inspector node ' + __filename,
      'Press Ctrl+D (end of input) or Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
