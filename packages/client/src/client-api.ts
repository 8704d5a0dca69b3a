/**
 * The types of {@link McpClient}'s API (client.ts): its options, what calls take and give back,
 * what it hands the application's handlers, and the error a failed tool call becomes.
 */
import type { ResponseCache } from './cache';
import {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  Implementation,
  JsonRpcNotification,
  LoggingLevel,
  ProgressUpdate,
  ProtocolVersion,
  RequestId,
  Root,
} from '@hermes-mcp/protocol';

/** The params of an `elicitation/create` request, as the server sent them. */
export interface ElicitationRequest {
  /** `form` (a `requestedSchema` to fill in) or `url` (a page to open); absent before 2025-11-25 (form). */
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  [key: string]: unknown;
}

/** What an elicitation is answered with. */
export type ElicitationAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** One `notifications/message` from the server. */
export interface LogMessage {
  level: LoggingLevel;
  data: unknown;
  logger?: string;
}

/** Where a callback that threw is reported (default: `console.error`). */
export interface ClientLogger {
  error(message: string, error: unknown): void;
}

/** Options of an {@link McpClient}. */
export interface McpClientOptions {
  /** The client's name and version (default `hermes-mcp-client` 0.1.0). */
  clientInfo?: Implementation;
  /**
   * The revision to speak: `auto` (default) asks `server/discover` and speaks 2026-07-28 when the
   * server does, else initializes a legacy session at the newest revision both know (whatever
   * error a server without 2026-07-28 answers the probe with); or one revision, pinned.
   */
  protocolVersion?: 'auto' | ProtocolVersion;
  /**
   * The client's capabilities. Default: what the handlers make true (`elicitation` with form and
   * url modes for `onElicitation`, `sampling` for `onSampling`, `roots` for `onRoots`).
   */
  capabilities?: ClientCapabilities;
  /** Milliseconds a request may take before it is cancelled and fails (default 60 000). */
  requestTimeout?: number;
  /**
   * Most of the server's requests (elicitation, sampling, roots) handled at once on this connection
   * (default 64): one more is refused with -32600 naming the limit, its handler not called, so a
   * server that floods requests cannot make the client hold them all.
   */
  maxInboundRequests?: number;
  /** Most input rounds one 2026-07-28 request may take (default 10). */
  maxRounds?: number;
  /**
   * Declare the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`): a task-capable tool
   * then runs as a task, which `callTool` follows to its end (see {@link McpClient.startTask} to
   * hold the handle instead).
   */
  tasks?: boolean;
  /**
   * Declare MCP Apps (`io.modelcontextprotocol/ui` with `mimeTypes: ['text/html;profile=mcp-app']`),
   * in both eras: this client is a host that renders apps' views, so servers may offer their UI
   * (see `AppHost`). Added to `capabilities` when those are given.
   */
  apps?: boolean;
  /**
   * Asks for log messages at this level and above (`logging/setLevel`, or the envelope's level);
   * {@link McpClient.setLogLevel} changes it later.
   */
  logLevel?: LoggingLevel;
  /** Answers `elicitation/create`. */
  onElicitation?: (request: ElicitationRequest) => ElicitationAnswer | Promise<ElicitationAnswer>;
  /** Answers `sampling/createMessage`. */
  onSampling?: (request: CreateMessageRequestParams) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers `roots/list`. */
  onRoots?: () => Root[] | Promise<Root[]>;
  /** Each log message the server sends. */
  onLog?: (message: LogMessage) => void;
  /**
   * A list changed (`notifications/{tools,resources,prompts}/list_changed`): in a legacy session,
   * or on a {@link McpClient.listen} stream of 2026-07-28.
   */
  onListChanged?: (list: 'tools' | 'resources' | 'prompts') => void;
  /** A resource changed: one {@link McpClient.subscribe}d to (legacy), or one a {@link McpClient.listen} stream watches (2026-07-28). */
  onResourceUpdated?: (uri: string) => void;
  /** Every notification from the server, including the ones above (and those {@link McpClient.listen} yields). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Where a callback that threw is reported. */
  logger?: ClientLogger;
  /**
   * `false`: send requests whatever capabilities the server declared (a test of how a server
   * refuses them, say). Default true: a method the server did not declare is refused here, unsent.
   */
  checkCapabilities?: boolean;
  /**
   * Where 2026-07-28 cacheable results are kept for their `ttlMs` (default an
   * {@link InMemoryResponseCache} of this client; `false`: none). A store shared by several
   * clients shares their `public` entries, never their `private` ones.
   */
  responseCache?: ResponseCache | false;
}

/** Options of one request. */
export interface CallOptions {
  /** Called with each progress notification of this request (a progress token is made for it). */
  onProgress?: (progress: ProgressUpdate) => void;
  /** Aborting it cancels the request (`notifications/cancelled`). */
  signal?: AbortSignal;
  /** Milliseconds before it is cancelled and fails; default the client's `requestTimeout`. */
  timeout?: number;
  /** Extra `_meta` for the request. */
  meta?: Record<string, unknown>;
  /** `false`: ask the server even when the cache holds a fresh answer, which its answer then replaces (2026-07-28). */
  cache?: boolean;
  /** Extra HTTP headers for the request (HTTP transports). */
  headers?: Readonly<Record<string, string>>;
  /** Told the JSON-RPC id of the request before it is sent (of each round's request, in 2026-07-28). */
  onId?: (id: RequestId) => void;
  /**
   * `false`: a 2026-07-28 answer that asks for input (`resultType: 'input_required'`) is returned
   * as it is, its questions unanswered — for a gateway that passes them on to its own client and
   * retries with `inputResponses` and `requestState` itself. Default true: the handlers answer
   * them and the request is sent again.
   */
  answerInputRequests?: boolean;
}

/** What `subscriptions/listen` asks for (MCP 2026-07-28). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** URIs whose `notifications/resources/updated` to receive. */
  resourceSubscriptions?: string[];
}

/**
 * One page of a list: its items under the spec's name for them (`K`: `tools`, `resources`,
 * `resourceTemplates`, `prompts`) and, the same array, as `items` (for code that handles any
 * list), and the cursor of the next page.
 *
 * @example
 * const { tools, nextCursor } = await client.listTools();
 */
export type ListPage<T, K extends string = never> = { items: T[]; nextCursor?: string } & { [key in K]: T[] };

/**
 * Every item of a list, following its cursors: `await` it for an array, or `for await` it to take
 * the items as their pages come (breaking out stops asking for more). Awaited twice, it is walked
 * once; each `for await` walks it anew.
 *
 * @example
 * const tools = await client.listAllTools();
 * for await (const resource of client.listAllResources()) if (resource.name === 'notes') break;
 */
export interface Listing<T> extends AsyncIterable<T>, PromiseLike<T[]> {}

/** A tool result with `isError: true`, thrown by {@link unwrap}. */
export class ToolCallError extends Error {
  constructor(readonly result: CallToolResult) {
    super((result.content ?? []).map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n') || 'the tool failed');
    this.name = 'ToolCallError';
  }
}

/**
 * The result of a tool call that succeeded; throws a {@link ToolCallError} for one with
 * `isError: true` (tool errors come back as results, protocol errors as an `McpError`).
 *
 * @example
 * const forecast = unwrap(await client.callTool('weather', { city: 'Oslo' })).structuredContent;
 */
export function unwrap(result: CallToolResult): CallToolResult {
  if (result.isError === true) throw new ToolCallError(result);
  return result;
}
