/**
 * DNS-rebinding protection: the Host and Origin headers must name this server. On by default,
 * allowing loopback names (any port); give lists to serve other names.
 */
import type { HeadersRecord } from '../../engine/modern-headers';

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

/**
 * Whether what follows an allowed host name is a port, or nothing (RFC 9110 §7.2: `host[:port]`):
 * `127.0.0.1:99999` or `[::1]x` name an allowed host but are no Host at all.
 */
function portOk(host: string, name: string): boolean {
  const rest = host.length - name.length;
  if (rest === 0) return true;
  if (rest < 2 || rest > 6 || host.charCodeAt(name.length) !== 58 /* : */) return false;
  for (let i = name.length + 1; i < host.length; i++) {
    const code = host.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return Number(host.slice(name.length + 1)) <= 65535;
}

/** Why the request is refused, or undefined when it may go on. @internal */
export function checkOrigin(headers: HeadersRecord, policy: OriginPolicy): string | undefined {
  if (policy.allowedHosts !== false) {
    const host = single(headers.host);
    if (!host) return 'the Host header is missing';
    const allowed = policy.allowedHosts ?? LOOPBACK;
    const name = hostname(host);
    if (!allowed.some((entry) => entry.toLowerCase() === host.toLowerCase())) {
      if (!allowed.some((entry) => (!entry.includes(':') || entry.startsWith('[')) && entry.toLowerCase() === name))
        return `the Host "${host.slice(0, 100)}" is not allowed (allowedHosts)`;
      if (!portOk(host, name)) return `the Host "${host.slice(0, 100)}" is not a host name with an optional port`;
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
