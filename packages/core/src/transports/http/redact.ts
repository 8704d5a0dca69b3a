/**
 * What handlers see of a request's headers (`ctx.transport.headers`): everything but credentials.
 * A handler has `ctx.auth` for who calls; the bearer token, cookies and proxy credentials stay
 * with the transport, so a tool that logs, echoes or forwards its context cannot leak them.
 */
import type { HeadersRecord } from '../../engine/modern-headers';

/** The headers that carry credentials: hidden from handlers whatever the options. */
const CREDENTIAL_HEADERS: readonly string[] = Object.freeze(['authorization', 'proxy-authorization', 'cookie']);

/** What a hidden header's value becomes (the logger's censor too). */
const REDACTED = '[redacted]';

/**
 * The names of the headers hidden from handlers: the credential headers and those an app adds
 * (its `redactHeaders` option), lower-cased as Node gives header names. @internal
 */
export function hiddenHeaderNames(extra: readonly string[] | undefined): readonly string[] {
  if (extra === undefined || extra.length === 0) return CREDENTIAL_HEADERS;
  return Object.freeze([...new Set([...CREDENTIAL_HEADERS, ...extra.map((name) => name.toLowerCase())])]);
}

/**
 * `headers` with each of `names` present replaced by `[redacted]` (a handler can tell one was
 * sent, not read it). The same object when none is present: a request without credentials costs
 * no copy. @internal
 */
export function redactHeaders(headers: HeadersRecord, names: readonly string[]): HeadersRecord {
  let copy: HeadersRecord | undefined;
  for (const name of names) {
    if (headers[name] === undefined) continue;
    copy ??= { ...headers };
    copy[name] = REDACTED;
  }
  return copy ?? headers;
}
