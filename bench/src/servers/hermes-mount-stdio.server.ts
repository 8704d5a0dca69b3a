/**
 * Hermes on stdio with the add server mounted (`@McpServer({ mount: { math: AddServer } })`): the
 * same tool as `hermes-stdio`, called as `math_add` through a local mount. Ends when stdin closes.
 */
import { McpFactory, McpServer, createLogger } from '@hermes-mcp/core';
import { AddServer } from './add.server';
import { fail } from './lifeline';

/** Nothing of its own: the add server under the namespace `math`. */
@McpServer({ name: 'bench-mount', version: '1.0.0', mount: { math: AddServer } })
class MountServer {}

process.once('SIGTERM', () => process.exit(0));
McpFactory.create(MountServer, { logger: createLogger({ level: 'silent' }) })
  .listen()
  .catch(fail);
