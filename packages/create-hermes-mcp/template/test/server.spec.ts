import 'reflect-metadata';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { GreeterServer } from '../src/server';

describe.each(['legacy', 'modern'] as const)('the greeter (%s MCP era)', (era) => {
  it('greets one person, in their language, and reports progress', async () => {
    const client = await createTestClient(GreeterServer, { era });
    try {
      const result = await client.callTool('greet', { person: { name: 'Ada', language: 'fr' } });
      expect(textOf(result)).toBe('Bonjour, Ada!');
      expect(client.progress.map((p) => p.message)).toEqual(['greeting Ada']);
    } finally {
      await client.close();
    }
  });

  it('refuses invalid input with the path of each problem', async () => {
    const client = await createTestClient(GreeterServer, { era });
    try {
      const result = await client.callTool('greet', { person: { name: '', language: 'de' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/person\.name/);
      expect(textOf(result)).toMatch(/person\.language/);
    } finally {
      await client.close();
    }
  });

  it('counts greetings in a resource, and has a prompt', async () => {
    const client = await createTestClient(GreeterServer, { era });
    try {
      await client.callTool('greet_all', { people: [{ name: 'Ada' }, { name: 'Alan' }] });
      expect(JSON.parse(textOf(await client.readResource('greeter://stats')))).toEqual({ greeted: 2 });
      expect(textOf(await client.getPrompt('introduce', { name: 'Grace' }))).toMatch(/Grace/);
    } finally {
      await client.close();
    }
  });
});
