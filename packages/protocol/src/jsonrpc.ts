/**
 * JSON-RPC 2.0 codec: types, parsing and classification of messages.
 *
 * Parsing is strict about the envelope (`jsonrpc: "2.0"`, id types, method a string) and does not
 * look inside `params`/`result`: that is the engine's job, per method and revision.
 */
import { ErrorCode, JsonRpcErrorObject, McpError } from './errors';

/** The JSON-RPC version string every message carries. */
export const JSONRPC_VERSION = '2.0';

/** A request id: a string or an integer (MCP forbids null). */
export type RequestId = string | number;

/** A request: expects a response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: no id, no response. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** A successful response. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

/**
 * An error response. When the request's id could not be read, `id` is null (JSON-RPC 2.0, the
 * legacy revisions) or absent (2026-07-28, whose `RequestId` excludes null).
 */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What one message is, as decided by {@link classify}. */
export type MessageKind = 'request' | 'notification' | 'result' | 'error';

/**
 * A message that failed envelope validation. It keeps the id when one could be read, so the error
 * response can echo it.
 */
export interface InvalidMessage {
  kind: 'invalid';
  id: RequestId | null;
  error: McpError;
  /**
   * True when the message must not be answered: it looked like a response (a `result` or `error`
   * member and no `method`: an error echoing its id would be read by the other side as the answer
   * to its own request with that id), or it is a notification whose content was refused (JSON-RPC
   * never answers a notification).
   */
  noReply?: true;
}

/** A classified single message. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'result'; message: JsonRpcResultResponse }
  | { kind: 'error'; message: JsonRpcErrorResponse }
  | InvalidMessage;

/** The outcome of parsing one frame of bytes. */
export type ParsedFrame = { kind: 'single'; message: ClassifiedMessage } | { kind: 'batch'; messages: ClassifiedMessage[] } | { kind: 'invalid'; error: McpError };

/**
 * The longest string request id or progress token accepted, in characters. Both are echoed in
 * what the server sends (every response, every progress notification), so a client must not be
 * able to make each of those megabytes long.
 */
export const MAX_ID_LENGTH = 1024;

function isId(value: unknown): value is RequestId {
  return (typeof value === 'string' && value.length <= MAX_ID_LENGTH) || (typeof value === 'number' && Number.isInteger(value));
}

const ID_RULE = `a string of at most ${MAX_ID_LENGTH} characters or an integer`;

/** Why a request's progress token cannot be used, or undefined when it can (or there is none). */
function progressTokenProblem(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  if (token === undefined || isId(token)) return undefined;
  return `the progress token (params._meta.progressToken) must be ${ID_RULE}`;
}

/** True for a plain JSON object (not null, not an array): what `params`, `result` and `_meta` must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Decides what a parsed JSON value is. Never throws: a value that is not a valid JSON-RPC message
 * becomes `{ kind: 'invalid' }` with a -32600 error that says what was wrong. With `checkKeys`, a
 * message holding a key that could change prototypes is refused too (with its id, when readable).
 */
export function classify(value: unknown, checkKeys = false): ClassifiedMessage {
  const classified = classifyEnvelope(value);
  if (!checkKeys || classified.kind === 'invalid') return classified;
  // Refused after the envelope checks, so a message that is invalid anyway is answered as before.
  const key = forbiddenKey(value);
  if (key === undefined) return classified;
  const detail = `the message has a ${key} key, which this server refuses (it could change object prototypes)`;
  switch (classified.kind) {
    case 'request':
      return invalid(classified.message.id, detail);
    case 'notification':
      return invalid(null, detail, true);
    default:
      return invalid(classified.message.id ?? null, detail, true);
  }
}

/** {@link classify} without the key check. */
function classifyEnvelope(value: unknown): ClassifiedMessage {
  if (!isRecord(value)) {
    return invalid(null, 'a JSON-RPC message must be an object');
  }
  const id = 'id' in value ? value.id : undefined;
  const readableId = isId(id) ? id : null;
  if (value.jsonrpc !== JSONRPC_VERSION) {
    const looksLikeResponse = !('method' in value) && ('result' in value || 'error' in value);
    return invalid(readableId, 'the "jsonrpc" member must be exactly "2.0"', looksLikeResponse);
  }
  if ('method' in value) {
    if (typeof value.method !== 'string') return invalid(readableId, 'the "method" member must be a string');
    if (value.params !== undefined && !isRecord(value.params)) {
      return invalid(readableId, 'the "params" member must be an object when present (MCP uses named params)');
    }
    if (id === undefined) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isId(id)) return invalid(null, `the "id" member must be ${ID_RULE}`);
    const tokenProblem = progressTokenProblem(value.params);
    if (tokenProblem !== undefined) return invalid(id, tokenProblem);
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if ('result' in value) {
    if (!isId(id)) return invalid(null, 'a response must carry the id of its request', true);
    if (!isRecord(value.result)) return invalid(readableId, 'the "result" member must be an object', true);
    return { kind: 'result', message: value as unknown as JsonRpcResultResponse };
  }
  if ('error' in value) {
    const error = value.error;
    if (!isRecord(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return invalid(readableId, 'the "error" member must be an object with a numeric code and a message', true);
    }
    // An absent id is how 2026-07-28 answers a request whose id could not be read.
    if (id !== undefined && id !== null && !isId(id)) return invalid(null, `the "id" member must be ${ID_RULE}, or null`, true);
    return { kind: 'error', message: value as unknown as JsonRpcErrorResponse };
  }
  return invalid(readableId, 'a message needs a "method" (request, notification), a "result" or an "error"');
}

function invalid(id: RequestId | null, detail: string, noReply = false): InvalidMessage {
  const message: InvalidMessage = { kind: 'invalid', id, error: McpError.invalidRequest(detail) };
  if (noReply) message.noReply = true;
  return message;
}

/**
 * Why a parsed message is refused, or undefined: an own `__proto__` key, or a `constructor` key
 * holding a `prototype`, at any depth. `JSON.parse` keeps them as plain keys, but code that copies
 * keys onto objects (class-transformer, merges, spreads into instances) would turn them into
 * prototype changes, so they are refused before anything sees them. Iterative: client JSON can nest
 * deeper than the stack.
 */
function forbiddenKey(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(node, '__proto__')) return '"__proto__"';
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item !== 'object' || item === null) continue;
      if (key === 'constructor' && Object.prototype.hasOwnProperty.call(item, 'prototype')) return '"constructor" with a "prototype"';
      pending.push(item);
    }
  }
  return undefined;
}

/**
 * Parses JSON text (a leading byte-order mark is ignored, as RFC 8259 allows). `suspect` says
 * whether the text could spell a key {@link classify} must refuse (`__proto__`, `constructor` with
 * `prototype`, plainly or with `\\u` escapes): pass it on to {@link classifyValue}. Never throws.
 */
export function parseJson(text: string): { ok: true; value: unknown; suspect: boolean } | { ok: false; error: McpError } {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, error: McpError.parseError((error as Error).message) };
  }
  // `__proto__` and `prototype` spelled out, or anything spelled with escapes ("protocolVersion" is no suspect).
  return { ok: true, value, suspect: typeof value === 'object' && value !== null && (json.includes('__proto__') || json.includes('prototype') || json.includes('\\u')) };
}

/**
 * Parses one frame (a line on stdio, a body on HTTP). Arrays are batches; an empty array is an
 * invalid request, as JSON-RPC 2.0 says. Never throws.
 */
export function parseFrame(text: string): ParsedFrame {
  const parsed = parseJson(text);
  return parsed.ok ? classifyValue(parsed.value, parsed.suspect) : { kind: 'invalid', error: parsed.error };
}

/**
 * Like {@link parseFrame}, for a value that is already parsed (e.g. by an HTTP framework).
 * `checkKeys` refuses messages with keys that could change prototypes (see {@link parseJson}'s
 * `suspect`); leave it off only for values that cannot hold them.
 */
export function classifyValue(value: unknown, checkKeys = false): ParsedFrame {
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'invalid', error: McpError.invalidRequest('an empty batch is not a request') };
    return { kind: 'batch', messages: value.map((m) => classify(m, checkKeys)) };
  }
  return { kind: 'single', message: classify(value, checkKeys) };
}

/** Builds a success response. */
export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

/**
 * Builds an error response. `id` is null when the request's id could not be read; `undefined`
 * leaves the member out, as 2026-07-28 does in that case.
 */
export function errorResponse(id: RequestId | null | undefined, error: JsonRpcErrorObject | McpError): JsonRpcErrorResponse {
  const object = error instanceof McpError ? error.toJSON() : error;
  return id === undefined ? { jsonrpc: JSONRPC_VERSION, error: object } : { jsonrpc: JSONRPC_VERSION, id, error: object };
}

/** Builds a request. */
export function request(id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params };
}

/** Builds a notification. */
export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params };
}

/** True for a request message (has a method and an id). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

/** True for a notification message (has a method and no id). */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

/** True for a response (result or error). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return 'result' in message || 'error' in message;
}

/** Re-exported for codec users that only import this module. */
export { ErrorCode };

const serialized = new WeakMap<object, string | null>();

/**
 * Marks a result object that will be sent many times unchanged (a list page, say): its JSON is
 * computed once, on first use, and reused by {@link serialize}. The object must not change after.
 */
export function reuseSerialized<T extends object>(result: T): T {
  if (!serialized.has(result)) serialized.set(result, null);
  return result;
}

/**
 * JSON text of a message; results marked with {@link reuseSerialized} are not serialised again.
 *
 * A response always serialises: one whose result (or error data) `JSON.stringify` refuses — a
 * BigInt, a cycle, a `toJSON` or a getter that throws — becomes an error response with the same id
 * (-32603, or its own code and message without the data), so its request is still answered. A
 * request or notification that cannot be serialised throws: it is its sender's mistake.
 *
 * Nesting depth is not bounded here: that would walk every message. Where `JSON.stringify`
 * recurses, nesting deeper than the stack is refused like the values above (on Node 20 to 24
 * always; on Node 26 when a `toJSON`, a getter or a class instance is among it), and the answer
 * falls back as they do; Node 26 writes plain objects and arrays at any depth. Either way the text
 * is valid JSON. The framework echoes no client structure in what it sends (ids and tokens are
 * bounded strings, other values go through {@link describeValue}), so only a handler can make an
 * answer that deep.
 */
export function serialize(message: JsonRpcMessage | JsonRpcMessage[]): string {
  try {
    return serializeAsIs(message);
  } catch (error) {
    if (Array.isArray(message)) return `[${message.map((m) => serialize(m)).join(',')}]`;
    if (!('result' in message) && !('error' in message)) throw error;
    const id = message.id;
    const failed = 'error' in message && typeof message.error?.code === 'number' && typeof message.error.message === 'string';
    const fallback = failed ? { code: message.error.code, message: message.error.message } : McpError.internalError('Internal error: the answer could not be serialized').toJSON();
    return JSON.stringify(errorResponse(id, fallback));
  }
}

function serializeAsIs(message: JsonRpcMessage | JsonRpcMessage[]): string {
  if (!Array.isArray(message) && 'result' in message) {
    const result = message.result;
    const cached = serialized.get(result);
    if (cached !== undefined) {
      let json = cached;
      if (json === null) serialized.set(result, (json = JSON.stringify(result)));
      return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${json}}`;
    }
  }
  return JSON.stringify(message);
}
