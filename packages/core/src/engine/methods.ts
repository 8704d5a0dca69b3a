/**
 * Who answers each MCP method the server serves, and with what. What a method is — its eras,
 * whether it may come before `initialize`, its caching, input rounds, `Mcp-Name` field, extension
 * and capability — is its row of the protocol's method table (`MCP_METHODS`, protocol/src/methods.ts);
 * an entry here adds only its owner and function:
 *
 * - `connection`: the state of one legacy connection (the handshake, the logging level,
 *   subscriptions) — see connection.ts;
 * - `modern`: the stateless era's own methods (discover, listen, tasks) — see modern.ts;
 * - `server`: the decorated server's registry (tools, resources, prompts, completions, skills) — see
 *   decorated-server.ts. A hand-written {@link McpHandler} answers these itself.
 *
 * The engine dispatches by it, the modern era refuses what it lacks (-32601, HTTP 404) and caching
 * hints follow it. Adding a method is one protocol row, one entry here and the function it calls;
 * an entry for a method the protocol table lacks does not compile.
 */
import { MCP_METHODS } from '@hermes-mcp/protocol';
import type { McpMethod, McpMethodName, RevisionFeatures } from '@hermes-mcp/protocol';
import type { McpContext } from '../context/mcp-context';
import type { ModernCall } from './modern-call';

type Params = Record<string, unknown>;
type Answer = Promise<Record<string, unknown>> | Record<string, unknown>;

/*
 * Each owner is named by the few functions its entries call, not by its class: the table then
 * depends on no owner, and `Connection`, `ModernHandler` and `DecoratedServerHandler` (which look
 * methods up here) implement these.
 */

/** What the `connection` entries call: a legacy connection's own state (connection.ts). */
export interface ConnectionOwner {
  initialize(params: Params): Answer;
  setLevel(params: Params): Answer;
  subscribe(method: string, params: Params): Answer;
}

/** What the `modern` entries call: the stateless era's own methods (modern.ts). */
export interface ModernOwner {
  discover(): Answer;
  listen(call: ModernCall): Answer;
  taskGet(call: ModernCall): Answer;
  taskUpdate(call: ModernCall): Answer;
  taskCancel(call: ModernCall): Answer;
}

/** What the `server` entries call: the decorated server's registry (decorated-server.ts). */
export interface ServerOwner {
  listTools(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  callTool(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  listResources(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  listTemplates(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  readResource(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  listPrompts(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  getPrompt(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  complete(params: Params, ctx: McpContext): Answer;
  listSkills(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  getSkill(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
  readDirectory(params: Params, ctx: McpContext, features: RevisionFeatures): Answer;
}

/** A method answered by a legacy connection's own state. */
export interface ConnectionMethod extends McpMethod {
  readonly owner: 'connection';
  readonly serve: (connection: ConnectionOwner, params: Params, method: string) => Answer;
}

/** A method of the modern era's own. */
export interface ModernMethod extends McpMethod {
  readonly owner: 'modern';
  readonly serve: (modern: ModernOwner, call: ModernCall) => Answer;
}

/** A method answered from the decorated server's registry. */
export interface ServerMethod extends McpMethod {
  readonly owner: 'server';
  readonly serve: (server: ServerOwner, params: Params, ctx: McpContext, features: RevisionFeatures) => Answer;
}

/** One entry of the method table: the protocol's row, its owner and function. */
export type MethodSpec = ConnectionMethod | ModernMethod | ServerMethod;

type Owned<T extends MethodSpec> = Pick<T, 'owner' | 'serve'>;

const TABLE: { readonly [M in McpMethodName]?: Owned<ConnectionMethod> | Owned<ModernMethod> | Owned<ServerMethod> } = {
  initialize: { owner: 'connection', serve: (c, params) => c.initialize(params) },
  ping: { owner: 'connection', serve: () => ({}) },
  'logging/setLevel': { owner: 'connection', serve: (c, params) => c.setLevel(params) },
  'resources/subscribe': { owner: 'connection', serve: (c, params, method) => c.subscribe(method, params) },
  'resources/unsubscribe': { owner: 'connection', serve: (c, params, method) => c.subscribe(method, params) },

  'server/discover': { owner: 'modern', serve: (m) => m.discover() },
  'subscriptions/listen': { owner: 'modern', serve: (m, call) => m.listen(call) },
  'tasks/get': { owner: 'modern', serve: (m, call) => m.taskGet(call) },
  'tasks/update': { owner: 'modern', serve: (m, call) => m.taskUpdate(call) },
  'tasks/cancel': { owner: 'modern', serve: (m, call) => m.taskCancel(call) },

  'tools/list': { owner: 'server', serve: (s, params, ctx, f) => s.listTools(params, ctx, f) },
  'tools/call': { owner: 'server', serve: (s, params, ctx, f) => s.callTool(params, ctx, f) },
  'resources/list': { owner: 'server', serve: (s, params, ctx, f) => s.listResources(params, ctx, f) },
  'resources/templates/list': { owner: 'server', serve: (s, params, ctx, f) => s.listTemplates(params, ctx, f) },
  'resources/read': { owner: 'server', serve: (s, params, ctx, f) => s.readResource(params, ctx, f) },
  'prompts/list': { owner: 'server', serve: (s, params, ctx, f) => s.listPrompts(params, ctx, f) },
  'prompts/get': { owner: 'server', serve: (s, params, ctx, f) => s.getPrompt(params, ctx, f) },
  'completion/complete': { owner: 'server', serve: (s, params, ctx) => s.complete(params, ctx) },
  'skills/list': { owner: 'server', serve: (s, params, ctx, f) => s.listSkills(params, ctx, f) },
  'skills/get': { owner: 'server', serve: (s, params, ctx, f) => s.getSkill(params, ctx, f) },
  'resources/directory/read': { owner: 'server', serve: (s, params, ctx, f) => s.readDirectory(params, ctx, f) },
};

/** The table as a map: a method name from a client is never looked up on an object's prototype. */
const METHODS: ReadonlyMap<string, MethodSpec> = new Map(
  Object.entries(TABLE).map(([name, owned]) => [name, Object.freeze({ ...MCP_METHODS.get(name)!, ...owned }) as MethodSpec]),
);

/** The entry of `method`, or undefined for a method MCP does not define. */
export function methodSpec(method: string): MethodSpec | undefined {
  return METHODS.get(method);
}

/** Every method of the table, by name. */
export function allMethods(): ReadonlyMap<string, MethodSpec> {
  return METHODS;
}
