import { ErrorCode, McpError } from '@hermes-mcp/protocol';

describe('ErrorCode', () => {
  it('has the JSON-RPC 2.0 and MCP codes', () => {
    expect(ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      UrlElicitationRequired: -32042,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
      RequestTimeout: -32001,
      ServerShuttingDown: -32010,
      ClientTooSlow: -32011,
      InsufficientScope: -32012,
      ResultTooLarge: -32013,
      TokenExpired: -32014,
    });
  });
});

describe('McpError', () => {
  it('is an Error with a name, a code, a message and optional data', () => {
    const error = new McpError(-32099, 'custom', { why: 'because' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(McpError);
    expect(error.name).toBe('McpError');
    expect(error.code).toBe(-32099);
    expect(error.message).toBe('custom');
    expect(error.data).toEqual({ why: 'because' });
    expect(error.stack).toContain('custom');
  });

  it.each([
    ['parseError', McpError.parseError('Unexpected end'), -32700, 'Parse error: Unexpected end', undefined],
    ['invalidRequest', McpError.invalidRequest('no method'), -32600, 'Invalid request: no method', undefined],
    ['invalidRequest with data', McpError.invalidRequest('no method', { at: 0 }), -32600, 'Invalid request: no method', { at: 0 }],
    ['methodNotFound', McpError.methodNotFound('tools/fly'), -32601, 'Method not found: tools/fly', undefined],
    ['invalidParams', McpError.invalidParams('cursor', { field: 'cursor' }), -32602, 'Invalid params: cursor', { field: 'cursor' }],
    ['internalError (default)', McpError.internalError(), -32603, 'Internal error', undefined],
    ['internalError (detail)', McpError.internalError('Database unavailable'), -32603, 'Database unavailable', undefined],
    ['resourceNotFound', McpError.resourceNotFound('file:///x.txt'), -32002, 'Resource not found: file:///x.txt', { uri: 'file:///x.txt' }],
  ])('%s', (_name, error, code, message, data) => {
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.data).toEqual(data);
  });

  it('toJSON() omits data when there is none', () => {
    const json = McpError.methodNotFound('x').toJSON();
    expect(json).toEqual({ code: -32601, message: 'Method not found: x' });
    expect('data' in json).toBe(false);
    expect(JSON.stringify(McpError.methodNotFound('x'))).toBe('{"code":-32601,"message":"Method not found: x"}');
  });

  it('toJSON() includes data when present, even falsy data', () => {
    expect(McpError.resourceNotFound('u').toJSON()).toEqual({ code: -32002, message: 'Resource not found: u', data: { uri: 'u' } });
    expect(new McpError(1, 'm', 0).toJSON()).toEqual({ code: 1, message: 'm', data: 0 });
    expect(new McpError(1, 'm', null).toJSON()).toEqual({ code: 1, message: 'm', data: null });
  });

  it('fromObject() rebuilds an error received from a peer', () => {
    const error = McpError.fromObject({ code: -32602, message: 'Invalid params: x', data: [1] });
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('Invalid params: x');
    expect(error.data).toEqual([1]);
    // The message is kept verbatim: no factory prefix is added twice.
    expect(McpError.fromObject(McpError.invalidParams('y').toJSON()).message).toBe('Invalid params: y');
  });

  it('fromObject() and toJSON() round-trip', () => {
    for (const original of [McpError.internalError(), McpError.resourceNotFound('r'), new McpError(-1, 'odd', { deep: { a: [1] } })]) {
      expect(McpError.fromObject(original.toJSON()).toJSON()).toEqual(original.toJSON());
    }
  });
});
