/**
 * DPoP proofs for the bench's DPoP row (RFC 9449): one ES256 key, and a fresh proof — its own
 * `jti`, `iat` now — for every request, signed with `node:crypto` (synchronous, as autocannon's
 * per-request hook needs). Proofs for a timed run are signed before it starts, so the load
 * generator (which shares the machine's cores with the server) does no signing while it is timed.
 */
import { generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { accessTokenHash, base64urlJson, signJws } from '@hermes-mcp/protocol';

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
    this.header = base64urlJson({ alg: 'ES256', typ: 'dpop+jwt', jwk: this.jwk });
  }

  /** From now on, proofs name this token (`ath`). */
  bind(token: string): void {
    this.ath = accessTokenHash(token);
  }

  /** A fresh proof for `htm` `htu`. */
  proof(htu: string, htm = 'POST'): string {
    return signJws(this.header, { htm, htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...(this.ath && { ath: this.ath }) }, this.privateKey, 'ES256');
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

/**
 * The floor of the DPoP row against the row that verifies its bearer token's signature on every
 * request: one more signature verified, and an ES256 one (the proof) where the token's is RS256.
 * Returns the CPU µs of one verification of each, on a ~600-byte message, measured in this process
 * (a few thousand each, after a warm-up).
 */
export function signatureVerifyUs(): { rs256: number; es256: number } {
  const data = Buffer.alloc(600, 'x');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rs = sign('sha256', data, rsa.privateKey);
  const es = sign('sha256', data, { key: ec.privateKey, dsaEncoding: 'ieee-p1363' });
  const perCall = (verifyOnce: () => boolean, count = 3_000): number => {
    for (let i = 0; i < 300; i++) verifyOnce();
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) if (!verifyOnce()) throw new Error('a signature of the floor did not verify');
    const used = process.cpuUsage(before);
    return (used.user + used.system) / count;
  };
  return {
    rs256: perCall(() => verify('sha256', data, rsa.publicKey, rs)),
    es256: perCall(() => verify('sha256', data, { key: ec.publicKey, dsaEncoding: 'ieee-p1363' }, es)),
  };
}
