/**
 * The McpHandler of a decorated server: answers the tools, resources and prompts methods from
 * the registry. Input is validated before a handler runs; results are normalised and shaped for
 * the revision that asked.
 */
import {
  APPS_EXTENSION,
  CallToolResult,
  Implementation,
  McpError,
  canonicalUri,
  declaresCapability,
  REVISIONS,
  RevisionFeatures,
  SKILLS_EXTENSION,
  ServerCapabilities,
  isRecord,
  isThenable,
  reuseSerialized,
  merge,
  nodeCrypto,
} from '@hermes-mcp/protocol';
import { Listing, McpContext, isInputRequired } from '../context/mcp-context';
import { HermesError, ToolError } from '../errors';
import type { McpHandler } from './mcp-handler';
import type { CompleteFn, McpServerOptions, Middleware, TaskStart, TaskSupport } from '../metadata/options';
import { toCallToolResult, toGetPromptResult, toReadResourceResult } from '../results/normalize';
import { complete } from '../bootstrap/completion';
import type { Invocation, Page, Registry, ShapedList, ToolDefinition } from '../bootstrap/registry';
import { compose } from './middleware';
import { TaskStartedSignal } from './tasks';
import { withTimeout } from './timeout';
import type { SkillsHost } from '../skills/host';
import { ServerOwner, methodSpec } from './methods';
import { servesApps } from '../bootstrap/apps';
import { shapeCallToolResult, shapeContents, shapeMessages } from '../results/shape';
import { ValidateOptions, ValidationIssue, ValidationResult, formatIssues, validateInputAsync as validateInput, validateInputNow } from '../validation/validator';

type Params = Record<string, unknown>;

function stringParam(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw McpError.invalidParams(`"${key}" must be a string`);
  return value;
}

const wholeLists = new WeakMap<readonly unknown[], Record<string, unknown>>();

/**
 * A list result. A list that fits one page is the registry's cached array, so its result object is
 * cached too and its JSON computed once (until the registry changes and builds a new array).
 */
function listResult(key: string, page: Page<unknown>): Record<string, unknown> {
  if (page.nextCursor !== undefined) return { [key]: page.items, nextCursor: page.nextCursor };
  let result = wholeLists.get(page.items);
  if (!result) wholeLists.set(page.items, (result = reuseSerialized(Object.freeze({ [key]: page.items }) as Record<string, unknown>)));
  return result;
}

/** The result keys of the four lists. */
const RESULT_KEY = { tool: 'tools', resource: 'resources', template: 'resourceTemplates', prompt: 'prompts' } as const;

/** Whether the caller sees a component: its middleware runs (with `ctx.listing` set) up to a `next()` that stops there. */
async function visible(middleware: readonly Middleware[], ctx: McpContext, listing: Listing): Promise<boolean> {
  try {
    await compose(middleware, () => undefined)(undefined, ctx.forListing(listing));
    return true;
  } catch {
    return false;
  }
}

function issuesData(issues: ValidationIssue[]): { issues: ValidationIssue[] } {
  return { issues };
}

/** What a server has declared so far: a kind once declared stays so (sessions were told). */
interface Offered {
  tools: boolean;
  resources: boolean;
  prompts: boolean;
  completions: boolean;
  apps: boolean;
}

/** Answers MCP requests from a registry built by the scanner. For the Hermes packages. */
export class DecoratedServerHandler implements McpHandler, ServerOwner {
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** What `capabilities` last gave, and the registry version it was computed at. */
  private declared?: { at: number; capabilities: ServerCapabilities };
  private readonly offered: Offered = { tools: false, resources: false, prompts: false, completions: false, apps: false };

  constructor(
    readonly registry: Registry,
    private readonly options: McpServerOptions,
    private readonly validation: ValidateOptions = {},
  ) {
    this.serverInfo = {
      name: options.name,
      version: options.version,
      ...(options.title !== undefined && { title: options.title }),
      ...(options.description !== undefined && { description: options.description }),
      ...(options.icons && { icons: options.icons }),
      ...(options.websiteUrl !== undefined && { websiteUrl: options.websiteUrl }),
    };
    this.instructions = options.instructions;
  }

  /**
   * What the server serves, read at every `initialize`, `server/discover` and `subscriptions/listen`
   * and before each request and list change (so, on every transport and in both eras, the same):
   *
   * - `tools`, `prompts`: when the registry holds one (enabled or not); `resources`: a resource, a
   *   template, skills or an MCP App view; each with `listChanged: true`, since the app changes
   *   every list while running (`addTool`, `tool(name).disable()`/`remove()`, `skills.reload()`)
   *   and tells clients so. `resources` comes with `subscribe: true`: the connection serves
   *   `resources/subscribe` (and a 2026-07-28 listen stream its `resourceSubscriptions`) on every
   *   transport, and `notifyResourceUpdated` reaches the subscribers.
   * - `completions`: when a prompt argument or template variable has a completion (`complete`,
   *   `@Complete`, or an `@IsIn`/`@IsEnum` property, which completes by itself).
   * - `logging`: always — every connection serves `logging/setLevel`, and `ctx.notify` logs to the
   *   client from any handler.
   * - What `@McpServer({ capabilities })` names is declared too, its values winning (a kind added
   *   only at runtime, `listChanged: false`, `subscribe: false`); the Skills and MCP Apps
   *   extensions when the server has them.
   *
   * The official SDKs (v1 `McpServer` 1.32, v2 2.4) declare the same for the same server — a kind
   * once something of it is registered, with `listChanged: true`, `completions` once a
   * `completable()` argument or a template's `complete` is, what the `capabilities` option names
   * (v2: its `listChanged` winning) — with these differences, on purpose:
   *
   * - `logging` and `resources.subscribe` are declared only when the SDK server is told to (and,
   *   for subscriptions, given handlers): Hermes serves both itself.
   * - An `@IsIn`/`@IsEnum` argument declares `completions`: Hermes completes it; the SDKs complete
   *   only what a `completable()` says.
   * - A kind added after clients connected: the SDKs refuse (`registerCapabilities` after
   *   `connect()` throws); Hermes declares it from then on, to the sessions and requests that
   *   start after it — `capabilities` names it for those before. Capabilities never shrink: the
   *   last tool removed leaves `tools` declared, as the sessions were told.
   *
   * `packages/core/test/capabilities.spec.ts` builds the same servers with both SDKs and compares.
   */
  get capabilities(): ServerCapabilities {
    const registry = this.registry;
    const declared = this.declared;
    if (declared?.at === registry.version) return declared.capabilities;
    const offered = this.offered;
    const now = registry.offers();
    offered.tools ||= now.tools;
    offered.resources ||= now.resources;
    offered.prompts ||= now.prompts;
    offered.completions ||= now.completions;
    offered.apps ||= servesApps(registry);
    const named = this.options.capabilities ?? {};
    const capabilities: ServerCapabilities = { logging: {} };
    if (offered.completions || named.completions) capabilities.completions = {};
    if (offered.tools || named.tools) capabilities.tools = { listChanged: named.tools?.listChanged ?? true };
    if (offered.resources || named.resources) capabilities.resources = { subscribe: named.resources?.subscribe ?? true, listChanged: named.resources?.listChanged ?? true };
    if (offered.prompts || named.prompts) capabilities.prompts = { listChanged: named.prompts?.listChanged ?? true };
    // Skills are declared whenever the option is set, even with no skill (an empty listing is allowed).
    const skills = registry.skills;
    if (skills || offered.apps)
      capabilities.extensions = {
        ...(skills && { [SKILLS_EXTENSION]: skills.directoryRead ? { directoryRead: true } : {} }),
        ...(offered.apps && { [APPS_EXTENSION]: {} }),
      };
    this.declared = { at: registry.version, capabilities: Object.freeze(capabilities) };
    return capabilities;
  }

  taskSupport(toolName: string): { mode: TaskSupport; start: TaskStart } | undefined {
    const tool = this.registry.tool(toolName);
    return tool?.task ? { mode: tool.task, start: tool.taskStart ?? 'auto' } : undefined;
  }

  inputSchemaOf(toolName: string): object | undefined {
    return this.registry.tool(toolName)?.descriptor.inputSchema;
  }

  /** Answers a request through its entry of the method table (methods.ts). */
  handleRequest(ctx: McpContext): Promise<Record<string, unknown>> | Record<string, unknown> {
    const spec = methodSpec(ctx.request.method);
    if (spec?.owner !== 'server' || !spec.revisions.includes(ctx.session.protocolVersion) || (spec.capability && !declaresCapability(this.capabilities, spec.capability))) {
      throw McpError.methodNotFound(ctx.request.method);
    }
    return spec.serve(this, ctx.request.params, ctx, REVISIONS[ctx.session.protocolVersion]);
  }

  /** `tools/list`. @internal Called through the method table, as are the methods below. */
  listTools(params: Params, ctx: McpContext, features: RevisionFeatures): Record<string, unknown> | Promise<Record<string, unknown>> {
    return this.list(this.registry.listTools(features), params, ctx);
  }

  /** `resources/list`. @internal */
  listResources(params: Params, ctx: McpContext, features: RevisionFeatures): Record<string, unknown> | Promise<Record<string, unknown>> {
    return this.list(this.registry.listResources(features), params, ctx);
  }

  /** `resources/templates/list`. @internal */
  listTemplates(params: Params, ctx: McpContext, features: RevisionFeatures): Record<string, unknown> | Promise<Record<string, unknown>> {
    return this.list(this.registry.listTemplates(features), params, ctx);
  }

  /** `prompts/list`. @internal */
  listPrompts(params: Params, ctx: McpContext, features: RevisionFeatures): Record<string, unknown> | Promise<Record<string, unknown>> {
    return this.list(this.registry.listPrompts(features), params, ctx);
  }

  /**
   * One page of a list. Without middleware on any item, the cached list (and result) serve
   * everyone. Otherwise each item's middleware decides whether this caller sees it, the page is cut
   * from what it sees, and a modern-era result is marked private (it is this caller's).
   */
  private list(list: ShapedList<unknown>, params: Params, ctx: McpContext): Record<string, unknown> | Promise<Record<string, unknown>> {
    const key = RESULT_KEY[list.kind];
    const guarded = list.guarded;
    if (!guarded) return listResult(key, this.registry.page(list.kind, list.items, params.cursor));
    // Checked before the middleware runs: a bad cursor is -32602 whatever the caller sees.
    if (params.cursor !== undefined) this.registry.page(list.kind, [], params.cursor);
    const checks = guarded.map((item) => (item.middleware ? visible(item.middleware, ctx, { kind: list.kind, name: item.key }) : Promise.resolve(true)));
    return Promise.all(checks).then((seen) => {
      const page = this.registry.page(
        list.kind,
        list.items.filter((_, i) => seen[i]),
        params.cursor,
      );
      const result: Record<string, unknown> = { [key]: page.items };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      if (ctx.session.era === 'modern') result.cacheScope = 'private';
      return result;
    });
  }

  /**
   * `tools/call`: synchronous from end to end when the validation and the handler are (the common
   * case), so it costs no promise; a promise as soon as either has to be awaited. @internal
   */
  callTool(params: Params, ctx: McpContext, features: RevisionFeatures): Promise<CallToolResult> | CallToolResult {
    const name = stringParam(params, 'name');
    const tool = this.registry.tool(name);
    if (!tool) throw McpError.invalidParams(`Unknown tool: ${name}`);
    const args = params.arguments ?? {};
    if (!isRecord(args)) throw McpError.invalidParams('"arguments" must be an object');
    if (!tool.inputClass) return this.runTool(tool, args, ctx, features);
    const pending = validateInputNow(tool.inputClass as new () => object, args, this.validation);
    if (pending instanceof Promise) return pending.then((checked) => this.validated(tool, checked, ctx, features));
    return this.validated(tool, pending, ctx, features);
  }

  private validated(tool: ToolDefinition, checked: ValidationResult<object>, ctx: McpContext, features: RevisionFeatures): Promise<CallToolResult> | CallToolResult {
    if (checked.ok) return this.runTool(tool, checked.value, ctx, features);
    const text = `Invalid arguments for tool "${tool.name}":\n${formatIssues(checked.issues)}`;
    return shapeCallToolResult({ content: [{ type: 'text', text }], isError: true }, features);
  }

  /** Runs the handler; its failures become error results (protocol errors are thrown on). */
  private runTool(tool: ToolDefinition, input: unknown, ctx: McpContext, features: RevisionFeatures): Promise<CallToolResult> | CallToolResult {
    let value: unknown;
    try {
      value = withTimeout(
        ctx,
        tool.timeout,
        () => tool.call(input, ctx),
        () => {
          throw new ToolError(`Tool "${tool.name}" timed out after ${tool.timeout} ms`);
        },
      );
    } catch (error) {
      return shapeCallToolResult(this.toolFailure(tool, error, ctx), features);
    }
    if (isThenable(value)) {
      return Promise.resolve(value).then(
        (settled) => this.toolResult(tool, settled, ctx, features),
        (error: unknown) => shapeCallToolResult(this.toolFailure(tool, error, ctx), features),
      );
    }
    return this.toolResult(tool, value, ctx, features);
  }

  private toolResult(tool: ToolDefinition, value: unknown, ctx: McpContext, features: RevisionFeatures): Promise<CallToolResult> | CallToolResult {
    let result: CallToolResult;
    try {
      result = toCallToolResult(value, tool.mimeType);
    } catch (error) {
      return shapeCallToolResult(this.toolFailure(tool, error, ctx), features);
    }
    if (!tool.outputClass) return shapeCallToolResult(result, features);
    return this.checkOutput(tool, result).then(
      () => shapeCallToolResult(result, features),
      (error: unknown) => shapeCallToolResult(this.toolFailure(tool, error, ctx), features),
    );
  }

  private async checkOutput(tool: ToolDefinition, result: CallToolResult): Promise<void> {
    if (result.isError) return;
    const structured = result.structuredContent;
    const checked = structured ? await validateInput(tool.outputClass as new () => object, structured, { whitelist: false }) : undefined;
    if (!checked || !checked.ok) {
      const detail = checked ? formatIssues(checked.issues) : 'it returned no structured content (return an object)';
      throw new HermesError('HERMES_OUTPUT_INVALID', `${tool.owner} returned output that does not match ${tool.outputClass!.name}: ${detail}`);
    }
  }

  private toolFailure(tool: ToolDefinition, error: unknown, ctx: McpContext): CallToolResult {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- passes on control-flow signals and protocol errors unchanged
    if (error instanceof McpError || isInputRequired(error) || error instanceof TaskStartedSignal) throw error;
    if (error instanceof ToolError) {
      const result: CallToolResult = { content: [{ type: 'text', text: error.message }], isError: true };
      if (error.details) result.structuredContent = error.details;
      return result;
    }
    // A handler stopped by its abort (cancelled, timed out, task cancelled) did not fail: no error log.
    if (!ctx.signal.aborted) ctx.log.error({ err: error, tool: tool.name }, `tool ${tool.owner} failed`);
    return { content: [{ type: 'text', text: `Tool "${tool.name}" failed with an internal error.` }], isError: true };
  }

  /** `skills/list`: a page of whole entries. @internal */
  listSkills(params: Params, _ctx: McpContext, features: RevisionFeatures): Record<string, unknown> {
    const page = this.registry.page('skill', this.skillsHost().catalog.entries, params.cursor);
    return this.skillResult(page.nextCursor === undefined ? { skills: page.items } : { skills: page.items, nextCursor: page.nextCursor }, features);
  }

  /** `skills/get`: -32602 for a URI that is no served skill's SKILL.md, in both eras (the extension says so). @internal */
  getSkill(params: Params, _ctx: McpContext, features: RevisionFeatures): Record<string, unknown> {
    const uri = stringParam(params, 'uri');
    const skill = this.skillsHost().skill(uri);
    if (!skill) throw McpError.invalidParams(`No skill is served at ${uri}: skills/get takes the uri of a SKILL.md from skills/list`, { uri });
    return this.skillResult({ skill }, features);
  }

  /** `resources/directory/read`: the direct children of a skill root or a folder inside one. @internal */
  readDirectory(params: Params, _ctx: McpContext, features: RevisionFeatures): Record<string, unknown> {
    const uri = stringParam(params, 'uri');
    const children = this.skillsHost().directory(uri);
    if (!children) throw McpError.invalidParams(`${uri} is not a directory resource: a skill's root or a folder inside one, with no trailing slash`, { uri });
    // One cursor kind per directory: a cursor of one directory is refused for another.
    const kind = `dir-${nodeCrypto()
      .createHash('sha256')
      .update(canonicalUri(uri) ?? uri)
      .digest('base64url')
      .slice(0, 16)}` as const;
    const page = this.registry.page(kind, children, params.cursor);
    return this.skillResult(page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor }, features);
  }

  private skillsHost(): SkillsHost {
    // The method table refuses skills methods without the capability, which is declared only with skills.
    return this.registry.skills!;
  }

  /** A skills result with the `skills.cache` hints, in MCP 2026-07-28 (the engine adds the server's otherwise). */
  private skillResult(result: Record<string, unknown>, features: RevisionFeatures): Record<string, unknown> {
    const cache = this.registry.skills?.cache;
    return cache && features.era === 'modern' ? merge(result, cache) : result;
  }

  /** `resources/read`: a skill file, else a resource or template of the registry. @internal */
  async readResource(params: Params, ctx: McpContext, features: RevisionFeatures): Promise<Record<string, unknown>> {
    const uri = stringParam(params, 'uri');
    const skillFile = this.registry.skills?.read(uri, ctx.log);
    if (skillFile) return this.skillResult({ contents: [skillFile] }, features);
    const found = this.registry.resolveResource(uri);
    if (!found) throw McpError.resourceNotFound(uri);
    const input = await this.checkInput(found.def, found.variables, (issues) =>
      McpError.invalidParams(`the URI "${uri}" does not fit ${found.def.owner}:\n${formatIssues(issues)}`, { uri, ...issuesData(issues) }),
    );
    const mimeType = found.def.descriptor.mimeType;
    const contentMeta = 'contentMeta' in found.def ? found.def.contentMeta : undefined;
    const result: Record<string, unknown> & ReturnType<typeof toReadResourceResult> = toReadResourceResult(await this.run(found.def, input, ctx), uri, mimeType, contentMeta);
    // Per-resource caching hints exist in MCP 2026-07-28 only (the engine adds the server's otherwise).
    const cache = found.def.cache;
    if (cache && features.era === 'modern') return merge(result, cache);
    if (features.meta) return result;
    return merge(result, { contents: result.contents.map((c) => shapeContents(c, features)) });
  }

  /** `prompts/get`. @internal */
  async getPrompt(params: Params, ctx: McpContext, features: RevisionFeatures): Promise<Record<string, unknown>> {
    const name = stringParam(params, 'name');
    const prompt = this.registry.prompt(name);
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${name}`);
    const args = params.arguments ?? {};
    if (!isRecord(args)) throw McpError.invalidParams('"arguments" must be an object of strings');
    const input = await this.checkInput(prompt, args, (issues) => McpError.invalidParams(`invalid arguments for prompt "${name}":\n${formatIssues(issues)}`, issuesData(issues)));
    const result = toGetPromptResult(await this.run(prompt, input, ctx), prompt.descriptor.description);
    return merge(result, { messages: shapeMessages(result.messages, features) });
  }

  /** `completion/complete`. @internal */
  async complete(params: Params, ctx: McpContext): Promise<Record<string, unknown>> {
    const ref = params.ref;
    const argument = params.argument;
    if (!isRecord(ref) || typeof ref.type !== 'string') throw McpError.invalidParams('"ref" must be an object with a "type"');
    if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw McpError.invalidParams('"argument" must be an object with a string "name" and "value"');
    }
    let completers: Readonly<Record<string, CompleteFn>>;
    if (ref.type === 'ref/prompt') {
      if (typeof ref.name !== 'string') throw McpError.invalidParams('"ref.name" must be a string');
      const prompt = this.registry.prompt(ref.name);
      if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${ref.name}`);
      completers = prompt.completers;
    } else if (ref.type === 'ref/resource') {
      if (typeof ref.uri !== 'string') throw McpError.invalidParams('"ref.uri" must be a string');
      const uri = ref.uri;
      const template = this.registry.template(uri);
      if (!template) {
        if (this.registry.resolveResource(uri)) return { completion: { values: [] } };
        throw McpError.invalidParams(`Unknown resource template: ${uri}`);
      }
      completers = template.completers;
    } else {
      throw McpError.invalidParams(`"ref.type" must be "ref/prompt" or "ref/resource", not "${ref.type}"`);
    }
    const context = isRecord(params.context) && isRecord(params.context.arguments) ? (params.context.arguments as Record<string, string>) : {};
    const fn = Object.prototype.hasOwnProperty.call(completers, argument.name) ? completers[argument.name] : undefined;
    try {
      return { completion: await complete(fn, argument.value, { arguments: context, session: ctx.session }) };
    } catch (error) {
      if (error instanceof McpError) throw error;
      ctx.log.error({ err: error }, 'completion failed');
      throw McpError.internalError('completion/complete failed with an internal error');
    }
  }

  private async checkInput(def: Invocation, raw: Params, fail: (issues: ValidationIssue[]) => McpError): Promise<unknown> {
    if (!def.inputClass) return raw;
    const checked = await validateInput(def.inputClass as new () => object, raw, this.validation);
    if (!checked.ok) throw fail(checked.issues);
    return checked.value;
  }

  /** Runs a resource or prompt handler: McpError passes through; anything else is logged and masked. */
  private async run(def: Invocation, input: unknown, ctx: McpContext): Promise<unknown> {
    try {
      return await def.call(input, ctx);
    } catch (error) {
      if (error instanceof McpError || isInputRequired(error) || error instanceof TaskStartedSignal) throw error;
      ctx.log.error({ err: error }, `${def.owner} failed`);
      throw McpError.internalError(`${ctx.request.method} failed with an internal error`);
    }
  }
}
