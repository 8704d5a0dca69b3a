import 'reflect-metadata';
import { McpFactory } from '@hermes-mcp/core';
import { ShopServer } from './shop.server';

async function main(): Promise<void> {
  await McpFactory.create(ShopServer).listen();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
