/**
 * DPoP proofs for the bench's DPoP row (RFC 9449): one ES256 key, and a fresh proof — its own
 * `jti`, `iat` now — for every request, signed with `node:crypto` (synchronous, as autocannon's
 * per-request hook needs). Proofs for a timed run are signed before it starts, so the load
 * generator (which shares the machine's cores with the server) does no signing while it is timed.
 */
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** A client's DPoP key and the proofs it signs. */
export class DpopProofs {
  /** The key's public JWK. */
  readonly jwk: Record<string, unknown>;
  private readonly privateKey: KeyObject;
  private readonly header: string;
  private pool: string[] = [];
  private ath?: string;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
    this.jwk = { kty, crv, x, y };
    this.header = b64(JSON.stringify({ alg: 'ES256', typ: 'dpop+jwt', jwk: this.jwk }));
  }

  /** From now on, proofs name this token (`ath`). */
  bind(token: string): void {
    this.ath = createHash('sha256').update(token).digest('base64url');
  }

  /** A fresh proof for `htm` `htu`. */
  proof(htu: string, htm = 'POST'): string {
    const payload = b64(JSON.stringify({ htm, htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...(this.ath && { ath: this.ath }) }));
    const input = `${this.header}.${payload}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }

  /** Signs `count` proofs for `htu` ahead of a timed run (the pool before is dropped: stale). */
  prepare(htu: string, count: number): void {
    this.pool = Array.from({ length: count }, () => this.proof(htu));
  }

  /** The next proof signed ahead, or a new one when the pool has run out. */
  next(htu: string): string {
    return this.pool.pop() ?? this.proof(htu);
  }
}
