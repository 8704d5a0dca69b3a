/**
 * The streaming body of a Node response (node.ts: `streamNodeResponse`, the `NodeHttpStream` the
 * Fastify adapter streams through), on Node's HTTP server at 127.0.0.1: whether a response was
 * delivered — every byte handed to the operating system on a connection that finished normally —
 * is decided as it closes, alike on every Node version. Not as it is ended (Node 24 sets
 * `writableFinished` only once `'finish'` fires; 20 and 22 as soon as the socket took the bytes),
 * and not from the `'finish'` Node 20 and 22 also emit once a cut connection dropped the last bytes.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { HttpStream, streamNodeResponse } from '@hermes-mcp/core/adapter';

const MIB = 1024 * 1024;
const TEXT = { 'content-type': 'text/plain' };

let server: Server | undefined;

afterEach(async () => {
  const serving = server;
  server = undefined;
  if (!serving) return;
  serving.closeAllConnections();
  await new Promise((resolve) => serving.close(resolve));
});

/** What {@link serveOne} gives: where it listens, and its one response's stream. */
interface One {
  port: number;
  /** The stream, as `answer` returned it (once a request came). */
  stream: Promise<HttpStream>;
  /** The stream's `delivered`, read as it closed. */
  delivered: Promise<boolean>;
}

/** Serves one request, answered by `answer`, on 127.0.0.1. */
async function serveOne(answer: (res: ServerResponse) => HttpStream): Promise<One> {
  let resolveStream!: (stream: HttpStream) => void;
  const stream = new Promise<HttpStream>((resolve) => (resolveStream = resolve));
  const delivered = stream.then((made) => new Promise<boolean>((resolve) => made.onClose(() => resolve(made.delivered))));
  server = createServer((_req, res) => resolveStream(answer(res)));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, stream, delivered };
}

describe('a Node response streamed through streamNodeResponse', () => {
  it('delivers a whole answer its client reads, and says so once the response closed, not as it is ended', async () => {
    let deliveredAtEnd: boolean | undefined;
    const one = await serveOne((res) => {
      const stream = streamNodeResponse(res, {}, TEXT, 'a whole answer');
      deliveredAtEnd = stream.delivered;
      return stream;
    });
    const response = await fetch(`http://127.0.0.1:${one.port}/`);
    expect(await response.text()).toBe('a whole answer');
    expect(await one.delivered).toBe(true);
    expect(deliveredAtEnd).toBe(false);
  });

  it('delivers a whole answer too large for the socket to take at once, once its last bytes left', async () => {
    const body = 'x'.repeat(16 * MIB);
    let bufferedAtEnd = 0;
    const one = await serveOne((res) => {
      const stream = streamNodeResponse(res, {}, TEXT, body);
      bufferedAtEnd = stream.bufferedBytes;
      return stream;
    });
    const response = await fetch(`http://127.0.0.1:${one.port}/`);
    expect((await response.text()).length).toBe(body.length);
    expect(await one.delivered).toBe(true);
    // The answer was still being written as the response was ended.
    expect(bufferedAtEnd).toBeGreaterThan(0);
  });

  it('does not deliver a whole answer whose client cut the connection before its last bytes left', async () => {
    const one = await serveOne((res) => streamNodeResponse(res, {}, TEXT, 'x'.repeat(32 * MIB)));
    const socket = connect(one.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${one.port}\r\n\r\n`);
    // The head and the first bytes arrive; then the client resets the connection, reading no more.
    socket.once('data', () => socket.resetAndDestroy());
    expect(await one.delivered).toBe(false);
  });

  it('delivers a stream the server ended once its client took every event', async () => {
    const one = await serveOne((res) => streamNodeResponse(res, {}, TEXT));
    const response = await fetch(`http://127.0.0.1:${one.port}/`);
    const stream = await one.stream;
    for (let i = 0; i < 3; i++) stream.write(`event ${i}\n`);
    stream.end();
    expect(await response.text()).toBe('event 0\nevent 1\nevent 2\n');
    expect(await one.delivered).toBe(true);
  });

  it('does not deliver a stream the server cut', async () => {
    const one = await serveOne((res) => streamNodeResponse(res, {}, TEXT));
    const response = await fetch(`http://127.0.0.1:${one.port}/`);
    const stream = await one.stream;
    stream.write('event 0\n');
    stream.destroy();
    await expect(response.text()).rejects.toThrow();
    expect(await one.delivered).toBe(false);
  });
});
