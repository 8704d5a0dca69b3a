/**
 * Reading request headers the way MCP's HTTP transports need: one value of a header, and whether
 * the Accept header admits a media type.
 */
import type { HeadersRecord } from '../../engine/modern-headers';

/** The first value of a header (names lower-cased). */
export function headerOf(headers: HeadersRecord, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether the Accept header admits `type` (`application/json`, say): a media range that names it,
 * its `type/*` (`family`), or `*\/*`, with a weight above zero. Ranges are compared whole, not as
 * substrings, and the header is scanned in place (it is read on every POST).
 */
export function accepts(headers: HeadersRecord, type: string, family: string): boolean {
  const accept = headerOf(headers, 'accept');
  if (accept === undefined) return false;
  for (let start = 0; start < accept.length;) {
    let end = accept.indexOf(',', start);
    if (end === -1) end = accept.length;
    let from = start;
    while (from < end && isSpace(accept.charCodeAt(from))) from++;
    let semi = accept.indexOf(';', from);
    if (semi === -1 || semi > end) semi = end;
    let to = semi;
    while (to > from && isSpace(accept.charCodeAt(to - 1))) to--;
    if ((rangeIs(accept, from, to, type) || rangeIs(accept, from, to, family) || rangeIs(accept, from, to, '*/*')) && !(semi < end && ZERO_WEIGHT.test(accept.slice(semi, end)))) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

const ZERO_WEIGHT = /;\s*q\s*=\s*0(\.0{0,3})?\s*(;|$)/i;

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

/** Whether `text[from, to)` is `range` (media types compare case-insensitively). */
function rangeIs(text: string, from: number, to: number, range: string): boolean {
  if (to - from !== range.length) return false;
  return text.startsWith(range, from) || text.slice(from, to).toLowerCase() === range;
}

/**
 * Whether the Content-Type header declares JSON: the media type `application/json` (any case),
 * alone or with parameters (`; charset=utf-8`). `application/jsonx` or `application/json-seq` are
 * other types. One rule for every adapter (Fastify's parser and the Web handler's body reader).
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim();
  return type.length === 16 && type.toLowerCase() === 'application/json';
}
