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

describe("an app's default logger (made when it first writes a line)", () => {
  // The class is internal: apps get it as `app.logger` when `McpFactory.create` is given no logger.
  const { DeferredLogger } = require('../src/logger') as typeof import('../src/logger');

  it("writes what createLogger's logger writes, bindings and redaction included, once a line is on", () => {
    const deferred = capture();
    const direct = capture();
    const log = new DeferredLogger({ destination: deferred.destination, level: 'info' });
    const child = log.child({ session: 's1' });
    child.debug({ token: 't' }, 'below the level: nothing made');
    expect((log as unknown as { made?: unknown }).made).toBeUndefined();
    child.info({ token: 't' }, 'from a child');
    log.warn({ headers: { authorization: 'Bearer x' } }, 'from the root');
    const real = createLogger({ destination: direct.destination, level: 'info' });
    real.child({ session: 's1' }).info({ token: 't' }, 'from a child');
    real.warn({ headers: { authorization: 'Bearer x' } }, 'from the root');
    const strip = (lines: Array<Record<string, unknown>>) => lines.map(({ time: _t, ...rest }) => rest);
    expect(strip(deferred.lines)).toEqual(strip(direct.lines));
    expect(deferred.lines).toHaveLength(2);
  });

  it('knows its level before pino is made: which levels are on, a level set meanwhile, an unknown one refused at once', () => {
    const { lines, destination } = capture();
    const log = new DeferredLogger({ destination, level: 'warn' });
    expect(['error', 'warn', 'info'].map((level) => log.isLevelEnabled(level))).toEqual([true, true, false]);
    log.info('off');
    log.level = 'debug';
    expect(log.level).toBe('debug');
    expect((log as unknown as { made?: unknown }).made).toBeUndefined();
    log.debug('on now');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([[20, 'on now']]);
    expect(log.pino.level).toBe('debug');
    expect(() => new DeferredLogger({ level: 'loud' })).toThrow('unknown level loud');
    expect(() => (new DeferredLogger({ destination }).level = 'loud')).toThrow('unknown level loud');
  });

  it('takes HERMES_LOG_LEVEL, as createLogger does', () => {
    process.env.HERMES_LOG_LEVEL = 'error';
    try {
      expect(new DeferredLogger().level).toBe('error');
      expect(createLogger().level).toBe('error');
    } finally {
      delete process.env.HERMES_LOG_LEVEL;
    }
  });
});
