import 'reflect-metadata';
import { Container } from 'typedi';
import { McpFactory } from '@hermes-mcp/core';
import { EverythingServer } from './everything.server';
import { Observations } from './state';

/** Serves the everything server on stdio, with 25 catalog resources in pages of 10. */
async function main(): Promise<void> {
  const app = McpFactory.create(EverythingServer, { pageSize: 10 });
  for (let i = 1; i <= 25; i++) {
    app.addResource({ uri: `items://${i}`, name: `item-${i}`, description: `Catalog item ${i}`, mimeType: 'text/plain' }, () => `item ${i}`);
  }
  const seen = Container.get(Observations);
  app.onNotification('notifications/roots/list_changed', async (_notification, ctx) => {
    seen.lastRoots = await ctx.listRoots();
    seen.rootsChanges++;
  });
  await app.listen();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
