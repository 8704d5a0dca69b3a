import { setTimeout as sleep } from 'node:timers/promises';
import { Service } from 'typedi';
import { McpContext, McpServer, Prompt, Resource, Tool, ToolError, audio, embedded, image, text } from '@hermes-mcp/core';
import {
  DefaultsForm,
  ElicitationInput,
  EmbeddedResourceArgs,
  EnumsForm,
  PromptArgs,
  SamplingInput,
  TemplateParams,
  UserInfoForm,
} from './dto';
import { CONTACT_SCHEMA, PNG, WAV } from './fixtures';

/** The URI of the subscribable resource. */
export const WATCHED_URI = 'test://watched-resource';

/** The watched resource's content, which main.ts changes every few seconds. */
@Service()
export class Watched {
  revision = 0;

  get content(): string {
    return `Watched resource content (revision ${this.revision})`;
  }
}

/**
 * The server the official MCP conformance suite tests (`npm run conformance`): the tools,
 * resources and prompts its server scenarios call, by the names they call them, each doing what
 * its scenario checks.
 */
@McpServer({ name: 'hermes-conformance-server', version: '0.1.0', description: 'Fixture server for the MCP conformance suite' })
export class ConformanceServer {
  constructor(private readonly watched: Watched) {}

  // ----- tools -----

  @Tool({ name: 'test_simple_text', description: 'Tests simple text content response' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Tests image content response' })
  imageContent() {
    return image(PNG, 'image/png');
  }

  @Tool({ name: 'test_audio_content', description: 'Tests audio content response' })
  audioContent() {
    return audio(WAV, 'audio/wav');
  }

  @Tool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response' })
  embeddedResource() {
    return embedded('test://embedded-resource', 'This is an embedded resource content.', 'text/plain');
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Tests response with multiple content types (text, image, resource)' })
  multipleContentTypes() {
    return [
      text('Multiple content types test:'),
      image(PNG, 'image/png'),
      embedded('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), 'application/json'),
    ];
  }

  @Tool({ name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution' })
  async withLogging(ctx: McpContext) {
    await ctx.notify('info', 'Tool execution started');
    await sleep(50);
    await ctx.notify('info', 'Tool processing data');
    await sleep(50);
    await ctx.notify('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @Tool({ name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications' })
  async withProgress(ctx: McpContext) {
    for (const done of [0, 50, 100]) {
      await ctx.progress(done, 100, `Completed step ${done} of 100`);
      if (done < 100) await sleep(50);
    }
    return String(ctx.request._meta?.progressToken ?? 'no progress token');
  }

  @Tool({ name: 'test_error_handling', description: 'Tests error response handling' })
  errorHandling(): never {
    throw new ToolError('This tool intentionally returns an error for testing');
  }

  @Tool({
    name: 'test_reconnection',
    description: 'Tests SSE stream disconnection and client reconnection (SEP-1699): closes the stream mid-call and answers after the client reconnects',
  })
  async reconnection(ctx: McpContext) {
    // Streamable HTTP only: end the POST's SSE connection after the priming event; the client
    // reconnects with Last-Event-ID and receives the result from the event store.
    const closeStream = ctx.transport.closeStream as ((retryMs?: number) => void) | undefined;
    closeStream?.();
    await sleep(100);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  }

  @Tool({ name: 'test_sampling', description: 'Tests server-initiated sampling (LLM completion request)' })
  async sampling(input: SamplingInput, ctx: McpContext) {
    const reply = await ctx.sample(input.prompt, { maxTokens: 100 });
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `LLM response: ${content?.type === 'text' ? content.text : 'No response'}`;
  }

  @Tool({ name: 'test_elicitation', description: 'Tests server-initiated elicitation (user input request)' })
  async elicitation(input: ElicitationInput, ctx: McpContext) {
    const answer = await ctx.elicit(input.message, UserInfoForm);
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({ name: 'test_elicitation_sep1034_defaults', description: 'Tests elicitation with default values per SEP-1034' })
  async elicitationDefaults(ctx: McpContext) {
    const answer = await ctx.elicit('Please review and update the form fields with defaults', DefaultsForm);
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({ name: 'test_elicitation_sep1330_enums', description: 'Tests elicitation with enum schema improvements per SEP-1330' })
  async elicitationEnums(ctx: McpContext) {
    const answer = await ctx.elicit('Please select options from the enum fields', EnumsForm);
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    inputSchema: CONTACT_SCHEMA,
  })
  jsonSchema202012(args: Record<string, unknown>) {
    return `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`;
  }

  // ----- resources -----

  @Resource({ uri: 'test://static-text', name: 'static-text', title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', name: 'static-binary', title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' })
  staticBinary() {
    return Buffer.from(PNG, 'base64');
  }

  @Resource({ uri: 'test://template/{id}/data', name: 'template', title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' })
  templateData(params: TemplateParams) {
    return { id: params.id, templateTest: true, data: `Data for ID: ${params.id}` };
  }

  @Resource({ uri: WATCHED_URI, name: 'watched-resource', title: 'Watched Resource', description: 'A subscribable resource that changes every 3 seconds', mimeType: 'text/plain' })
  watchedResource() {
    return this.watched.content;
  }

  // ----- prompts -----

  @Prompt({ name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' })
  simplePrompt() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ name: 'test_prompt_with_arguments', title: 'Prompt With Arguments', description: 'A prompt with required arguments' })
  promptWithArguments(args: PromptArgs) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @Prompt({ name: 'test_prompt_with_embedded_resource', title: 'Prompt With Embedded Resource', description: 'A prompt that includes an embedded resource' })
  promptWithEmbeddedResource(args: EmbeddedResourceArgs) {
    return [
      { role: 'user' as const, content: embedded(args.resourceUri, 'Embedded resource content for testing.', 'text/plain') },
      { role: 'user' as const, content: text('Please process the embedded resource above.') },
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' })
  promptWithImage() {
    return [
      { role: 'user' as const, content: image(PNG, 'image/png') },
      { role: 'user' as const, content: text('Please analyze the image above.') },
    ];
  }
}
