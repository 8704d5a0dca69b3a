/**
 * The pieces of JWS (RFC 7515) both sides of DPoP (RFC 9449) need, in one place: how each
 * algorithm signs and verifies with `node:crypto` and which key it takes, a key's RFC 7638
 * thumbprint (what a bound token names as `cnf.jkt`), a token's hash (a proof's `ath`), and JSON
 * in base64url segments. The resource server verifies proofs with them (`@hermes-mcp/core`), the
 * client signs proofs and client assertions (`@hermes-mcp/client`).
 */
import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from './node-crypto';

/** OpenSSL's RSA padding modes (`crypto.constants`), written out so that this table needs no `node:crypto` at load. */
const RSA_PADDING = { PKCS1: 1, PKCS1_PSS: 6 } as const;

/** How an algorithm is used with `node:crypto`'s `sign`/`verify`, and the key type it needs. */
export interface JwsAlgorithm {
  /** The JWK `kty` of its keys. */
  readonly kty: 'EC' | 'OKP' | 'RSA';
  /** The JWK `crv`, for curves. */
  readonly crv?: string;
  /** The digest `sign`/`verify` take (`null` for EdDSA, which hashes by itself). */
  readonly hash: string | null;
  /** What `sign`/`verify` need beside the key: JOSE's raw `r||s` ECDSA signatures, RSA's padding. */
  readonly options: { readonly dsaEncoding?: 'ieee-p1363'; readonly padding?: number; readonly saltLength?: number };
}

/** The asymmetric algorithms Hermes signs and verifies with (RFC 7518, RFC 8037; never `none` or HMAC). */
export const JWS_ALGORITHMS: Readonly<Record<string, JwsAlgorithm>> = {
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', hash: null, options: {} },
  Ed25519: { kty: 'OKP', crv: 'Ed25519', hash: null, options: {} },
  PS256: { kty: 'RSA', hash: 'sha256', options: { padding: RSA_PADDING.PKCS1_PSS, saltLength: 32 } },
  RS256: { kty: 'RSA', hash: 'sha256', options: { padding: RSA_PADDING.PKCS1 } },
};

/** The members of a public JWK its thumbprint is made of, in order, per key type (RFC 7638 §3.2). */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = { EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'], RSA: ['e', 'kty', 'n'] };

/**
 * The RFC 7638 SHA-256 thumbprint of a public key (base64url): the hash of its required members,
 * in order, as JSON without spaces. Undefined for a key of another type, or one that lacks a member.
 */
export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>): string | undefined {
  const members = typeof jwk.kty === 'string' ? THUMBPRINT_MEMBERS[jwk.kty] : undefined;
  if (members === undefined || !members.every((member) => typeof jwk[member] === 'string')) return undefined;
  const canonical = `{${members.map((member) => `${JSON.stringify(member)}:${JSON.stringify(jwk[member])}`).join(',')}}`;
  return nodeCrypto().createHash('sha256').update(canonical).digest('base64url');
}

/** A proof's `ath`: the base64url SHA-256 of the access token it goes with (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return nodeCrypto().createHash('sha256').update(token).digest('base64url');
}

/** A JSON value as a base64url segment of a compact JWS. */
export function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * A compact JWS: `header` (a protected header, already a base64url segment: a signer sends the
 * same one every time), then `claims`, signed with `key` by `alg` (one of {@link JWS_ALGORITHMS}).
 */
export function signJws(header: string, claims: unknown, key: KeyObject, alg: string): string {
  const { hash, options } = JWS_ALGORITHMS[alg];
  const input = `${header}.${base64urlJson(claims)}`;
  return `${input}.${nodeCrypto()
    .sign(hash, Buffer.from(input), { key, ...options })
    .toString('base64url')}`;
}

/** The JSON object a base64url segment holds, or undefined. */
export function parseBase64urlJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
