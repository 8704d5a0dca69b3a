/**
 * Hardening of the stdio transport, in a spawned server process (the hardening fixture):
 *
 * - 7: `console.log` (and every console method that writes to stdout) inside a tool does not
 *   corrupt the protocol stream: while the app serves stdio, it goes to stderr; the option
 *   `stdio.redirectConsole: false` leaves the console alone;
 * - 12: a last line without a newline before EOF is still answered;
 * - garbage on stdin is logged quietly (once at warn, then debug), never at error with a stack.
 */
import { logLinesOf, rpc, spawnStdioFixture } from '../../../test-support/hardening';

type Raw = Record<string, unknown>;

describe('7: console output while serving stdio', () => {
  it('goes to stderr: stdout carries nothing but JSON-RPC', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      await server.initialize('2025-11-25');
      const answer = await server.request(1, 'tools/call', { name: 'console', arguments: { text: 'marker-7' } });
      expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: 'wrote marker-7' }] } });
      expect(await server.request(2, 'ping')).toMatchObject({ result: {} });
      for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(server.lines.join('\n')).not.toContain('marker-7\n');
      for (const written of [
        'log marker-7',
        'info marker-7',
        'debug marker-7',
        "dir: 'marker-7'",
        'dirxml marker-7',
        'table',
        'marker-7: 1',
        'group marker-7',
        'marker-7: ',
        'Assertion failed: assert marker-7',
        'Trace: trace marker-7',
        'warn marker-7',
        'error marker-7',
      ]) {
        expect({ written, onStderr: server.stderr.includes(written) }).toEqual({ written, onStderr: true });
      }
    } finally {
      await server.end();
    }
  });

  it('is left alone with stdio.redirectConsole: false (and then corrupts stdout, as it would anywhere)', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn', HARDENING_CONSOLE: 'keep' });
    try {
      await server.initialize('2025-11-25');
      await server.request(1, 'tools/call', { name: 'console', arguments: { text: 'marker-keep' } });
      expect(server.received).toContainEqual({ unparseable: 'log marker-keep' });
    } finally {
      await server.end();
    }
  });
});

describe('12: the end of stdin', () => {
  it('answers a last line that has no newline', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      await server.initialize('2025-11-25');
      server.writeRaw(JSON.stringify(rpc('last', 'tools/call', { name: 'echo', arguments: { text: 'no newline' } })));
      const exit = await server.end();
      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.received).toContainEqual(expect.objectContaining({ id: 'last', result: expect.objectContaining({ content: [{ type: 'text', text: 'no newline' }] }) }));
    } finally {
      server.kill();
    }
  });

  it('answers a last line that is cut JSON with -32700, then exits', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      server.writeRaw('{"jsonrpc":"2.0","id":1,"met');
      const exit = await server.end();
      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.received).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } }]);
    } finally {
      server.kill();
    }
  });
});

describe('10: garbage on stdin', () => {
  it('is logged once at warn, then at debug, never at error or with a stack', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'trace' });
    try {
      await server.initialize('2025-11-25');
      const garbage = [
        '{"jsonrpc":"1.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":9,"error":"x"}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}',
        '{"jsonrpc":"2.0","result":{}}',
      ];
      for (let i = 0; i < 25; i++) server.writeRaw(garbage.join('\n') + '\n');
      expect(await server.request('after', 'ping')).toMatchObject({ result: {} });
      await server.end();
      const lines = logLinesOf(server.stderr);
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      const warned = lines.filter((l) => l.level === 40);
      expect(warned).toHaveLength(1);
      expect(JSON.stringify(warned[0])).not.toMatch(/"stack"/);
      expect(lines.filter((l) => l.level === 20 && /malformed message/.test(l.msg ?? '')).length).toBe(99);
    } finally {
      server.kill();
    }
  });
});

describe('the stdio server answers every request it read', () => {
  it('even while a client writes faster than it reads (no answer lost, none duplicated)', async () => {
    const server = spawnStdioFixture({ HERMES_LOG_LEVEL: 'warn' });
    try {
      await server.initialize('2025-11-25');
      const ids: number[] = [];
      let lines = '';
      for (let i = 0; i < 5000; i++) {
        ids.push(i);
        lines += JSON.stringify(rpc(i, 'tools/call', { name: 'echo', arguments: { text: `n${i}` } })) + '\n';
      }
      server.writeRaw(lines);
      await server.until(() => server.lines.length >= 5001, 'all answers');
      const answers = server.received.filter((m) => typeof (m as Raw).id === 'number') as Raw[];
      expect(answers.map((a) => a.id).sort((a, b) => (a as number) - (b as number))).toEqual(ids);
    } finally {
      await server.end();
    }
  });
});
