/**
 * What a POST carries, read before any session: the era it belongs to (by the one era rule,
 * era.ts), the requests it needs answered, and what its answer says (a scope refusal, an error).
 * Pure functions of the body and headers, for the endpoint's routes.
 */
import { ErrorCode, JsonRpcMessage, JsonRpcRequest, McpError, ParsedFrame, RequestId } from '@hermes-mcp/protocol';
import { decideEra } from '../../engine/era';
import { headerOf } from './accept';
import type { HttpRequest } from './exchange';
import type { Expected } from './streamable';

/** What a frame needs answered (request ids, batch members without one), and whether it is an `initialize`. */
export function requestsOf(frame: ParsedFrame): Expected & { initialize: boolean; initializeInBatch?: boolean } {
  if (frame.kind === 'single') {
    const m = frame.message;
    if (m.kind === 'request') return { ids: [m.message.id], anonymous: 0, initialize: m.message.method === 'initialize' };
    if (m.kind === 'invalid' && m.id !== null && !m.noReply) return { ids: [m.id], anonymous: 0, initialize: false };
    return { ids: [], anonymous: 0, initialize: false };
  }
  if (frame.kind === 'batch') {
    const ids: RequestId[] = [];
    let anonymous = 0;
    for (const m of frame.messages) {
      if (m.kind === 'request') {
        if (m.message.method === 'initialize') return { ids: [], anonymous: 0, initialize: false, initializeInBatch: true };
        ids.push(m.message.id);
      } else if (m.kind === 'invalid' && !m.noReply) {
        // Answered with its own id when it had a readable one, with id null otherwise.
        if (m.id !== null) ids.push(m.id);
        else anonymous++;
      }
    }
    return { ids, anonymous, initialize: false };
  }
  return { ids: [], anonymous: 0, initialize: false };
}

/** Which era a POST belongs to: decided by the body and the version header, before any session. */
export type PostEra = { kind: 'legacy' } | { kind: 'modern'; request: JsonRpcRequest } | { kind: 'modern-notification' } | { kind: 'refuse'; error: McpError; id?: RequestId };

export function eraOfPost(request: HttpRequest, frame: ParsedFrame): PostEra {
  const header = headerOf(request.headers, 'mcp-protocol-version');
  if (frame.kind === 'batch') {
    const claimed = frame.messages.some((m) => (m.kind === 'request' || m.kind === 'notification') && decideEra(m.message.method, m.message.params, {}) === 'modern');
    if (claimed) return { kind: 'refuse', error: McpError.invalidRequest('JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later') };
    return { kind: 'legacy' };
  }
  if (frame.kind !== 'single') return { kind: 'legacy' };
  const m = frame.message;
  if (m.kind === 'request' || m.kind === 'notification') {
    const era = decideEra(m.message.method, m.message.params, { header });
    if (era instanceof McpError) return { kind: 'refuse', error: era, id: m.kind === 'request' ? m.message.id : undefined };
    if (era === 'legacy') return { kind: 'legacy' };
    return m.kind === 'request' ? { kind: 'modern', request: m.message } : { kind: 'modern-notification' };
  }
  // Not JSON-RPC, but meant for the modern era: answer with what is wrong (and its id), not with a session error.
  if (m.kind === 'invalid' && decideEra('', (request.body as { params?: unknown } | null)?.params, { header }) === 'modern') {
    // A malformed response is never answered with its id: the client would take it for our answer.
    return { kind: 'refuse', error: m.error, id: m.noReply ? undefined : (m.id ?? undefined) };
  }
  return { kind: 'legacy' };
}

/** The -32012 error a single response carries, as an McpError; undefined for anything else. */
export function insufficientScopeOf(message: JsonRpcMessage | JsonRpcMessage[]): McpError | undefined {
  if (Array.isArray(message) || !('error' in message) || message.error.code !== ErrorCode.InsufficientScope) return undefined;
  return McpError.fromObject(message.error);
}

/** Whether a single answer is an error. */
export function isError(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && 'error' in message;
}

/** The `sessionId` query parameter of a URL. */
export function sessionIdOf(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query === -1) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('sessionId') ?? undefined;
}
