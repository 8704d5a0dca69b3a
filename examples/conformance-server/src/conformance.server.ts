import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Service } from 'typedi';
import { ErrorCode, McpApp, McpContext, McpError, McpServer, Prompt, RegisteredHandle, Resource, Tool, ToolError, audio, embedded, image, text } from '@hermes-mcp/core';
import {
  ColorForm,
  ConfirmDeleteInput,
  ConfirmForm,
  ContextForm,
  DefaultsForm,
  DeleteConfirmForm,
  ElicitationInput,
  EmbeddedResourceArgs,
  EnumsForm,
  GreetInput,
  NameForm,
  PromptArgs,
  RegionInput,
  SamplingInput,
  SlowComputeInput,
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

/** The text of a sampling answer, or a placeholder. */
function replyText(reply: Awaited<ReturnType<McpContext['sample']>>): string {
  const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
  return content?.type === 'text' ? content.text : 'No response';
}

/**
 * The server the official MCP conformance suite tests (`npm run conformance`): the tools,
 * resources and prompts its server scenarios call, by the names they call them, each doing what
 * its scenario checks.
 */
@McpServer({
  name: 'hermes-conformance-server',
  version: '0.1.0',
  description: 'Fixture server for the MCP conformance suite',
  // The sep-2640-* scenarios' skills: the first in URI order (acme/billing/refunds) has a subfolder
  // for the directory scenario; the others carry extra frontmatter, a script and a binary file.
  skills: { folders: [join(__dirname, '../skills')] },
})
export class ConformanceServer {
  private dynamicTool?: RegisteredHandle;
  private dynamicPrompt?: RegisteredHandle;

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
    return String((ctx.request._meta?.progressToken as string | number | undefined) ?? 'no progress token');
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
    const closeStream = ctx.transport.closeStream;
    closeStream?.();
    await sleep(100);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  }

  @Tool({ name: 'test_sampling', description: 'Tests server-initiated sampling (LLM completion request)' })
  async sampling(input: SamplingInput, ctx: McpContext) {
    return `LLM response: ${replyText(await ctx.sample(input.prompt, { maxTokens: 100 }))}`;
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

  // ----- MCP 2026-07-28 diagnostics (server-stateless) -----

  @Tool({ name: 'test_missing_capability', description: 'Asks the client for sampling: a client that did not declare it gets -32021' })
  async missingCapability(ctx: McpContext) {
    return `LLM response: ${replyText(await ctx.sample('Say hello', { maxTokens: 20 }))}`;
  }

  @Tool({
    name: 'test_streaming_elicitation',
    description: 'Asks the user a question while running: in MCP 2026-07-28 an InputRequiredResult, never a request on the response stream',
  })
  async streamingElicitation(ctx: McpContext) {
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Elicitation ${answer.action}ed`;
  }

  @Tool({ name: 'test_logging_tool', description: 'Logs at info level while running: only clients that asked for logs receive them' })
  async loggingTool(ctx: McpContext) {
    await ctx.notify('info', 'Logging tool started');
    await ctx.notify('info', 'Logging tool finished');
    return 'Logging tool done';
  }

  @Tool({ name: 'test_trigger_tool_change', description: 'Adds test_dynamic_tool, or removes it when present: the tool list changes and its subscribers are told' })
  triggerToolChange(ctx: McpContext) {
    if (this.dynamicTool) {
      this.dynamicTool.remove();
      this.dynamicTool = undefined;
      return 'Removed test_dynamic_tool';
    }
    this.dynamicTool = McpApp.of(ctx).addTool(
      { name: 'test_dynamic_tool', description: 'A tool added at runtime by test_trigger_tool_change' },
      () => 'This tool was added at runtime.',
    );
    return 'Added test_dynamic_tool';
  }

  @Tool({ name: 'test_trigger_prompt_change', description: 'Adds test_dynamic_prompt, or removes it when present: the prompt list changes and its subscribers are told' })
  triggerPromptChange(ctx: McpContext) {
    if (this.dynamicPrompt) {
      this.dynamicPrompt.remove();
      this.dynamicPrompt = undefined;
      return 'Removed test_dynamic_prompt';
    }
    this.dynamicPrompt = McpApp.of(ctx).addPrompt(
      { name: 'test_dynamic_prompt', description: 'A prompt added at runtime by test_trigger_prompt_change' },
      () => 'This prompt was added at runtime.',
    );
    return 'Added test_dynamic_prompt';
  }

  @Tool({ name: 'test_x_mcp_header', description: 'Echoes its region, which clients also send as the Mcp-Param-Region header (SEP-2243)' })
  xMcpHeader(input: RegionInput) {
    return `Region: ${input.region}`;
  }

  // ----- MCP 2026-07-28 multi round-trip requests (input-required-result-*) -----
  // In the legacy era the same questions go to the client as requests; in 2026-07-28 each one the
  // client has not answered yet ends the round with an InputRequiredResult.

  @Tool({ name: 'test_input_required_result_elicitation', description: "Asks for the user's name (input key user_name), then greets them" })
  async inputRequiredElicitation(ctx: McpContext) {
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Elicitation ${answer.action}ed`;
  }

  @Tool({ name: 'test_input_required_result_sampling', description: "Asks the client's model for a greeting, then returns it" })
  async inputRequiredSampling(ctx: McpContext) {
    const reply = await ctx.sample('Generate a greeting', { maxTokens: 50, key: 'greeting' });
    return `LLM response: ${replyText(reply)}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: "Asks for the client's roots, then lists them" })
  async inputRequiredListRoots(ctx: McpContext) {
    const roots = await ctx.listRoots({ key: 'client_roots' });
    return `Roots: ${roots.map((r) => r.uri).join(', ') || 'none'}`;
  }

  @Tool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation; the answer comes back with the sealed requestState' })
  async inputRequiredRequestState(ctx: McpContext) {
    const answer = await ctx.elicit('Confirm to continue', ConfirmForm, { key: 'confirm' });
    return answer.action === 'accept' && answer.content.ok ? 'state-ok: confirmed' : 'state-ok: not confirmed';
  }

  @Tool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for a name, a model greeting and the roots at once (one round)' })
  async inputRequiredMultipleInputs(ctx: McpContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit('What is your name?', NameForm, { key: 'user_name' }),
      ctx.sample('Generate a greeting', { maxTokens: 50, key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    const who = name.action === 'accept' ? name.content.name : 'stranger';
    return `${replyText(greeting)} ${who} (${roots.length} root${roots.length === 1 ? '' : 's'})`;
  }

  @Tool({ name: 'test_input_required_result_multi_round', description: 'Asks for a name, then (next round) a favourite colour' })
  async inputRequiredMultiRound(ctx: McpContext) {
    const name = await ctx.elicit('Step 1: What is your name?', NameForm, { key: 'step1' });
    const color = await ctx.elicit('Step 2: What is your favorite color?', ColorForm, { key: 'step2' });
    const who = name.action === 'accept' ? name.content.name : 'stranger';
    return `${who} likes ${color.action === 'accept' ? color.content.color : 'no colour in particular'}`;
  }

  @Tool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation; an edited requestState is refused' })
  async inputRequiredTamperedState(ctx: McpContext) {
    const answer = await ctx.elicit('Confirm to continue', ConfirmForm, { key: 'confirm' });
    return answer.action === 'accept' && answer.content.ok ? 'Confirmed' : 'Not confirmed';
  }

  @Tool({ name: 'test_input_required_result_capabilities', description: 'Asks only for what the client declared it can answer (elicitation, sampling, roots)' })
  async inputRequiredCapabilities(ctx: McpContext) {
    const can = ctx.session.clientCapabilities;
    const asked: Promise<unknown>[] = [];
    if (can.elicitation) asked.push(ctx.elicit('What is your name?', NameForm, { key: 'user_name' }));
    if (can.sampling) asked.push(ctx.sample('Generate a greeting', { maxTokens: 50, key: 'greeting' }));
    if (can.roots) asked.push(ctx.listRoots({ key: 'client_roots' }));
    await Promise.all(asked);
    return `Asked for ${asked.length} input(s)`;
  }

  // ----- MCP 2026-07-28 tasks extension (tasks-*) -----
  // `task: 'optional'` tools run as tasks when the request declares io.modelcontextprotocol/tasks
  // (synchronously otherwise); `task: 'required'` ones are refused (-32021) without it. While a task
  // runs, ctx.signal is aborted by tasks/cancel and ctx.elicit parks it as input_required.

  @Tool({ name: 'greet', description: 'Greets someone (synchronous only)' })
  greet(input: GreetInput) {
    return `Hello, ${input.name}!`;
  }

  @Tool({ name: 'slow_compute', description: 'Works for `seconds` seconds, then reports; a task when the client declares the tasks extension', task: 'optional' })
  async slowCompute(input: SlowComputeInput, ctx: McpContext) {
    // Cancelled (tasks/cancel, or the client went away): stop quietly; the task is already cancelled.
    if (input.seconds > 0) await sleep(input.seconds * 1000, undefined, { signal: ctx.signal }).catch(() => undefined);
    if (ctx.signal.aborted) return `Stopped ${input.label ?? 'result'}`;
    return `Computed ${input.label ?? 'result'} in ${input.seconds}s`;
  }

  @Tool({ name: 'failing_job', description: 'Runs only as a task; after about a second it reports a tool error (completed, isError)', task: 'required' })
  async failingJob(ctx: McpContext): Promise<never> {
    await sleep(1000, undefined, { signal: ctx.signal });
    throw new ToolError('failing_job failed on purpose');
  }

  @Tool({ name: 'protocol_error_job', description: 'Runs only as a task; fails with a protocol error (the task ends failed)', task: 'required' })
  async protocolErrorJob(ctx: McpContext): Promise<never> {
    await sleep(100, undefined, { signal: ctx.signal });
    throw new McpError(ErrorCode.InternalError, 'protocol_error_job failed on purpose');
  }

  @Tool({ name: 'confirm_delete', description: 'Asks for a confirmation (input_required while a task), then deletes nothing', task: 'optional' })
  async confirmDelete(input: ConfirmDeleteInput, ctx: McpContext) {
    const answer = await ctx.elicit(`Delete ${input.filename}?`, DeleteConfirmForm, { key: 'confirm' });
    return answer.action === 'accept' && answer.content.confirm ? `Deleted ${input.filename}` : `Kept ${input.filename}`;
  }

  @Tool({ name: 'multi_input', description: 'Asks for a name and a confirmation at once (two input requests)', task: 'optional' })
  async multiInput(ctx: McpContext) {
    const [name, confirm] = await Promise.all([ctx.elicit('What is your name?', NameForm, { key: 'name' }), ctx.elicit('Go ahead?', DeleteConfirmForm, { key: 'confirm' })]);
    const who = name.action === 'accept' ? name.content.name : 'stranger';
    return `${who}: ${confirm.action === 'accept' && confirm.content.confirm ? 'confirmed' : 'not confirmed'}`;
  }

  @Tool({ name: 'test_tool_with_task', description: 'Asks for a name (MRTR, key user_name), then goes on as a task', task: 'required', taskStart: 'manual' })
  async toolWithTask(ctx: McpContext) {
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    const name = answer.action === 'accept' ? answer.content.name : 'stranger';
    return ctx.runAsTask(async (task) => {
      await sleep(100, undefined, { signal: task.signal });
      return `Hello, ${name}! (from a task)`;
    });
  }

  // ----- resources -----

  @Resource({ uri: 'test://static-text', name: 'static-text', title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(PNG, 'base64');
  }

  @Resource({
    uri: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  })
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

  @Prompt({ name: 'test_input_required_result_prompt', title: 'Prompt With Input', description: 'Asks the user for context (input key user_context) before building the prompt' })
  async inputRequiredPrompt(ctx: McpContext) {
    const answer = await ctx.elicit('What context should the prompt use?', ContextForm, { key: 'user_context' });
    return `Write about: ${answer.action === 'accept' ? answer.content.context : 'anything you like'}`;
  }

  @Prompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' })
  promptWithImage() {
    return [
      { role: 'user' as const, content: image(PNG, 'image/png') },
      { role: 'user' as const, content: text('Please analyze the image above.') },
    ];
  }
}
