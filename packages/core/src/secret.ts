/**
 * The HMAC secrets of cursors, request states and DPoP nonces: the one given, or 32 random bytes
 * drawn on first use. Not when the codec is made: that may be at a module's top level (a worker
 * makes its handler there), where Cloudflare Workers refuse to generate random values.
 */
import { nodeCrypto } from '@hermes-mcp/protocol';

/** A secret read when it is first needed: `given`, or random bytes drawn then, the same ever after. */
export function lazySecret(given: string | Buffer | undefined): () => Buffer {
  let secret = given === undefined ? undefined : Buffer.from(given);
  return () => (secret ??= nodeCrypto().randomBytes(32));
}
