import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { NotesServer } from './notes.server';

async function main(): Promise<void> {
  const app = McpFactory.create(NotesServer);
  // stdout carries the protocol; a person reads stderr. The banner is written whole, before the
  // server listens (the logger's own line, in a terminal, comes after it).
  process.stderr.write(
    [
      '',
      'Hermes quickstart: an MCP server on stdio (it speaks JSON-RPC on this terminal).',
      'Connect a client by having it spawn this process, e.g. in an MCP client config:',
      `  { "command": "node", "args": ["${__filename}"] }`,
      '(or `npm start --silent` from the repository: without --silent, npm writes its own header on stdout)',
      'or explore it with: npx @modelcontextprotocol/inspector node ' + __filename,
      'Press Ctrl+D (end of input) or Ctrl+C to stop.',
      '',
      '',
    ].join('\n'),
  );
  await app.listen();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
