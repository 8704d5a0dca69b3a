/**
 * StdioTransport framing over real streams: however the bytes are cut into chunks, each line is
 * one frame, in order; CRLF and blank lines are handled, UTF-8 split across chunks survives, an
 * over-long line becomes one invalid frame without disturbing its neighbours.
 */
import { PassThrough, Writable } from 'node:stream';
import type { ParsedFrame } from '@hermes-mcp/protocol';
import { StdioTransport } from '../src/transports/stdio.transport';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A transport on a PassThrough; `feed` writes chunks one by one, `frames` describes what came out. */
async function harness(maxMessageBytes?: number) {
  const input = new PassThrough();
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString('utf8'));
      done();
    },
  });
  const transport = new StdioTransport({ input, output, maxMessageBytes });
  const frames: string[] = [];
  transport.onframe = (frame: ParsedFrame) => {
    if (frame.kind === 'single') frames.push(frame.message.kind === 'invalid' ? `invalid message: ${frame.message.error.message}` : JSON.stringify(frame.message.message));
    else if (frame.kind === 'invalid') frames.push(`invalid: ${frame.error.message}`);
    else frames.push(`batch of ${frame.messages.length}`);
  };
  await transport.start();
  const feed = async (...chunks: Array<Buffer | string>) => {
    for (const chunk of chunks) {
      input.write(chunk);
      await tick();
    }
  };
  return { transport, frames, writes, feed };
}

const ping = (id: number | string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`;
const parsed = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('StdioTransport framing', () => {
  it('reads many lines of one chunk, with CRLF, blank and whitespace-only lines', async () => {
    const { frames, feed } = await harness();
    await feed(`${ping(1)}\n${ping(2)}\r\n\n   \r\n${ping(3)}\n`);
    expect(frames).toEqual([parsed(1), parsed(2), parsed(3)]);
  });

  it('joins a line cut across chunks, multi-byte characters cut in the middle included', async () => {
    const { frames, feed } = await harness();
    const line = Buffer.from(`${ping('café 😀')}\n${ping(2)}\n`);
    const cut = line.indexOf(Buffer.from('😀')) + 2; // inside the emoji's four bytes
    const cafe = line.indexOf(Buffer.from('é')) + 1; // inside é's two bytes
    await feed(line.subarray(0, cafe), line.subarray(cafe, cut), line.subarray(cut));
    expect(frames).toEqual([parsed('café 😀'), parsed(2)]);
  });

  it('reads lines with other UTF-8 among ASCII ones in the same chunk, and string chunks', async () => {
    const { frames, feed } = await harness();
    await feed(Buffer.from(`${ping(1)}\n${ping('ünïcode')}\n${ping(3)}\n${ping(4).slice(0, 10)}`), `${ping(4).slice(10)}\n`);
    expect(frames).toEqual([parsed(1), parsed('ünïcode'), parsed(3), parsed(4)]);
  });

  it('makes a line over the limit one invalid frame, in its place, and reads the others', async () => {
    const { frames, feed } = await harness(80);
    const long = ping('x'.repeat(100));
    await feed(`${ping(1)}\n${long}\n${ping(2)}\n`);
    await feed(`${ping(3)}\n${long.slice(0, 50)}`, `${long.slice(50)}\n${ping(4)}\n`);
    const tooLong = `invalid: Invalid request: the message of ${Buffer.byteLength(long)} bytes exceeds this server's limit of 80 bytes (maxMessageBytes)`;
    expect(frames).toEqual([parsed(1), tooLong, parsed(2), parsed(3), tooLong, parsed(4)]);
  });

  it('writes the answers to one chunk together', async () => {
    const { transport, writes, feed } = await harness();
    transport.onframe = (frame) => {
      if (frame.kind === 'single' && frame.message.kind === 'request') void transport.send({ jsonrpc: '2.0', id: frame.message.message.id, result: {} });
    };
    await feed(`${ping(1)}\n${ping(2)}\n${ping(3)}\n`);
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n']);
  });
});
