/**
 * The checks of a modern-era (MCP 2026-07-28) request, in the order the spec and the conformance
 * suite give, one sequence for every transport ({@link admitModern}): the `_meta` envelope
 * (-32602, HTTP 400), over HTTP the headers that contradict it (-32020), the version (-32022), over
 * HTTP the required headers, `Mcp-Name` and `Mcp-Param-*` (-32020), the method (-32601, HTTP 404).
 */
import { ErrorCode, Implementation, JsonRpcRequest, McpError, META_KEYS, MODERN_PROTOCOL_VERSIONS, isModernProtocolVersion, isRecord } from '@hermes-mcp/protocol';
import { isLoggingLevel } from '../context/mcp-context';
import { TASKS_EXTENSION } from './tasks';
import { MethodSpec, methodSpec } from './methods';
import type { Envelope } from './modern-call';
import { HeaderParam, HeaderProblem, HeadersRecord, checkMethodHeader, checkParamHeaders, checkStandardHeaders, checkVersionHeader, headerParamsOf } from './modern-headers';

/** The modern revisions this server serves. @internal */
export const SUPPORTED: string[] = [...MODERN_PROTOCOL_VERSIONS];

/** Sets the HTTP status an error is answered with. @internal */
export function status(error: McpError, httpStatus: number): McpError {
  error.httpStatus = httpStatus;
  return error;
}

/** -32021 (HTTP 400): the request did not declare the tasks extension. */
export function needsTasks(reason: string): McpError {
  return status(
    new McpError(ErrorCode.MissingRequiredClientCapability, `Cannot use tasks: ${reason}; declare the ${TASKS_EXTENSION} extension.`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    }),
    400,
  );
}

function envelopeError(key: string, problem: string): McpError {
  return status(McpError.invalidParams(`Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}`, { envelope: { key, problem } }), 400);
}

/**
 * Checks a request's `_meta` envelope: -32602 (HTTP 400) when it is missing or malformed,
 * -32022 (HTTP 400) when its revision is not served. Only the keys are checked; the version is
 * checked after the caller compares it with the HTTP header.
 */
export function readEnvelope(params: Record<string, unknown> | undefined): Omit<Envelope, 'version'> & { version: string } {
  const meta = params?._meta;
  if (!isRecord(meta)) throw status(McpError.invalidParams('Invalid _meta envelope: params._meta is missing', { envelope: { missing: ['_meta'] } }), 400);
  const version = meta[META_KEYS.protocolVersion];
  const capabilities = meta[META_KEYS.clientCapabilities];
  if (version === undefined) throw envelopeError(META_KEYS.protocolVersion, 'missing');
  if (capabilities === undefined) throw envelopeError(META_KEYS.clientCapabilities, 'missing');
  if (typeof version !== 'string') throw envelopeError(META_KEYS.protocolVersion, 'must be a string');
  if (!isRecord(capabilities)) throw envelopeError(META_KEYS.clientCapabilities, 'must be an object');
  const info = meta[META_KEYS.clientInfo];
  if (info !== undefined && (!isRecord(info) || typeof info.name !== 'string' || typeof info.version !== 'string')) {
    throw envelopeError(META_KEYS.clientInfo, 'must be an object with a string name and version');
  }
  const level = meta[META_KEYS.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) throw envelopeError(META_KEYS.logLevel, 'must be a logging level');
  return { version, clientInfo: info as Implementation | undefined, capabilities: capabilities, logLevel: level, meta };
}

/** -32022 (HTTP 400) unless the envelope names a modern revision this server serves. */
export function checkVersion(envelope: ReturnType<typeof readEnvelope>): Envelope {
  if (!isModernProtocolVersion(envelope.version)) {
    throw status(
      new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${envelope.version}`, { supported: SUPPORTED, requested: envelope.version }),
      400,
    );
  }
  return envelope as Envelope;
}

/** The method's table entry; -32601 (HTTP 404) for a method the modern era does not have. */
export function checkMethod(method: string): MethodSpec {
  const spec = methodSpec(method);
  if (!spec?.modern) throw status(new McpError(ErrorCode.MethodNotFound, 'Method not found', { method }), 404);
  return spec;
}

/** A modern request that passed every check: its method's table entry and its envelope. For the Hermes packages. */
export interface Admitted {
  readonly spec: MethodSpec;
  readonly envelope: Envelope;
}

/** The `x-mcp-header` declarations of each tool's input schema, read once per schema. */
const paramHeaders = new WeakMap<object, HeaderParam[]>();

/**
 * Checks a modern request in the order the spec and the conformance suite give, the one sequence
 * for every transport: the envelope (-32602); over HTTP (`headers`), the headers that contradict
 * it (-32020, before the version: a body naming an unknown version under
 * `MCP-Protocol-Version: 2026-07-28` is a mismatch); the version (-32022); over HTTP the required
 * headers, `Mcp-Name` and the tool's `Mcp-Param-*` (-32020); the method (-32601, HTTP 404).
 * `inputSchemaOf` finds a tool's input schema for its `x-mcp-header` declarations.
 */
export function admitModern(request: JsonRpcRequest, headers: HeadersRecord | undefined, inputSchemaOf?: (tool: string) => object | undefined): Admitted {
  const read = readEnvelope(request.params);
  if (headers) {
    const contradiction = checkVersionHeader(headers, read.version) ?? checkMethodHeader(headers, request.method);
    if (contradiction) throw headerMismatch(contradiction);
  }
  const envelope = checkVersion(read);
  if (headers) {
    const problem = checkStandardHeaders(headers, request, envelope.version) ?? checkToolParamHeaders(headers, request, inputSchemaOf);
    if (problem) throw headerMismatch(problem);
  }
  return { spec: checkMethod(request.method), envelope };
}

/** For `tools/call`, the `Mcp-Param-*` headers the tool declares; an unknown tool gets its -32602 in-band later. */
function checkToolParamHeaders(headers: HeadersRecord, request: JsonRpcRequest, inputSchemaOf?: (tool: string) => object | undefined): HeaderProblem | undefined {
  const params = request.params;
  if (request.method !== 'tools/call' || typeof params?.name !== 'string' || !inputSchemaOf) return undefined;
  const schema = inputSchemaOf(params.name);
  if (!schema) return undefined;
  let declared = paramHeaders.get(schema);
  if (!declared) paramHeaders.set(schema, (declared = headerParamsOf(schema)));
  if (declared.length === 0) return undefined;
  return checkParamHeaders(headers, declared, isRecord(params.arguments) ? params.arguments : {});
}

/** -32020 (HTTP 400): a header disagrees with the body, is malformed, or is missing. */
export function headerMismatch(problem: HeaderProblem): McpError {
  return status(new McpError(ErrorCode.HeaderMismatch, problem.message, problem.data), 400);
}
