/**
 * Questions to the client — elicitation, sampling, roots — written once in the everything server
 * and answered the same way in both eras, tested in process with @hermes-mcp/testing: on the
 * legacy revisions they travel as server→client requests, on 2026-07-28 as InputRequiredResult
 * rounds. The wire (a spawned process, the SDK client) is covered by features.e2e.spec.ts.
 */
import 'reflect-metadata';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { EverythingServer } from '../src/everything.server';

describe.each(['legacy', 'modern'] as const)('everything: questions to the client (%s era)', (era) => {
  it('asks for a form, samples the model and lists the roots', async () => {
    const asked: string[] = [];
    const client = await createTestClient(EverythingServer, {
      era,
      onElicitation: (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { name: 'Ada', age: 36, color: 'green', subscribe: true } };
      },
      onSampling: (request) => ({
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `${request.maxTokens} tokens for "${(request.messages[0].content as { text: string }).text}"` },
      }),
      onRoots: () => [{ uri: 'file:///work', name: 'work' }],
    });
    try {
      expect(textOf(await client.callTool('ask_name', {}))).toBe('Hello Ada (36), who likes green and news');
      expect(asked).toEqual(['Please tell us about yourself']);
      expect(textOf(await client.callTool('summarize', { text: 'a long story' }))).toBe('test-model: 100 tokens for "Summarise: a long story"');
      expect((await client.callTool('roots', {})).structuredContent).toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });
    } finally {
      await client.close();
    }
  });

  it('takes a declined form as an answer, and refuses sampling the client did not declare with -32021', async () => {
    const client = await createTestClient(EverythingServer, { era, onElicitation: () => ({ action: 'decline' }) });
    try {
      expect(textOf(await client.callTool('ask_name', {}))).toBe('no answer: decline');
      await expect(client.callTool('summarize', { text: 'x' })).rejects.toMatchObject({
        code: -32021,
        message: expect.stringContaining('did not declare the sampling capability'),
      });
    } finally {
      await client.close();
    }
  });
});
