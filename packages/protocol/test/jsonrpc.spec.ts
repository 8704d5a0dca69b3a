import {
  ClassifiedMessage,
  ErrorCode,
  JSONRPC_VERSION,
  MAX_ID_LENGTH,
  McpError,
  ParsedFrame,
  classify,
  classifyValue,
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  notification,
  parseFrame,
  request,
  resultResponse,
  reuseSerialized,
  serialize,
  describeValue,
} from '@hermes-mcp/protocol';

/** The single classified message of a frame; fails the test when the frame is not a single message. */
function single(frame: ParsedFrame): ClassifiedMessage {
  if (frame.kind !== 'single') throw new Error(`expected a single message, got ${frame.kind}`);
  return frame.message;
}

/** Asserts an invalid message with a -32600 error, and returns it. */
function expectInvalid(message: ClassifiedMessage, id: string | number | null, detail: RegExp) {
  expect(message.kind).toBe('invalid');
  if (message.kind !== 'invalid') throw new Error('unreachable');
  expect(message.id).toBe(id);
  expect(message.error).toBeInstanceOf(McpError);
  expect(message.error.code).toBe(-32600);
  expect(message.error.message).toMatch(/^Invalid request: /);
  expect(message.error.message).toMatch(detail);
  return message;
}

describe('parseFrame: valid single messages', () => {
  it('classifies a request and keeps the message as sent', () => {
    const message = single(parseFrame('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c1"}}'));
    expect(message).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'c1' } },
    });
  });

  it('accepts a string id and a request without params', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","id":"abc","method":"ping"}'))).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 'abc', method: 'ping' },
    });
  });

  it('accepts id 0 and negative integer ids', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","id":0,"method":"ping"}')).kind).toBe('request');
    expect(single(parseFrame('{"jsonrpc":"2.0","id":-3,"method":"ping"}')).kind).toBe('request');
  });

  it('classifies a notification (no id member)', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","method":"notifications/initialized"}'))).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    expect(single(parseFrame('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}')).kind).toBe('notification');
  });

  it('classifies a result response', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","id":"r1","result":{"tools":[]}}'))).toEqual({
      kind: 'result',
      message: { jsonrpc: '2.0', id: 'r1', result: { tools: [] } },
    });
  });

  it('classifies an error response, with data', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: x","data":{"a":1}}}'))).toEqual({
      kind: 'error',
      message: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: x', data: { a: 1 } } },
    });
  });

  it('classifies an error response with id null (the request id could not be read)', () => {
    expect(single(parseFrame('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}'))).toEqual({
      kind: 'error',
      message: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: x' } },
    });
  });
});

describe('parseFrame: invalid JSON', () => {
  it.each(['', '{', '{"jsonrpc":"2.0",}', 'not json', '{"a":1} trailing'])('%j is a -32700 parse error', (text) => {
    const frame = parseFrame(text);
    expect(frame.kind).toBe('invalid');
    if (frame.kind !== 'invalid') throw new Error('unreachable');
    expect(frame.error).toBeInstanceOf(McpError);
    expect(frame.error.code).toBe(ErrorCode.ParseError);
    expect(frame.error.code).toBe(-32700);
    expect(frame.error.message).toMatch(/^Parse error: \S/);
  });
});

describe('classify: envelope errors', () => {
  it.each([
    ['null', null],
    ['a string', 'hello'],
    ['a number', 42],
    ['a boolean', true],
  ])('%s is not a message (id null)', (_label, value) => {
    expectInvalid(classify(value), null, /must be an object/);
  });

  it.each(['null', '"hello"', '42', 'true'])('the frame %s is a single invalid message', (text) => {
    expectInvalid(single(parseFrame(text)), null, /must be an object/);
  });

  it('rejects a missing or wrong jsonrpc member, keeping a readable id', () => {
    expectInvalid(classify({ id: 5, method: 'ping' }), 5, /"jsonrpc" member must be exactly "2.0"/);
    expectInvalid(classify({ jsonrpc: '1.0', id: 'x', method: 'ping' }), 'x', /"jsonrpc"/);
    expectInvalid(classify({ jsonrpc: 2.0, id: 1, method: 'ping' }), 1, /"jsonrpc"/);
    expectInvalid(classify({ jsonrpc: '2.0 ', method: 'notifications/x' }), null, /"jsonrpc"/);
  });

  it('rejects a method that is not a string, keeping a readable id', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 9, method: 12 }), 9, /"method" member must be a string/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 'q', method: null }), 'q', /"method"/);
    expectInvalid(classify({ jsonrpc: '2.0', method: ['ping'] }), null, /"method"/);
  });

  it('rejects positional (array) params, since MCP uses named params', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: ['a', 1] }), 4, /"params" member must be an object/);
    expectInvalid(classify({ jsonrpc: '2.0', method: 'notifications/x', params: [] }), null, /named params/);
  });

  it('rejects scalar and null params', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 4, method: 'm', params: 'p' }), 4, /"params"/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 4, method: 'm', params: null }), 4, /"params"/);
  });

  it.each([
    ['null', null],
    ['a float', 1.5],
    ['an object', { n: 1 }],
    ['an array', [1]],
    ['a boolean', false],
  ])('rejects a request whose id is %s (id not readable → null)', (_label, id) => {
    expectInvalid(classify({ jsonrpc: '2.0', id, method: 'ping' }), null, /"id" member must be a string of at most 1024 characters or an integer/);
  });

  it("caps what it will echo: a string id or progress token longer than MAX_ID_LENGTH is refused, and the token with the request's id", () => {
    const long = 'x'.repeat(MAX_ID_LENGTH + 1);
    const fits = 'y'.repeat(MAX_ID_LENGTH);
    expectInvalid(classify({ jsonrpc: '2.0', id: long, method: 'ping' }), null, /"id" member must be a string of at most 1024 characters/);
    expect(classify({ jsonrpc: '2.0', id: fits, method: 'ping' }).kind).toBe('request');
    expectInvalid(
      classify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { _meta: { progressToken: long } } }),
      7,
      /progress token \(params\._meta\.progressToken\) must be a string of at most 1024 characters or an integer/,
    );
    expectInvalid(classify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { _meta: { progressToken: 1.5 } } }), 8, /progress token/);
    expect(classify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { _meta: { progressToken: fits } } }).kind).toBe('request');
    // A response to a request of ours carrying an over-long id answers nothing we sent.
    expectInvalid(classify({ jsonrpc: '2.0', id: long, result: {} }), null, /id of its request/);
  });

  it('rejects a result response without an id, or with an unreadable id', () => {
    expectInvalid(classify({ jsonrpc: '2.0', result: {} }), null, /must carry the id of its request/);
    expectInvalid(classify({ jsonrpc: '2.0', id: null, result: {} }), null, /id of its request/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 2.5, result: {} }), null, /id of its request/);
  });

  it('accepts an error response without an id (MCP 2026-07-28 allows it) and rejects an unreadable id', () => {
    const error = { code: -32603, message: 'x' };
    const noId = { jsonrpc: '2.0', error };
    expect(classify(noId)).toEqual({ kind: 'error', message: noId });
    expectInvalid(classify({ jsonrpc: '2.0', id: { a: 1 }, error }), null, /"id" member/);
  });

  it('rejects a result that is not an object, keeping the id', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 6, result: 'done' }), 6, /"result" member must be an object/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 6, result: [1, 2] }), 6, /"result"/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 6, result: null }), 6, /"result"/);
  });

  it('rejects a malformed error member, keeping the id', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 8, error: 'boom' }), 8, /"error" member must be an object/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 8, error: { code: '-32603', message: 'x' } }), 8, /numeric code/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 8, error: { code: -32603 } }), 8, /and a message/);
    expectInvalid(classify({ jsonrpc: '2.0', id: 8, error: null }), 8, /"error"/);
  });

  it('rejects an object that is neither request, notification nor response', () => {
    expectInvalid(classify({ jsonrpc: '2.0', id: 11 }), 11, /needs a "method".*"result".*"error"/);
    expectInvalid(classify({ jsonrpc: '2.0' }), null, /needs a "method"/);
  });
});

describe('parseFrame: batches', () => {
  it('classifies each member of a batch, valid and invalid, in order', () => {
    const frame = parseFrame(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: ['positional'] },
        42,
        { jsonrpc: '2.0', id: 3, result: {} },
        { jsonrpc: '1.0', id: 'z', method: 'ping' },
      ]),
    );
    expect(frame.kind).toBe('batch');
    if (frame.kind !== 'batch') throw new Error('unreachable');
    expect(frame.messages.map((m) => m.kind)).toEqual(['request', 'notification', 'invalid', 'invalid', 'result', 'invalid']);
    expectInvalid(frame.messages[2], 2, /"params"/);
    expectInvalid(frame.messages[3], null, /must be an object/);
    expectInvalid(frame.messages[5], 'z', /"jsonrpc"/);
  });

  it('treats a nested array inside a batch as an invalid member', () => {
    const frame = parseFrame('[[{"jsonrpc":"2.0","id":1,"method":"ping"}]]');
    expect(frame.kind).toBe('batch');
    if (frame.kind !== 'batch') throw new Error('unreachable');
    expect(frame.messages).toHaveLength(1);
    expectInvalid(frame.messages[0], null, /must be an object/);
  });

  it('rejects an empty batch with -32600', () => {
    const frame = parseFrame('[]');
    expect(frame.kind).toBe('invalid');
    if (frame.kind !== 'invalid') throw new Error('unreachable');
    expect(frame.error.code).toBe(-32600);
    expect(frame.error.message).toBe('Invalid request: an empty batch is not a request');
  });

  it('classifyValue gives the same answer for an already parsed value', () => {
    const value = [{ jsonrpc: '2.0', id: 1, method: 'ping' }];
    expect(classifyValue(value)).toEqual(parseFrame(JSON.stringify(value)));
    expect(classifyValue({ jsonrpc: '2.0', method: 'n' })).toEqual({
      kind: 'single',
      message: { kind: 'notification', message: { jsonrpc: '2.0', method: 'n' } },
    });
    expect(classifyValue([]).kind).toBe('invalid');
  });
});

describe('parseFrame: size', () => {
  it('parses a request with a 5 MB string param', () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const message = single(parseFrame(JSON.stringify(request(1, 'tools/call', { name: 'echo', arguments: { text: big } }))));
    expect(message.kind).toBe('request');
    if (message.kind !== 'request') throw new Error('unreachable');
    const text = (message.message.params?.arguments as { text: string }).text;
    expect(text).toHaveLength(5 * 1024 * 1024);
    expect(text === big).toBe(true);
  });
});

describe('builders', () => {
  it('request() omits params when not given', () => {
    expect(request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect('params' in request(1, 'ping')).toBe(false);
    expect(request('a', 'tools/call', { name: 't' })).toEqual({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 't' } });
  });

  it('notification() has no id and omits params when not given', () => {
    expect(notification('notifications/initialized')).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(Object.keys(notification('n'))).toEqual(['jsonrpc', 'method']);
    expect(notification('n', { a: 1 })).toEqual({ jsonrpc: '2.0', method: 'n', params: { a: 1 } });
  });

  it('resultResponse() builds a result response', () => {
    expect(resultResponse(5, { ok: true })).toEqual({ jsonrpc: '2.0', id: 5, result: { ok: true } });
  });

  it('errorResponse() accepts an McpError or a plain error object, and a null id', () => {
    expect(errorResponse(5, McpError.methodNotFound('x'))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32601, message: 'Method not found: x' },
    });
    expect(errorResponse(null, { code: -32700, message: 'Parse error: y', data: 1 })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: y', data: 1 },
    });
    // The error object is plain JSON, not the McpError instance.
    expect(errorResponse(1, McpError.internalError()).error).not.toBeInstanceOf(McpError);
  });

  it('every builder round-trips through parseFrame as the kind it claims', () => {
    expect(JSONRPC_VERSION).toBe('2.0');
    const cases: Array<[unknown, string]> = [
      [request(1, 'ping'), 'request'],
      [notification('n'), 'notification'],
      [resultResponse('r', {}), 'result'],
      [errorResponse(null, McpError.parseError('bad')), 'error'],
      [errorResponse(2, McpError.invalidParams('bad', { field: 'x' })), 'error'],
    ];
    for (const [message, kind] of cases) {
      const classified = single(parseFrame(JSON.stringify(message)));
      expect(classified.kind).toBe(kind);
      if (classified.kind !== 'invalid') expect(classified.message).toEqual(message);
    }
  });

  it('the guards tell requests, notifications and responses apart', () => {
    const req = request(1, 'ping');
    const note = notification('n');
    const ok = resultResponse(1, {});
    const err = errorResponse(null, McpError.internalError());
    expect([req, note, ok, err].map(isRequest)).toEqual([true, false, false, false]);
    expect([req, note, ok, err].map(isNotification)).toEqual([false, true, false, false]);
    expect([req, note, ok, err].map(isResponse)).toEqual([false, false, true, true]);
  });
});

/** One regression test per bug found in src/jsonrpc.ts while writing this spec. */
describe('classify: regressions', () => {
  it('marks invalid response-shaped messages so that nobody answers them (a reply would echo their id)', () => {
    const responses = [
      { jsonrpc: '2.0', id: 6, result: 'done' },
      { jsonrpc: '2.0', result: {} },
      { jsonrpc: '2.0', id: 8, error: 'boom' },
      { jsonrpc: '2.0', id: 1.5, error: { code: 1, message: 'm' } },
      { jsonrpc: '1.0', id: 2, result: {} },
    ];
    expect(responses.map((value) => classify(value))).toEqual(responses.map(() => expect.objectContaining({ kind: 'invalid', noReply: true })));
    const requests = [
      { jsonrpc: '2.0', id: 6, method: 1 },
      { jsonrpc: '1.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 11 },
      'text',
      { jsonrpc: '2.0', id: 3, method: 'm', result: 'not a response: it has a method' },
    ];
    for (const value of requests) {
      const message = classify(value);
      // Read untyped: type-checking resolves the package to its built dist, which may predate the field.
      if (message.kind === 'invalid') expect((message as { noReply?: unknown }).noReply).toBeUndefined();
      else expect(message.kind).toBe('request');
    }
  });
});

describe('serialize', () => {
  it('is JSON.stringify for every message', () => {
    const messages = [request(1, 'a', { x: 1 }), notification('n'), resultResponse('r', { ok: true }), errorResponse(null, { code: -32600, message: 'bad' })];
    for (const m of messages) expect(serialize(m)).toBe(JSON.stringify(m));
    expect(serialize(messages)).toBe(JSON.stringify(messages));
  });

  it('reuses the JSON of a result marked for reuse, with each response id', () => {
    const result = reuseSerialized({ tools: [{ name: 't', inputSchema: { type: 'object' } }] });
    const first = serialize(resultResponse(1, result));
    const second = serialize(resultResponse('two', result));
    expect(JSON.parse(first)).toEqual({ jsonrpc: '2.0', id: 1, result });
    expect(JSON.parse(second)).toEqual({ jsonrpc: '2.0', id: 'two', result });
    expect(first).toBe(JSON.stringify(resultResponse(1, result)));
  });
});

/** Values `JSON.stringify` refuses on every engine: a BigInt, a cycle, a throwing `toJSON`, a throwing getter. */
function unserializable(): Record<string, unknown>[] {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const closed = () => {
    throw new Error('the connection is closed');
  };
  return [
    { n: 10n },
    cycle,
    { row: { toJSON: closed } },
    {
      get lazy(): unknown {
        return closed();
      },
    },
  ];
}

/** Arrays nested `levels` deep around 1: deeper than any stack at 100,000. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Whether this engine's `JSON.stringify` writes `value` (Node 26, plain data at any depth) rather than overflow (Node 20 to 24). */
function engineWrites(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

describe('serialize: a response always serialises', () => {
  it('a result that cannot be JSON (BigInt, a cycle, a toJSON or getter that throws) becomes -32603 with the same id', () => {
    for (const result of unserializable()) {
      expect(JSON.parse(serialize(resultResponse(7, result)))).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32603, message: 'Internal error: the answer could not be serialized' },
      });
    }
  });

  it('an error whose data cannot be JSON keeps its code and message, without the data', () => {
    for (const data of unserializable()) {
      const text = serialize(errorResponse('x', new McpError(-32602, 'Invalid params: unknown task', { taskId: data })));
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32602, message: 'Invalid params: unknown task' } });
    }
  });

  it('nesting deeper than the stack: sent as it is where JSON.stringify writes it (Node 26), else -32603; valid JSON either way', () => {
    const deep = nested(100_000);
    const message = resultResponse(7, { deep });
    const text = serialize(message);
    const sent = JSON.parse(text) as unknown;
    if (engineWrites(deep)) expect(text).toBe(JSON.stringify(message));
    else expect(sent).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error: the answer could not be serialized' } });
  });

  it('a batch answer keeps every member, the one that cannot be JSON replaced', () => {
    const text = serialize([resultResponse(1, { ok: true }), resultResponse(2, { n: 1n })]);
    expect(JSON.parse(text)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error: the answer could not be serialized' } },
    ]);
  });

  it('a notification that cannot be JSON throws: its sender made it', () => {
    expect(() => serialize(notification('notifications/message', { data: { n: 1n } }))).toThrow(TypeError);
  });
});

describe('describeValue', () => {
  it('never throws: strings as they are, other values as JSON, cut to a length', () => {
    expect(describeValue('2025-11-25')).toBe('2025-11-25');
    expect(describeValue({ toString: 1 })).toBe('{"toString":1}');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue('x'.repeat(500), 10)).toBe('xxxxxxxxxx…');
  });

  it('names what JSON.stringify refuses (BigInt, a cycle, a toJSON or getter that throws) by its kind', () => {
    expect(unserializable().map((value) => describeValue(value))).toEqual(['an object', 'an object', 'an object', 'an object']);
    expect(describeValue([10n])).toBe('an array');
    expect(describeValue(10n)).toBe('bigint');
  });

  it('nesting deeper than the stack: its cut JSON where JSON.stringify writes it (Node 26), else its kind', () => {
    const deep = nested(100_000);
    expect(describeValue(deep, 10)).toBe(engineWrites(deep) ? '[[[[[[[[[[…' : 'an array');
  });
});

describe('parseFrame: keys that could change prototypes', () => {
  it('refuses a request holding one at any depth, with its id; a notification or a response is refused without an answer', () => {
    let deep = '{"__proto__":{}}';
    for (let i = 0; i < 5_000; i++) deep = `{"a":${deep}}`;
    for (const params of ['{"__proto__":{"admin":true}}', '{"x":[{"constructor":{"prototype":{}}}]}', '{"\\u005f_proto__":1}', deep]) {
      expect(single(parseFrame(`{"jsonrpc":"2.0","id":5,"method":"ping","params":${params}}`))).toMatchObject({ kind: 'invalid', id: 5, error: { code: -32600 } });
    }
    expect(single(parseFrame('{"jsonrpc":"2.0","method":"notifications/x","params":{"__proto__":{}}}'))).toMatchObject({ kind: 'invalid', id: null, noReply: true });
    expect(single(parseFrame('{"jsonrpc":"2.0","id":3,"result":{"__proto__":{}}}'))).toMatchObject({ kind: 'invalid', id: 3, noReply: true });
    // An invalid request is answered as one, whatever keys it holds.
    expect(single(parseFrame('{"jsonrpc":"1.0","id":4,"method":"ping","params":{"__proto__":{}}}'))).toMatchObject({
      kind: 'invalid',
      id: 4,
      error: { message: expect.stringMatching(/"jsonrpc"/) },
    });
    // "constructor" without "prototype", and "proto" in values, are fine.
    expect(single(parseFrame('{"jsonrpc":"2.0","id":6,"method":"ping","params":{"constructor":{"name":"x"},"v":"__proto__"}}')).kind).toBe('request');
  });

  it('ignores a leading byte-order mark', () => {
    expect(single(parseFrame('\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}')).kind).toBe('request');
  });
});
