/**
 * DNS-rebinding protection: the Host and Origin headers must name this server. On by default,
 * allowing loopback names (any port); give lists to serve other names.
 */
import type { HeadersRecord } from './headers';

/** Which Host and Origin values are accepted. */
export interface OriginPolicy {
  /**
   * Host names (`example.com`) or `host:port` pairs accepted in the Host header; `false` turns the
   * check off. Default: `localhost`, `127.0.0.1`, `[::1]` on any port.
   */
  allowedHosts?: string[] | false;
  /**
   * Origins (`https://app.example.com`) accepted when a request carries an Origin header; `false`
   * turns the check off. Default: http(s) origins on `localhost`, `127.0.0.1`, `[::1]`.
   */
  allowedOrigins?: string[] | false;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

/** `host[:port]` (RFC 9110 §7.2): a registered name or IPv4 address, or an IPv6 literal, and a port up to 65535. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::(\d{1,5}))?$/;

function isHost(host: string): boolean {
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

/** Why the request is refused, or undefined when it may go on. @internal */
export function checkOrigin(headers: HeadersRecord, policy: OriginPolicy): string | undefined {
  if (policy.allowedHosts !== false) {
    const host = single(headers.host);
    if (!host) return 'the Host header is missing';
    if (!isHost(host)) return `the Host "${host.slice(0, 100)}" is not a host name with an optional port`;
    const allowed = policy.allowedHosts ?? LOOPBACK;
    const name = hostname(host);
    if (!allowed.some((entry) => entry.toLowerCase() === host.toLowerCase() || ((!entry.includes(':') || entry.startsWith('[')) && entry.toLowerCase() === name))) {
      return `the Host "${host}" is not allowed (allowedHosts)`;
    }
  }
  const origin = single(headers.origin);
  if (origin !== undefined && policy.allowedOrigins !== false) {
    if (policy.allowedOrigins) {
      if (!policy.allowedOrigins.includes(origin)) return `the Origin "${origin}" is not allowed (allowedOrigins)`;
    } else {
      let url: URL | undefined;
      try {
        url = new URL(origin);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !LOOPBACK.includes(url.hostname)) {
        return `the Origin "${origin}" is not allowed (allowedOrigins)`;
      }
    }
  }
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
