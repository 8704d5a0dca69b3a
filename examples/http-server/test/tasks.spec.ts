/**
 * The task board's behaviour, tested in process with @hermes-mcp/testing in both eras (the
 * Fastify mount itself is covered by null-optionals.spec.ts and the package's HTTP tests).
 * Each client gets its own TaskBoard.
 */
import 'reflect-metadata';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { TasksServer } from '../src/tasks.server';

describe.each(['legacy', 'modern'] as const)('http-server task board (%s era)', (era) => {
  it('adds, completes and lists tasks, with progress per task', async () => {
    const client = await createTestClient(TasksServer, { era });
    try {
      const added = await client.callTool('add_task', { title: 'Write docs', priority: 'high' });
      expect(added.structuredContent).toMatchObject({ title: 'Write docs', priority: 'high', done: false });
      const id = (added.structuredContent as { id: string }).id;
      await client.callTool('add_task', { title: 'Review' });
      await client.callTool('complete_task', { id });
      client.progress.length = 0;
      const listed = textOf(await client.callTool('list_tasks', {}));
      expect(listed).toContain(`[x] #${id} Write docs (high)`);
      expect(listed).toContain('Review (normal)');
      expect(client.progress.map((p) => p.progress)).toEqual(listed.split('\n').map((_, i) => i + 1));
      const open = textOf(await client.callTool('list_tasks', { open: true }));
      expect(open).not.toContain('Write docs');
      expect(JSON.parse(textOf(await client.readResource(`tasks://task/${id}`)))).toMatchObject({ id, done: true });
      expect(textOf(await client.getPrompt('plan_day', { hours: '3' }))).toMatch(/^I have 3 hours/);
    } finally {
      await client.close();
    }
  });

  it('answers a missing task with a tool error and bad input with field paths', async () => {
    const client = await createTestClient(TasksServer, { era });
    try {
      expect(await client.callTool('complete_task', { id: '999' })).toMatchObject({ isError: true, content: [{ text: 'there is no task 999' }] });
      const invalid = await client.callTool('add_task', { title: '', priority: 'urgent' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/^title must be longer than or equal to 1 characters$/m);
      expect(textOf(invalid)).toMatch(/^priority must be one of the following values: low, normal, high$/m);
    } finally {
      await client.close();
    }
  });
});
