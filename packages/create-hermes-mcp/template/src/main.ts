import 'reflect-metadata';
// Core before the server module and the class-validator it imports: V8 sizes its heap while the
// first of them loads, and in this order a start runs no full garbage collection.
import { McpFactory } from '@hermes-mcp/core';
import { GreeterServer } from './server';

// Serves on stdio: stdout carries the protocol (console.log goes to stderr while serving), and
// the process ends when the client closes stdin. MCP clients start it with `node dist/main.js`.
// \`create\` throws a bootstrap error (HERMES_…) at once, so it is called inside \`main\`: the catch
// below then sees it as it sees a failed \`listen\`.
async function main(): Promise<void> {
  await McpFactory.create(GreeterServer).listen();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
