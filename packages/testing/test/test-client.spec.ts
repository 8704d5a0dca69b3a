/**
 * createTestClient against a real decorated server, in both eras: tools (validated input, tool
 * errors), progress and log notifications collected, resources and templates, prompts, completions,
 * paged lists, and questions to the client (elicitation, sampling, roots) answered by the test's
 * handlers — by server→client requests on the legacy revisions, by input rounds on 2026-07-28.
 */
import 'reflect-metadata';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { Complete, McpContext, McpError, McpServer, Prompt, Resource, Tool, ToolError } from '@hermes-mcp/core';
import { createTestClient, textOf } from '@hermes-mcp/testing';

class AddInput {
  @IsInt() a!: number;
  @IsInt() b!: number;
}

class StepsInput {
  @IsInt() @Min(1) @Max(10) steps!: number;
}

class NameForm {
  @IsString() @Length(1, 40) name!: string;
}

class ItemParams {
  @IsString() id!: string;
}

class GreetArgs {
  @IsString() @Complete((value: string) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value))) name!: string;
}

@McpServer({ name: 'kit', version: '2.0.0', instructions: 'For tests.' })
class KitServer {
  @Tool({ description: 'Adds' })
  add(input: AddInput) {
    return String(input.a + input.b);
  }

  @Tool({ description: 'Counts with progress and a log message per step' })
  async count(input: StepsInput, ctx: McpContext) {
    for (let i = 1; i <= input.steps; i++) {
      await ctx.progress(i, input.steps, `step ${i}`);
      await ctx.notify('info', { step: i });
    }
    return `counted ${input.steps}`;
  }

  @Tool({ description: 'Refuses' })
  refuse(): string {
    throw new ToolError('no, thank you');
  }

  @Tool({ description: 'Asks who the user is' })
  async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `hello ${answer.content.name}` : answer.action;
  }

  @Tool({ description: 'Asks the model, then lists roots' })
  async think(ctx: McpContext) {
    const reply = await ctx.sample('Say hi', { maxTokens: 10 });
    const roots = await ctx.listRoots();
    return `${(reply.content as { text: string }).text} in ${roots.map((r) => r.uri).join(',')}`;
  }

  @Resource({ uri: 'kit://about', mimeType: 'text/plain' })
  about() {
    return 'about kit';
  }

  @Resource({ uri: 'kit://item/{id}' })
  item(params: ItemParams) {
    return `item ${params.id}`;
  }

  @Prompt({ description: 'Greets' })
  greet(args: GreetArgs) {
    return `Greet ${args.name}`;
  }
}

describe.each(['legacy', 'modern'] as const)('createTestClient, %s era', (era) => {
  it('connects, knows the server, calls tools with validated input and tool errors', async () => {
    const client = await createTestClient(KitServer, { era, appOptions: { pageSize: 2 } });
    try {
      expect(client.era).toBe(era);
      expect(client.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
      expect(client.serverInfo).toMatchObject({ name: 'kit', version: '2.0.0' });
      expect(client.serverCapabilities.tools).toBeDefined();
      expect(textOf(await client.callTool('add', { a: 2, b: 3 }))).toBe('5');
      const invalid = await client.callTool('add', { a: 'two' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/^a must be an integer, not a string$/m);
      expect(await client.callTool('refuse')).toMatchObject({ isError: true, content: [{ text: 'no, thank you' }] });
      await expect(client.callTool('nope')).rejects.toBeInstanceOf(McpError);
    } finally {
      await client.close();
    }
  });

  it('collects progress and log notifications, per call and for the whole client', async () => {
    const client = await createTestClient(KitServer, { era, logLevel: 'info' });
    try {
      const seen: number[] = [];
      expect(textOf(await client.callTool('count', { steps: 3 }, { onProgress: (p) => seen.push(p.progress) }))).toBe('counted 3');
      expect(seen).toEqual([1, 2, 3]);
      expect(client.progress.map((p) => [p.method, p.progress, p.total, p.message])).toEqual([
        ['tools/call', 1, 3, 'step 1'],
        ['tools/call', 2, 3, 'step 2'],
        ['tools/call', 3, 3, 'step 3'],
      ]);
      expect(client.logs).toEqual([1, 2, 3].map((step) => ({ level: 'info', data: { step } })));
    } finally {
      await client.close();
    }
  });

  it('lists every page, reads resources and templates, gets prompts and completes arguments', async () => {
    const client = await createTestClient(KitServer, { era, appOptions: { pageSize: 2 } });
    try {
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['add', 'count', 'refuse', 'think', 'who']);
      expect((await client.listResources()).map((r) => r.uri)).toEqual(['kit://about']);
      expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['kit://item/{id}']);
      expect((await client.listPrompts()).map((p) => p.name)).toEqual(['greet']);
      expect(textOf(await client.readResource('kit://about'))).toBe('about kit');
      expect(textOf(await client.readResource('kit://item/42'))).toBe('item 42');
      expect(textOf(await client.getPrompt('greet', { name: 'Ada' }))).toBe('Greet Ada');
      expect((await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' })).values).toEqual(['Ada', 'Alan']);
    } finally {
      await client.close();
    }
  });

  it("answers elicitation, sampling and roots with the test's handlers", async () => {
    const asked: string[] = [];
    const client = await createTestClient(KitServer, {
      era,
      onElicitation: (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
      onSampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' }),
      onRoots: () => [{ uri: 'file:///work', name: 'work' }],
    });
    try {
      expect(textOf(await client.callTool('who'))).toBe('hello Ada');
      expect(asked).toEqual(['Who are you?']);
      expect(textOf(await client.callTool('think'))).toBe('hi in file:///work');
    } finally {
      await client.close();
    }
  });

  it('without a handler, the server learns the client cannot answer', async () => {
    const client = await createTestClient(KitServer, { era });
    try {
      await expect(client.callTool('who')).rejects.toMatchObject({ code: -32021 });
    } finally {
      await client.close();
    }
  });
});
