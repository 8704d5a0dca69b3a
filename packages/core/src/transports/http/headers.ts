/**
 * The request headers a 2026-07-28 (modern) POST mirrors from its body (SEP-2243):
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-{Name}` headers a tool
 * declares with `x-mcp-header` in its `inputSchema`. Pure functions over Node's lower-cased
 * headers record; the caller turns a {@link HeaderProblem} into HTTP 400 with JSON-RPC -32020
 * (HeaderMismatch). Never applied to legacy (2025-era) traffic.
 */
import { describeValue, isRecord } from '@hermes-mcp/protocol';
import { methodSpec } from '../../engine/methods';

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

/** The outcome of {@link decodeHeaderValue}. */
export type DecodedHeader = { ok: true; value: string } | { ok: false; problem: string };

/** The JSON Schema types an `x-mcp-header` property may have ({@link headerParamsOf}). */
export type HeaderParamType = 'string' | 'integer' | 'boolean' | 'number';

/** One `x-mcp-header` declaration of a tool's `inputSchema`. */
export interface HeaderParam {
  /** The property names leading from the root of `arguments` to the value, e.g. `['region']`. */
  path: string[];
  /** The declared name, as written: the header is `Mcp-Param-<header>`. */
  header: string;
  /** The property's declared `type`. `number` is not allowed ({@link validateHeaderDeclarations}) but still checked. */
  type: HeaderParamType;
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Standard alphabet, canonical padding; Node's own base64 decoder accepts far more. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 9110 §5.6.2 `token` (1*tchar): what an `x-mcp-header` name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, SP and HTAB: what a literal (unencoded) value may contain. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** `ignoreBOM`: a leading U+FEFF is part of the value, not a marker to drop. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** A decimal number as a header carries it: `42`, `-7`, `42.0`, `1e3`. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Decodes the value of an `Mcp-Name` or `Mcp-Param-*` header. RFC 9110 optional whitespace (SP,
 * HTAB) is trimmed from both ends. A value that starts with `=?base64?` and ends with `?=` (markers
 * case-sensitive, at least 11 characters so they do not overlap) is Base64 of UTF-8: its payload
 * must use the standard alphabet with canonical padding and decode to valid UTF-8. Anything else is
 * taken literally, and must then hold only visible ASCII, SP and HTAB.
 *
 * Never use it for `Mcp-Method` or `MCP-Protocol-Version`, which are always literal.
 *
 * @example
 * decodeHeaderValue('  us-west1 ');           // { ok: true, value: 'us-west1' }
 * decodeHeaderValue('=?base64?SGVsbG8=?=');   // { ok: true, value: 'Hello' }
 * decodeHeaderValue('=?base64?SGVsbG8?=');    // { ok: false, problem: 'the Base64 payload ... ' }
 * decodeHeaderValue('=?base64?SGVsbG8=');     // { ok: true, value: '=?base64?SGVsbG8=' } (no suffix: literal)
 */
export function decodeHeaderValue(raw: string): DecodedHeader {
  const value = trimOws(raw);
  if (value.length >= PREFIX.length + SUFFIX.length && value.startsWith(PREFIX) && value.endsWith(SUFFIX)) {
    const payload = value.slice(PREFIX.length, -SUFFIX.length);
    if (!BASE64.test(payload)) {
      return { ok: false, problem: 'the Base64 payload is not canonical Base64 (standard alphabet, "=" padding to a multiple of 4)' };
    }
    try {
      return { ok: true, value: UTF8.decode(Buffer.from(payload, 'base64')) };
    } catch {
      return { ok: false, problem: 'the Base64 payload does not decode to valid UTF-8' };
    }
  }
  if (!FIELD_VALUE.test(value)) {
    return { ok: false, problem: 'it holds characters outside visible ASCII, space and tab (encode such values as =?base64?...?=)' };
  }
  return { ok: true, value };
}

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

  const field = methodSpec(body.method)?.nameField;
  const expected = field !== undefined ? body.params?.[field] : undefined;
  if (typeof expected !== 'string') return undefined;
  return checkDecoded('Mcp-Name', headerValue(headers, 'mcp-name'), expected, (decoded) => decoded === expected);
}

/**
 * The `x-mcp-header` declarations of a tool's `inputSchema` that {@link checkParamHeaders} checks:
 * those on properties reached from the root by a chain of `properties` keys alone, whose value is a
 * string and whose `type` is `string`, `integer`, `boolean` or `number`. Anything else (under
 * `items`, `anyOf`, `$defs`..., without a usable `type`) is not a declaration here; run
 * {@link validateHeaderDeclarations} at bootstrap so such schemas never get that far.
 *
 * @example
 * headerParamsOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // [{ path: ['region'], header: 'Region', type: 'string' }]
 */
export function headerParamsOf(inputSchema: object): HeaderParam[] {
  const found: HeaderParam[] = [];
  const visit = (node: Record<string, unknown>, path: string[]): void => {
    const header = node[X_MCP_HEADER];
    if (path.length > 0 && typeof header === 'string' && isParamType(node.type)) found.push({ path, header, type: node.type });
    if (isRecord(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) if (isRecord(child)) visit(child, [...path, name]);
    }
  };
  if (isRecord(inputSchema)) visit(inputSchema, []);
  return found;
}

const X_MCP_HEADER = 'x-mcp-header';
const ALLOWED_TYPES = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas a `properties` chain never passes through: a declaration there is invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'contentSchema',
];
/** Of those, the ones whose value maps names to subschemas. */
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions']);

/**
 * Everything wrong with the `x-mcp-header` declarations of a tool's `inputSchema`, one sentence
 * each (empty when all is well). Run it at bootstrap and refuse to start on a non-empty list:
 * clients drop a tool whose declarations break any of these rules (2026-07-28 Streamable HTTP,
 * "Schema Extension"):
 * - the name is a non-empty string, an RFC 9110 token (no CR/LF, spaces, controls or delimiters);
 * - names are unique case-insensitively within the schema;
 * - the property's `type` is exactly `string`, `integer` or `boolean` (not `number`, not a list
 *   such as `['string', 'null']`, not an `anyOf` with `null`);
 * - the property is reached from the root through `properties` keys only: never the root itself,
 *   nor under `items`, `additionalProperties`, `anyOf`/`oneOf`/`allOf`/`not`, `if`/`then`/`else`,
 *   `$defs`, `patternProperties`...
 *
 * @example
 * validateHeaderDeclarations({ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } });
 * // ["properties.n: x-mcp-header 'N' is on a property of type number; only string, integer and boolean are allowed (use integer)"]
 */
export function validateHeaderDeclarations(inputSchema: object): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>(); // lower-cased name → where it was first declared
  const visit = (node: unknown, where: string, reachable: boolean): void => {
    if (!isRecord(node)) return;
    if (X_MCP_HEADER in node) {
      const at = where || '<root>';
      const name = node[X_MCP_HEADER];
      const label = typeof name === 'string' ? `x-mcp-header '${printable(name)}'` : 'x-mcp-header';
      if (typeof name !== 'string' || name.length === 0) {
        problems.push(`${at}: x-mcp-header must be a non-empty string`);
      } else if (/[\r\n]/.test(name)) {
        problems.push(`${at}: ${label} contains CR or LF`);
      } else if (!TOKEN.test(name)) {
        problems.push(`${at}: ${label} is not an RFC 9110 token (letters, digits and !#$%&'*+-.^_\`|~ only; no spaces, controls or delimiters)`);
      } else {
        const first = seen.get(name.toLowerCase());
        if (first !== undefined) problems.push(`${at}: ${label} is declared twice, ignoring case (also at ${first})`);
        else seen.set(name.toLowerCase(), at);
      }
      if (!reachable || where === '') {
        problems.push(
          `${at}: ${label} is only allowed on a property reached from the root through 'properties' keys ` +
            `(not the root, nor under items, additionalProperties, anyOf/oneOf/allOf/not, if/then/else, $defs...)`,
        );
      } else if (typeof node.type !== 'string' || !ALLOWED_TYPES.has(node.type)) {
        const type = node.type === undefined ? 'none' : JSON.stringify(node.type);
        const hint = node.type === 'number' ? ' (use integer)' : '';
        problems.push(`${at}: ${label} is on a property of type ${type}; only string, integer and boolean are allowed${hint}`);
      }
    }
    if (isRecord(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) visit(child, `${where}${where ? '.' : ''}properties.${name}`, reachable);
    }
    for (const keyword of UNREACHABLE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const prefix = `${where}${where ? '.' : ''}${keyword}`;
      if (Array.isArray(sub)) sub.forEach((branch, i) => visit(branch, `${prefix}[${i}]`, false));
      else if (NAMED_SUBSCHEMAS.has(keyword) && isRecord(sub)) for (const [key, branch] of Object.entries(sub)) visit(branch, `${prefix}.${key}`, false);
      else visit(sub, prefix, false);
    }
  };
  visit(inputSchema, '', true);
  return problems;
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

function trimOws(value: string): string {
  const last = value.length - 1;
  if (last < 0) return value;
  const first = value.charCodeAt(0);
  const end = value.charCodeAt(last);
  // Most values have no optional whitespace around them: no regular expression for those.
  if (first !== 0x20 && first !== 0x09 && end !== 0x20 && end !== 0x09) return value;
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
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

/** Control characters escaped, so a message stays on one line whatever the client sent. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped here
  return text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function isParamType(type: unknown): type is HeaderParamType {
  return type === 'string' || type === 'integer' || type === 'boolean' || type === 'number';
}
