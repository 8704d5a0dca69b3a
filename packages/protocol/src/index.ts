/**
 * @hermes-mcp/protocol — the MCP wire layer: JSON-RPC codec, message types, errors, the revision
 * table, the method table, the Transport contract and the Peer. It depends on nothing.
 */
export { ConnectionClosedError, ErrorCode, McpError, describeValue } from './errors';
export type { ErrorCodeValue, JsonRpcErrorObject } from './errors';
export {
  JSONRPC_VERSION,
  MAX_ID_LENGTH,
  classify,
  classifyValue,
  errorResponse,
  isNotification,
  isRecord,
  isRequest,
  isResponse,
  notification,
  parseFrame,
  parseJson,
  request,
  resultResponse,
  reuseSerialized,
  serialize,
} from './jsonrpc';
export type {
  ClassifiedMessage,
  InvalidMessage,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
  MessageKind,
  ParsedFrame,
  RequestId,
} from './jsonrpc';
export {
  LATEST_LEGACY_VERSION,
  META_KEYS,
  MODERN_PROTOCOL_VERSIONS,
  isModernProtocolVersion,
  LEGACY_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
  REVISIONS,
  TASKS_EXTENSION,
  isLegacyProtocolVersion,
  isProtocolVersion,
  negotiateLegacyVersion,
} from './revisions';
export type { Era, LegacyProtocolVersion, ModernProtocolVersion, ProtocolVersion, RevisionFeatures } from './revisions';
export { MCP_METHODS, declaresCapability, mcpMethod } from './methods';
export type { McpMethod, McpMethodName, MethodTraits, SpanTarget } from './methods';
export * from './types';
export {
  APPS_EXTENSION,
  APP_MIME_TYPE,
  APP_RESOURCE_URI_META_KEY,
  DIRECTORY_MIME_TYPE,
  SKILLS_EXTENSION,
  SKILL_DIGEST_PATTERN,
  SKILL_LIMITS,
  SKILL_MD_MIME_TYPE,
  SKILL_NAME_MAX,
  SKILL_NAME_PATTERN,
} from './extensions';
export {
  canonicalUri,
  compareUris,
  encodeSegment,
  frontmatterDifferences,
  isSkillDigest,
  isSkillName,
  isWithin,
  lastSegmentOf,
  resolveSkillRef,
  skillFileKey,
  skillRootUri,
  skillUri,
  splitFrontmatter,
  validateSkillEntry,
} from './skills';
export type { SendOptions, Transport, TransportInfo } from './transport';
export { DONE } from './transport';
export { copyInto, merge } from './objects';
export { TRACE_CHANNELS } from './trace';
export type { ClientRequestTrace, NotificationEvent, RequestTrace, ServerRequestTrace, SessionEvent } from './trace';
export { InboundRequest, MAX_TIMER_DELAY, Peer, isThenable } from './peer';
export { InMemoryTransport } from './memory-transport';
export type { ErrorContext, InboundRequestExtra, PeerHandlers, PeerOptions, PendingRequest, ProgressUpdate, RequestOptions } from './peer-types';
export { decodeHeaderValue, encodeHeaderValue, headerParamsOf, printableHeader, trimOws, validateHeaderDeclarations } from './mcp-headers';
export type { DecodedHeader, HeaderParam, HeaderParamType } from './mcp-headers';
export type { Awaitable } from './awaitable';
export { JWS_ALGORITHMS, accessTokenHash, base64urlJson, jwkThumbprint, parseBase64urlJson, signJws } from './jws';
export type { JwsAlgorithm } from './jws';
export { nodeCrypto, onFirstUse } from './node-crypto';
