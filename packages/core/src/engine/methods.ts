/**
 * The method table: every MCP method a server answers, in one place. Each entry says in which
 * eras the method exists, whether it may come before `initialize`, whether its modern result is
 * cacheable or may ask the client questions (input rounds), which field `Mcp-Name` mirrors, which
 * server capability it needs, and who answers it with what:
 *
 * - `connection`: the state of one legacy connection (the handshake, the logging level,
 *   subscriptions) — see engine.ts;
 * - `modern`: the stateless era's own methods (discover, listen, tasks) — see modern.ts;
 * - `server`: the decorated server's registry (tools, resources, prompts, completions) — see
 *   server-handler.ts. A hand-written {@link McpHandler} answers these itself.
 *
 * The engine dispatches by it, the modern era refuses what it lacks (-32601, HTTP 404), HTTP
 * checks `Mcp-Name` by it and caching hints follow it. Adding a method is one entry here plus the
 * function it calls.
 */
import type { RevisionFeatures, ServerCapabilities } from '@hermes-mcp/protocol';
import type { McpContext } from './context';
import type { Connection } from './connection';
import type { ModernCall, ModernHandler } from './modern';
import type { DecoratedServerHandler } from './decorated-server';

type Params = Record<string, unknown>;
type Answer = Promise<Record<string, unknown>> | Record<string, unknown>;

/** What every entry of the method table says. */
interface MethodTraits {
  /** Exists in the initialize-based era (MCP 2024-11-05 … 2025-11-25). */
  readonly legacy: boolean;
  /** Exists in the stateless era (MCP 2026-07-28). */
  readonly modern: boolean;
  /** Legacy: answered before `initialize` completed (the handshake itself, `ping`). */
  readonly beforeInitialize?: boolean;
  /** Modern: the result carries `ttlMs` and `cacheScope`. */
  readonly cacheable?: boolean;
  /** Modern: the handler may ask the client questions, answered in input rounds (MRTR). */
  readonly rounds?: boolean;
  /** The `params` field the `Mcp-Name` header mirrors (MCP 2026-07-28 over HTTP). */
  readonly nameField?: 'name' | 'uri' | 'taskId';
  /** Modern: the extension the request must declare. */
  readonly extension?: 'tasks';
  /** The server capability the method needs; without it the method is not served. */
  readonly capability?: (capabilities: ServerCapabilities) => boolean;
}

/** A method answered by a legacy connection's own state. */
export interface ConnectionMethod extends MethodTraits {
  readonly owner: 'connection';
  readonly serve: (connection: Connection, params: Params, method: string) => Answer;
}

/** A method of the modern era's own. */
export interface ModernMethod extends MethodTraits {
  readonly owner: 'modern';
  readonly serve: (modern: ModernHandler, call: ModernCall) => Answer;
}

/** A method answered from the decorated server's registry. */
export interface ServerMethod extends MethodTraits {
  readonly owner: 'server';
  readonly serve: (server: DecoratedServerHandler, params: Params, ctx: McpContext, features: RevisionFeatures) => Answer;
}

/** One entry of the method table. */
export type MethodSpec = ConnectionMethod | ModernMethod | ServerMethod;

const BOTH = { legacy: true, modern: true } as const;
const LEGACY = { legacy: true, modern: false } as const;
const MODERN = { legacy: false, modern: true } as const;

const tools = (c: ServerCapabilities) => c.tools !== undefined;
const resources = (c: ServerCapabilities) => c.resources !== undefined;
const prompts = (c: ServerCapabilities) => c.prompts !== undefined;

const TABLE: Record<string, MethodSpec> = {
  initialize: { ...LEGACY, owner: 'connection', beforeInitialize: true, serve: (c, params) => c.initialize(params) },
  ping: { ...LEGACY, owner: 'connection', beforeInitialize: true, serve: () => ({}) },
  'logging/setLevel': { ...LEGACY, owner: 'connection', capability: (c) => c.logging !== undefined, serve: (c, params) => c.setLevel(params) },
  'resources/subscribe': { ...LEGACY, owner: 'connection', capability: (c) => c.resources?.subscribe === true, serve: (c, params, method) => c.subscribe(method, params) },
  'resources/unsubscribe': { ...LEGACY, owner: 'connection', capability: (c) => c.resources?.subscribe === true, serve: (c, params, method) => c.subscribe(method, params) },

  'server/discover': { ...MODERN, owner: 'modern', cacheable: true, serve: (m) => m.discover() },
  'subscriptions/listen': { ...MODERN, owner: 'modern', serve: (m, call) => m.listen(call) },
  'tasks/get': { ...MODERN, owner: 'modern', extension: 'tasks', nameField: 'taskId', serve: (m, call) => m.taskGet(call) },
  'tasks/update': { ...MODERN, owner: 'modern', extension: 'tasks', nameField: 'taskId', serve: (m, call) => m.taskUpdate(call) },
  'tasks/cancel': { ...MODERN, owner: 'modern', extension: 'tasks', nameField: 'taskId', serve: (m, call) => m.taskCancel(call) },

  'tools/list': { ...BOTH, owner: 'server', cacheable: true, capability: tools, serve: (s, params, ctx, f) => s.listTools(params, ctx, f) },
  'tools/call': { ...BOTH, owner: 'server', rounds: true, nameField: 'name', capability: tools, serve: (s, params, ctx, f) => s.callTool(params, ctx, f) },
  'resources/list': { ...BOTH, owner: 'server', cacheable: true, capability: resources, serve: (s, params, ctx, f) => s.listResources(params, ctx, f) },
  'resources/templates/list': { ...BOTH, owner: 'server', cacheable: true, capability: resources, serve: (s, params, ctx, f) => s.listTemplates(params, ctx, f) },
  'resources/read': {
    ...BOTH,
    owner: 'server',
    cacheable: true,
    rounds: true,
    nameField: 'uri',
    capability: resources,
    serve: (s, params, ctx, f) => s.readResource(params, ctx, f),
  },
  'prompts/list': { ...BOTH, owner: 'server', cacheable: true, capability: prompts, serve: (s, params, ctx, f) => s.listPrompts(params, ctx, f) },
  'prompts/get': { ...BOTH, owner: 'server', rounds: true, nameField: 'name', capability: prompts, serve: (s, params, ctx, f) => s.getPrompt(params, ctx, f) },
  'completion/complete': { ...BOTH, owner: 'server', capability: (c) => c.completions !== undefined, serve: (s, params, ctx) => s.complete(params, ctx) },
};

/** The table as a map: a method name from a client is never looked up on an object's prototype. */
const METHODS: ReadonlyMap<string, MethodSpec> = new Map(Object.entries(TABLE).map(([name, spec]) => [name, Object.freeze(spec)]));

/** The entry of `method`, or undefined for a method MCP does not define. */
export function methodSpec(method: string): MethodSpec | undefined {
  return METHODS.get(method);
}

/** Every method of the table, by name. */
export function allMethods(): ReadonlyMap<string, MethodSpec> {
  return METHODS;
}
