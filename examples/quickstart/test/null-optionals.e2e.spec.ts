/**
 * Hardening, defect 11: an optional input that arrives as `null` (which `@IsOptional()` lets
 * through and the published schema allows) must not break the server. In the quickstart, one
 * `add_note` with `tags: null` used to make every later `search_notes` fail with an internal
 * error. Driven over stdio (the built dist/main.js, spawned) with raw lines.
 */
import * as path from 'node:path';
import { RawStdioClient } from '../../../test-support/raw-stdio-client';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER_MAIN = path.resolve(__dirname, '../dist/main.js');

type Raw = Record<string, unknown>;

it('takes null for every optional property, publishes that it does, and keeps serving', async () => {
  const server = new RawStdioClient({ command: process.execPath, args: [SERVER_MAIN], cwd: REPO_ROOT });
  try {
    await server.initialize('2025-11-25');
    const listed = await server.request('list', 'tools/list');
    const tools = (listed.result as { tools: Array<{ name: string; inputSchema: { properties: Record<string, Raw> } }> }).tools;
    const addNote = tools.find((t) => t.name === 'add_note')!;
    expect(addNote.inputSchema.properties.tags.anyOf).toContainEqual({ type: 'null' });

    const added = await server.request(1, 'tools/call', { name: 'add_note', arguments: { title: 'Null tags', body: 'tags were null', tags: null } });
    expect(added).toMatchObject({ result: { structuredContent: { title: 'Null tags', tags: [] } } });
    expect((added.result as Raw).isError).toBeUndefined();
    for (const [id, query] of [
      [2, 'null'],
      [3, 'welcome'],
      [4, 'hello'],
    ] as const) {
      const found = await server.request(id, 'tools/call', { name: 'search_notes', arguments: { query, limit: null } });
      expect(found).toMatchObject({ result: { content: [{ type: 'text' }] } });
      expect((found.result as Raw).isError).toBeUndefined();
    }
    const all = await server.request(5, 'resources/read', { uri: 'notes://all' });
    expect(JSON.stringify(all)).toContain('Null tags');
    const prompt = await server.request(6, 'prompts/get', { name: 'summarize', arguments: {} });
    expect(prompt).toMatchObject({ result: { messages: [{ role: 'user' }] } });
  } finally {
    await server.end();
  }
});
