/**
 * Return normalisation: what a handler returns becomes the MCP result for its kind.
 *
 * - tools: string → text; bytes → image/audio/blob by the tool's `mimeType`; a content block or an
 *   array of them → content; a full `CallToolResult` passes through; another object →
 *   `structuredContent` plus its JSON as text; `undefined` → no content.
 * - resources: string → text contents; bytes → blob contents; a `ReadResourceResult` or contents
 *   object passes through; another value → its JSON as `application/json` text.
 * - prompts: string → one user text message; messages, a content block, or a full result.
 */
import type { CallToolResult, ContentBlock, GetPromptResult, Meta, PromptMessage, ReadResourceResult, ResourceContents } from '@hermes-mcp/protocol';
import { embedded, toBase64 } from './content';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** True for an MCP content block. */
export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && CONTENT_TYPES.has((value as { type?: unknown }).type as string);
}

function isContentArray(value: unknown): value is ContentBlock[] {
  return Array.isArray(value) && value.length > 0 && value.every(isContentBlock);
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content);
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isBytes(value);
}

function bytesBlock(bytes: Uint8Array, mimeType = 'application/octet-stream', uri = 'blob:tool-result'): ContentBlock {
  const data = toBase64(bytes);
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  return embedded(uri, bytes, mimeType);
}

/** Normalises a tool's return value. @internal */
export function toCallToolResult(value: unknown, mimeType?: string): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isBytes(value)) return { content: [bytesBlock(value, mimeType)] };
  if (isCallToolResult(value)) return value;
  if (isContentBlock(value)) return { content: [value] };
  if (isContentArray(value)) return { content: value };
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a primitive or a function here: String() is the text wanted
  if (typeof value !== 'object') return { content: [{ type: 'text', text: String(value) }] };
  const json = JSON.stringify(value);
  if (Array.isArray(value)) return { content: [{ type: 'text', text: json }] };
  return { content: [{ type: 'text', text: json }], structuredContent: toPlain(value as Record<string, unknown>) };
}

/** Class instances become plain JSON data (what the wire carries anyway). */
function toPlain(value: Record<string, unknown>): Record<string, unknown> {
  return Object.getPrototypeOf(value) === Object.prototype ? value : (JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
}

function isReadResult(value: unknown): value is ReadResourceResult {
  return isPlainRecord(value) && Array.isArray((value as ReadResourceResult).contents);
}

function isContents(value: unknown): value is ResourceContents {
  return isPlainRecord(value) && typeof value.uri === 'string' && (typeof value.text === 'string' || typeof value.blob === 'string');
}

/**
 * Normalises a resource's return value for `uri`. With `contentMeta` (an `@AppResource`'s `ui`),
 * every content item gets the resource's `mimeType` and that `_meta` where the handler set none:
 * what the handler returned wins, key by key. @internal
 */
export function toReadResourceResult(value: unknown, uri: string, mimeType?: string, contentMeta?: Meta): ReadResourceResult {
  const result = readResult(value, uri, mimeType);
  if (!contentMeta) return result;
  return { ...result, contents: result.contents.map((c) => withDefaults(c, mimeType, contentMeta)) };
}

function withDefaults(contents: ResourceContents, mimeType: string | undefined, meta: Meta): ResourceContents {
  const out: ResourceContents = { ...contents, mimeType: contents.mimeType ?? mimeType };
  const merged = { ...meta, ...contents._meta };
  if (Object.keys(merged).length > 0) out._meta = merged;
  return out;
}

function readResult(value: unknown, uri: string, mimeType?: string): ReadResourceResult {
  if (isReadResult(value)) return value;
  if (isContents(value)) return { contents: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContents)) return { contents: value };
  let contents: ResourceContents;
  if (typeof value === 'string') contents = { uri, text: value };
  else if (isBytes(value)) contents = { uri, blob: toBase64(value) };
  else return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }] };
  if (mimeType) contents.mimeType = mimeType;
  return { contents: [contents] };
}

function isMessage(value: unknown): value is PromptMessage {
  return isPlainRecord(value) && (value.role === 'user' || value.role === 'assistant') && isContentBlock(value.content);
}

/** Normalises a prompt's return value. @internal */
export function toGetPromptResult(value: unknown, description?: string): GetPromptResult {
  let result: GetPromptResult;
  if (typeof value === 'string') result = { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  else if (isMessage(value)) result = { messages: [value] };
  else if (Array.isArray(value) && value.every(isMessage)) result = { messages: value };
  else if (isContentBlock(value)) result = { messages: [{ role: 'user', content: value }] };
  else if (isPlainRecord(value) && Array.isArray(value.messages)) result = value as GetPromptResult;
  else throw new TypeError('a prompt must return a string, a content block, prompt messages, or { messages }');
  if (description !== undefined && result.description === undefined) result = { description, ...result };
  return result;
}
