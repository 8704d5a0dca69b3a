/**
 * The JWS table names RSA paddings by OpenSSL's numbers, so that loading it needs no `node:crypto`
 * (nodeCrypto() loads that on first use, node-crypto.spec.ts): they must be node:crypto's own constants, and a PS256 /
 * RS256 signature made with the table must verify with them.
 */
import { constants, generateKeyPairSync, verify } from 'node:crypto';
import { JWS_ALGORITHMS, signJws } from '../src';

describe('JWS algorithms', () => {
  it('name the RSA paddings of node:crypto', () => {
    expect(JWS_ALGORITHMS.PS256.options.padding).toBe(constants.RSA_PKCS1_PSS_PADDING);
    expect(JWS_ALGORITHMS.RS256.options.padding).toBe(constants.RSA_PKCS1_PADDING);
  });

  it.each(['PS256', 'RS256', 'ES256', 'EdDSA'])('%s: a signed token verifies with the table', (alg) => {
    const { kty, crv, hash, options } = JWS_ALGORITHMS[alg];
    const pair =
      kty === 'RSA' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : kty === 'EC' ? generateKeyPairSync('ec', { namedCurve: crv! }) : generateKeyPairSync('ed25519');
    const token = signJws(Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url'), { sub: 'x' }, pair.privateKey, alg);
    const [header, claims, signature] = token.split('.');
    expect(verify(hash, Buffer.from(`${header}.${claims}`), { key: pair.publicKey, ...options }, Buffer.from(signature, 'base64url'))).toBe(true);
  });
});
