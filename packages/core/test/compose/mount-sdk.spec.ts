/**
 * A server with a local mount, served over Streamable HTTP on both adapters and driven by the
 * official SDK v2 client (`@modelcontextprotocol/client`) in both eras: 2025-11-25 (initialize, a
 * session, `resources/subscribe`) and 2026-07-28 (stateless, a `subscriptions/listen` stream
 * naming a mounted resource). Every mounted tool, resource, template, prompt and completion is
 * reached by its prefixed name, and the mounted class's notification comes out prefixed.
 */
import 'reflect-metadata';
import { IsIn, IsString } from 'class-validator';
import { Client as SdkClient, StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/client';
import { McpContext, McpFactory, McpServer, Prompt, Resource, Tool, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';
import { eventually, textOf } from '../../../../test-support/e2e';

class NoteParams {
  @IsString() id!: string;
}

class AddInput {
  @IsString() text!: string;
}

class StyleArgs {
  @IsIn(['short', 'long']) style!: string;
}

@McpServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  private readonly notes: string[] = [];

  @Tool({ description: 'Adds a note' })
  add(input: AddInput, ctx: McpContext) {
    this.notes.push(input.text);
    ctx.notifyResourceUpdated('notes://all');
    return `added #${this.notes.length}`;
  }

  @Resource({ uri: 'notes://all', mimeType: 'application/json' })
  all() {
    return this.notes;
  }

  @Resource({ uri: 'notes://note/{id}', mimeType: 'text/plain', complete: { id: (value) => ['1', '2', '12'].filter((id) => id.startsWith(value)) } })
  note(params: NoteParams) {
    return this.notes[Number(params.id) - 1] ?? '';
  }

  @Prompt({ description: 'Summarise the notes' })
  summarise(args: StyleArgs) {
    return `Summarise in a ${args.style} paragraph.`;
  }
}

@McpServer({ name: 'desk', version: '1.0.0', mount: { notes: NotesServer } })
class DeskServer {
  @Tool() time() {
    return 'noon';
  }
}

const ERAS = [
  { era: '2025-11-25', mode: 'legacy' as const },
  { era: '2026-07-28', mode: { pin: '2026-07-28' } },
];

describe.each(ADAPTERS)('a mounted server over HTTP (%s)', (adapter) => {
  let serving: Serving;
  let apps = 0;
  const clients: SdkClient[] = [];

  beforeEach(async () => {
    const app = McpFactory.create(DeskServer, { logger: createLogger({ level: 'silent' }), container: isolatedContainer(`mount-sdk-${++apps}`) });
    serving = await serveOn(adapter, app);
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await serving.close();
  });

  it.each(ERAS)('is used by the official SDK v2 client at $era through its prefixed names', async ({ era, mode }) => {
    const sdk = new SdkClient({ name: 'sdk-v2-client', version: '2.4.0' }, { versionNegotiation: { mode } });
    clients.push(sdk);
    const updated: string[] = [];
    sdk.setNotificationHandler('notifications/resources/updated', (notification) => void updated.push(notification.params.uri));
    await sdk.connect(new SdkHttpTransport(new URL(serving.url)));
    expect(sdk.getNegotiatedProtocolVersion()).toBe(era);

    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toEqual(['time', 'notes_add']);
    expect((await sdk.listResources()).resources.map((resource) => resource.uri)).toEqual(['notes://notes/all']);
    expect((await sdk.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['notes://notes/note/{id}']);
    expect((await sdk.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['notes_summarise']);

    // Subscribed before the change: a session subscribes; a 2026-07-28 client opens a listen stream naming the URI.
    const subscription = era === '2025-11-25' ? undefined : await sdk.listen({ resourceSubscriptions: ['notes://notes/all'] });
    if (!subscription) await sdk.subscribeResource({ uri: 'notes://notes/all' });
    else expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['notes://notes/all'] });

    expect(textOf(await sdk.callTool({ name: 'notes_add', arguments: { text: 'milk' } }))).toBe('added #1');
    await eventually('the prefixed resources/updated', () => updated.length > 0);
    expect(updated).toEqual(['notes://notes/all']);
    await subscription?.close();

    expect((await sdk.readResource({ uri: 'notes://notes/all' })).contents).toEqual([{ uri: 'notes://notes/all', mimeType: 'application/json', text: '["milk"]' }]);
    expect((await sdk.readResource({ uri: 'notes://notes/note/1' })).contents).toEqual([{ uri: 'notes://notes/note/1', mimeType: 'text/plain', text: 'milk' }]);
    expect((await sdk.getPrompt({ name: 'notes_summarise', arguments: { style: 'short' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarise in a short paragraph.' } },
    ]);
    const byTemplate = await sdk.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/note/{id}' }, argument: { name: 'id', value: '1' } });
    expect(byTemplate.completion.values).toEqual(['1', '12']);
    const byPrompt = await sdk.complete({ ref: { type: 'ref/prompt', name: 'notes_summarise' }, argument: { name: 'style', value: 'l' } });
    expect(byPrompt.completion.values).toEqual(['long']);
  });
});
