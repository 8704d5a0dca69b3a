/**
 * The MCP method table: every request and notification of the revisions this project speaks, with
 * what the rest of Hermes needs to know of it. The server's engine (who answers it), the client
 * (capability checks, result checks, caching), the HTTP headers (`Mcp-Name`) and the OpenTelemetry
 * spans all read these rows, so a method is described once. `methods.spec.ts` holds the table to
 * the official schemas (`test-support/mcp-schema`): each method, its revisions, its cacheable
 * results and its result field.
 */
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS, REVISIONS } from './revisions';
import type { ProtocolVersion } from './revisions';
import { SKILLS_EXTENSION } from './extensions';

/** The attribute an OpenTelemetry span names its target with, and the params field it is read from. */
export interface SpanTarget {
  /** `gen_ai.tool.name`, `gen_ai.prompt.name` (also the span name's target), or `mcp.resource.uri` (span only: unbounded). */
  readonly attribute: 'gen_ai.tool.name' | 'gen_ai.prompt.name' | 'mcp.resource.uri';
  /** The `params` field holding it. */
  readonly field: 'name' | 'uri';
  /** `gen_ai.operation.name`, when the conventions give one. */
  readonly operation?: 'execute_tool';
}

/** What one row of the method table says, as written. */
export interface MethodTraits {
  /** A request (answered) or a notification. */
  readonly kind: 'request' | 'notification';
  /**
   * The revisions that have it, oldest first: in their schema, or (for a modern revision) in the
   * {@link extension} it belongs to.
   */
  readonly revisions: readonly ProtocolVersion[];
  /** Legacy: may come before `initialize` completed (the handshake itself, `ping`). */
  readonly beforeInitialize?: boolean;
  /** Modern: the result carries `ttlMs` and `cacheScope`. */
  readonly cacheable?: boolean;
  /** Modern: the server may ask the client questions while answering, in input rounds (MRTR). */
  readonly rounds?: boolean;
  /** The `params` field the `Mcp-Name` header mirrors (MCP 2026-07-28 over HTTP). */
  readonly nameField?: 'name' | 'uri' | 'taskId';
  /**
   * The extension that defines it (not in the revision's schema). `tasks`: a modern request must
   * declare it. `skills` (SEP-2640): declared by the server alone (its capability is the row's
   * {@link capability}), offered on 2025-11-25 and 2026-07-28; the client declares nothing.
   */
  readonly extension?: 'tasks' | 'skills';
  /**
   * The server capability a client's request needs, as a path into `ServerCapabilities`
   * (`['resources', 'subscribe']`); see {@link declaresCapability}.
   */
  readonly capability?: readonly string[];
  /** The field a result must hold, and what it must be (a list's items: `tools`, `resources`…). */
  readonly result?: { readonly field: string; readonly is: 'array' | 'object' | 'string' };
  /** What a span names as its target, beside the method. */
  readonly span?: SpanTarget;
}

/** One method of the table: its row, its name, and the eras its revisions belong to. */
export interface McpMethod extends MethodTraits {
  /** The method, as on the wire (`tools/call`). */
  readonly name: string;
  /** In an initialize-based revision (MCP 2024-11-05 … 2025-11-25). */
  readonly legacy: boolean;
  /** In a stateless revision (MCP 2026-07-28). */
  readonly modern: boolean;
}

const ALL = PROTOCOL_VERSIONS;
const LEGACY = LEGACY_PROTOCOL_VERSIONS;
const MODERN = MODERN_PROTOCOL_VERSIONS;
const request = (revisions: readonly ProtocolVersion[], traits: Omit<MethodTraits, 'kind' | 'revisions'> = {}): MethodTraits => ({ kind: 'request', revisions, ...traits });
const notification = (revisions: readonly ProtocolVersion[], traits: Omit<MethodTraits, 'kind' | 'revisions'> = {}): MethodTraits => ({
  kind: 'notification',
  revisions,
  ...traits,
});
const list = (field: string) => ({ field, is: 'array' }) as const;
const uriTarget: SpanTarget = { attribute: 'mcp.resource.uri', field: 'uri' };
/** Skills: the SDK's "2025-11-25 backport" and 2026-07-28, where `capabilities.extensions` is negotiated. */
const SKILLS = ['2025-11-25', ...MODERN] as const;
const SKILLS_CAPABILITY = ['extensions', SKILLS_EXTENSION] as const;

const TABLE = {
  initialize: request(LEGACY, { beforeInitialize: true, result: { field: 'protocolVersion', is: 'string' } }),
  ping: request(LEGACY, { beforeInitialize: true }),
  'logging/setLevel': request(LEGACY, { capability: ['logging'] }),
  'resources/subscribe': request(LEGACY, { capability: ['resources', 'subscribe'], span: uriTarget }),
  'resources/unsubscribe': request(LEGACY, { capability: ['resources', 'subscribe'], span: uriTarget }),

  'server/discover': request(MODERN, { cacheable: true }),
  'subscriptions/listen': request(MODERN),

  'tasks/get': request(['2025-11-25', ...MODERN], { extension: 'tasks', nameField: 'taskId' }),
  'tasks/update': request(MODERN, { extension: 'tasks', nameField: 'taskId' }),
  'tasks/cancel': request(['2025-11-25', ...MODERN], { extension: 'tasks', nameField: 'taskId' }),
  'tasks/list': request(['2025-11-25']),
  'tasks/result': request(['2025-11-25']),

  'tools/list': request(ALL, { cacheable: true, capability: ['tools'], result: list('tools') }),
  'tools/call': request(ALL, {
    rounds: true,
    nameField: 'name',
    capability: ['tools'],
    result: list('content'),
    span: { attribute: 'gen_ai.tool.name', field: 'name', operation: 'execute_tool' },
  }),
  'resources/list': request(ALL, { cacheable: true, capability: ['resources'], result: list('resources') }),
  'resources/templates/list': request(ALL, { cacheable: true, capability: ['resources'], result: list('resourceTemplates') }),
  'resources/read': request(ALL, { cacheable: true, rounds: true, nameField: 'uri', capability: ['resources'], result: list('contents'), span: uriTarget }),
  'prompts/list': request(ALL, { cacheable: true, capability: ['prompts'], result: list('prompts') }),
  'prompts/get': request(ALL, {
    rounds: true,
    nameField: 'name',
    capability: ['prompts'],
    result: list('messages'),
    span: { attribute: 'gen_ai.prompt.name', field: 'name' },
  }),
  // The Skills extension: no `nameField` (the conformance suite sends no Mcp-Name for them).
  'skills/list': request(SKILLS, { extension: 'skills', cacheable: true, capability: SKILLS_CAPABILITY, result: list('skills') }),
  'skills/get': request(SKILLS, { extension: 'skills', cacheable: true, capability: SKILLS_CAPABILITY, result: { field: 'skill', is: 'object' }, span: uriTarget }),
  'resources/directory/read': request(SKILLS, {
    extension: 'skills',
    cacheable: true,
    capability: [...SKILLS_CAPABILITY, 'directoryRead'],
    result: list('resources'),
    span: uriTarget,
  }),
  'completion/complete': request(ALL, { capability: ['completions'], result: { field: 'completion', is: 'object' } }),

  // Asked of the client: server requests in the legacy era, input requests in the modern one.
  'sampling/createMessage': request(ALL),
  'elicitation/create': request(['2025-06-18', '2025-11-25', ...MODERN]),
  'roots/list': request(ALL),

  'notifications/initialized': notification(LEGACY),
  'notifications/cancelled': notification(ALL),
  'notifications/progress': notification(ALL),
  'notifications/message': notification(ALL),
  'notifications/tools/list_changed': notification(ALL),
  'notifications/resources/list_changed': notification(ALL),
  'notifications/resources/updated': notification(ALL, { span: uriTarget }),
  'notifications/prompts/list_changed': notification(ALL),
  'notifications/roots/list_changed': notification(LEGACY),
  'notifications/elicitation/complete': notification(['2025-11-25']),
  'notifications/tasks/status': notification(['2025-11-25']),
  'notifications/subscriptions/acknowledged': notification(MODERN),
} satisfies Record<string, MethodTraits>;

/** The name of a method of the table (`'tools/call'`, `'notifications/progress'`…). */
export type McpMethodName = keyof typeof TABLE;

/** Every method of the table, by name: a Map, so a name from a peer is never looked up on a prototype. */
export const MCP_METHODS: ReadonlyMap<string, McpMethod> = new Map(
  Object.entries(TABLE).map(([name, row]): [string, McpMethod] => [
    name,
    Object.freeze({
      name,
      ...row,
      legacy: row.revisions.some((version) => REVISIONS[version].era === 'legacy'),
      modern: row.revisions.some((version) => REVISIONS[version].era === 'modern'),
    }),
  ]),
);

/**
 * The row of `method`, or undefined for a method MCP does not define.
 *
 * @example
 * mcpMethod('resources/read')?.nameField; // 'uri'
 */
export function mcpMethod(method: string): McpMethod | undefined {
  return MCP_METHODS.get(method);
}

/**
 * True when `capabilities` declare the capability at `path`: the value there is an object (a
 * capability with its options, `tools: {}`) or `true` (a flag, `resources.subscribe: true`).
 *
 * @example
 * declaresCapability({ resources: { subscribe: true } }, ['resources', 'subscribe']); // true
 */
export function declaresCapability(capabilities: object, path: readonly string[]): boolean {
  let value: unknown = capabilities;
  for (let i = 0; i < path.length; i++) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[path[i]];
  }
  return value === true || (typeof value === 'object' && value !== null);
}
