/**
 * What the decorators record: raw options as the user wrote them. The scanner turns them into
 * resolved definitions (see registry.ts) once, at bootstrap. The types those options name —
 * middleware, caching hints, task modes, completion functions — live here too, below the engine
 * that runs them, so that decorators and options depend on nothing that serves.
 */
import type { Annotations, AppCsp, AppPermissions, AppToolMeta, Icon, Implementation, JsonSchemaObject, Meta, ServerCapabilities, ToolAnnotations } from '@hermes-mcp/protocol';
import type { Constructor } from '../container';
import type { McpContext, SessionInfo } from '../context/mcp-context';

/** A middleware function. */
export type Middleware = (ctx: McpContext, next: () => Promise<unknown>) => unknown;

/** A middleware class (built by typedi, so it can have dependencies). */
export interface McpMiddleware {
  use(ctx: McpContext, next: () => Promise<unknown>): unknown;
}

/** A middleware function or class. */
export type MiddlewareLike = Middleware | Constructor<McpMiddleware>;

/** Caching hints of cacheable results (`ttlMs`, `cacheScope`). */
export interface CacheHints {
  /** How long a client may reuse the result, in milliseconds (default 0: do not reuse). */
  ttlMs?: number;
  /** `private` (per user, the default) or `public` (the same for everyone). */
  cacheScope?: 'private' | 'public';
}

/** Whether a tool runs as a task: `optional` (when the client declares the extension) or `required`. */
export type TaskSupport = 'optional' | 'required';

/** How a task-capable tool becomes a task: at once (`auto`), or when the handler calls `ctx.runAsTask` (`manual`, after asking its questions through MRTR). */
export type TaskStart = 'auto' | 'manual';

/** What a completion function knows besides the partial value. */
export interface CompletionContext {
  /** Arguments or variables the client already resolved (`context.arguments`). */
  readonly arguments: Readonly<Record<string, string>>;
  /** The client's session. */
  readonly session: SessionInfo;
}

/**
 * Suggests values for one argument from what the user typed so far. Return up to 100 values
 * (more are cut, and the result says there are more).
 */
export type CompleteFn = (value: string, ctx: CompletionContext) => readonly string[] | Promise<readonly string[]>;

/** Options of `@McpServer`. */
export interface McpServerOptions extends Implementation {
  /** Instructions sent in the `initialize` result: how a model should use this server. */
  instructions?: string;
  /** More classes whose `@Tool/@Resource/@Prompt` methods join this server; typedi builds them. */
  components?: Constructor[];
  /** Middleware around every handler of the server and its components (outermost first). */
  use?: MiddlewareLike[];
  /** Caching hints of this server's cacheable MCP 2026-07-28 results (the app's `cache` option wins). */
  cache?: CacheHints;
  /**
   * OAuth scopes every tool, resource and prompt of the server (and its components) needs: a caller
   * whose token lacks one does not see them listed, and calling one is refused (-32012; over HTTP
   * 403 with a step-up challenge). Added to each component's own `scopes`.
   */
  scopes?: string[];
  /**
   * Skills (SEP-2640, `io.modelcontextprotocol/skills`) this server offers: a folder of skill
   * folders (`'./skills'`, a `URL`), or {@link SkillsOptions}. Declares the extension (on MCP
   * 2025-11-25 and 2026-07-28), serves `skills/list`, `skills/get`, `resources/directory/read` and
   * the skills' files through `resources/read`. See docs/extensions.md.
   */
  skills?: string | URL | SkillsOptions;
  /**
   * What the server declares beyond what it has at start-up, as the SDKs' `capabilities` option
   * does. By itself a server declares `tools`, `resources` (with `subscribe`) and `prompts` when it
   * has one of that kind (skills and MCP App views are resources), each list with `listChanged:
   * true` (the app can change it while running: `app.addTool`, `app.tool(name).disable()`…);
   * `completions` when a prompt argument or template variable completes (`@Complete`, `complete`,
   * an `@IsIn`/`@IsEnum` property); and `logging`. Naming a kind here declares it too: name the
   * kinds the server adds only at runtime (`{ prompts: {} }` when its prompts all come from
   * `app.addPrompt`), so that clients that connect before the first one know of them (a session's
   * capabilities are those of its `initialize`). A value given here wins: `{ tools: { listChanged:
   * false } }` for a list that never changes (clients are then never told it did), `{ resources:
   * { subscribe: false } }` to refuse `resources/subscribe`.
   *
   * @example
   * \@McpServer({ name: 'plugins', version: '1.0.0', capabilities: { prompts: {} } })  // prompts come from app.addPrompt
   */
  capabilities?: DeclaredCapabilities;
  /**
   * How the schemas of every tool of the server are published: nested classes written out (the
   * default) or under `$defs`, closed output schemas. A tool's own `schemas` win.
   *
   * @example
   * \@McpServer({ name: 'memory', version: '1.0.0', schemas: { closedOutput: true } })
   */
  schemas?: SchemaOptions;
  /**
   * Other `@McpServer` classes served as part of this one, each under a namespace: their tools
   * and prompts are named `<namespace><mountSeparator><name>` (`billing_refund`), their resource
   * URIs and templates get the namespace as the first part after `://`
   * (`invoices://{id}` → `invoices://billing/{id}`). Each keeps its own middleware, guards and
   * scopes, run inside this server's `use` and `scopes`; typedi builds it. Mounted servers may
   * mount others. See docs/compose.md.
   *
   * @example
   * \@McpServer({ name: 'shop', version: '1.0.0', mount: { billing: BillingServer, crm: CrmServer } })
   */
  mount?: MountMap;
  /**
   * What goes between a namespace of `mount` and a mounted tool's or prompt's name (default `_`):
   * one or more of `A-Z a-z 0-9 _ - .`, so that every name stays one MCP allows.
   */
  mountSeparator?: string;
}

/** Mounted servers by namespace (`@McpServer({ mount })`, `McpFactory.create(App, { mount })`). */
export type MountMap = Readonly<Record<string, Constructor>>;

/** The capabilities a server may declare itself (see {@link McpServerOptions.capabilities}). */
export type DeclaredCapabilities = Pick<ServerCapabilities, 'tools' | 'resources' | 'prompts' | 'completions'>;

/**
 * How the schemas built from a tool's classes are published (`@McpServer({ schemas })` for every
 * tool, `@Tool({ schemas })` for one: the tool's own win, key by key). See docs/schemas.md.
 */
export interface SchemaOptions {
  /**
   * How nested classes are written in `inputSchema` and `outputSchema`. `'inline'` (the default):
   * where each is used, so that a client or model that does not resolve `$ref` sees every
   * property (as the official SDKs publish theirs); only a class that refers to itself, directly
   * or through others, goes under `$defs`, and a schema that would grow past 64 KiB of JSON keeps
   * the classes it uses more than once there. `'defs'`: each class once under `$defs`, referred to
   * by `$ref`. Both accept the same values.
   */
  nested?: 'inline' | 'defs';
  /**
   * `outputSchema` says `additionalProperties: false` on its root and on every nested object, and
   * the server holds the results to it: a result whose `structuredContent` has a key the output
   * class (or a class nested in it) does not declare fails like any output that does not match
   * (`HERMES_OUTPUT_INVALID`, logged; the client gets a tool error). Default false: extra keys are
   * sent, and the schema lets them through. (Input schemas say `additionalProperties: false` when
   * the app validates with `validation: { forbidNonWhitelisted: true }`, which refuses such keys.)
   */
  closedOutput?: boolean;
}

/** A skill's files given in code: path inside the skill (`SKILL.md`, `references/FORMS.md`) → content (a string is UTF-8). */
export type SkillFiles = Readonly<Record<string, string | Uint8Array>>;

/** The limits a skill must stay within to be served (a skill over one is refused, never served in part). */
export interface SkillLimits {
  /** Files per skill, SKILL.md included (default 512, the extension's). */
  files?: number;
  /** Bytes of all its files together (default 16 MiB, the extension's). */
  bytes?: number;
  /** Bytes of one file (default 16 MiB): checked before the file is opened. */
  fileBytes?: number;
  /** Bytes of SKILL.md's frontmatter block (default 64 KiB). */
  frontmatterBytes?: number;
}

/** Options of the `skills` option of `@McpServer`. */
export interface SkillsOptions {
  /**
   * Folders of skill folders: each folder below one holding a `SKILL.md` is a skill, its path
   * relative to the root its skill path (`skill://<prefix>/<path>/SKILL.md`). A relative path
   * resolves against the working directory: prefer `join(__dirname, '../skills')`.
   */
  folders?: string | URL | Array<string | URL>;
  /** Skills given in code, by skill path (`'reports/weekly'`): their files, hashed once at bootstrap. */
  inline?: Readonly<Record<string, SkillFiles>>;
  /** An organisational prefix before every skill path (`'acme'` → `skill://acme/<path>/SKILL.md`). */
  prefix?: string;
  /** Serve `resources/directory/read` and declare `directoryRead` (default true). */
  directoryRead?: boolean;
  /** Per-skill limits; see {@link SkillLimits}. */
  limits?: SkillLimits;
  /**
   * A folder skill that breaks a rule (frontmatter, name, limits, a symlink…) fails
   * `McpFactory.create` (and `app.skills.reload()`) instead of being skipped with a warning.
   */
  strict?: boolean;
  /** Caching hints of `skills/*`, directory reads and skill file reads (MCP 2026-07-28); default: the server's. */
  cache?: CacheHints;
}

/** Options of `@Skill`. */
export interface SkillOptions {
  /** The skill path (`'reports/weekly'`): its URI is `skill://<prefix>/<path>/SKILL.md`, its last segment the frontmatter's `name`. */
  path: string;
}

/** One `@Skill` method, as recorded by its decorator. @internal */
export interface SkillMethodMetadata {
  method: string;
  options: SkillOptions;
}

/** Options shared by every handler decorator. */
interface HandlerOptionsBase {
  /** Human-readable name (2025-06-18+). */
  title?: string;
  /** What it does; models read this. Defaults to none (prefer writing one). */
  description?: string;
  /** Icons for display (2025-11-25+). */
  icons?: Icon[];
  /** Extra metadata (`_meta`, 2025-06-18+). */
  _meta?: Meta;
  /**
   * OAuth scopes the caller's token needs (all of them): without them it is left out of lists
   * and refused when called (-32012; over HTTP 403 with a step-up challenge). See docs/auth.md.
   */
  scopes?: string[];
}

/** Options of `@Tool`. */
export interface ToolOptions extends HandlerOptionsBase {
  /** The tool's name; defaults to the method's name. */
  name?: string;
  /** The input class (class-validator decorated); defaults to the first parameter's type. */
  input?: Constructor;
  /**
   * A JSON Schema published as the tool's `inputSchema` exactly as written (a copy taken at
   * bootstrap), for input a class cannot describe: `$schema`, `$defs`, `$anchor`,
   * `additionalProperties`, `allOf`/`anyOf`, `if`/`then`/`else`… all reach the client untouched.
   * Its root must be `type: 'object'`.
   *
   * Hermes does not validate against it. With an input class as well (`input`, or the parameter's
   * type) the arguments are validated into that class as usual; without one the handler receives
   * the `arguments` object as the client sent it (only checked to be an object).
   *
   * @example
   * \@Tool({
   *   description: 'Save a contact',
   *   inputSchema: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
   * })
   * save(args: Record<string, unknown>) { return `saved ${String(args.name)}`; }
   */
  inputSchema?: JsonSchemaObject;
  /** The output class: gives an `outputSchema`, and results are validated against it. */
  output?: Constructor;
  /**
   * How this tool's `inputSchema` and `outputSchema` are published, over the server's
   * `schemas`; see {@link SchemaOptions}.
   *
   * @example
   * \@Tool({ output: Graph, schemas: { nested: 'defs', closedOutput: true } })
   */
  schemas?: SchemaOptions;
  /** Behaviour hints (2025-03-26+). */
  annotations?: ToolAnnotations;
  /** The MIME type of binary return values (`Buffer`/`Uint8Array`): `image/*`, `audio/*` or other. */
  mimeType?: string;
  /** Milliseconds the tool may run; then its signal aborts and the call returns a tool error. */
  timeout?: number;
  /**
   * Runs as a task (MCP 2026-07-28 tasks extension) when the request declares the extension:
   * `optional` runs it synchronously otherwise; `required` refuses such requests with -32021.
   */
  task?: TaskSupport;
  /** `manual`: the handler first asks its questions (MRTR), then calls `ctx.runAsTask(work)`. Default `auto`. */
  taskStart?: TaskStart;
  /**
   * MCP Apps (2025-06-18+): the `ui://` view a host renders this tool's results in (an
   * `@AppResource` of this server: the app refuses to start otherwise), and who may call the tool —
   * `['model']`, `['app']` (only a view of this server; the agent does not see it) or both (the
   * default). Published as `_meta.ui` and the older `_meta['ui/resourceUri']`. The result's
   * `content` is still what a host without Apps shows: return text (or an object, which gives
   * `structuredContent` for the view and its JSON as text).
   *
   * @example
   * \@Tool({ description: 'Adds to the counter', ui: { resourceUri: 'ui://counter/view.html', visibility: ['app'] } })
   */
  ui?: AppToolMeta;
}

/** Options of `@Resource`. */
export interface ResourceOptions extends HandlerOptionsBase {
  /** A URI (`notes://all`) or a template with `{var}` parts (`notes://note/{id}`). */
  uri: string;
  /** The resource's name; defaults to the method's name. */
  name?: string;
  /** MIME type of the contents. */
  mimeType?: string;
  /** The class the template variables are validated into; defaults to the first parameter's type. */
  params?: Constructor;
  /** Size in bytes, when known (static resources). */
  size?: number;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Completion functions per template variable (`completion/complete`). */
  complete?: Record<string, CompleteFn>;
  /** Caching hints of this resource's `resources/read` results (MCP 2026-07-28); default: the server's. */
  cache?: CacheHints;
}

/**
 * Options of `@AppResource`: a `@Resource` serving an MCP App's HTML view, whose MIME type is
 * always `text/html;profile=mcp-app`. The security and display settings go on the listed resource
 * and on every content item it reads as `_meta.ui`; hosts build the view's sandbox from them.
 */
export interface AppResourceOptions extends Omit<ResourceOptions, 'mimeType' | 'params' | 'complete' | 'size'> {
  /** A static `ui://` URI (`ui://counter/view.html`); tools name it in `ui.resourceUri`. */
  uri: string;
  /**
   * The origins the view may reach (`connectDomains`: fetch/XHR/WebSocket; `resourceDomains`:
   * scripts, styles, images, fonts, media; `frameDomains`: nested iframes; `baseUriDomains`), one
   * origin an entry (`https://cdn.example.com`, `https://*.example.com`). Hosts allow nothing else.
   */
  csp?: AppCsp;
  /** Browser features the view asks for (`camera`, `microphone`, `geolocation`, `clipboardWrite`: `{}` each); hosts may grant them. */
  permissions?: AppPermissions;
  /** A dedicated sandbox origin for the view, in the format its host documents. */
  domain?: string;
  /** Whether the view wants the host's border and background (omitted: the host decides). */
  prefersBorder?: boolean;
}

/** Options of `@Prompt`. */
export interface PromptOptions extends HandlerOptionsBase {
  /** The prompt's name; defaults to the method's name. */
  name?: string;
  /** The arguments class (class-validator decorated); defaults to the first parameter's type. */
  args?: Constructor;
  /** Completion functions per argument (`completion/complete`); enums complete by themselves. */
  complete?: Record<string, CompleteFn>;
}

/** What kind of handler a method is (`app`: an `@AppResource`). @internal */
export type HandlerKind = 'tool' | 'resource' | 'app' | 'prompt';

/** One decorated method, as recorded by its decorator. @internal */
export interface HandlerMetadata {
  kind: HandlerKind;
  method: string;
  options: ToolOptions | ResourceOptions | AppResourceOptions | PromptOptions;
}
