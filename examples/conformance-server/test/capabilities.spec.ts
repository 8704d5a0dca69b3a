/**
 * The conformance server serves every feature the suite's scenarios call, so it declares every
 * capability, in both eras: tools, resources with subscriptions, prompts, each list with
 * `listChanged` (its trigger tools change them), completions (its prompt arguments complete),
 * logging, and the Skills extension. Its tools reach the app through `McpApp.of(ctx)`: no service
 * filled in by main.
 */
import 'reflect-metadata';
import { InMemoryTransport, Peer, SKILLS_EXTENSION } from '@hermes-mcp/protocol';
import { McpFactory, createLogger } from '@hermes-mcp/core';
import { ConformanceServer } from '../src/conformance.server';

const CLIENT = { name: 'conformance-capabilities', version: '1.0.0' };
const FULL = {
  logging: {},
  completions: {},
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  extensions: { [SKILLS_EXTENSION]: { directoryRead: true } },
};

async function client() {
  const app = McpFactory.create(ConformanceServer, { logger: createLogger({ level: 'silent' }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const notes: string[] = [];
  const peer = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n) => void notes.push(n.method) });
  await app.connect(serverSide);
  await peer.start();
  return { app, peer, notes };
}

it('declares every capability at initialize and at server/discover', async () => {
  const { app, peer } = await client();
  const initialized = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
  expect(initialized.capabilities).toEqual(FULL);
  const other = await client();
  const discovered = await other.peer.request('server/discover', {
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': CLIENT },
  });
  expect(discovered.capabilities).toMatchObject(FULL);
  await Promise.all([app.close(), other.app.close()]);
});

it('completes the arguments of test_prompt_with_arguments, and its trigger tools change the lists through McpApp.of(ctx)', async () => {
  const { app, peer, notes } = await client();
  await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
  await peer.notify('notifications/initialized', {});
  expect(await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'a' } })).toEqual({
    completion: { values: ['alpha'], total: 1, hasMore: false },
  });
  await peer.request('tools/call', { name: 'test_trigger_tool_change', arguments: {} });
  await peer.request('tools/call', { name: 'test_trigger_prompt_change', arguments: {} });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(notes).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
  const tools = (await peer.request('tools/list', {})).tools as Array<{ name: string }>;
  expect(tools.map((tool) => tool.name)).toContain('test_dynamic_tool');
  await app.close();
});
