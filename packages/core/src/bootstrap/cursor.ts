/**
 * Pagination cursors: opaque to clients and tamper-safe. A cursor names the list it belongs to and
 * the offset of the next page, sealed with an HMAC, so a forged or edited cursor is refused (-32602)
 * instead of being trusted.
 */
import { McpError, nodeCrypto } from '@hermes-mcp/protocol';
import { lazySecret } from '../secret';

/** Issues and reads cursors with one secret. For the Hermes packages. */
export class CursorCodec {
  private readonly secret: () => Buffer;

  /** `secret`: share it between processes that serve the same lists; default: random per process (drawn on first use). */
  constructor(secret?: string | Buffer) {
    this.secret = lazySecret(secret);
  }

  /** A cursor for `offset` in the list `kind`. */
  encode(kind: string, offset: number): string {
    const payload = Buffer.from(`${kind}:${offset}`).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The offset a cursor names; -32602 when it was not issued here for `kind`. */
  decode(kind: string, cursor: unknown): number {
    if (typeof cursor !== 'string') throw McpError.invalidParams('"cursor" must be a string');
    const dot = cursor.indexOf('.');
    const payload = cursor.slice(0, dot);
    // Compare the seal as text: decoding it first would accept edits the decoder ignores (the
    // unused low bits of its last character, characters that are not base64url at all).
    const mac = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.sign(payload));
    if (dot <= 0 || mac.length !== expected.length || !nodeCrypto().timingSafeEqual(mac, expected)) {
      throw McpError.invalidParams('invalid cursor: use the nextCursor of a previous page, unchanged');
    }
    const [listed, offset] = Buffer.from(payload, 'base64url').toString().split(':');
    const value = Number(offset);
    if (listed !== kind || !Number.isSafeInteger(value) || value < 0) throw McpError.invalidParams(`invalid cursor: it belongs to another list than ${kind}`);
    return value;
  }

  private sign(payload: string): string {
    return nodeCrypto().createHmac('sha256', this.secret()).update(payload).digest().subarray(0, 16).toString('base64url');
  }
}
