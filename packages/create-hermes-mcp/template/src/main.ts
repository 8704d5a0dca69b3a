import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { GreeterServer } from './server';

// Serves on stdio: stdout carries the protocol (console.log goes to stderr while serving), and
// the process ends when the client closes stdin. MCP clients start it with `node dist/main.js`.
McpFactory.create(GreeterServer)
  .listen()
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
