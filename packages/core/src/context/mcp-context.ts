/**
 * The request context: one object per request, created by the engine from what the transport and
 * the session know, and handed to handlers and middleware. Options and decorators name it (a
 * middleware's parameter), so it sits below them and depends on no schema or engine code: how a
 * form class becomes an elicitation schema, and how the answer is checked, come with the channel
 * ({@link ElicitationForms}).
 *
 * `elicit`, `sample` and `listRoots` ask the client something. In the legacy era they send a
 * server→client request related to this one and await the answer; each first checks that the
 * client declared the capability, and fails with -32021 (and the capability it lacks) otherwise.
 */
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  ClientCapabilities,
  isModernProtocolVersion,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitAction,
  Era,
  ErrorCode,
  Implementation,
  InboundRequestExtra,
  LoggingLevel,
  McpError,
  Meta,
  ProtocolVersion,
  REVISIONS,
  RequestId,
  RequestOptions,
  Root,
  TransportInfo,
  isRecord,
} from '@hermes-mcp/protocol';
import type { Constructor } from '../container';
import type { Logger } from '../logger';
import { publishNotification } from '../diagnostics';

/** The request being handled. */
export interface RequestInfo {
  /** The JSON-RPC id. */
  readonly id: RequestId;
  /** The MCP method, e.g. `tools/call`. */
  readonly method: string;
  /** The params as received (never mutated by the framework). */
  readonly params: Record<string, unknown>;
  /** The request's `_meta`, if any. */
  readonly _meta?: Meta;
}

/** What the engine knows of the client on this connection or request. */
export interface SessionInfo {
  /** Session id (legacy HTTP); undefined on stdio. */
  readonly id?: string;
  /** `legacy` (initialize) or `modern` (stateless). */
  readonly era: Era;
  /** The negotiated (legacy) or requested (modern) protocol revision. */
  readonly protocolVersion: ProtocolVersion;
  /** The client's name and version, as it declared them. */
  readonly clientInfo?: Implementation;
  /** What the client can do. */
  readonly clientCapabilities: ClientCapabilities;
}

/** Verified caller identity, when an auth layer put one there. Never holds the raw token. */
export interface AuthInfo {
  /** Who the caller is (a token's `sub`). */
  readonly subject?: string;
  /** The OAuth client acting for the caller (`client_id`, `azp`). */
  readonly clientId?: string;
  /** What the caller may do. */
  readonly scopes: readonly string[];
  /** When the credential expires, in seconds since the epoch (a token's `exp`). */
  readonly expiresAt?: number;
  /** Who issued the credential (a token's `iss`). */
  readonly issuer?: string;
  /** Other claims worth a guard's look (tenant, roles). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * How a context talks back to the client. One per connection (not per request): every call names
 * the request it belongs to, so transports can route it. For the Hermes packages.
 */
export interface RequestChannel {
  notify(relatedRequestId: RequestId, method: string, params: Record<string, unknown>): Promise<void>;
  /** A server→client request made for `relatedRequestId`, whose transport description is `transport` (its HTTP exchange's, on HTTP). */
  request(relatedRequestId: RequestId, method: string, params: Record<string, unknown>, options?: RequestOptions, transport?: TransportInfo): Promise<Record<string, unknown>>;
  /** The minimum level the client asked for with `logging/setLevel`, if any. */
  logLevel(): LoggingLevel | undefined;
  /** How `ctx.elicit` writes a form class's schema and checks the answer. */
  readonly forms: ElicitationForms;
}

/**
 * The schema and validation layers' part of `ctx.elicit`, handed to the context by the engine
 * (schema/elicitation-schema.ts: `elicitationForms`) so that the context imports neither. For the
 * Hermes packages.
 */
export interface ElicitationForms {
  /** The `requestedSchema` of a form class, in the dialect of `revision`. */
  schemaFor(form: Constructor, revision: '2025-06-18' | '2025-11-25'): object;
  /** The accepted answer turned into an instance of `form` and validated; a -32602 error when it does not fit. */
  check<T extends object>(form: Constructor<T>, content: unknown): Promise<T>;
}

/** The user's answer to {@link McpContext.elicit}: the validated content only when accepted. */
export type ElicitResult<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** A URL-mode elicitation (MCP 2025-11-25): the client opens `url` for the user. */
export interface UrlElicitation {
  /** What the user is asked to do there. */
  url: string;
  /** Unique within the server; generated when omitted. */
  elicitationId?: string;
}

/** Options of a question to the client. */
export interface AskOptions {
  /**
   * The key of this question in MCP 2026-07-28 multi round-trip requests (`inputRequests`), stable
   * across rounds. Default: the kind and its position among this handler's questions
   * (`elicit:0`, `sample:0`, `roots:0`), which holds as long as the handler asks in the same order.
   */
  key?: string;
}

/**
 * Thrown through a handler when a modern-era question has no answer yet: the engine then ends the
 * round with an `InputRequiredResult`. It is not an `Error`, so handlers' error mapping passes it on.
 * @internal
 */
export class InputRequiredSignal {
  readonly inputRequired = true;
}

/** True for the signal that ends a round (MCP 2026-07-28). @internal */
export function isInputRequired(value: unknown): value is InputRequiredSignal {
  return value instanceof InputRequiredSignal;
}

/**
 * Where the modern era's questions to the client are answered: an MRTR round (answers from the
 * retry, or the round ends) or a task (the task waits for `tasks/update`).
 * @internal
 */
export interface InputSource {
  ask(kind: string, method: string, params: Record<string, unknown>, options: AskOptions): Promise<Record<string, unknown>>;
}

const NOTHING_USED: ReadonlySet<string> = new Set();

/**
 * The questions and answers of one modern-era round: answers from `inputResponses` and the sealed
 * `requestState`; questions still open become `inputRequests`.
 * @internal
 */
export class InputRound implements InputSource {
  private questions?: Record<string, { method: string; params: Record<string, unknown> }>;
  private used?: Set<string>;
  private counters?: Record<string, number>;

  constructor(readonly answers: Record<string, unknown>) {}

  /** Questions without an answer, by key (made on first use: most rounds ask none). */
  get pending(): Record<string, { method: string; params: Record<string, unknown> }> {
    return this.questions ?? {};
  }

  /** True once a question went unanswered: the round ends with `input_required`. */
  get asked(): boolean {
    return this.questions !== undefined;
  }

  /** Keys whose answer the handler used. */
  get consumed(): ReadonlySet<string> {
    return this.used ?? NOTHING_USED;
  }

  /** The key of the next question of `kind`. */
  nextKey(kind: string): string {
    const counters = (this.counters ??= {});
    const n = counters[kind] ?? 0;
    counters[kind] = n + 1;
    return `${kind}:${n}`;
  }

  /** The answer of this round, or the question is recorded and the round ends. */
  // eslint-disable-next-line @typescript-eslint/require-await -- async so that the answer and the signal both arrive as a promise
  async ask(kind: string, method: string, params: Record<string, unknown>, options: AskOptions): Promise<Record<string, unknown>> {
    const key = options.key ?? this.nextKey(kind);
    const answer = this.answers[key];
    if (answer !== undefined) {
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
        throw McpError.invalidParams(`inputResponses["${key}"] must be the result of ${method}`, { key });
      }
      (this.used ??= new Set()).add(key);
      return answer as Record<string, unknown>;
    }
    (this.questions ??= {})[key] = { method, params };
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a control-flow signal (no stack wanted), caught by the modern handler
    throw new InputRequiredSignal();
  }
}

const LEVEL_RANK: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** What a context method that had nothing to do returns. */
const DONE: Promise<void> = Promise.resolve();

const ACTIONS: ReadonlySet<string> = new Set<ElicitAction>(['accept', 'decline', 'cancel']);

/** The component a list method is deciding about (see {@link McpContext.listing}). */
export interface Listing {
  readonly kind: 'tool' | 'resource' | 'template' | 'prompt';
  /** The tool's or prompt's name, the resource's URI, or the template's URI template. */
  readonly name: string;
}

/** A list clients can be told changed: `notifications/{list}/list_changed`. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * What a handler may do to the whole server, beyond its own request: the server-wide
 * notifications. The app (`McpApp`) implements it, and every context of its requests reaches it
 * through {@link McpContext.notifyResourceUpdated} and {@link McpContext.notifyListChanged}, so a
 * handler needs no service filled in by `main`. Named here, below the app, so the context depends on
 * nothing that serves. For the Hermes packages.
 */
export interface ServerActions {
  /** Tells the clients subscribed to `uri` that it changed (see {@link McpContext.notifyResourceUpdated}). */
  notifyResourceUpdated(uri: string): void;
  /** Tells clients that `list` changed (see {@link McpContext.notifyListChanged}). */
  notifyListChanged(list: ListKind): void;
}

/** What the context of one request is made of. @internal */
export interface ContextParts {
  /** The request being handled. */
  readonly request: RequestInfo;
  /** The client, as this connection (legacy) or this request (modern) tells it. */
  readonly session: SessionInfo;
  /** Where the request came from. */
  readonly transport: TransportInfo;
  /** The request's signal and abort (the peer's, or a task's). */
  readonly extra: InboundRequestExtra;
  /** Where its notifications and server→client requests go. */
  readonly channel: RequestChannel;
  /** The logger its `ctx.log` is a child of. */
  readonly log: Logger;
  /** The server-wide actions of the app serving the request. */
  readonly server: ServerActions;
}

/**
 * The context of one request. Handlers receive it as their second parameter (or the one marked
 * `@Ctx()`).
 *
 * @example
 * \@Tool() async slow(input: Job, ctx: McpContext) {
 *   for (let i = 0; i < 3; i++) {
 *     if (ctx.signal.aborted) return 'stopped';
 *     await ctx.progress(i + 1, 3, `step ${i + 1}`);
 *   }
 * }
 */
export class McpContext {
  private childLog?: Logger;
  private lastProgress = -Infinity;

  private assigned?: Record<string, unknown>;

  /** What middleware put here for later handlers. */
  get assigns(): Record<string, unknown> {
    return (this.assigned ??= {});
  }

  /** The request being handled. */
  readonly request: RequestInfo;
  /**
   * Set while a list method (`tools/list`, `resources/list`, `resources/templates/list`,
   * `prompts/list`) asks a component's middleware whether the caller sees it: `next()` then
   * resolves at once without running the handler, and a middleware that throws hides the
   * component. Undefined on every other request. A middleware that should not run for lists
   * (timing, auditing) returns `next()` when it is set.
   */
  readonly listing?: Listing;
  /** The client, as this connection knows it. */
  readonly session: SessionInfo;
  /** Where the request came from (`kind`: `stdio`, `http`, …). */
  readonly transport: TransportInfo;
  /** Where a modern-era request's questions are answered (MRTR round or task). @internal */
  readonly round?: InputSource;
  /** The app serving this request (`McpApp.of(ctx)` reads it). @internal */
  readonly server: ServerActions;
  private readonly extra: InboundRequestExtra;
  private readonly channel: RequestChannel;
  private readonly baseLog: Logger;
  private readonly taskStarter?: <T>(work: (ctx: McpContext) => Promise<T>) => never;

  /**
   * @internal Made by the engine for each request (connection.ts, modern.ts). A modern-era request
   * adds where its questions are answered (an MRTR round or a task) and, for a `taskStart:
   * 'manual'` tool, what starts its task.
   */
  constructor(parts: ContextParts, round?: InputSource, startTask?: <T>(work: (ctx: McpContext) => Promise<T>) => never) {
    this.request = parts.request;
    this.session = parts.session;
    this.transport = parts.transport;
    this.extra = parts.extra;
    this.channel = parts.channel;
    this.baseLog = parts.log;
    this.server = parts.server;
    this.round = round;
    this.taskStarter = startTask;
  }

  /**
   * This context as seen while a list asks whether the caller sees `listing` (see {@link listing}):
   * everything else is this context's. @internal
   */
  forListing(listing: Listing): McpContext {
    return Object.create(this, { listing: { value: listing, enumerable: true } }) as McpContext;
  }

  /**
   * Whether the client renders MCP Apps: it declared the `io.modelcontextprotocol/ui` extension
   * with `text/html;profile=mcp-app` among its `mimeTypes` (at `initialize`, or in a 2026-07-28
   * request's `_meta`), and speaks 2025-06-18 or newer (before, tools carry no `_meta` to name
   * their view). A tool linked to a view may answer the others with plain text only.
   */
  get appsSupported(): boolean {
    if (!REVISIONS[this.session.protocolVersion].meta) return false;
    const extensions = this.session.clientCapabilities.extensions;
    const ui = isRecord(extensions) ? extensions[APPS_EXTENSION] : undefined;
    return isRecord(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(APP_MIME_TYPE);
  }

  /**
   * The caller's verified identity, as the HTTP adapter's `authenticate` hook gave it (see
   * {@link HttpEndpointOptions.authenticate}); undefined for anonymous callers and on stdio.
   */
  get auth(): AuthInfo | undefined {
    return this.transport.auth as AuthInfo | undefined;
  }

  /** Aborted on cancellation, disconnect, timeout or shutdown. */
  get signal(): AbortSignal {
    return this.extra.signal;
  }

  /**
   * Goes on as a task (MCP 2026-07-28 tasks extension, tools with `taskStart: 'manual'`): the call
   * answers with a task handle now and `work` runs in the background with the task's context. Where
   * tasks do not apply (legacy clients, no extension declared), `work` runs right here.
   *
   * @example
   * \@Tool({ task: 'required', taskStart: 'manual' })
   * async build(ctx: McpContext) {
   *   const who = await ctx.elicit('Who is it for?', NameForm, { key: 'user_name' }); // MRTR, before the task
   *   return ctx.runAsTask(async () => slowBuildFor(who));
   * }
   */
  runAsTask<T>(work: (ctx: McpContext) => Promise<T>): Promise<T> {
    if (!this.taskStarter) return work(this);
    // The task's context speaks for the same mounted server as this one (docs/compose.md).
    const mountedUri = this.mountedUri;
    if (!mountedUri) return this.taskStarter(work);
    return this.taskStarter((ctx) => {
      ctx.mountedUri = mountedUri;
      return work(ctx);
    });
  }

  /** Aborts this request's signal from the server side (timeouts); the request is still answered. @internal */
  abort(reason: unknown): void {
    this.extra.abort(reason);
  }

  /** A pino child logger bound to this request (server-side log, never sent to the client). */
  get log(): Logger {
    return (this.childLog ??= this.baseLog.child({ requestId: this.request.id, method: this.request.method }));
  }

  /**
   * Reports progress, when the client asked for it (the request carried a `progressToken`);
   * otherwise does nothing. `progress` must increase; a value not above the last one is dropped.
   */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    // Not an async function: the common call (no token asked for) returns a settled promise and allocates nothing.
    const token = this.request._meta?.progressToken;
    if ((typeof token !== 'string' && !Number.isInteger(token)) || this.extra.aborted) return DONE;
    if (!(progress > this.lastProgress)) return DONE;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` on progress arrived in 2025-03-26: older revisions never get a field they lack.
    if (message !== undefined && REVISIONS[this.session.protocolVersion].progressMessage) params.message = message;
    return this.send('notifications/progress', params);
  }

  /**
   * Sends a log message to the client (`notifications/message`) when `level` is at or above the
   * level it set with `logging/setLevel`. Nothing is sent if it never set one.
   */
  async notify(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const min = this.channel.logLevel();
    if (min === undefined || LEVEL_RANK[level] < LEVEL_RANK[min] || this.extra.aborted) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.send('notifications/message', params);
  }

  /** Sends one of this request's notifications (observers are told: `hermes-mcp:notification`). */
  private send(method: string, params: Record<string, unknown>): Promise<void> {
    publishNotification(() => ({
      method,
      params,
      relatedRequestId: this.request.id,
      // 2026-07-28 has no session, whatever the transport calls its connection.
      sessionId: isModernProtocolVersion(this.session.protocolVersion) ? undefined : (this.transport.sessionId as string | undefined),
      transport: this.transport,
      protocolVersion: this.session.protocolVersion,
    }));
    return this.channel.notify(this.request.id, method, params);
  }

  /**
   * Tells the clients watching `uri` that the resource changed (`notifications/resources/updated`):
   * every session subscribed to it (`resources/subscribe`) and every 2026-07-28 listen stream that
   * named it, on every transport, and with a `cluster` on the other instances too. The app's own
   * `notifyResourceUpdated`: the same path, from any handler. Clients that did not subscribe hear
   * nothing. In a mounted server (`@McpServer({ mount })`), `uri` is one of its own URIs: the
   * clients subscribed to its prefixed form hear it (docs/compose.md).
   *
   * @example
   * \@Tool({ description: 'Adds an entity to the graph' })
   * addEntity(input: EntityInput, ctx: McpContext) {
   *   this.graph.add(input);
   *   ctx.notifyResourceUpdated('memory://graph');
   *   return `added ${input.name}`;
   * }
   */
  notifyResourceUpdated(uri: string): void {
    this.server.notifyResourceUpdated(this.mountedUri ? this.mountedUri(uri) : uri);
  }

  /**
   * Set while a mounted server's middleware and handler run (bootstrap/mount.ts): turns a URI as
   * that server names it into the one clients see. A field of the request's own context, not a
   * context of its own, so that a mounted call allocates nothing more. @internal
   */
  mountedUri?: (uri: string) => string;

  /**
   * Tells clients that a list changed (`notifications/{tools,resources,prompts}/list_changed`):
   * every session, and the 2026-07-28 listen streams that asked for that list, with a `cluster` on
   * every instance; the changes of one tick make one notification per list. The app's changes
   * (`addTool`, `tool(name).disable()`, `skills.reload()`…, reached from a handler through
   * `McpApp.of(ctx)`) tell clients by themselves: call this when a list changes otherwise (an
   * `McpHandler` serving lists of its own). Nothing is sent for a list the server does not declare
   * with `listChanged: true`.
   */
  notifyListChanged(list: ListKind): void {
    this.server.notifyListChanged(list);
  }

  /**
   * Asks the user for input through the client (`elicitation/create`, MCP 2025-06-18+).
   *
   * With a class, the form's schema comes from its class-validator decorators (strings, numbers,
   * booleans and enums) and an accepted answer is validated into an instance of it: an answer that
   * does not validate fails with -32602. With `{ url }` (2025-11-25), the client sends the user to
   * a page instead; an accepted answer has no content.
   *
   * @example
   * const answer = await ctx.elicit('Who should we greet?', GreetingForm);
   * if (answer.action !== 'accept') return 'Nobody to greet.';
   * return `Hello, ${answer.content.name}!`;
   */
  elicit<T extends object>(message: string, form: Constructor<T>, options?: AskOptions): Promise<ElicitResult<T>>;
  elicit(message: string, url: UrlElicitation, options?: AskOptions): Promise<ElicitResult<undefined>>;
  async elicit<T extends object>(message: string, form: Constructor<T> | UrlElicitation, options: AskOptions = {}): Promise<ElicitResult<T | undefined>> {
    const version = this.session.protocolVersion;
    const features = REVISIONS[version];
    const capability = this.session.clientCapabilities.elicitation;
    if (!features.elicitation) throw this.unsupported('elicitation', `elicitation needs MCP 2025-06-18 or newer; this client speaks ${version}`);
    if (!capability) throw this.unsupported('elicitation', 'the client did not declare the elicitation capability');
    let params: Record<string, unknown>;
    if (typeof form === 'function') {
      // A client that declares `elicitation: {}` supports form mode (the 2025-06-18 meaning).
      if (features.urlElicitation && capability.url && !capability.form)
        throw this.unsupported('elicitation', 'the client supports URL elicitation only', { elicitation: { form: {} } });
      const requestedSchema = this.channel.forms.schemaFor(form, features.urlElicitation ? '2025-11-25' : '2025-06-18');
      params = features.urlElicitation ? { mode: 'form', message, requestedSchema } : { message, requestedSchema };
    } else {
      if (!features.urlElicitation) throw this.unsupported('elicitation', `URL elicitation needs MCP 2025-11-25; this client speaks ${version}`, { elicitation: { url: {} } });
      if (!capability.url) throw this.unsupported('elicitation', 'the client did not declare URL elicitation', { elicitation: { url: {} } });
      // 2026-07-28 dropped elicitationId (and the completion notification that used it).
      params =
        features.era === 'modern' ? { mode: 'url', message, url: form.url } : { mode: 'url', message, url: form.url, elicitationId: form.elicitationId ?? crypto.randomUUID() };
    }
    const result = await this.ask('elicit', 'elicitation/create', params, options);
    const action = result.action;
    if (typeof action !== 'string' || !ACTIONS.has(action)) throw McpError.invalidParams('the client answered the elicitation without a valid "action"');
    if (action !== 'accept') return { action } as ElicitResult<T>;
    if (typeof form !== 'function') return { action: 'accept', content: undefined };
    return { action: 'accept', content: await this.channel.forms.check(form, result.content ?? {}) };
  }

  /**
   * Asks the client's model for a completion (`sampling/createMessage`). Pass a prompt string for
   * the common case, or the full params (with `tools` on MCP 2025-11-25, when the client declared
   * `sampling.tools`).
   *
   * @example
   * const reply = await ctx.sample('Summarise: ' + text, { maxTokens: 200 });
   */
  async sample(prompt: string | CreateMessageRequestParams, options: AskOptions & { maxTokens?: number; systemPrompt?: string } = {}): Promise<CreateMessageResult> {
    const capability = this.session.clientCapabilities.sampling;
    if (!capability) throw this.unsupported('sampling', 'the client did not declare the sampling capability');
    const params: CreateMessageRequestParams =
      typeof prompt === 'string'
        ? {
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: options.maxTokens ?? 1000,
            ...(options.systemPrompt !== undefined && { systemPrompt: options.systemPrompt }),
          }
        : prompt;
    if (params.tools || params.toolChoice) {
      if (!REVISIONS[this.session.protocolVersion].samplingTools) {
        throw this.unsupported('sampling', `sampling with tools needs MCP 2025-11-25; this client speaks ${this.session.protocolVersion}`, { sampling: { tools: {} } });
      }
      if (!capability.tools) throw this.unsupported('sampling', 'the client did not declare sampling with tools', { sampling: { tools: {} } });
    }
    const result = await this.ask('sample', 'sampling/createMessage', params, options);
    if (typeof result.model !== 'string' || (result.role !== 'user' && result.role !== 'assistant') || typeof result.content !== 'object') {
      throw McpError.invalidParams('the client answered sampling/createMessage without role, content and model');
    }
    return result as CreateMessageResult;
  }

  /**
   * The client's roots (`roots/list`): the directories or files it lets this server work on.
   *
   * @example
   * const roots = await ctx.listRoots();
   */
  async listRoots(options: AskOptions = {}): Promise<Root[]> {
    if (!this.session.clientCapabilities.roots) throw this.unsupported('roots', 'the client did not declare the roots capability');
    const result = await this.ask('roots', 'roots/list', {}, options);
    if (!Array.isArray(result.roots)) throw McpError.invalidParams('the client answered roots/list without a "roots" array');
    return result.roots as Root[];
  }

  /**
   * Forwards a question another server asked, as it is: `elicitation/create`,
   * `sampling/createMessage` or `roots/list` with its params whole, answered unchecked (a gateway
   * relaying its upstream server's question to the client whose request caused it;
   * `@hermes-mcp/gateway`). Sent as {@link elicit}, {@link sample} and {@link listRoots} send theirs:
   * a request tied to this one in a legacy session, an input request of this round in 2026-07-28.
   * Handlers of their own use those three, which check the client's capabilities and the answer.
   */
  forwardQuestion(
    method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
    params: Record<string, unknown>,
    options: AskOptions = {},
  ): Promise<Record<string, unknown>> {
    const kind = method === 'elicitation/create' ? 'elicit' : method === 'sampling/createMessage' ? 'sample' : 'roots';
    return this.ask(kind, method, params, options);
  }

  /**
   * Asks the client. Legacy era: a server→client request tied to this one (cancelled with it,
   * routed with it). Modern era: the answer from this round if the client gave one, else the
   * question is recorded and the round ends with an `InputRequiredResult`.
   */
  private ask(kind: string, method: string, params: Record<string, unknown>, options: AskOptions): Promise<Record<string, unknown>> {
    if (this.round) return this.round.ask(kind, method, params, options);
    return this.channel.request(this.request.id, method, params, { signal: this.signal }, this.transport);
  }

  private unsupported(capability: string, reason: string, required: Record<string, unknown> = { [capability]: {} }): McpError {
    return new McpError(ErrorCode.MissingRequiredClientCapability, `Cannot use ${capability}: ${reason}.`, { requiredCapabilities: required });
  }
}

/** True for one of MCP's logging levels. @internal */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(LEVEL_RANK, value);
}
