/**
 * Helpers that build content blocks by hand, for tools and prompts that want exact control.
 */
import type { Annotations, AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, ResourceLink, TextContent, TextResourceContents } from '@hermes-mcp/protocol';

/** Bytes as base64: accepts a base64 string as it is. */
function base64(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/** A text content block. */
export function text(value: string, annotations?: Annotations): TextContent {
  return annotations ? { type: 'text', text: value, annotations } : { type: 'text', text: value };
}

/** An image content block from bytes or base64. */
export function image(data: Uint8Array | string, mimeType: string): ImageContent {
  return { type: 'image', data: base64(data), mimeType };
}

/** An audio content block from bytes or base64 (MCP 2025-03-26+). */
export function audio(data: Uint8Array | string, mimeType: string): AudioContent {
  return { type: 'audio', data: base64(data), mimeType };
}

/** A link to a resource the client can read (MCP 2025-06-18+; older clients get the URI as text). */
export function resourceLink(uri: string, name: string, extra: Omit<ResourceLink, 'type' | 'uri' | 'name'> = {}): ResourceLink {
  return { type: 'resource_link', uri, name, ...extra };
}

/**
 * An embedded resource: text contents for a string, blob contents for bytes.
 *
 * @example
 * embedded('notes://note/1', '# Groceries', 'text/markdown')
 */
export function embedded(uri: string, data: string | Uint8Array, mimeType?: string): EmbeddedResource {
  const resource: TextResourceContents | BlobResourceContents = typeof data === 'string' ? { uri, text: data } : { uri, blob: base64(data) };
  if (mimeType) resource.mimeType = mimeType;
  return { type: 'resource', resource };
}

/** Converts bytes to base64 (shared by the normalisers). @internal */
export { base64 as toBase64 };
