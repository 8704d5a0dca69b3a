/**
 * The `x-mcp-header` extension of tool input schemas and the values of `Mcp-Name` and
 * `Mcp-Param-*` headers (MCP 2026-07-28 over HTTP, SEP-2243), for both sides: which declarations
 * are valid (a server refuses to start with an invalid one, a client drops such a tool), where
 * they are, and how a value is encoded into a header and decoded from one.
 */
import { isRecord } from './jsonrpc';

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
 * The header form of a body value (the inverse of {@link decodeHeaderValue}): strings as they are,
 * booleans as `true`/`false`, numbers in decimal; Base64 of UTF-8 (`=?base64?…?=`) for a value with
 * characters outside visible ASCII and space, leading or trailing whitespace, or the look of an
 * encoded value. Undefined for `null`, `undefined`, objects and arrays, which are not sent.
 *
 * @example
 * encodeHeaderValue('us-west1');      // 'us-west1'
 * encodeHeaderValue('Hello, 世界');   // '=?base64?SGVsbG8sIOS4lueVjA==?='
 * encodeHeaderValue(42);              // '42'
 */
export function encodeHeaderValue(value: unknown): string | undefined {
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const literal = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !(value.startsWith(PREFIX) && value.endsWith(SUFFIX));
  return literal ? value : `${PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SUFFIX}`;
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
      const label = typeof name === 'string' ? `x-mcp-header '${printableHeader(name)}'` : 'x-mcp-header';
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

/** A header value without RFC 9110 optional whitespace (SP, HTAB) at either end. */
export function trimOws(value: string): string {
  const last = value.length - 1;
  if (last < 0) return value;
  const first = value.charCodeAt(0);
  const end = value.charCodeAt(last);
  // Most values have no optional whitespace around them: no regular expression for those.
  if (first !== 0x20 && first !== 0x09 && end !== 0x20 && end !== 0x09) return value;
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Control characters escaped, so a message stays on one line whatever the client sent. */
export function printableHeader(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped here
  return text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function isParamType(type: unknown): type is HeaderParamType {
  return type === 'string' || type === 'integer' || type === 'boolean' || type === 'number';
}
