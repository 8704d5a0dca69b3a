/**
 * Hardening, defect 11, in the HTTP example: optional inputs that arrive as `null` (allowed by
 * `@IsOptional()` and by the published schema) are defaulted, not stored: a task added with
 * `priority: null` is a normal one, and listing with `open: null` lists every task. Served by
 * Fastify on 127.0.0.1, driven with the official SDK client.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '@hermes-mcp/core';
import { hermesMcp } from '@hermes-mcp/fastify';
import { TasksServer } from '../src/tasks.server';

it('defaults null optionals: priority null is normal, open null lists all', async () => {
  const app = Fastify({ logger: false });
  await app.register(hermesMcp, { server: TasksServer, path: '/mcp', appOptions: { logger: createLogger({ level: 'silent' }) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new Client({ name: 'nulls', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`)));
    const added = await client.callTool({ name: 'add_task', arguments: { title: 'Null priority', priority: null } });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ title: 'Null priority', priority: 'normal' });
    const listed = await client.callTool({ name: 'list_tasks', arguments: { open: null } });
    expect(listed.isError).toBeFalsy();
    expect((listed.content as Array<{ text: string }>)[0].text).toContain('Null priority (normal)');
    const plan = await client.getPrompt({ name: 'plan_day', arguments: {} });
    expect(JSON.stringify(plan.messages)).toContain('Null priority (normal)');
  } finally {
    await client.close();
    await app.close();
  }
});
