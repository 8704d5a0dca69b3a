/**
 * DPoP (RFC 9449) at the client: a key pair per {@link OAuthClient}, and a fresh proof — a small
 * JWT signed with it, naming the method (`htm`), the URL (`htu`), the time (`iat`), a unique id
 * (`jti`), the access token's hash (`ath`) and the server's nonce when it gave one — for every token
 * request and every request that presents a DPoP-bound token. A token bound to the key is useless
 * to whoever steals it without the key.
 *
 * The mechanics live here (the key, proofs, the nonces each server gave); `oauth.ts` decides when
 * they are used: token requests carry proofs where the authorization server advertises
 * `dpop_signing_alg_values_supported` (or always, by option), and a token the server answers with
 * `token_type: DPoP` is presented as `Authorization: DPoP <token>` with a proof.
 */
import { JsonWebKey, KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, webcrypto } from 'node:crypto';
import { JWS_ALGORITHMS, accessTokenHash, base64urlJson, jwkThumbprint, signJws } from '@hermes-mcp/protocol';

/** The algorithms a client's DPoP key may sign with. */
export type DpopAlgorithm = 'ES256' | 'ES384' | 'EdDSA' | 'Ed25519' | 'PS256' | 'RS256';

/** The `dpop` option of an {@link OAuthClientOptions}, as an object. */
export interface DpopClientOptions {
  /**
   * The key pair proofs are signed with: a private JWK (what `OAuthClient.dpopKey()` exports) or a
   * WebCrypto `CryptoKeyPair`. Default: one made for this client, for `alg`. A token is bound to
   * the key it was asked for with: an application that keeps its tokens across restarts (a store
   * of its own) keeps the key too, else the kept tokens are refused and the client refreshes or
   * signs in again.
   *
   * A `CryptoKeyPair` signs with WebCrypto (`crypto.subtle.sign`), so a private key that is not
   * extractable works as it is and never leaves its `CryptoKey` (`dpopKey()` refuses it). Its
   * algorithm decides the proofs' (ECDSA P-256 ES256, P-384 ES384, Ed25519 EdDSA, RSA-PSS with
   * SHA-256 PS256, RSASSA-PKCS1-v1_5 with SHA-256 RS256), and its public key, which every proof
   * carries, must be extractable.
   */
  key?: JsonWebKey | webcrypto.CryptoKeyPair;
  /**
   * The algorithm. For a key made here, its kind (default ES256, or the first of ES256, EdDSA,
   * Ed25519, ES384, PS256, RS256 the authorization server lists); for an RSA JWK given, PS256 or
   * RS256 (default: the JWK's `alg`, else PS256); an RSA `CryptoKey` has the one of its WebCrypto
   * algorithm, as other keys have one.
   */
  alg?: DpopAlgorithm;
  /**
   * Sends proofs to authorization servers that do not advertise DPoP too (default false: only to
   * those whose metadata lists `dpop_signing_alg_values_supported`).
   */
  always?: boolean;
}

/** The order in which a key made here picks its algorithm among those a server lists. */
const PREFERRED: readonly DpopAlgorithm[] = ['ES256', 'EdDSA', 'Ed25519', 'ES384', 'PS256', 'RS256'];

/** What a `dpop.key` that is no private key is refused with. */
const NOT_PRIVATE = 'OAuthClient: dpop.key must be a private key — a JWK with its private members (as dpopKey() exports it) or a CryptoKeyPair';

/** What an RSA `dpop.key` of fewer than 2048 bits is refused with. */
const RSA_TOO_SHORT = 'OAuthClient: dpop.key is an RSA key shorter than 2048 bits';

/** A key ready to sign: its algorithm, the proof header naming its public key, and how it signs. */
interface Signer {
  readonly alg: DpopAlgorithm;
  /** The proof's protected header, encoded once: it is the same for every proof. */
  readonly header: string;
  /** The public key's RFC 7638 thumbprint (the `cnf.jkt` of the tokens bound to it). */
  readonly jkt: string;
  /** The compact JWS of `claims` under {@link header}: `node:crypto` signs a `KeyObject`, WebCrypto a `CryptoKey`. */
  sign(claims: unknown): string | Promise<string>;
  /** The private key as a JWK (without `alg`); undefined for a `CryptoKey` that is not extractable. */
  exportable(): JsonWebKey | undefined;
}

/** A WebCrypto key's algorithm, as `CryptoKey.algorithm` gives it. */
interface WebCryptoKeyAlgorithm {
  readonly name: string;
  readonly namedCurve?: string;
  readonly hash?: { readonly name: string };
  readonly modulusLength?: number;
}

/**
 * How WebCrypto signs each algorithm: the key it takes (its algorithm's `name`, and `namedCurve`
 * or `hash`: WebCrypto binds an RSA key to one padding and digest), and the parameters of `sign`.
 * ECDSA signatures come as JOSE wants them, `r||s`.
 */
const WEBCRYPTO: Readonly<
  Record<
    DpopAlgorithm,
    {
      readonly key: { readonly name: string; readonly namedCurve?: string; readonly hash?: string };
      readonly params: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams | webcrypto.RsaPssParams;
    }
  >
> = {
  ES256: { key: { name: 'ECDSA', namedCurve: 'P-256' }, params: { name: 'ECDSA', hash: 'SHA-256' } },
  ES384: { key: { name: 'ECDSA', namedCurve: 'P-384' }, params: { name: 'ECDSA', hash: 'SHA-384' } },
  EdDSA: { key: { name: 'Ed25519' }, params: { name: 'Ed25519' } },
  Ed25519: { key: { name: 'Ed25519' }, params: { name: 'Ed25519' } },
  PS256: { key: { name: 'RSA-PSS', hash: 'SHA-256' }, params: { name: 'RSA-PSS', saltLength: 32 } },
  RS256: { key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, params: { name: 'RSASSA-PKCS1-v1_5' } },
};

/**
 * The DPoP key of one client and the nonces servers gave it (one per origin, RFC 9449 §8–§9).
 * Made by {@link OAuthClient} from its `dpop` option.
 *
 * @internal
 */
export class DpopProver {
  /** True when proofs go to every authorization server, advertised or not. */
  readonly always: boolean;
  private signer?: Signer;
  private readonly nonces = new Map<string, string>();

  /** Checks a given key now: a wrong one is a mistake in the options, best told at once. */
  constructor(private readonly options: DpopClientOptions) {
    this.always = options.always === true;
    if (options.alg !== undefined && !PREFERRED.includes(options.alg))
      throw new TypeError(`OAuthClient: dpop.alg must be one of ${PREFERRED.join(', ')}, not ${JSON.stringify(options.alg)}`);
    if (options.key !== undefined) this.signer = signerOf(options.key, options.alg);
  }

  /**
   * The key's algorithm; a key not given is made now, for the first algorithm of {@link PREFERRED}
   * that `supported` (an authorization server's list) names, or `dpop.alg`, or ES256.
   */
  algorithm(supported?: readonly string[]): DpopAlgorithm {
    return this.key(supported).alg;
  }

  /** The key's RFC 7638 thumbprint (an authorization request's `dpop_jkt`). */
  thumbprint(): string {
    return this.key().jkt;
  }

  /** A fresh proof for `method` `url`, naming `accessToken` when given, and the nonce `url`'s origin gave. */
  async proof(method: string, url: URL, accessToken?: string): Promise<string> {
    const signer = this.key();
    const nonce = this.nonces.get(url.origin);
    const claims = {
      jti: randomUUID(),
      htm: method,
      // RFC 9449 §4.2: the URL without query and fragment.
      htu: `${url.protocol}//${url.host}${url.pathname}`,
      iat: Math.floor(Date.now() / 1000),
      ...(accessToken !== undefined && { ath: accessTokenHash(accessToken) }),
      ...(nonce !== undefined && { nonce }),
    };
    return signer.sign(claims);
  }

  /**
   * Keeps the nonce an answer from `url` gives in `DPoP-Nonce` (a server may send a new one with any
   * answer) for the next proofs to its origin; true when it gave one.
   */
  heard(url: URL, response: { headers: { get(name: string): string | null } }): boolean {
    const nonce = response.headers.get('dpop-nonce');
    if (nonce === null || nonce === '') return false;
    this.nonces.set(url.origin, nonce);
    return true;
  }

  /**
   * The private key as a JWK with its `alg`, for the application to keep and give back as
   * `dpop.key`; undefined for a WebCrypto key that is not extractable, which is never exported.
   */
  exportKey(): JsonWebKey | undefined {
    const signer = this.key();
    const jwk = signer.exportable();
    return jwk && { ...jwk, alg: signer.alg };
  }

  private key(supported?: readonly string[]): Signer {
    if (this.signer === undefined) {
      const alg = this.options.alg ?? PREFERRED.find((one) => supported?.includes(one)) ?? 'ES256';
      const { kty, crv } = JWS_ALGORITHMS[alg];
      const { privateKey } =
        kty === 'EC' ? generateKeyPairSync('ec', { namedCurve: crv! }) : kty === 'OKP' ? generateKeyPairSync('ed25519') : generateKeyPairSync('rsa', { modulusLength: 2048 });
      this.signer = signerOf(privateKey, alg);
    }
    return this.signer;
  }
}

/** The proof header and thumbprint of a signer of `alg` whose public key is `publicJwk`. */
function signer(
  alg: DpopAlgorithm,
  publicJwk: Record<string, unknown>,
  sign: (header: string, claims: unknown) => string | Promise<string>,
  exportable: Signer['exportable'],
): Signer {
  const header = base64urlJson({ typ: 'dpop+jwt', alg, jwk: publicJwk });
  return { alg, header, jkt: jwkThumbprint(publicJwk)!, sign: (claims) => sign(header, claims), exportable };
}

/**
 * A signer from a private key: a JWK, a WebCrypto pair, or a `KeyObject` made here. Throws a
 * TypeError naming what is wrong with a key given: not private, of a kind DPoP does not sign with,
 * or not for the `alg` asked.
 */
function signerOf(key: JsonWebKey | webcrypto.CryptoKeyPair | KeyObject, alg: DpopAlgorithm | undefined): Signer {
  if (!(key instanceof KeyObject) && 'privateKey' in key) return webCryptoSigner(key as webcrypto.CryptoKeyPair, alg);
  const given = key instanceof KeyObject ? undefined : key;
  let privateKey: KeyObject;
  try {
    privateKey = key instanceof KeyObject ? key : createPrivateKey({ key: given!, format: 'jwk' });
  } catch (error) {
    throw new TypeError(`${NOT_PRIVATE}: ${(error as Error).message}`, { cause: error });
  }
  if (privateKey.type !== 'private') throw new TypeError(NOT_PRIVATE);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const chosen =
    alg ??
    (typeof given?.alg === 'string' ? (given.alg as DpopAlgorithm) : undefined) ??
    (jwk.kty === 'RSA' ? 'PS256' : PREFERRED.find((one) => JWS_ALGORITHMS[one].kty === jwk.kty && JWS_ALGORITHMS[one].crv === jwk.crv));
  const algorithm = chosen === undefined ? undefined : JWS_ALGORITHMS[chosen];
  if (chosen === undefined || algorithm === undefined || algorithm.kty !== jwk.kty || (algorithm.crv !== undefined && algorithm.crv !== jwk.crv))
    throw new TypeError(
      `OAuthClient: dpop.key is ${jwk.kty === 'RSA' ? 'an RSA key' : `an ${String(jwk.kty)} key on ${String(jwk.crv)}`}, which does not sign ${chosen ?? 'any DPoP algorithm'} (DPoP keys: EC P-256 for ES256, P-384 for ES384, Ed25519 for EdDSA, RSA for PS256 or RS256)`,
    );
  if (jwk.kty === 'RSA' && (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new TypeError(RSA_TOO_SHORT);
  return signer(
    chosen,
    jwk,
    (header, claims) => signJws(header, claims, privateKey, chosen),
    () => privateKey.export({ format: 'jwk' }),
  );
}

/**
 * A signer from a WebCrypto pair: WebCrypto signs with the private key where it is, extractable or
 * not (turning a non-extractable `CryptoKey` into a `KeyObject` would export it against its flag,
 * which Node deprecates: DEP0204). The key's algorithm decides the proofs'; the public key, which
 * every proof carries, is read with `KeyObject.from`, so it must be extractable (WebCrypto makes
 * public keys so). Throws a TypeError like {@link signerOf}'s.
 */
function webCryptoSigner(pair: webcrypto.CryptoKeyPair, alg: DpopAlgorithm | undefined): Signer {
  const { privateKey, publicKey } = pair;
  if (privateKey?.type !== 'private') throw new TypeError(NOT_PRIVATE);
  const algorithm = privateKey.algorithm as WebCryptoKeyAlgorithm;
  const fits = (one: DpopAlgorithm) => isFor(WEBCRYPTO[one].key, algorithm);
  const chosen = alg ?? PREFERRED.find(fits);
  if (chosen === undefined || !fits(chosen)) {
    const kind = algorithm.namedCurve !== undefined ? ` on ${algorithm.namedCurve}` : algorithm.hash !== undefined ? ` with ${algorithm.hash.name}` : '';
    throw new TypeError(
      `OAuthClient: dpop.key is an ${algorithm.name} key${kind}, which does not sign ${chosen ?? 'any DPoP algorithm'} (WebCrypto DPoP keys: ECDSA on P-256 for ES256, on P-384 for ES384, Ed25519 for EdDSA, RSA-PSS with SHA-256 for PS256, RSASSA-PKCS1-v1_5 with SHA-256 for RS256)`,
    );
  }
  if (algorithm.modulusLength !== undefined && algorithm.modulusLength < 2048) throw new TypeError(RSA_TOO_SHORT);
  if (publicKey?.type !== 'public' || !isFor(WEBCRYPTO[chosen].key, publicKey.algorithm))
    throw new TypeError(`OAuthClient: dpop.key's publicKey must be the public key of its privateKey (an ${algorithm.name} key)`);
  if (!publicKey.extractable) throw new TypeError("OAuthClient: dpop.key's publicKey must be extractable: every proof carries it");
  const { params } = WEBCRYPTO[chosen];
  return signer(
    chosen,
    KeyObject.from(publicKey).export({ format: 'jwk' }),
    async (header, claims) => {
      const input = `${header}.${base64urlJson(claims)}`;
      const signature = await webcrypto.subtle.sign(params, privateKey, Buffer.from(input));
      return `${input}.${Buffer.from(signature).toString('base64url')}`;
    },
    () => (privateKey.extractable ? KeyObject.from(privateKey).export({ format: 'jwk' }) : undefined),
  );
}

/** Whether a WebCrypto key of `algorithm` is the key `wanted` describes. */
function isFor(wanted: (typeof WEBCRYPTO)[DpopAlgorithm]['key'], algorithm: WebCryptoKeyAlgorithm): boolean {
  return (
    wanted.name === algorithm.name &&
    (wanted.namedCurve === undefined || wanted.namedCurve === algorithm.namedCurve) &&
    (wanted.hash === undefined || wanted.hash === algorithm.hash?.name)
  );
}
