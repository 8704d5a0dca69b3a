/**
 * The compose example: the shop serves billing and crm under their namespaces, in both eras, and
 * `hermes-mcp inspect --check` (the built CLI, as a user runs it, on the .ts entry) lists the
 * mounted tools, resources, templates and prompts and finds no warning.
 */
import 'reflect-metadata';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { ShopServer } from '../src/shop.server';

describe.each(['legacy', 'modern'] as const)('the shop (%s era)', (era) => {
  it('serves billing and crm under their namespaces', async () => {
    const client = await createTestClient(ShopServer, { era });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['status', 'billing_refund', 'crm_lookup']);
    expect(textOf(await client.callTool('billing_refund', { invoice: 'inv-1' }))).toBe('refunded inv-1');
    expect((await client.callTool('billing_refund', { invoice: 'inv-1' })).isError).toBe(true);
    expect((await client.callTool('crm_lookup', { email: 'ada@example.com' })).structuredContent).toEqual({ email: 'ada@example.com', name: 'ada' });
    expect((await client.readResource('invoices://billing/open')).contents).toEqual([{ uri: 'invoices://billing/open', mimeType: 'application/json', text: '["inv-2"]' }]);
    expect((await client.readResource('invoices://billing/invoice/inv-2')).contents[0]).toMatchObject({ text: 'inv-2: open' });
    expect((await client.complete({ type: 'ref/resource', uri: 'invoices://billing/invoice/{id}' }, { name: 'id', value: 'inv-' })).values).toEqual(['inv-1', 'inv-2']);
    expect((await client.getPrompt('billing_reminder', { tone: 'gentle' })).messages[0].content).toEqual({ type: 'text', text: 'Write a gentle payment reminder.' });
    await client.close();
  });
});

it('hermes-mcp inspect --check lists the mounted tools, resources, templates and prompts', () => {
  const cli = path.join(__dirname, '../../../packages/client/dist/cli.js');
  const result = spawnSync(process.execPath, [cli, 'inspect', 'src/main.ts', '--check'], { cwd: path.join(__dirname, '..'), encoding: 'utf8', timeout: 60_000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const manifest = JSON.parse(result.stdout) as Record<string, Array<Record<string, string>>>;
  expect(manifest.tools.map((tool) => tool.name)).toEqual(['status', 'billing_refund', 'crm_lookup']);
  expect(manifest.resources.map((resource) => resource.uri)).toEqual(['invoices://billing/open']);
  expect(manifest.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['invoices://billing/invoice/{id}']);
  expect(manifest.prompts.map((prompt) => prompt.name)).toEqual(['billing_reminder']);
  expect(manifest.warnings).toEqual([]);
});
