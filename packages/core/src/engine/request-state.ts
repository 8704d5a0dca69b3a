/**
 * `requestState` for MCP 2026-07-28 multi round-trip requests: the answers of earlier rounds travel
 * with the client, sealed with an HMAC, so any process behind a load balancer can go on with the
 * request and a tampered state is refused before the handler runs.
 *
 * Wire form: `v1.<base64url(JSON payload)>.<base64url(HMAC-SHA256)>`. The payload is signed, not
 * encrypted: it holds the client's own answers, nothing of the server's.
 */
import { McpError, nodeCrypto } from '@hermes-mcp/protocol';
import { lazySecret } from '../secret';

/** What a sealed state carries. For the Hermes packages. */
export interface StatePayload {
  /** Answers of earlier rounds, by input key. */
  answers: Record<string, unknown>;
  /** The request it belongs to: method and tool/prompt name or resource URI. */
  bind: string;
  /** Round number (each round's state differs). */
  round: number;
  /** Expiry, ms since the epoch. */
  exp: number;
}

/** Seals and opens request states with one secret. For the Hermes packages. */
export class RequestStateCodec {
  private readonly secret: () => Buffer;

  /**
   * @param secret shared by every process serving the same clients; default: random per process (drawn on first use)
   * @param ttlMs how long a state stays valid (default 10 minutes)
   */
  constructor(
    secret?: string | Buffer,
    private readonly ttlMs = 10 * 60_000,
  ) {
    this.secret = lazySecret(secret);
  }

  /** Seals the answers so far for the next round of the request `bind`. */
  seal(answers: Record<string, unknown>, bind: string, round: number): string {
    const payload: StatePayload & { nonce: string } = { answers, bind, round, exp: Date.now() + this.ttlMs, nonce: nodeCrypto().randomBytes(6).toString('base64url') };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `v1.${body}.${this.sign(body)}`;
  }

  /** Opens a state; -32602 `invalid_request_state` when it is forged, edited, expired or for another request. */
  open(state: unknown, bind: string): StatePayload {
    if (typeof state !== 'string') throw invalid();
    const [version, body, mac] = state.split('.');
    if (version !== 'v1' || !body || !mac || state.split('.').length !== 3) throw invalid();
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected)) throw invalid();
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    } catch {
      throw invalid();
    }
    if (payload.bind !== bind || !(payload.exp > Date.now()) || typeof payload.answers !== 'object' || payload.answers === null) throw invalid();
    return payload;
  }

  private sign(body: string): string {
    return nodeCrypto().createHmac('sha256', this.secret()).update(body).digest('base64url');
  }
}

function invalid(): McpError {
  return McpError.invalidParams('Invalid or expired requestState', { reason: 'invalid_request_state' });
}
