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
  LATEST_LEGACY_VERSION,
  LoggingLevel,
  MODERN_PROTOCOL_VERSIONS,
  ProgressUpdate,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
  TransportInfo,
  isModernProtocolVersion,
} from '@hermes-mcp/protocol';
import { AuthInfo, Constructor, McpApp, McpAppOptions, McpFactory, McpHandler, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { ElicitationAnswer, ElicitationRequest, McpClient } from '@hermes-mcp/client';

export type { ElicitationAnswer, ElicitationRequest } from '@hermes-mcp/client';

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
  /**
   * Who the caller is, as the server sees it (`ctx.auth`): what an HTTP endpoint's `auth` option
   * would have verified from a token. For testing components with `scopes`, and guards.
   */
  auth?: AuthInfo;
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

/** The client of {@link createTestClient}: an {@link McpClient} over linked in-memory transports, recording what it hears. */
class LinkedTestClient implements TestClient {
  readonly era: 'legacy' | 'modern';
  readonly notifications: JsonRpcNotification[] = [];
  readonly logs: Array<{ level: LoggingLevel; data: unknown; logger?: string }> = [];
  readonly progress: ProgressEvent[] = [];
  private readonly client: McpClient;
  private readonly serverSide: InMemoryTransport;

  constructor(
    readonly app: McpApp,
    options: TestClientOptions,
  ) {
    this.era = options.era ?? (options.protocolVersion && isModernProtocolVersion(options.protocolVersion) ? 'modern' : 'legacy');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // The server side's transport info is what its requests' contexts read (ctx.auth among it).
    if (options.auth) (serverSide as { info: TransportInfo }).info = { kind: 'memory', auth: options.auth };
    this.serverSide = serverSide;
    this.client = new McpClient(clientSide, {
      protocolVersion: (options.protocolVersion ?? (this.era === 'modern' ? MODERN_DEFAULT : LATEST_LEGACY_VERSION)) as never,
      clientInfo: options.clientInfo ?? { name: 'hermes-test-client', version: '1.0.0' },
      capabilities: options.capabilities,
      onElicitation: options.onElicitation,
      onSampling: options.onSampling,
      onRoots: options.onRoots,
      logLevel: options.logLevel,
      requestTimeout: options.timeout ?? 10_000,
      maxRounds: options.maxRounds,
      // A test sees the server as it answers: no cache, no capability checks of the client's own.
      responseCache: false,
      checkCapabilities: false,
      onNotification: (notification) => {
        this.notifications.push(notification);
        if (notification.method === 'notifications/message' && notification.params) this.logs.push(notification.params as { level: LoggingLevel; data: unknown; logger?: string });
      },
    });
  }

  get protocolVersion(): string {
    return this.client.protocolVersion ?? '';
  }

  get serverInfo(): Implementation {
    return this.client.serverInfo ?? this.app.handler.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.client.serverCapabilities;
  }

  get instructions(): string | undefined {
    return this.client.instructions;
  }

  /** Connects, and initializes (legacy) or discovers the server (modern). */
  async connect(): Promise<void> {
    await this.app.connect(this.serverSide);
    await this.client.connect();
  }

  callTool(name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<CallToolResult> {
    return this.client.callTool(name, args, this.recorded('tools/call', options));
  }

  async listTools(): Promise<Tool[]> {
    return await this.client.listAllTools(this.recorded('tools/list'));
  }

  async listResources(): Promise<Resource[]> {
    return await this.client.listAllResources(this.recorded('resources/list'));
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    return await this.client.listAllResourceTemplates(this.recorded('resources/templates/list'));
  }

  async listPrompts(): Promise<Prompt[]> {
    return await this.client.listAllPrompts(this.recorded('prompts/list'));
  }

  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.client.readResource(uri, this.recorded('resources/read', options));
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<GetPromptResult> {
    return this.client.getPrompt(name, args, this.recorded('prompts/get', options));
  }

  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
    return this.client.complete(ref, argument, context);
  }

  request(method: string, params: Record<string, unknown> = {}, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.client.request(method, params, this.recorded(method, options));
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.client.notify(method, params);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** The options of a request, with its progress recorded (progress is always asked for). */
  private recorded(method: string, options: CallOptions = {}): CallOptions {
    return {
      signal: options.signal,
      timeout: options.timeout,
      meta: options.meta,
      onProgress: (update: ProgressUpdate) => {
        this.progress.push({ method, ...update });
        options.onProgress?.(update);
      },
    };
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
