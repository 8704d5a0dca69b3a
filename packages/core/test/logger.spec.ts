/**
 * The default logger redacts secrets (REDACTED_LOG_PATHS): Authorization and Cookie headers, tokens
 * and client secrets, a 2026-07-28 round's requestState, at any of the depths Hermes logs them —
 * and leaves everything else as it was.
 */
import { Writable } from 'node:stream';
import { REDACTED_LOG_PATHS, createLogger } from '@hermes-mcp/core';

function capture(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('redacts authorization headers, tokens and requestState, at every depth Hermes logs them', () => {
    const { lines, destination } = capture();
    const log = createLogger({ destination, level: 'info' });
    log.info({ headers: { authorization: 'Bearer abc', cookie: 'sid=1', 'content-type': 'application/json' } }, 'a request');
    log.info({ transport: { kind: 'http', headers: { authorization: 'Bearer abc', host: 'x' } } }, 'nested');
    log.info({ request: { params: { requestState: 'sealed', name: 'tool' } } }, 'a round');
    log.info({ tokens: { access_token: 'at', refresh_token: 'rt', token_type: 'Bearer' }, client: { client_secret: 's', client_id: 'id' } }, 'oauth');
    log.child({ requestId: 1 }).info({ token: 't' }, 'child');
    expect(lines.map(({ time: _t, pid: _p, hostname: _h, ...rest }) => rest)).toEqual([
      { level: 30, name: 'hermes-mcp', headers: { authorization: '[redacted]', cookie: '[redacted]', 'content-type': 'application/json' }, msg: 'a request' },
      { level: 30, name: 'hermes-mcp', transport: { kind: 'http', headers: { authorization: '[redacted]', host: 'x' } }, msg: 'nested' },
      { level: 30, name: 'hermes-mcp', request: { params: { requestState: '[redacted]', name: 'tool' } }, msg: 'a round' },
      {
        level: 30,
        name: 'hermes-mcp',
        tokens: { access_token: '[redacted]', refresh_token: '[redacted]', token_type: 'Bearer' },
        client: { client_secret: '[redacted]', client_id: 'id' },
        msg: 'oauth',
      },
      { level: 30, name: 'hermes-mcp', requestId: 1, token: '[redacted]', msg: 'child' },
    ]);
  });

  it('publishes its paths for loggers of your own', () => {
    expect(REDACTED_LOG_PATHS).toEqual(expect.arrayContaining(['authorization', '*.authorization', '*.*.requestState']));
    expect(Object.isFrozen(REDACTED_LOG_PATHS)).toBe(true);
  });

  it('writes to the console where pino is its browser build (what worker bundlers pick: no pino.destination)', () => {
    const lines: unknown[] = [];
    const info = jest.spyOn(console, 'info').mockImplementation((...args: unknown[]) => void lines.push(args));
    try {
      jest.isolateModules(() => {
        jest.doMock('pino', () => jest.requireActual('pino/browser'));
        const { createLogger: createBrowserLogger } = jest.requireActual<typeof import('../src/logger')>('../src/logger');
        createBrowserLogger({ level: 'info' }).info({ where: 'a worker' }, 'logged');
      });
    } finally {
      jest.dontMock('pino');
      info.mockRestore();
    }
    expect(lines).toEqual([[expect.objectContaining({ where: 'a worker' }), 'logged']]);
  });
});
