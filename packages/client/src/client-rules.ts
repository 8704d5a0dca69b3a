/**
 * What McpClient decides by rule, not by state: whether an answer has the field its method's row
 * requires, what an error says about the server's era, revisions or session (or a stdio server's
 * exit), the methods an era lacks, log levels, and which list a list_changed notification is about.
 */
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  ConnectionClosedError,
  ErrorCode,
  LOGGING_LEVELS,
  MODERN_PROTOCOL_VERSIONS,
  McpError,
  TASKS_EXTENSION,
  isLegacyProtocolVersion,
  isRecord,
} from '@hermes-mcp/protocol';
import type { ClientCapabilities, McpMethod, McpMethodName, Transport } from '@hermes-mcp/protocol';
import type { McpClientOptions } from './client-api';

/**
 * The capabilities a client declares: `capabilities` as given, else what its handlers make true;
 * plus the extensions its options turn on (`tasks`, `apps`), beside any the capabilities name.
 */
export function declaredCapabilities(options: McpClientOptions): ClientCapabilities {
  const capabilities: ClientCapabilities = options.capabilities ?? {
    ...(options.onElicitation && { elicitation: { form: {}, url: {} } }),
    ...(options.onSampling && { sampling: {} }),
    ...(options.onRoots && { roots: { listChanged: true } }),
  };
  if (!options.tasks && !options.apps) return capabilities;
  const extensions = {
    ...(isRecord(capabilities.extensions) ? capabilities.extensions : {}),
    ...(options.tasks && { [TASKS_EXTENSION]: {} }),
    ...(options.apps && { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } }),
  };
  return { ...capabilities, extensions };
}

/**
 * The result of `method` (its row of the method table) if it has the field the row requires, or
 * is a task (`resultType: "task"` of 2026-07-28, a 2025-11-25 `CreateTaskResult`); an `McpError` (-32603) saying
 * what is missing otherwise — a malformed answer fails where it is read, not deep in the caller.
 */
export function checked(method: string, row: McpMethod | undefined, result: Record<string, unknown>): Record<string, unknown> {
  const shape = row?.result;
  if (!shape || result.resultType === 'task' || result.resultType === 'input_required') return result;
  // A 2025-11-25 task-augmented request (`params.task`) is answered with the task it started.
  if (isRecord(result.task) && typeof result.task.taskId === 'string') return result;
  const value = result[shape.field];
  const ok = shape.is === 'array' ? Array.isArray(value) : shape.is === 'object' ? isRecord(value) : typeof value === 'string';
  if (ok) return result;
  throw new McpError(
    ErrorCode.InternalError,
    `Invalid response to ${method}: "${shape.field}" must be ${shape.is === 'array' ? 'an array' : `a${shape.is === 'object' ? 'n object' : ' string'}`}`,
    { method },
  );
}

/** True for the error of a request whose session the server forgot (HTTP 404). */
export function isSessionExpired(error: unknown): boolean {
  return error instanceof ConnectionClosedError && (error.data as { sessionExpired?: unknown } | undefined)?.sessionExpired === true;
}

/**
 * True when `error`, what came of `server/discover`, says the server speaks no 2026-07-28 and
 * `initialize` is next (the spec's backward compatibility, on stdio and HTTP alike): any error the
 * server answered, whatever its code (fastmcp 4 over HTTP sends -32000, the SDK v1 -32601, others
 * -32602), an HTTP error status the transport turned into one, or no answer in time. Not the errors only a
 * 2026-07-28 server sends (-32020, -32021, and -32022 that names no earlier revision): the server
 * is modern and `initialize` would not help. Not a local error either (a `ConnectionClosedError`,
 * an `OAuthError`): `initialize` would meet it too.
 */
export function answeredLegacy(error: unknown): boolean {
  if (!(error instanceof McpError)) return false;
  if (error.code === ErrorCode.HeaderMismatch || error.code === ErrorCode.MissingRequiredClientCapability) return false;
  if (error.code !== ErrorCode.UnsupportedProtocolVersion) return true;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  return !Array.isArray(supported) || supported.some((version) => typeof version === 'string' && isLegacyProtocolVersion(version));
}

/**
 * For a -32022 (unsupported protocol version) answer: the newest 2026-era revision both sides
 * speak, from the error's `data.supported`; undefined for any other error.
 */
export function otherVersion(error: unknown, asked: string): string | undefined {
  if (!(error instanceof McpError) || error.code !== ErrorCode.UnsupportedProtocolVersion) return undefined;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  if (!Array.isArray(supported)) return undefined;
  const both = MODERN_PROTOCOL_VERSIONS.filter((v) => supported.includes(v));
  // The same revision again is a retry the server asked for (it may have refused the first try only).
  return both.length > 0 ? both[both.length - 1] : supported.includes(asked) ? asked : undefined;
}

/** A connection that closed because a stdio server exited says how it exited; any other error is `error`. */
export function explainClosed(error: unknown, transport: Transport): unknown {
  if (!(error instanceof ConnectionClosedError)) return error;
  const status = (transport as { status?: () => { exit?: { code: number | null; signal: string | null } } }).status?.();
  if (!status?.exit) return error;
  const how = status.exit.signal ?? `code ${status.exit.code}`;
  return new ConnectionClosedError(`Connection closed: the server exited with ${how}`, { exit: status.exit });
}

/**
 * Methods an era does not have, and what to use there instead: refused here, unsent (a server
 * would answer a bare -32601).
 */
export const NOT_IN_ERA: Readonly<Record<'legacy' | 'modern', Readonly<Record<string, string>>>> = {
  legacy: {
    'subscriptions/listen': 'list changes come by themselves (onListChanged), and resource updates after subscribe(uri) (onResourceUpdated)',
  },
  modern: {
    'logging/setLevel': "the level goes in each request's _meta: call setLogLevel(level), or give the logLevel option",
    'resources/subscribe': 'watch the resource with listen({ resourceSubscriptions: [uri] }); its updates reach onResourceUpdated too',
    'resources/unsubscribe': 'end the listen() loop watching the resource (break out of it, or abort its signal)',
  },
} satisfies Record<'legacy' | 'modern', { readonly [M in McpMethodName]?: string }>;

/** Throws a `RangeError` unless `level` is one of MCP's log levels. */
export function checkLogLevel(level: unknown, where: string): void {
  if (!(LOGGING_LEVELS as readonly unknown[]).includes(level))
    throw new RangeError(`${where}: ${JSON.stringify(level)} is no MCP log level; use one of ${LOGGING_LEVELS.join(', ')}`);
}

/** The list each list_changed notification is about. */
export const LIST_CHANGED: Readonly<Record<string, 'tools' | 'resources' | 'prompts'>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
} satisfies { readonly [M in McpMethodName]?: 'tools' | 'resources' | 'prompts' };
