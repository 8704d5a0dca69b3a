/** Hermes on stdio: the add server, `McpFactory.create(...).listen()`. Ends when stdin closes. */
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { AddServer } from './add.server';
import { fail } from './lifeline';

process.once('SIGTERM', () => process.exit(0));
McpFactory.create(AddServer, { logger: createLogger({ level: 'silent' }) })
  .listen()
  .catch(fail);
