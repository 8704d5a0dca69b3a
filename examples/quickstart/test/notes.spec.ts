/**
 * The quickstart's behaviour, tested in process with @hermes-mcp/testing (no process to spawn:
 * stdio.e2e.spec.ts covers the wire), in both eras. Each client gets its own NotesStore.
 */
import 'reflect-metadata';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { NotesServer } from '../src/notes.server';

describe.each(['legacy', 'modern'] as const)('quickstart notes (%s era)', (era) => {
  it('adds a note, finds it with progress, reads it back as a resource', async () => {
    const client = await createTestClient(NotesServer, { era });
    try {
      const added = await client.callTool('add_note', { title: 'Milk', body: 'Two litres', tags: ['shopping'] });
      expect(added.structuredContent).toMatchObject({ id: '2', title: 'Milk', tags: ['shopping'] });
      const found = await client.callTool('search_notes', { query: 'milk' });
      expect(textOf(found)).toBe('#2 Milk');
      expect(client.progress.map((p) => p.message)).toEqual(['searching', 'found 1']);
      expect(textOf(await client.readResource('notes://note/2'))).toBe('# Milk\n\nTwo litres\n');
      expect(JSON.parse(textOf(await client.readResource('notes://all')))).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('refuses invalid input with the field paths, and says when nothing matches', async () => {
    const client = await createTestClient(NotesServer, { era });
    try {
      const invalid = await client.callTool('add_note', { title: '', body: 'x', tags: ['Not Lower'] });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/^title must be longer than or equal to 1 characters$/m);
      expect(textOf(invalid)).toMatch(/^tags\[0\] must match /m);
      expect(await client.callTool('search_notes', { query: 'nothing here' })).toMatchObject({ isError: true, content: [{ text: 'no note matches "nothing here"' }] });
    } finally {
      await client.close();
    }
  });

  it('starts every client with a fresh store', async () => {
    const first = await createTestClient(NotesServer, { era });
    const second = await createTestClient(NotesServer, { era });
    try {
      await first.callTool('add_note', { title: 'Only in the first', body: '' });
      expect(JSON.parse(textOf(await second.readResource('notes://all')))).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
