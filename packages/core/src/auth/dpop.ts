/**
 * DPoP (RFC 9449) at the resource server: a token bound to a client's key (`cnf.jkt`) is taken
 * only with a fresh proof signed by that key, for this very request. A leaked DPoP-bound token is
 * useless without the key; a captured proof is useless for another request, after its window, or a
 * second time.
 *
 * {@link DpopVerifier} checks one proof (RFC 9449 §4.3), in the order that refuses cheapest first:
 * its shape and its header's key (checked once per client), the binding of the token to that key
 * (`cnf.jkt`), the signature, the claims (`htm`, `htu`, `iat`, `ath`, a nonce), and last its `jti`
 * against the replay store — so that refused proofs never fill the store.
 */
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { JWS_ALGORITHMS, JwsAlgorithm, accessTokenHash, jwkThumbprint, parseBase64urlJson, nodeCrypto } from '@hermes-mcp/protocol';
import type { AuthInfo } from '../context/mcp-context';
import { HermesError } from '../errors';
import { lazySecret } from '../secret';
import { InMemoryReplayStore, ReplayStore } from '../stores/replay-store';

/** The `auth.dpop` option: how the resource server takes DPoP-bound tokens. */
export interface DpopOptions {
  /**
   * `'allowed'` (default): tokens come as `Bearer` or as `DPoP` with a proof; `'required'`: only as
   * `DPoP` (a bearer token is refused, and the metadata says `dpop_bound_access_tokens_required`).
   * Whatever the mode, a DPoP-bound token presented as `Bearer` is refused: whoever holds it without
   * the key must not use it.
   */
  mode?: 'allowed' | 'required';
  /** Signature algorithms a proof may use (default ES256, EdDSA, Ed25519, PS256, RS256; never `none` or HMAC). */
  algorithms?: string[];
  /** How old a proof's `iat` may be, in seconds (default 60). */
  maxAgeSec?: number;
  /** Seconds of clock difference tolerated on `iat`, both ways (default 5). */
  clockToleranceSec?: number;
  /**
   * Server nonces (RFC 9449 §9): a proof must carry a `nonce` this server issued, so a client with a
   * wrong clock or a proof made ahead of time is refused. A proof without one is answered 401
   * `use_dpop_nonce` with the nonce to use in `DPoP-Nonce`; the answer to a proof whose nonce is
   * past half its life gives the next one there (RFC 9449 §8), so a client that keeps calling rolls
   * over without being refused. Nonces are stateless (an HMAC of the time): give every instance of
   * a cluster the same `secret`. A nonce lives one to two `lifetimeSec` (default 300). Default off.
   */
  nonce?: boolean | { secret?: string; lifetimeSec?: number };
  /**
   * Where used proofs are remembered for their window (default: this process's memory, at most
   * `maxReplayEntries`, the oldest forgotten first).
   */
  replayStore?: ReplayStore;
  /** Most proofs the in-memory replay store remembers (default 200 000, about 27 MB). */
  maxReplayEntries?: number;
}

/** A proof refused, and how RFC 9449 §7.1 names it: `invalid_dpop_proof` or `use_dpop_nonce`. */
export class DpopError extends Error {
  constructor(
    readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce',
    message: string,
  ) {
    super(message);
    this.name = 'DpopError';
  }
}

const DEFAULT_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'];
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The longest proof taken, in characters: 8 KiB, four times an RSA-4096 proof (the largest key a
 * client sends, ~2 KiB). A longer one is refused before it is decoded or its signature checked, so a
 * validly signed proof padded with claims costs nothing to refuse.
 */
export const MAX_DPOP_PROOF_LENGTH = 8 * 1024;

/** The most JOSE header parameters a proof may carry (RFC 9449 needs three: typ, alg, jwk). */
export const MAX_DPOP_HEADER_PARAMETERS = 16;

/**
 * Issues and checks stateless nonces: the time slot, and an HMAC of it. A nonce is handed out in
 * its slot and taken in that slot and the next, so it lives one to two lifetimes: once its slot is
 * over it is past half its life, and the answer to a proof that carries it gives the current one
 * ({@link DpopVerifier.verify}), so a client rolls over before its nonce expires.
 */
class Nonces {
  private readonly secret: () => Buffer;
  private readonly slotMs: number;
  /** The newest slot whose nonce was made, and that nonce: made once a slot, not once a request. */
  private newestSlot = -Infinity;
  private newest = '';

  constructor(options: true | { secret?: string; lifetimeSec?: number }) {
    const given = options === true ? undefined : options;
    this.secret = lazySecret(given?.secret);
    this.slotMs = (given?.lifetimeSec ?? 300) * 1000;
    if (!(this.slotMs > 0)) throw new HermesError('HERMES_INVALID_OPTIONS', 'auth.dpop.nonce.lifetimeSec must be a positive number of seconds.');
  }

  /** The nonce to hand out now. */
  current(): string {
    return this.of(Math.floor(Date.now() / this.slotMs));
  }

  /**
   * How far `nonce` is through its life: `0` when it was issued in this slot, `1` when in the one
   * before (past half its life: it expires when this slot ends), `-1` when this server did not
   * issue it or it expired.
   */
  age(nonce: unknown): -1 | 0 | 1 {
    if (typeof nonce !== 'string') return -1;
    const slot = Number(nonce.slice(0, nonce.indexOf('.')));
    const now = Math.floor(Date.now() / this.slotMs);
    if (slot !== now && slot !== now - 1) return -1;
    const expected = Buffer.from(this.of(slot));
    const got = Buffer.from(nonce);
    if (got.length !== expected.length || !nodeCrypto().timingSafeEqual(got, expected)) return -1;
    return slot === now ? 0 : 1;
  }

  private of(slot: number): string {
    if (slot === this.newestSlot) return this.newest;
    const nonce = `${slot}.${nodeCrypto().createHmac('sha256', this.secret()).update(String(slot)).digest('base64url').slice(0, 22)}`;
    if (slot > this.newestSlot) {
      this.newestSlot = slot;
      this.newest = nonce;
    }
    return nonce;
  }
}

/** Checks DPoP proofs for one resource server. */
export class DpopVerifier {
  /** The algorithms proofs may use (the challenge's `algs`, the metadata's list). */
  readonly algorithms: readonly string[];
  /** Whether tokens must come with a proof. */
  readonly required: boolean;
  private readonly maxAgeSec: number;
  private readonly toleranceSec: number;
  private readonly replay: ReplayStore;
  private readonly nonces?: Nonces;
  /** The keys of the last proof headers seen, checked and imported. */
  private readonly keys = new Map<string, ProofKey>();

  constructor(
    options: DpopOptions,
    /** This resource's origin: a proof's `htu` is the URL the client called, as it knows it. */
    private readonly origin: string,
    replayStore?: ReplayStore,
  ) {
    if (options.mode !== undefined && options.mode !== 'allowed' && options.mode !== 'required')
      throw new HermesError('HERMES_INVALID_OPTIONS', `auth.dpop.mode must be 'allowed' or 'required', not ${JSON.stringify(options.mode)}.`);
    this.required = options.mode === 'required';
    this.algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
    if (this.algorithms.length === 0 || this.algorithms.some((alg) => JWS_ALGORITHMS[alg] === undefined))
      throw new HermesError(
        'HERMES_INVALID_OPTIONS',
        `auth.dpop.algorithms must name algorithms among ${Object.keys(JWS_ALGORITHMS).join(', ')} (asymmetric ones; never none or HMAC).`,
      );
    this.maxAgeSec = options.maxAgeSec ?? 60;
    this.toleranceSec = options.clockToleranceSec ?? 5;
    this.replay = options.replayStore ?? replayStore ?? new InMemoryReplayStore(options.maxReplayEntries);
    if (options.nonce) this.nonces = new Nonces(options.nonce);
  }

  /** A nonce for a `DPoP-Nonce` header, when this server asks for nonces. */
  nonce(): string | undefined {
    return this.nonces?.current();
  }

  /** Whether proofs must carry this server's nonces (the `nonce` option). */
  get usesNonces(): boolean {
    return this.nonces !== undefined;
  }

  /**
   * Checks the proof of a request that presents `token` with the DPoP scheme, and that `auth` (the
   * token, verified) is bound to the proof's key; throws {@link DpopError}. The binding is checked
   * before the signature (a key the token is not bound to needs no signature check), and the replay
   * store is written last, so a refused proof never takes a place in it.
   *
   * Resolves with the nonce the client should use from now on when the one its proof carried is
   * past half its life (issued in the slot before this one: it expires when this one ends) — the
   * answer gives it in `DPoP-Nonce` (RFC 9449 §8: a server may give a new nonce with any answer),
   * so a client that keeps making requests rolls over without a refused round trip; else, and
   * always without nonces, undefined.
   */
  async verify(proofs: string | readonly string[] | undefined, method: string, url: string, token: string, auth: AuthInfo): Promise<string | undefined> {
    if (proofs === undefined) throw new DpopError('invalid_dpop_proof', 'a DPoP token needs a DPoP header with a proof');
    // Node and the Fetch API join repeated headers with ", ": a proof has no comma.
    if (typeof proofs !== 'string' || proofs.includes(',')) throw new DpopError('invalid_dpop_proof', 'the request has more than one DPoP header');
    if (proofs.length > MAX_DPOP_PROOF_LENGTH) throw new DpopError('invalid_dpop_proof', `the DPoP proof is longer than ${MAX_DPOP_PROOF_LENGTH} characters`);
    if (!COMPACT_JWS.test(proofs)) throw new DpopError('invalid_dpop_proof', 'the DPoP header is not a compact JWS');
    const [header, body, signature] = proofs.split('.');
    const key = this.keyOf(header);
    const cnf = auth.claims?.cnf as { jkt?: unknown } | undefined;
    if (typeof cnf?.jkt !== 'string') throw new DpopError('invalid_dpop_proof', 'the token is not bound to a key (it has no cnf.jkt): use it as a Bearer token');
    if (cnf.jkt !== key.jkt) throw new DpopError('invalid_dpop_proof', 'the proof is signed with another key than the one the token is bound to (cnf.jkt)');
    if (!key.verifies(`${header}.${body}`, signature)) throw new DpopError('invalid_dpop_proof', 'the proof signature is not valid');
    const payload = parseBase64urlJson(body);
    if (payload === undefined) throw new DpopError('invalid_dpop_proof', "the proof's claims are not a JSON object");
    const { jti, htm, htu, iat, ath } = payload;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw new DpopError('invalid_dpop_proof', 'the proof has no usable jti');
    if (htm !== method) throw new DpopError('invalid_dpop_proof', `the proof is for another method (htm is not ${method})`);
    if (!sameResource(htu, this.origin, url)) throw new DpopError('invalid_dpop_proof', 'the proof is for another URL (htu)');
    const age = Date.now() / 1000 - (typeof iat === 'number' ? iat : NaN);
    if (!(age <= this.maxAgeSec + this.toleranceSec && age >= -this.toleranceSec))
      throw new DpopError('invalid_dpop_proof', 'the proof is too old, from the future, or undated (iat)');
    if (ath === undefined) throw new DpopError('invalid_dpop_proof', 'the proof does not name the token it goes with (ath)');
    if (ath !== accessTokenHash(token)) throw new DpopError('invalid_dpop_proof', 'the proof is for another token (ath)');
    const nonceAge = this.nonces ? this.nonces.age(payload.nonce) : 0;
    if (nonceAge < 0) throw new DpopError('use_dpop_nonce', 'the proof must carry the nonce this server gives in DPoP-Nonce');
    const ttlMs = (this.maxAgeSec + 2 * this.toleranceSec) * 1000;
    // 128 bits of the key and jti: a short flat string, whatever the jti's length.
    const seen = nodeCrypto().createHash('sha256').update(key.jkt).update('.').update(jti).digest('base64url').slice(0, 22);
    if (!(await this.replay.firstSeen(seen, ttlMs))) throw new DpopError('invalid_dpop_proof', 'the proof was used before (jti)');
    return nonceAge === 0 ? undefined : this.nonces!.current();
  }

  /**
   * The key a proof's header embeds, checked and imported. A client sends the same header with
   * every proof (its key does not change), so the last few hundred are kept: a proof then costs a
   * signature check, not a key import.
   */
  private keyOf(header: string): ProofKey {
    let key = this.keys.get(header);
    if (key === undefined) {
      key = new ProofKey(header, this.algorithms);
      if (this.keys.size >= 256) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(header, key);
    }
    return key;
  }
}

/** What only a private or symmetric JWK has. */
const SECRET_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A proof header's public key, checked once (RFC 9449 §4.3: typ, alg, a public jwk), with its thumbprint. */
class ProofKey {
  /** The key's RFC 7638 SHA-256 thumbprint, which a bound token names as `cnf.jkt`. */
  readonly jkt: string;
  private readonly key: KeyObject;
  private readonly signature: JwsAlgorithm;

  constructor(header: string, algorithms: readonly string[]) {
    const fields = parseBase64urlJson(header);
    if (fields === undefined) throw new DpopError('invalid_dpop_proof', 'the proof header is not a JSON object');
    if (Object.keys(fields).length > MAX_DPOP_HEADER_PARAMETERS)
      throw new DpopError('invalid_dpop_proof', `the proof header has more than ${MAX_DPOP_HEADER_PARAMETERS} parameters`);
    if (typeof fields.typ !== 'string' || fields.typ.toLowerCase() !== 'dpop+jwt')
      throw new DpopError('invalid_dpop_proof', 'the proof is not a DPoP proof (its typ header is not dpop+jwt)');
    if (fields.crit !== undefined) throw new DpopError('invalid_dpop_proof', 'the proof names critical header parameters this server does not know (crit)');
    const alg = fields.alg;
    const signature = typeof alg === 'string' && algorithms.includes(alg) ? JWS_ALGORITHMS[alg] : undefined;
    if (signature === undefined) throw new DpopError('invalid_dpop_proof', `the proof is signed with an algorithm this server does not accept (it takes ${algorithms.join(', ')})`);
    const jwk = fields.jwk as Record<string, unknown> | undefined;
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new DpopError('invalid_dpop_proof', 'the proof header has no public key (jwk)');
    if (SECRET_MEMBERS.some((member) => member in jwk))
      throw new DpopError('invalid_dpop_proof', 'the proof header holds a private or symmetric key: it must hold a public key (jwk)');
    if (jwk.kty !== signature.kty || (signature.crv !== undefined && jwk.crv !== signature.crv))
      throw new DpopError('invalid_dpop_proof', `the proof's key (jwk) is not a key for ${String(alg)}`);
    try {
      this.key = nodeCrypto().createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch {
      throw new DpopError('invalid_dpop_proof', "the proof header's key (jwk) is not a valid public key");
    }
    if (signature.kty === 'RSA' && (this.key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new DpopError('invalid_dpop_proof', "the proof's RSA key is shorter than 2048 bits");
    this.signature = signature;
    const jkt = jwkThumbprint(jwk);
    if (jkt === undefined) throw new DpopError('invalid_dpop_proof', "the proof header's key (jwk) lacks a member");
    this.jkt = jkt;
  }

  /** Whether `signature` (base64url) signs `input` with this key. */
  verifies(input: string, signature: string): boolean {
    try {
      return nodeCrypto().verify(this.signature.hash, Buffer.from(input), { key: this.key, ...this.signature.options }, Buffer.from(signature, 'base64url'));
    } catch {
      return false;
    }
  }
}

/**
 * Whether a proof's `htu` names the URL a request reached (RFC 9449 §4.3: without query and
 * fragment, compared after the normalisation URL parsing gives). The request is known by its path
 * only; the origin is this resource's, as clients call it (a proxy in front does not change it).
 * A WebSocket's `ws:`/`wss:` is its HTTP upgrade's `http:`/`https:`.
 */
function sameResource(htu: unknown, origin: string, requestUrl: string): boolean {
  if (typeof htu !== 'string') return false;
  let claimed: URL;
  try {
    claimed = new URL(htu);
  } catch {
    return false;
  }
  const scheme = claimed.protocol === 'ws:' ? 'http:' : claimed.protocol === 'wss:' ? 'https:' : claimed.protocol;
  const query = requestUrl.indexOf('?');
  const reached = new URL(query === -1 ? requestUrl : requestUrl.slice(0, query), origin);
  return `${scheme}//${claimed.host}${claimed.pathname}` === `${reached.protocol}//${reached.host}${reached.pathname}`;
}
