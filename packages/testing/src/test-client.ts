/**
 * A client for tests: the server runs in the test's own process, linked to the client by a pair
 * of in-memory transports (messages are serialised and parsed on the way, as on a wire), and the
 * client speaks either era — the legacy revisions (initialize, a session) or 2026-07-28 (a `_meta`
 * envelope on every request, `InputRequiredResult` rounds answered for you). Questions the server
 * asks (elicitation, sampling, roots) go to the handlers the test gives, in both eras alike.
 */
import {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  GetPromptResult,
  Implementation,
  InMemoryTransport,
  JsonRpcNotification,
  JsonRpcRequest,
  LATEST_LEGACY_VERSION,
  LoggingLevel,
  McpError,
  META_KEYS,
  MODERN_PROTOCOL_VERSIONS,
  Peer,
  ProgressUpdate,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
  isModernProtocolVersion,
} from '@hermes-mcp/protocol';
import { Constructor, McpApp, McpAppOptions, McpFactory, McpHandler, createLogger, isolatedContainer } from '@hermes-mcp/core';

/** The params of an `elicitation/create` request, as the server sent them. */
export interface ElicitationRequest {
  /** `form` (a `requestedSchema` to fill in) or `url` (a page to open); absent before 2025-11-25 (form). */
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  [key: string]: unknown;
}

/** What a test answers an elicitation with. */
export type ElicitationAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** One progress notification the server sent for a request of this client. */
export interface ProgressEvent extends ProgressUpdate {
  /** The method of the request it belongs to. */
  method: string;
}

/** Options of {@link createTestClient}. */
export interface TestClientOptions {
  /** `legacy` (initialize, default) or `modern` (MCP 2026-07-28, stateless). */
  era?: 'legacy' | 'modern';
  /** The revision to speak; default the newest of the era (2025-11-25, 2026-07-28). */
  protocolVersion?: string;
  /**
   * The client's capabilities. Default: what the handlers below make true (`elicitation` with form
   * and url modes for `onElicitation`, `sampling` for `onSampling`, `roots` for `onRoots`).
   */
  capabilities?: ClientCapabilities;
  /** The client's name and version (default `hermes-test-client`). */
  clientInfo?: Implementation;
  /** Answers `elicitation/create` (`ctx.elicit` on the server). */
  onElicitation?: (request: ElicitationRequest) => ElicitationAnswer | Promise<ElicitationAnswer>;
  /** Answers `sampling/createMessage` (`ctx.sample`). */
  onSampling?: (request: CreateMessageRequestParams) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers `roots/list` (`ctx.listRoots`). */
  onRoots?: () => Root[] | Promise<Root[]>;
  /** Asks for log messages at this level and above (`logging/setLevel`, or the envelope's level). */
  logLevel?: LoggingLevel;
  /**
   * Options of `McpFactory.create` when the server is a class. Defaults: a silent logger, and a
   * typedi container of the client's own (`isolatedContainer`), so services are not shared between tests.
   */
  appOptions?: McpAppOptions;
  /** Milliseconds a request may take before it fails (default 10 000). */
  timeout?: number;
  /** Most `InputRequiredResult` rounds a modern request may take (default 10). */
  maxRounds?: number;
}

/** Options of one request. */
export interface CallOptions {
  /** Called with each progress notification of this request (progress is always asked for). */
  onProgress?: (progress: ProgressUpdate) => void;
  /** Aborting it cancels the request (`notifications/cancelled`). */
  signal?: AbortSignal;
  /** Milliseconds before it fails; default the client's. */
  timeout?: number;
  /** Extra `_meta` for the request. */
  meta?: Record<string, unknown>;
}

/** A client connected to a server running in this process. Close it when done. */
export interface TestClient {
  /** The app under test (to change it while running, notify resource updates, …). */
  readonly app: McpApp;
  /** `legacy` or `modern`. */
  readonly era: 'legacy' | 'modern';
  /** The revision spoken (negotiated by `initialize`, or the one asked for in the modern era). */
  readonly protocolVersion: string;
  /** The server's name and version. */
  readonly serverInfo: Implementation;
  /** What the server declared it can do. */
  readonly serverCapabilities: ServerCapabilities;
  /** The server's instructions, if it has any. */
  readonly instructions?: string;
  /** Every notification the server sent this client, in order (progress of its requests included). */
  readonly notifications: JsonRpcNotification[];
  /** The params of each `notifications/message` (log messages), in order. */
  readonly logs: Array<{ level: LoggingLevel; data: unknown; logger?: string }>;
  /** Each progress notification for a request of this client, in order. */
  readonly progress: ProgressEvent[];

  /** Calls a tool; a tool error comes back as a result with `isError: true`, a protocol error as an `McpError`. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /** Every tool (all pages). */
  listTools(): Promise<Tool[]>;
  /** Every resource (all pages). */
  listResources(): Promise<Resource[]>;
  /** Every resource template (all pages). */
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  /** Every prompt (all pages). */
  listPrompts(): Promise<Prompt[]>;
  /** Reads a resource. */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  /** Gets a prompt (its arguments are strings, as MCP says). */
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>;
  /** Completes an argument of a prompt (`{ type: 'ref/prompt', name }`) or a template variable (`{ type: 'ref/resource', uri }`). */
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  /** Any request, answered with its raw result (the modern envelope and input rounds are handled). */
  request(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Sends a notification (e.g. `notifications/roots/list_changed`). */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Closes the connection (the server side closes with it). */
  close(): Promise<void>;
}

const MODERN_DEFAULT = MODERN_PROTOCOL_VERSIONS[MODERN_PROTOCOL_VERSIONS.length - 1];

/**
 * Starts a server (a `@McpServer` class, an `McpHandler`, or an app made with `McpFactory.create`)
 * in this process and connects a client to it.
 *
 * @example
 * const client = await createTestClient(NotesServer);
 * const result = await client.callTool('add_note', { title: 'Milk', body: '2 litres' });
 * expect(result.structuredContent).toMatchObject({ title: 'Milk' });
 * await client.close();
 *
 * @example
 * // 2026-07-28, with the elicitation the tool asks for answered by the test
 * const client = await createTestClient(Server, { era: 'modern', onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) });
 */
export async function createTestClient(server: Constructor | McpHandler | McpApp, options: TestClientOptions = {}): Promise<TestClient> {
  // A container of its own: the server's @Service() instances are fresh for each client.
  const app =
    server instanceof McpApp
      ? server
      : McpFactory.create(server, { logger: createLogger({ level: 'silent' }), container: isolatedContainer('hermes-test-client'), ...options.appOptions });
  const client = new LinkedTestClient(app, options);
  await client.connect();
  return client;
}

/** The client of {@link createTestClient}. */
class LinkedTestClient implements TestClient {
  readonly era: 'legacy' | 'modern';
  readonly notifications: JsonRpcNotification[] = [];
  readonly logs: Array<{ level: LoggingLevel; data: unknown; logger?: string }> = [];
  readonly progress: ProgressEvent[] = [];
  protocolVersion: string;
  serverInfo: Implementation = { name: '', version: '' };
  serverCapabilities: ServerCapabilities = {};
  instructions?: string;
  private readonly peer: Peer;
  private readonly serverSide: InMemoryTransport;
  private readonly capabilities: ClientCapabilities;
  private readonly clientInfo: Implementation;

  constructor(
    readonly app: McpApp,
    private readonly options: TestClientOptions,
  ) {
    this.era = options.era ?? (options.protocolVersion && isModernProtocolVersion(options.protocolVersion) ? 'modern' : 'legacy');
    this.protocolVersion = options.protocolVersion ?? (this.era === 'modern' ? MODERN_DEFAULT : LATEST_LEGACY_VERSION);
    this.capabilities = options.capabilities ?? {
      ...(options.onElicitation && { elicitation: { form: {}, url: {} } }),
      ...(options.onSampling && { sampling: {} }),
      ...(options.onRoots && { roots: { listChanged: true } }),
    };
    this.clientInfo = options.clientInfo ?? { name: 'hermes-test-client', version: '1.0.0' };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    this.serverSide = serverSide;
    this.peer = new Peer(
      clientSide,
      {
        onRequest: (request) => this.answer(request),
        onNotification: (notification) => this.received(notification),
      },
      { requestTimeout: options.timeout ?? 10_000 },
    );
  }

  /** Connects, and initializes (legacy) or discovers the server (modern). */
  async connect(): Promise<void> {
    await this.app.connect(this.serverSide);
    await this.peer.start();
    if (this.era === 'modern') {
      const discovered = await this.request('server/discover');
      this.serverCapabilities = (discovered.capabilities ?? {}) as ServerCapabilities;
      this.serverInfo = ((discovered._meta as Record<string, unknown> | undefined)?.[META_KEYS.serverInfo] ?? this.app.handler.serverInfo) as Implementation;
      if (typeof discovered.instructions === 'string') this.instructions = discovered.instructions;
      return;
    }
    const result = await this.peer.request('initialize', { protocolVersion: this.protocolVersion, capabilities: this.capabilities, clientInfo: this.clientInfo });
    this.protocolVersion = String(result.protocolVersion);
    this.serverInfo = result.serverInfo as Implementation;
    this.serverCapabilities = result.capabilities as ServerCapabilities;
    if (typeof result.instructions === 'string') this.instructions = result.instructions;
    await this.peer.notify('notifications/initialized');
    if (this.options.logLevel) await this.peer.request('logging/setLevel', { level: this.options.logLevel });
  }

  async callTool(name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<CallToolResult> {
    return (await this.request('tools/call', { name, arguments: args }, options)) as unknown as CallToolResult;
  }

  listTools(): Promise<Tool[]> {
    return this.all('tools/list', 'tools') as Promise<Tool[]>;
  }

  listResources(): Promise<Resource[]> {
    return this.all('resources/list', 'resources') as Promise<Resource[]>;
  }

  listResourceTemplates(): Promise<ResourceTemplate[]> {
    return this.all('resources/templates/list', 'resourceTemplates') as Promise<ResourceTemplate[]>;
  }

  listPrompts(): Promise<Prompt[]> {
    return this.all('prompts/list', 'prompts') as Promise<Prompt[]>;
  }

  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return (await this.request('resources/read', { uri }, options)) as unknown as ReadResourceResult;
  }

  async getPrompt(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<GetPromptResult> {
    return (await this.request('prompts/get', { name, arguments: args }, options)) as unknown as GetPromptResult;
  }

  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
    const result = await this.request('completion/complete', { ref, argument, ...(context && { context: { arguments: context } }) });
    return result.completion as { values: string[]; total?: number; hasMore?: boolean };
  }

  async request(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const onprogress = (update: ProgressUpdate): void => {
      this.progress.push({ method, ...update });
      options.onProgress?.(update);
    };
    const send = (p: Record<string, unknown>) => this.peer.request(method, this.withMeta(p, options.meta), { onprogress, signal: options.signal, timeout: options.timeout });
    if (this.era === 'legacy') return send(params);
    // 2026-07-28: the server asks its questions by ending the round; answer them and go again.
    let result = await send(params);
    for (let round = 1; result.resultType === 'input_required'; round++) {
      if (round > (this.options.maxRounds ?? 10)) throw new Error(`${method}: still asking for input after ${round - 1} rounds (maxRounds)`);
      const questions = (result.inputRequests ?? {}) as Record<string, { method: string; params: Record<string, unknown> }>;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, question] of Object.entries(questions)) inputResponses[key] = await this.ask(question.method, question.params ?? {});
      result = await send({ ...params, inputResponses, requestState: result.requestState });
    }
    return result;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, this.era === 'modern' ? this.withMeta(params ?? {}) : params);
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  /** Every item of a paged list, following `nextCursor`. */
  private async all(method: string, key: string): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor: unknown;
    do {
      const page = await this.request(method, cursor === undefined ? {} : { cursor });
      items.push(...((page[key] as unknown[]) ?? []));
      cursor = page.nextCursor;
    } while (typeof cursor === 'string');
    return items;
  }

  /** The params with the modern envelope (and any extra `_meta`) where they belong. */
  private withMeta(params: Record<string, unknown>, extra?: Record<string, unknown>): Record<string, unknown> {
    if (this.era === 'legacy') return extra ? { ...params, _meta: { ...(params._meta as object | undefined), ...extra } } : params;
    const envelope: Record<string, unknown> = {
      [META_KEYS.protocolVersion]: this.protocolVersion,
      [META_KEYS.clientCapabilities]: this.capabilities,
      [META_KEYS.clientInfo]: this.clientInfo,
    };
    if (this.options.logLevel) envelope[META_KEYS.logLevel] = this.options.logLevel;
    return { ...params, _meta: { ...envelope, ...(params._meta as object | undefined), ...extra } };
  }

  /** Answers a server→client request (legacy era). */
  private answer(request: JsonRpcRequest): Promise<Record<string, unknown>> | Record<string, unknown> {
    if (request.method === 'ping') return {};
    return this.ask(request.method, request.params ?? {});
  }

  /** A question from the server (a request, or an input request of a modern round), answered by the test's handler. */
  private async ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { onElicitation, onSampling, onRoots } = this.options;
    switch (method) {
      case 'elicitation/create':
        if (onElicitation) return await onElicitation(params as ElicitationRequest);
        break;
      case 'sampling/createMessage':
        if (onSampling) return await onSampling(params as CreateMessageRequestParams);
        break;
      case 'roots/list':
        if (onRoots) return { roots: await onRoots() };
        break;
    }
    throw McpError.methodNotFound(
      `${method} (give createTestClient an ${method === 'roots/list' ? 'onRoots' : method === 'sampling/createMessage' ? 'onSampling' : 'onElicitation'} handler)`,
    );
  }

  private received(notification: JsonRpcNotification): void {
    this.notifications.push(notification);
    if (notification.method === 'notifications/message' && notification.params) {
      this.logs.push(notification.params as { level: LoggingLevel; data: unknown; logger?: string });
    }
  }
}

/**
 * The text of a result: the `text` of each text block of a tool result or a prompt's messages, or
 * of each text content of a resource, joined with newlines.
 *
 * @example
 * expect(textOf(await client.callTool('add', { a: 2, b: 3 }))).toBe('5');
 */
export function textOf(result: CallToolResult | GetPromptResult | ReadResourceResult): string {
  const texts: string[] = [];
  const take = (block: unknown): void => {
    if (typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string') texts.push((block as { text: string }).text);
  };
  const { content, messages, contents } = result as { content?: unknown[]; messages?: Array<{ content: unknown }>; contents?: unknown[] };
  for (const block of content ?? []) take(block);
  for (const message of messages ?? []) take(message.content);
  for (const entry of contents ?? []) take(entry);
  return texts.join('\n');
}
