/**
 * When whole HTTP answers are written (answer-turn.ts): together, at the end of the event loop's
 * I/O phase; sooner once 16 wait, but never before the microtasks of the request being handled
 * have run; and a close that waits for a turn sees every answer queued before it written.
 */
import { createServer } from 'node:http';
import { Socket, connect, type AddressInfo } from 'node:net';
import { MAX_WAITING, answerTurn } from '../../src/transports/http/answer-turn';

/** Resolves on the event loop's next check phase. */
const checkPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A chain of `hops` promise reactions, as a handler's `await`s make. */
async function hops(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await Promise.resolve();
}

/** Checks that an answer asked for now is held through the microtasks and released when the turn ends. */
async function releasedAtTurnEnd(): Promise<void> {
  let released = false;
  void answerTurn().then(() => (released = true));
  await hops(50);
  expect(released).toBe(false);
  await checkPhase();
  expect(released).toBe(true);
}

describe('answerTurn', () => {
  it('holds an answer through the microtasks and releases it at the end of the I/O phase', async () => {
    await checkPhase();
    await releasedAtTurnEnd();
  });

  it('releases the answers of one turn together, in the order they became ready', async () => {
    await checkPhase();
    const order: number[] = [];
    const turns = [1, 2, 3].map((n) => answerTurn().then(() => order.push(n)));
    // One promise for the whole turn: no allocation per answer.
    expect(new Set(turns.map(() => answerTurn())).size).toBe(1);
    await Promise.all(turns);
    expect(order).toEqual([1, 2, 3]);
  });

  it(`lets ${MAX_WAITING} waiting answers leave before the turn ends, once the microtasks queued meanwhile have run`, async () => {
    await checkPhase();
    let turnEnded = false;
    setImmediate(() => (turnEnded = true));
    const released: number[] = [];
    const waiting = Array.from({ length: MAX_WAITING }, (_, i) => answerTurn().then(() => released.push(i)));
    // A handler still finishing in microtasks (a tool that sent a progress, then returns): done before the release.
    let handlerDone = false;
    void hops(20).then(() => (handlerDone = true));
    let doneAtRelease: boolean | undefined;
    void waiting[0].then(() => (doneAtRelease = handlerDone));
    await Promise.all(waiting);
    expect(turnEnded).toBe(false);
    expect(doneAtRelease).toBe(true);
    expect(released).toHaveLength(MAX_WAITING);
    // The next answer starts a new group, released when the turn ends.
    await releasedAtTurnEnd();
  });

  it('on a real server, requests read in one turn are all read before the first of their answers is written, and each is answered', async () => {
    const events: string[] = [];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        events.push('read');
        void answerTurn().then(() => {
          events.push('written');
          response.end('ok');
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const count = 8;
    let accepted = 0;
    server.on('connection', () => accepted++);
    const sockets = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(port, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    // Every connection taken up by the server, and a turn for its reads to start, before anything is sent.
    await new Promise<void>((resolve) => {
      const check = () => (accepted >= count ? resolve() : setImmediate(check));
      check();
    });
    await checkPhase();
    try {
      const answers = sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket
              .setEncoding('utf8')
              .on('data', (d: string) => (text += d))
              .on('end', () => resolve(text));
          }),
      );
      // Written in one synchronous loop: the server finds all of them waiting in its next turn.
      for (const socket of sockets) socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx');
      const texts = await Promise.all(answers);
      for (const text of texts) expect(text).toMatch(/^HTTP\/1\.1 200 [^]*\r\n\r\nok$/);
      expect(events).toEqual([...Array(count).fill('read'), ...Array(count).fill('written')]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
