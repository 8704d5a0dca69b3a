/**
 * The low-level server API: an object that answers MCP requests itself. Decorated servers are
 * turned into one of these (`DecoratedServerHandler`, decorated-server.ts); both run on the same engine.
 */
import type { Implementation, JsonRpcNotification, Root, ServerCapabilities } from '@hermes-mcp/protocol';
import type { McpContext, SessionInfo } from '../context/mcp-context';
import type { TaskStart, TaskSupport } from '../metadata/options';

/** What a notification listener receives besides the notification. */
export interface NotificationContext {
  /** The client's session. */
  readonly session: SessionInfo;
  /** Asks the client for its roots (`roots/list`); fails with -32021 without the roots capability. */
  listRoots(): Promise<Root[]>;
}

/**
 * A server without decorators. The engine handles the lifecycle (`initialize`, `ping`,
 * `notifications/initialized`, cancellation, progress correlation) and passes every other
 * request here; throw `McpError.methodNotFound(method)` for what you don't serve.
 *
 * @example
 * const handler: McpHandler = {
 *   serverInfo: { name: 'raw', version: '1.0.0' },
 *   capabilities: { tools: {} },
 *   async handleRequest(ctx) {
 *     if (ctx.request.method === 'tools/list') return { tools: [] };
 *     throw McpError.methodNotFound(ctx.request.method);
 *   },
 * };
 * await McpFactory.create(handler).listen();
 */
export interface McpHandler {
  /** Sent as `serverInfo` in the `initialize` result. */
  readonly serverInfo: Implementation;
  /** Sent as `capabilities` in the `initialize` result. */
  readonly capabilities: ServerCapabilities;
  /** Sent as `instructions` in the `initialize` result. */
  readonly instructions?: string;
  /** Answers one request; the method and params are in `ctx.request`. */
  handleRequest(ctx: McpContext): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Whether a tool runs as a task (MCP 2026-07-28 tasks extension), and when it starts; undefined: never. */
  taskSupport?(toolName: string): { mode: TaskSupport; start: TaskStart } | undefined;
  /**
   * A tool's `inputSchema`, for the `Mcp-Param-*` headers its `x-mcp-header` declarations ask of
   * MCP 2026-07-28 HTTP requests; undefined: no header checks for that tool.
   */
  inputSchemaOf?(toolName: string): object | undefined;
  /** Receives client notifications other than the lifecycle and correlation ones. */
  handleNotification?(notification: JsonRpcNotification, ctx: NotificationContext): void | Promise<void>;
  /**
   * Told of each resource URI a client subscribes to — a legacy session's `resources/subscribe`,
   * each URI of a 2026-07-28 `subscriptions/listen` stream's `resourceSubscriptions` — before the
   * client is answered (a throw fails that subscription, or that listen stream). Updates still go out only through
   * `notifyResourceUpdated`; this is for a handler whose updates come from elsewhere (a remote mount
   * subscribes its upstream). `session`: the legacy session subscribing; absent for a listen stream.
   */
  handleSubscribe?(uri: string, session?: SessionInfo): void | Promise<void>;
}

/** True for an object that implements {@link McpHandler}. */
export function isMcpHandler(value: unknown): value is McpHandler {
  return typeof value === 'object' && value !== null && typeof (value as McpHandler).handleRequest === 'function' && typeof (value as McpHandler).serverInfo === 'object';
}
