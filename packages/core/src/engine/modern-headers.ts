/**
 * The request headers a 2026-07-28 (modern) POST mirrors from its body (SEP-2243):
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-{Name}` headers a tool
 * declares with `x-mcp-header` in its `inputSchema`. Pure functions over Node's lower-cased
 * headers record; the caller turns a {@link HeaderProblem} into HTTP 400 with JSON-RPC -32020
 * (HeaderMismatch). Never applied to legacy (2025-era) traffic.
 */
import {
  DecodedHeader,
  HeaderParam,
  HeaderParamType,
  decodeHeaderValue,
  describeValue,
  headerParamsOf,
  isRecord,
  mcpMethod,
  printableHeader as printable,
  trimOws,
  validateHeaderDeclarations,
} from '@hermes-mcp/protocol';

export { decodeHeaderValue, headerParamsOf, validateHeaderDeclarations };
export type { DecodedHeader, HeaderParam, HeaderParamType };

/** Request headers as Node gives them: lower-cased names, duplicates of most headers joined. */
export type HeadersRecord = Record<string, string | string[] | undefined>;

/**
 * Why the headers of a request are refused: a message naming the header and both values, and the
 * `data` of the -32020 error (`mismatch` when a header disagrees with the body or is malformed,
 * `missing` with the header's name when a required one is absent).
 */
export interface HeaderProblem {
  message: string;
  data: { mismatch?: { header: string; body: unknown }; missing?: string };
}

/** A decimal number as a header carries it: `42`, `-7`, `42.0`, `1e3`. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The `MCP-Protocol-Version` cross-check alone: a problem when the header is present and differs
 * from `protocolVersion` (the body's `_meta["io.modelcontextprotocol/protocolVersion"]`). A missing
 * header is not its concern. Run it before the unsupported-version check, so that a header naming
 * `2026-07-28` on a body naming `v999.0.0` is a mismatch (-32020), not an unsupported version.
 *
 * @example
 * checkVersionHeader({ 'mcp-protocol-version': '2026-07-28' }, 'v999.0.0');
 * // { message: "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value 'v999.0.0'", ... }
 */
export function checkVersionHeader(headers: HeadersRecord, protocolVersion: string): HeaderProblem | undefined {
  const header = headerValue(headers, 'mcp-protocol-version');
  return header !== undefined && header !== protocolVersion ? mismatch('MCP-Protocol-Version', header, protocolVersion) : undefined;
}

/**
 * The `Mcp-Method` cross-check alone: a problem when the header is present and differs from the
 * body's `method`, compared case-sensitively after trimming (`TOOLS/LIST` is not `tools/list`).
 * A missing header is not its concern. Like {@link checkVersionHeader}, it may run before the
 * unsupported-version check; {@link checkStandardHeaders} repeats it.
 */
export function checkMethodHeader(headers: HeadersRecord, method: string): HeaderProblem | undefined {
  const header = headerValue(headers, 'mcp-method');
  return header !== undefined && header !== method ? mismatch('Mcp-Method', header, method) : undefined;
}

/**
 * The standard headers of a modern request, checked against its body; the first problem found,
 * in this order:
 * 1. `MCP-Protocol-Version` present and different from `protocolVersion` ({@link checkVersionHeader});
 * 2. `MCP-Protocol-Version` missing;
 * 3. `Mcp-Method` missing;
 * 4. `Mcp-Method` different from `body.method` ({@link checkMethodHeader});
 * 5. for the methods whose table entry names the field `Mcp-Name` mirrors (`tools/call` and
 *    `prompts/get`: `params.name`; `resources/read`: `params.uri`; `tasks/get|update|cancel`:
 *    `params.taskId`), when the body carries that value as a string:
 *    `Mcp-Name` missing, not decodable ({@link decodeHeaderValue}), or different from it.
 *
 * A body without the source value passes (params validation refuses it later, in-band). Header
 * names are matched case-insensitively (Node lower-cases them); values case-sensitively.
 *
 * @example
 * checkStandardHeaders(
 *   { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'foo' },
 *   { method: 'tools/call', params: { name: 'bar' } },
 *   '2026-07-28',
 * ); // { message: "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'",
 *    //   data: { mismatch: { header: 'foo', body: 'bar' } } }
 */
export function checkStandardHeaders(headers: HeadersRecord, body: { method: string; params?: Record<string, unknown> }, protocolVersion: string): HeaderProblem | undefined {
  const versionMismatch = checkVersionHeader(headers, protocolVersion);
  if (versionMismatch) return versionMismatch;
  if (headerValue(headers, 'mcp-protocol-version') === undefined) return missing('MCP-Protocol-Version');
  if (headerValue(headers, 'mcp-method') === undefined) return missing('Mcp-Method');
  const methodMismatch = checkMethodHeader(headers, body.method);
  if (methodMismatch) return methodMismatch;

  const field = mcpMethod(body.method)?.nameField;
  const expected = field !== undefined ? body.params?.[field] : undefined;
  if (typeof expected !== 'string') return undefined;
  return checkDecoded('Mcp-Name', headerValue(headers, 'mcp-name'), expected, (decoded) => decoded === expected);
}

/**
 * The `Mcp-Param-{Name}` headers of a `tools/call`, checked against its `arguments`; the first
 * problem found, taking the declarations in order. For each declaration:
 * - the body value (at `path`) is `null` or absent: the header is not expected and its value not
 *   compared; but a header that is present must still decode (a recognised header with invalid
 *   characters is refused);
 * - otherwise the header must be present, decode ({@link decodeHeaderValue}), and equal the body
 *   value: strings exactly, booleans as `true`/`false`, numbers numerically (`42.0` equals `42`;
 *   integers beyond ±(2^53−1) cannot be compared and are refused). An object or array value
 *   cannot be mirrored and is refused.
 *
 * Headers no declaration names are ignored. Node's name for `Region` is `mcp-param-region`.
 *
 * @example
 * const declarations = headerParamsOf(tool.inputSchema);
 * checkParamHeaders({ 'mcp-param-region': '=?base64?SGVsbG8=?=' }, declarations, { region: 'Hello' }); // undefined
 */
export function checkParamHeaders(headers: HeadersRecord, declarations: HeaderParam[], args: Record<string, unknown>): HeaderProblem | undefined {
  for (const declaration of declarations) {
    const name = `Mcp-Param-${declaration.header}`;
    const raw = headerValue(headers, `mcp-param-${declaration.header.toLowerCase()}`);
    const expected = valueAt(args, declaration.path);
    if (expected === undefined || expected === null) {
      const decoded = raw === undefined ? undefined : decodeHeaderValue(raw);
      if (decoded && !decoded.ok) return invalid(name, raw!, expected, decoded.problem);
      continue;
    }
    if (raw !== undefined && typeof expected === 'number' && Number.isInteger(expected) && !Number.isSafeInteger(expected)) {
      return invalid(name, raw, expected, 'the body value lies outside the safe integer range ±(2^53−1), so it cannot be compared');
    }
    const problem = checkDecoded(name, raw, expected, (decoded) => matches(decoded, expected));
    if (problem) return problem;
  }
  return undefined;
}

/** Missing → `missing`; undecodable → invalid; decoded but `equal` says no → mismatch. */
function checkDecoded(name: string, raw: string | undefined, expected: unknown, equal: (decoded: string) => boolean): HeaderProblem | undefined {
  if (raw === undefined) return missing(name);
  const decoded = decodeHeaderValue(raw);
  if (!decoded.ok) return invalid(name, raw, expected, decoded.problem);
  return equal(decoded.value) ? undefined : mismatch(name, decoded.value, expected);
}

/** Whether a decoded header value stands for the body value `expected` (a present, non-null value). */
function matches(decoded: string, expected: unknown): boolean {
  switch (typeof expected) {
    case 'string':
      return decoded === expected;
    case 'boolean':
      return decoded === String(expected);
    case 'number':
      return DECIMAL.test(decoded) && Number(decoded) === expected;
    default:
      return false; // objects and arrays have no header form
  }
}

/** A header's value, trimmed of optional whitespace; repeated headers joined as Node joins them. */
function headerValue(headers: HeadersRecord, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return trimOws(Array.isArray(value) ? value.join(', ') : value);
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function mismatch(name: string, header: string, body: unknown): HeaderProblem {
  return {
    message: `Header mismatch: ${name} header value '${printable(header)}' does not match body value ${show(body)}`,
    data: { mismatch: { header, body: echoed(body) } },
  };
}

function missing(name: string): HeaderProblem {
  return { message: `Header mismatch: required header ${name} is missing`, data: { missing: name } };
}

function invalid(name: string, header: string, body: unknown, problem: string): HeaderProblem {
  return {
    message: `Header mismatch: ${name} header value '${printable(header)}' is invalid: ${problem}`,
    data: { mismatch: { header, body: echoed(body) } },
  };
}

/** A body value as echoed in `data`: a primitive as it is; an object or array by its (cut) JSON, never a structure of any depth. */
function echoed(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? describeValue(body) : body;
}

/** A body value in a message: strings quoted like header values, anything else as JSON. */
function show(value: unknown): string {
  return typeof value === 'string' ? `'${printable(value)}'` : printable(describeValue(value));
}
