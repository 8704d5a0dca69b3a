/**
 * Which era a message belongs to — the one rule, for every transport (MCP 2026-07-28,
 * "Protocol Version Negotiation" and the Streamable HTTP transport):
 *
 * 1. A connection that already spoke the legacy era (initialize-based) stays in it.
 * 2. A message whose `params._meta` carries the protocol-version key claims the modern era.
 * 3. `initialize` is legacy — refused when an HTTP `MCP-Protocol-Version` header names a modern
 *    revision (-32020) or the connection already speaks the modern era (-32022).
 * 4. Anything else is modern when the HTTP header names a modern revision or the connection speaks
 *    the modern era (its missing envelope is then refused as such, -32602), legacy otherwise.
 */
import { ErrorCode, McpError, META_KEYS, MODERN_PROTOCOL_VERSIONS, describeValue, isModernProtocolVersion, isRecord } from '@hermes-mcp/protocol';

/** What is known besides the message. */
export interface EraHints {
  /** The `MCP-Protocol-Version` header (HTTP). */
  readonly header?: string;
  /** The era a stream connection already speaks. */
  readonly pinned?: 'legacy' | 'modern';
}

/** The decision: an era, or the error a request is refused with. */
export type EraDecision = 'legacy' | 'modern' | McpError;

/** True when the params carry a modern envelope claim (`_meta` with a protocol version key). */
export function hasModernClaim(params: unknown): boolean {
  return isRecord(params) && isRecord(params._meta) && META_KEYS.protocolVersion in params._meta;
}

/** Which era a request or notification belongs to, by the rule above. */
export function decideEra(method: string, params: unknown, hints: EraHints): EraDecision {
  if (hints.pinned === 'legacy') return 'legacy';
  if (hasModernClaim(params)) return 'modern';
  const modernHeader = hints.header !== undefined && isModernProtocolVersion(hints.header.trim());
  if (method === 'initialize') {
    if (modernHeader) {
      const error = new McpError(
        ErrorCode.HeaderMismatch,
        'Bad Request: an initialize request cannot name MCP-Protocol-Version 2026-07-28 (send server/discover with _meta instead)',
        {
          mismatch: { header: hints.header, body: method },
        },
      );
      error.httpStatus = 400;
      return error;
    }
    if (hints.pinned === 'modern') {
      const requested = describeValue(isRecord(params) ? params.protocolVersion : undefined);
      return new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${requested} (this connection speaks MCP 2026-07-28)`, {
        supported: [...MODERN_PROTOCOL_VERSIONS],
        requested,
      });
    }
    return 'legacy';
  }
  return modernHeader || hints.pinned === 'modern' ? 'modern' : 'legacy';
}
