import { setTimeout as sleep } from 'node:timers/promises';
import { McpApp, McpContext, McpServer, Middleware, Prompt, Resource, Tool, ToolError, Use, audio, embedded, image, resourceLink, text } from '@hermes-mcp/core';
import {
  AddToolInput,
  EchoInput,
  GreetArgs,
  GuardedInput,
  ItemParams,
  LogInput,
  NameForm,
  ReviewArgs,
  SlowInput,
  SummarizeInput,
  ToggleInput,
  TouchInput,
  UrlInput,
  WeatherInput,
  WeatherOutput,
} from './dto';
import { Observations } from './state';

/** A 1×1 transparent PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** A tiny WAV header. */
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

/** Guard: lets the call through only with the right token. */
const tokenGuard: Middleware = (ctx, next) => {
  // The token comes with each call: every caller may see the tool listed.
  if (ctx.listing) return next();
  if ((ctx.request.params.arguments as { token?: string } | undefined)?.token !== 'letmein') throw new ToolError('access denied: wrong token');
  ctx.assigns.user = 'admin';
  return next();
};

/** Middleware that wraps a tool's result. */
const shout: Middleware = async (_ctx, next) => String(await next()).toUpperCase();

/** Every server feature in one class; the tests of the server surface drive it over stdio. */
@McpServer({
  name: 'hermes-everything',
  version: '0.1.0',
  title: 'Hermes everything server',
  description: 'Exercises every MCP server feature',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  websiteUrl: 'https://example.com',
  instructions: 'A test server: every tool shows one MCP feature.',
})
export class EverythingServer {
  constructor(private readonly seen: Observations) {}

  @Tool({ description: 'Echo a message back', annotations: { readOnlyHint: true, idempotentHint: true } })
  echo(input: EchoInput) {
    return input.message;
  }

  @Tool({ description: 'Work in steps, reporting progress; stops when cancelled' })
  async slow(input: SlowInput, ctx: McpContext) {
    for (let step = 1; step <= input.steps; step++) {
      try {
        await sleep(input.delayMs, undefined, { signal: ctx.signal });
      } catch {
        this.seen.aborted.push(input.label ?? 'unlabelled');
        throw new ToolError('cancelled');
      }
      await ctx.progress(step, input.steps, `step ${step} of ${input.steps}`);
    }
    return `${input.label ?? 'slow'}: completed ${input.steps} steps`;
  }

  @Tool({ description: 'Labels of slow calls whose handler saw its signal aborted', annotations: { readOnlyHint: true } })
  cancellations() {
    return { aborted: [...this.seen.aborted] };
  }

  @Tool({ description: 'Send one log message at every level' })
  async log(input: LogInput, ctx: McpContext) {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) {
      await ctx.notify(level, { tag: input.tag, level }, 'everything');
    }
    return 'logged';
  }

  @Tool({ description: 'Ask the user for their name (form elicitation)' })
  async ask_name(ctx: McpContext) {
    const answer = await ctx.elicit('Please tell us about yourself', NameForm);
    if (answer.action !== 'accept') return `no answer: ${answer.action}`;
    const { name, age, color, subscribe } = answer.content;
    return `Hello ${name}${age !== undefined && age !== null ? ` (${age})` : ''}, who likes ${color}${subscribe ? ' and news' : ''}`;
  }

  @Tool({ description: 'Send the user to a URL (URL elicitation, MCP 2025-11-25)' })
  async open_url(input: UrlInput, ctx: McpContext) {
    const answer = await ctx.elicit('Please sign in', { url: input.url });
    return `url elicitation: ${answer.action}`;
  }

  @Tool({ description: "Summarise a text with the client's model (sampling)" })
  async summarize(input: SummarizeInput, ctx: McpContext) {
    const reply = input.withTools
      ? await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: `Summarise: ${input.text}` } }],
          maxTokens: 100,
          tools: [{ name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } }],
        })
      : await ctx.sample(`Summarise: ${input.text}`, { maxTokens: 100, systemPrompt: 'Be brief.' });
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `${reply.model}: ${content.type === 'text' ? content.text : content.type}`;
  }

  @Tool({ description: "The client's roots" })
  async roots(ctx: McpContext) {
    return { roots: await ctx.listRoots() };
  }

  @Tool({ description: 'How many roots changes arrived, and the roots after the last one' })
  roots_changes() {
    return { changes: this.seen.rootsChanges, roots: this.seen.lastRoots };
  }

  @Tool({ description: 'Enable or disable a tool, prompt or resource' })
  toggle(input: ToggleInput, ctx: McpContext) {
    const app = McpApp.of(ctx);
    const handle = input.kind === 'tool' ? app.tool(input.key) : input.kind === 'prompt' ? app.prompt(input.key) : app.resource(input.key);
    if (input.enabled) handle.enable();
    else handle.disable();
    return `${input.kind} ${input.key} ${input.enabled ? 'enabled' : 'disabled'}`;
  }

  @Tool({ description: 'Add a tool that greets' })
  add_tool(input: AddToolInput, ctx: McpContext) {
    McpApp.of(ctx).addTool({ name: input.name, description: `Added at runtime: ${input.name}` }, () => `hello from ${input.name}`);
    return `added ${input.name}`;
  }

  @Tool({ description: 'Tell subscribers that a resource changed' })
  touch(input: TouchInput, ctx: McpContext) {
    ctx.notifyResourceUpdated(input.uri);
    return `touched ${input.uri}`;
  }

  @Tool({ description: 'Every kind of content', title: 'Content kinds' })
  content_kinds() {
    return [
      text('plain text', { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' }),
      image(PNG, 'image/png'),
      audio(WAV, 'audio/wav'),
      resourceLink('items://1', 'item-1', { description: 'The first item', mimeType: 'text/plain' }),
      embedded('items://2', 'the second item', 'text/plain'),
    ];
  }

  @Tool({
    description: 'A forecast, as structured output',
    title: 'Weather',
    output: WeatherOutput,
    annotations: { title: 'Weather', readOnlyHint: true, openWorldHint: true },
    icons: [{ src: 'https://example.com/sun.png', mimeType: 'image/png' }],
    _meta: { 'example.com/category': 'weather' },
  })
  weather(input: WeatherInput): WeatherOutput {
    return { city: input.city, temperature: 21.5, conditions: 'sunny' };
  }

  @Tool({ description: 'Runs longer than its 100 ms limit', timeout: 100 })
  async too_slow(ctx: McpContext) {
    await sleep(5_000, undefined, { signal: ctx.signal }).catch(() => undefined);
    return 'finished anyway';
  }

  @Use(tokenGuard)
  @Tool({ description: 'Needs the right token (a guard)' })
  guarded(input: GuardedInput, ctx: McpContext) {
    return `welcome, ${String(ctx.assigns.user)} (${input.token.length} characters)`;
  }

  @Use(shout)
  @Tool({ description: 'Its result passes through middleware' })
  whisper(input: EchoInput) {
    return input.message;
  }

  @Tool({ description: 'A job that runs as a task when the client declares the tasks extension (MCP 2026-07-28)', task: 'optional' })
  async long_job(input: SlowInput, ctx: McpContext) {
    await sleep(input.delayMs * input.steps, undefined, { signal: ctx.signal });
    const answer = await ctx.elicit('Keep the result?', NameForm, { key: 'keep' });
    return `${input.label ?? 'job'}: ${answer.action === 'accept' ? `kept for ${answer.content.name}` : answer.action}`;
  }

  @Tool({ description: 'Asks who it is for (MRTR), then goes on as a task', task: 'required', taskStart: 'manual' })
  async composed(ctx: McpContext) {
    const who = await ctx.elicit('Who is this for?', NameForm, { key: 'user_name' });
    const name = who.action === 'accept' ? who.content.name : 'nobody';
    return ctx.runAsTask(async (task) => {
      await sleep(20, undefined, { signal: task.signal });
      return `built for ${name}`;
    });
  }

  @Resource({ uri: 'status://server', name: 'status', description: 'Server status (subscribable)', mimeType: 'application/json' })
  status() {
    return { ok: true, at: new Date().toISOString() };
  }

  @Resource({ uri: 'items://item/{id}', name: 'item', description: 'One item by id', mimeType: 'text/plain' })
  item(params: ItemParams) {
    return `item ${params.id}`;
  }

  @Prompt({ description: 'Greet someone', title: 'Greeting' })
  greet(args: GreetArgs) {
    return args.style === 'formal' ? `Good day, ${args.name}.` : `Hi ${args.name}!`;
  }

  @Prompt({ description: 'Review some code', complete: { code: (value) => [`${value}()`, `${value};`] } })
  code_review(args: ReviewArgs) {
    return [
      { role: 'user' as const, content: text(`Please review:\n${args.code}`) },
      { role: 'assistant' as const, content: text('Looking at it now.') },
    ];
  }
}
