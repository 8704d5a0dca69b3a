import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  checkMethodHeader,
  checkParamHeaders,
  checkStandardHeaders,
  checkVersionHeader,
  decodeHeaderValue,
  headerParamsOf,
  validateHeaderDeclarations,
  type HeaderParam,
  type HeadersRecord,
} from '../../src/engine/modern-headers';

const V = '2026-07-28';
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

// ---------------------------------------------------------------------------------------------

describe('decodeHeaderValue', () => {
  it.each<[string, string, string]>([
    // CONFORMANCE.md §3.4, http-custom-header-server-validation
    ['conf: sentinel, valid Base64', '=?base64?SGVsbG8=?=', 'Hello'],
    ['conf: no wrapper is literal', 'SGVsbG8=', 'SGVsbG8='],
    ['conf: no ?= suffix is literal', '=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    // whitespace (RFC 9110 OWS is SP and HTAB, trimmed at both ends only)
    ['spaces around a literal', '  us-west1  ', 'us-west1'],
    ['tabs around a literal', '\tus-west1\t', 'us-west1'],
    ['inner space and tab kept', 'a b\tc', 'a b\tc'],
    ['whitespace around a sentinel', ' \t=?base64?SGVsbG8=?= \t', 'Hello'],
    ['only whitespace', ' \t ', ''],
    ['empty', '', ''],
    // the spec's encoding examples
    ['non-ASCII', '=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'],
    ['decoded whitespace is not trimmed', '=?base64?IHBhZGRlZCA=?=', ' padded '],
    ['newline inside', '=?base64?bGluZTEKbGluZTI=?=', 'line1\nline2'],
    ['a value that looks like the sentinel', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='],
    // edges of the sentinel
    ['empty payload', '=?base64??=', ''],
    ['markers overlap (10 chars): literal', '=?base64?=', '=?base64?='],
    ['upper-case prefix is literal', '=?BASE64?SGVsbG8=?=', '=?BASE64?SGVsbG8=?='],
    ['mixed-case prefix is literal', '=?Base64?SGVsbG8=?=', '=?Base64?SGVsbG8=?='],
    ['prefix not at the start is literal', 'x=?base64?SGVsbG8=?=', 'x=?base64?SGVsbG8=?='],
    ['one padding char', '=?base64?SGk/?=', 'Hi?'],
    ['no padding needed', '=?base64?SGV5?=', 'Hey'],
    ['"+" and "/" of the standard alphabet', '=?base64?fn5+Pz8/?=', '~~~???'],
    ['a leading BOM is kept', '=?base64?77u/YQ==?=', '\ufeffa'],
    ['literal visible ASCII', "!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"],
  ])('%s: %j → %j', (_label, raw, value) => {
    expect(decodeHeaderValue(raw)).toEqual({ ok: true, value });
  });

  it.each<[string, string, RegExp]>([
    // CONFORMANCE.md §3.4
    ['conf: bad padding', '=?base64?SGVsbG8?=', /canonical Base64/],
    ['conf: bad characters', '=?base64?SGVs!!!bG8=?=', /canonical Base64/],
    // strict Base64
    ['too much padding', '=?base64?SGk==?=', /canonical Base64/],
    ['padding alone', '=?base64?=?=', /canonical Base64/],
    ['padding in the middle', '=?base64?SG==SGVs?=', /canonical Base64/],
    ['URL-safe alphabet', '=?base64?-_-_?=', /canonical Base64/],
    ['whitespace inside the payload', '=?base64?SGVs bG8=?=', /canonical Base64/],
    ['line break inside the payload', '=?base64?SGVs\nbG8=?=', /canonical Base64/],
    ['one char short of a group', '=?base64?SGVsb?=', /canonical Base64/],
    // strict UTF-8
    ['invalid UTF-8 (0xff)', '=?base64?/w==?=', /UTF-8/],
    ['lone continuation byte', '=?base64?gA==?=', /UTF-8/],
    ['truncated sequence', `=?base64?${Buffer.from([0xe4, 0xb8]).toString('base64')}?=`, /UTF-8/],
    ['UTF-16 surrogate encoded as UTF-8', `=?base64?${Buffer.from([0xed, 0xa0, 0x80]).toString('base64')}?=`, /UTF-8/],
    // literal values outside visible ASCII / SP / HTAB
    ['non-ASCII literal (as Node decodes it, latin1)', 'R\xe9gion', /outside visible ASCII/],
    ['UTF-8 bytes read as latin1', Buffer.from('世界', 'utf8').toString('latin1'), /outside visible ASCII/],
    ['DEL', 'a\x7fb', /outside visible ASCII/],
    ['NUL', 'a\x00b', /outside visible ASCII/],
    ['CR', 'a\rb', /outside visible ASCII/],
    ['LF', 'a\nb', /outside visible ASCII/],
    ['vertical tab', 'a\x0bb', /outside visible ASCII/],
  ])('%s: %j is refused', (_label, raw, problem) => {
    const decoded = decodeHeaderValue(raw);
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.problem).toMatch(problem);
  });

  it('decodes what a client encodes, for awkward values', () => {
    for (const text of ['', ' padded ', 'tab\there', 'Hello, 世界', '🙂', '\u0000', '=?base64?x?=', 'a'.repeat(1000)]) {
      expect(decodeHeaderValue(b64(text))).toEqual({ ok: true, value: text });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('checkStandardHeaders', () => {
  const headers = (more: HeadersRecord): HeadersRecord => ({ 'mcp-protocol-version': V, ...more });
  const list = { method: 'tools/list', params: {} };
  const call = { method: 'tools/call', params: { name: 'first_tool', arguments: {} } };

  describe('conf http-header-validation: the five reject cases', () => {
    it('tools/list with Mcp-Method: prompts/list', () => {
      expect(checkStandardHeaders(headers({ 'mcp-method': 'prompts/list' }), list, V)).toEqual({
        message: "Header mismatch: Mcp-Method header value 'prompts/list' does not match body value 'tools/list'",
        data: { mismatch: { header: 'prompts/list', body: 'tools/list' } },
      });
    });

    it('tools/list without Mcp-Method', () => {
      expect(checkStandardHeaders(headers({}), list, V)).toEqual({
        message: 'Header mismatch: required header Mcp-Method is missing',
        data: { missing: 'Mcp-Method' },
      });
    });

    it('tools/call on the first tool with Mcp-Name: wrong_tool_name', () => {
      expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/call', 'mcp-name': 'wrong_tool_name' }), call, V)).toEqual({
        message: "Header mismatch: Mcp-Name header value 'wrong_tool_name' does not match body value 'first_tool'",
        data: { mismatch: { header: 'wrong_tool_name', body: 'first_tool' } },
      });
    });

    it('tools/call without Mcp-Name', () => {
      expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/call' }), call, V)).toEqual({
        message: 'Header mismatch: required header Mcp-Name is missing',
        data: { missing: 'Mcp-Name' },
      });
    });

    it('Mcp-Method: TOOLS/LIST (values are case-sensitive)', () => {
      expect(checkStandardHeaders(headers({ 'mcp-method': 'TOOLS/LIST' }), list, V)?.data).toEqual({
        mismatch: { header: 'TOOLS/LIST', body: 'tools/list' },
      });
    });
  });

  describe('conf http-header-validation: the three accept cases, through Node’s own parser', () => {
    it('Mcp-Name with surrounding whitespace', async () => {
      const received = await headersAsNodeParsesThem([
        ['MCP-Protocol-Version', V],
        ['Mcp-Method', 'tools/call'],
        ['Mcp-Name', '  first_tool  '],
      ]);
      expect(checkStandardHeaders(received, call, V)).toBeUndefined();
      // Node already trims; the function trims anyway.
      expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/call', 'mcp-name': ' \tfirst_tool\t ' }), call, V)).toBeUndefined();
    });

    it.each(['mcp-method', 'MCP-METHOD'])('header name sent as %s', async (name) => {
      const received = await headersAsNodeParsesThem([
        ['mcp-protocol-version', V],
        [name, 'tools/list'],
      ]);
      expect(checkStandardHeaders(received, list, V)).toBeUndefined();
    });

    it('duplicated Mcp-Method headers are joined by Node, and then mismatch', async () => {
      const received = await headersAsNodeParsesThem([
        ['MCP-Protocol-Version', V],
        ['Mcp-Method', 'tools/list'],
        ['Mcp-Method', 'tools/list'],
      ]);
      expect(checkStandardHeaders(received, list, V)?.data.mismatch).toEqual({ header: 'tools/list, tools/list', body: 'tools/list' });
    });
  });

  describe('order', () => {
    it('a protocol-version mismatch comes first, before any missing header', () => {
      expect(checkStandardHeaders({ 'mcp-protocol-version': V }, { method: 'tools/list' }, 'v999.0.0')).toEqual({
        message: "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value 'v999.0.0'",
        data: { mismatch: { header: V, body: 'v999.0.0' } },
      });
    });

    it('then a missing MCP-Protocol-Version, before a missing Mcp-Method', () => {
      expect(checkStandardHeaders({}, call, V)).toEqual({
        message: 'Header mismatch: required header MCP-Protocol-Version is missing',
        data: { missing: 'MCP-Protocol-Version' },
      });
    });

    it('then a missing Mcp-Method, before a missing Mcp-Name', () => {
      expect(checkStandardHeaders(headers({}), call, V)?.data).toEqual({ missing: 'Mcp-Method' });
    });

    it('then an Mcp-Method mismatch, before Mcp-Name', () => {
      expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/list' }), call, V)?.data).toEqual({
        mismatch: { header: 'tools/list', body: 'tools/call' },
      });
    });
  });

  describe('Mcp-Name', () => {
    const named = (method: string, params: Record<string, unknown>, name?: string) =>
      checkStandardHeaders(headers({ 'mcp-method': method, ...(name !== undefined && { 'mcp-name': name }) }), { method, params }, V);

    it.each<[string, Record<string, unknown>, string]>([
      ['tools/call', { name: 'echo' }, 'echo'],
      ['prompts/get', { name: 'greet' }, 'greet'],
      ['resources/read', { uri: 'file:///a/b.txt' }, 'file:///a/b.txt'],
      ['tasks/get', { taskId: 't-1' }, 't-1'],
      ['tasks/update', { taskId: 't-1' }, 't-1'],
      ['tasks/cancel', { taskId: 't-1' }, 't-1'],
    ])('%s: must mirror the body value', (method, params, value) => {
      expect(named(method, params, value)).toBeUndefined();
      expect(named(method, params, `${value}x`)?.data.mismatch).toEqual({ header: `${value}x`, body: value });
      expect(named(method, params)?.data).toEqual({ missing: 'Mcp-Name' });
    });

    it('conf tasks-request-headers: a mismatched Mcp-Name on tasks/get', () => {
      expect(named('tasks/get', { taskId: 'real' }, 'other')?.message).toBe("Header mismatch: Mcp-Name header value 'other' does not match body value 'real'");
    });

    it('is compared case-sensitively', () => {
      expect(named('tools/call', { name: 'echo' }, 'Echo')).toBeDefined();
    });

    it('may be Base64-encoded (non-ASCII names, URIs)', () => {
      expect(named('tools/call', { name: 'grüß' }, b64('grüß'))).toBeUndefined();
      expect(named('resources/read', { uri: 'file:///tmp/ü.txt' }, b64('file:///tmp/ü.txt'))).toBeUndefined();
      expect(named('tools/call', { name: 'echo' }, b64('other'))?.data.mismatch).toEqual({ header: 'other', body: 'echo' });
    });

    it('refuses an invalid sentinel or raw non-ASCII', () => {
      expect(named('tools/call', { name: 'echo' }, '=?base64?ZWNobw?=')).toEqual({
        message:
          'Header mismatch: Mcp-Name header value \'=?base64?ZWNobw?=\' is invalid: the Base64 payload is not canonical Base64 (standard alphabet, "=" padding to a multiple of 4)',
        data: { mismatch: { header: '=?base64?ZWNobw?=', body: 'echo' } },
      });
      expect(named('tools/call', { name: 'grüß' }, Buffer.from('grüß').toString('latin1'))?.message).toMatch(/is invalid: .*outside visible ASCII/);
    });

    it('is not required when the body lacks the value (params validation refuses it later)', () => {
      expect(named('tools/call', {})).toBeUndefined();
      expect(named('tools/call', { name: 42 })).toBeUndefined();
      expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/call' }), { method: 'tools/call' }, V)).toBeUndefined();
    });

    it('is ignored on other methods', () => {
      expect(named('tools/list', { name: 'x' }, 'y')).toBeUndefined();
      expect(named('completion/complete', { name: 'x' })).toBeUndefined();
    });

    it('does not take methods from Object.prototype', () => {
      expect(named('constructor', { name: 'x' })).toBeUndefined();
      expect(named('toString', {})).toBeUndefined();
    });
  });

  it('is satisfied by a well-formed request', () => {
    expect(checkStandardHeaders(headers({ 'mcp-method': 'tools/list' }), list, V)).toBeUndefined();
    expect(checkStandardHeaders(headers({ 'mcp-method': 'server/discover' }), { method: 'server/discover' }, V)).toBeUndefined();
  });
});

describe('checkVersionHeader and checkMethodHeader', () => {
  it('only look at a present header', () => {
    expect(checkVersionHeader({}, V)).toBeUndefined();
    expect(checkMethodHeader({}, 'tools/list')).toBeUndefined();
  });

  it('conf probe 302: header 2026-07-28, body v999.0.0 → mismatch', () => {
    expect(checkVersionHeader({ 'mcp-protocol-version': V }, 'v999.0.0')?.data.mismatch).toEqual({ header: V, body: 'v999.0.0' });
  });

  it('trim, then compare exactly (never Base64-decode)', () => {
    expect(checkVersionHeader({ 'mcp-protocol-version': ` ${V}\t` }, V)).toBeUndefined();
    expect(checkMethodHeader({ 'mcp-method': ' tools/list ' }, 'tools/list')).toBeUndefined();
    expect(checkMethodHeader({ 'mcp-method': b64('tools/list') }, 'tools/list')).toBeDefined();
    expect(checkVersionHeader({ 'mcp-protocol-version': '' }, V)).toBeDefined();
  });
});

// ---------------------------------------------------------------------------------------------

describe('headerParamsOf', () => {
  it('finds declarations along chains of properties, in schema order', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        query: { type: 'string' },
        options: {
          type: 'object',
          properties: {
            limit: { type: 'integer', 'x-mcp-header': 'Limit' },
            deep: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
          },
        },
        ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
      },
    };
    expect(headerParamsOf(schema)).toEqual<HeaderParam[]>([
      { path: ['region'], header: 'Region', type: 'string' },
      { path: ['options', 'limit'], header: 'Limit', type: 'integer' },
      { path: ['options', 'deep', 'dry'], header: 'Dry-Run', type: 'boolean' },
      { path: ['ratio'], header: 'Ratio', type: 'number' },
    ]);
  });

  it('ignores what is not a usable declaration', () => {
    const schema = {
      type: 'object',
      'x-mcp-header': 'Root',
      properties: {
        list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }, { type: 'null' }] },
        nullable: { type: ['string', 'null'], 'x-mcp-header': 'Nullable' },
        untyped: { 'x-mcp-header': 'Untyped' },
        object: { type: 'object', 'x-mcp-header': 'Object' },
        notString: { type: 'string', 'x-mcp-header': 42 },
        map: { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'Map' } },
      },
      $defs: { x: { type: 'string', 'x-mcp-header': 'Def' } },
    };
    expect(headerParamsOf(schema)).toEqual([]);
    expect(headerParamsOf({ type: 'object' })).toEqual([]);
  });
});

describe('validateHeaderDeclarations', () => {
  const tool = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: 'object', properties, ...more });

  it.each<[string, object]>([
    ['no declarations', tool({ a: { type: 'string' } })],
    ['no properties at all', { type: 'object' }],
    ['the conformance fixture', tool({ region: { type: 'string', 'x-mcp-header': 'Region' } })],
    [
      'string, integer and boolean, nested',
      tool({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        opts: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'N' }, b: { type: 'boolean', 'x-mcp-header': 'B' } } },
      }),
    ],
    ['every tchar', tool({ a: { type: 'string', 'x-mcp-header': "!#$%&'*+-.^_`|~09AZaz" } })],
    ['a property *named* items or anyOf is still a property', tool({ items: { type: 'string', 'x-mcp-header': 'Items' }, anyOf: { type: 'string', 'x-mcp-header': 'AnyOf' } })],
  ])('accepts %s', (_label, schema) => {
    expect(validateHeaderDeclarations(schema)).toEqual([]);
  });

  it.each<[string, object, RegExp]>([
    ['an empty name', tool({ a: { type: 'string', 'x-mcp-header': '' } }), /^properties\.a: x-mcp-header must be a non-empty string$/],
    ['a non-string name', tool({ a: { type: 'string', 'x-mcp-header': 7 } }), /must be a non-empty string/],
    ['a space', tool({ a: { type: 'string', 'x-mcp-header': 'My Header' } }), /'My Header' is not an RFC 9110 token/],
    ['a colon', tool({ a: { type: 'string', 'x-mcp-header': 'A:B' } }), /not an RFC 9110 token/],
    ['a slash', tool({ a: { type: 'string', 'x-mcp-header': 'A/B' } }), /not an RFC 9110 token/],
    ['non-ASCII', tool({ a: { type: 'string', 'x-mcp-header': 'Région' } }), /not an RFC 9110 token/],
    ['a tab', tool({ a: { type: 'string', 'x-mcp-header': 'A\tB' } }), /not an RFC 9110 token/],
    ['CR', tool({ a: { type: 'string', 'x-mcp-header': 'A\rB' } }), /'A\\x0dB' contains CR or LF/],
    ['LF', tool({ a: { type: 'string', 'x-mcp-header': 'A\nB' } }), /contains CR or LF/],
    [
      'a case-insensitive duplicate',
      tool({ a: { type: 'string', 'x-mcp-header': 'Region' }, o: { type: 'object', properties: { b: { type: 'string', 'x-mcp-header': 'REGION' } } } }),
      /^properties\.o\.properties\.b: x-mcp-header 'REGION' is declared twice, ignoring case \(also at properties\.a\)$/,
    ],
    ['type number', tool({ a: { type: 'number', 'x-mcp-header': 'A' } }), /of type "number"; only string, integer and boolean are allowed \(use integer\)/],
    ['type object', tool({ a: { type: 'object', 'x-mcp-header': 'A' } }), /of type "object"/],
    ['type array', tool({ a: { type: 'array', 'x-mcp-header': 'A' } }), /of type "array"/],
    ['type null', tool({ a: { type: 'null', 'x-mcp-header': 'A' } }), /of type "null"/],
    ['no type', tool({ a: { 'x-mcp-header': 'A' } }), /of type none/],
    ['a type list with null', tool({ a: { type: ['string', 'null'], 'x-mcp-header': 'A' } }), /of type \["string","null"\]/],
    [
      'the nullable shape the builder gives an @IsOptional property',
      tool({ a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }, { type: 'null' }] } }),
      /^properties\.a\.anyOf\[0\]: .* only allowed on a property reached from the root through 'properties' keys/,
    ],
    ['the root', { type: 'object', 'x-mcp-header': 'A' }, /^<root>: x-mcp-header 'A' is only allowed on a property reached/],
    ['items', tool({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }), /^properties\.a\.items: /],
    ['prefixItems', tool({ a: { type: 'array', prefixItems: [{ type: 'string', 'x-mcp-header': 'A' }] } }), /^properties\.a\.prefixItems\[0\]: /],
    ['additionalProperties', tool({ a: { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'A' } } }), /additionalProperties: /],
    ['patternProperties', tool({ a: { type: 'object', patternProperties: { '^x': { type: 'string', 'x-mcp-header': 'A' } } } }), /patternProperties\.\^x: /],
    ['oneOf', tool({ a: { oneOf: [{ type: 'string', 'x-mcp-header': 'A' }] } }), /oneOf\[0\]: /],
    ['allOf', tool({}, { allOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }), /^allOf\[0\]\.properties\.a: /],
    ['not', tool({ a: { not: { type: 'string', 'x-mcp-header': 'A' } } }), /not: /],
    ['if/then/else', tool({}, { if: {}, then: { properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } }), /^then\.properties\.a: /],
    ['$defs', tool({ a: { $ref: '#/$defs/A' } }, { $defs: { A: { type: 'string', 'x-mcp-header': 'A' } } }), /^\$defs\.A: /],
    ['definitions', tool({}, { definitions: { A: { type: 'string', 'x-mcp-header': 'A' } } }), /^definitions\.A: /],
  ])('refuses %s', (_label, schema, problem) => {
    const problems = validateHeaderDeclarations(schema);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('lists every problem, not only the first', () => {
    const problems = validateHeaderDeclarations(
      tool({
        a: { type: 'number', 'x-mcp-header': 'Bad Name' },
        b: { type: 'string', 'x-mcp-header': 'bad name' },
        c: { type: 'array', items: { type: 'string', 'x-mcp-header': 'C' } },
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^properties\.a: .*not an RFC 9110 token/),
      expect.stringMatching(/^properties\.a: .*type "number"/),
      expect.stringMatching(/^properties\.b: .*not an RFC 9110 token/),
      expect.stringMatching(/^properties\.c\.items: /),
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('checkParamHeaders', () => {
  const region: HeaderParam[] = [{ path: ['region'], header: 'Region', type: 'string' }];
  const check = (value: string | undefined, body: unknown, declarations = region) =>
    checkParamHeaders(value === undefined ? {} : { [`mcp-param-${declarations[0].header.toLowerCase()}`]: value }, declarations, { [declarations[0].path[0]]: body });

  describe('conf http-custom-header-server-validation', () => {
    it.each<[string, string | undefined, string, boolean]>([
      ['Base64 sentinel', '=?base64?SGVsbG8=?=', 'Hello', true],
      ['bad padding', '=?base64?SGVsbG8?=', 'Hello', false],
      ['bad characters', '=?base64?SGVs!!!bG8=?=', 'Hello', false],
      ['no wrapper: literal', 'SGVsbG8=', 'SGVsbG8=', true],
      ['no ?= suffix: literal', '=?base64?SGVsbG8=', '=?base64?SGVsbG8=', true],
      ['header omitted', undefined, 'test-value', false],
    ])('%s', (_label, header, body, accepted) => {
      const problem = check(header, body);
      if (accepted) expect(problem).toBeUndefined();
      else expect(problem).toEqual(expect.objectContaining({ message: expect.stringMatching(/^Header mismatch: /) }));
    });

    it('names the header and both values', () => {
      expect(check(undefined, 'test-value')).toEqual({
        message: 'Header mismatch: required header Mcp-Param-Region is missing',
        data: { missing: 'Mcp-Param-Region' },
      });
      expect(check('us-east1', 'us-west1')).toEqual({
        message: "Header mismatch: Mcp-Param-Region header value 'us-east1' does not match body value 'us-west1'",
        data: { mismatch: { header: 'us-east1', body: 'us-west1' } },
      });
      expect(check('=?base64?SGVsbG8?=', 'Hello')).toEqual({
        message: expect.stringMatching(/^Header mismatch: Mcp-Param-Region header value '=\?base64\?SGVsbG8\?=' is invalid: /),
        data: { mismatch: { header: '=?base64?SGVsbG8?=', body: 'Hello' } },
      });
    });
  });

  describe('strings', () => {
    it.each<[string, string, boolean]>([
      ['us-west1', 'us-west1', true],
      ['  us-west1\t', 'us-west1', true],
      ['US-WEST1', 'us-west1', false],
      ['us-west1 ', 'us-west1 ', false], // trailing space must be Base64-encoded
      [b64('us-west1 '), 'us-west1 ', true],
      [b64(''), '', true],
      ['', '', true],
      [b64('Hello, 世界'), 'Hello, 世界', true],
      ['Hello, 世界', 'Hello, 世界', false],
      ['42', '42', true],
      ['true', 'true', true],
    ])('header %j, body %j', (header, body, accepted) => {
      expect(check(header, body) === undefined).toBe(accepted);
    });
  });

  describe('integers, compared numerically', () => {
    const limit: HeaderParam[] = [{ path: ['limit'], header: 'Limit', type: 'integer' }];
    it.each<[string, number, boolean]>([
      ['42', 42, true],
      ['42.0', 42, true],
      ['+42', 42, true],
      ['042', 42, true],
      ['4.2e1', 42, true],
      ['-7', -7, true],
      ['0', 0, true],
      ['-0', 0, true],
      [b64('42'), 42, true],
      ['43', 42, false],
      ['42.5', 42, false],
      ['', 0, false],
      [' ', 0, false],
      ['0x2A', 42, false],
      ['42abc', 42, false],
      ['4_2', 42, false],
      ['Infinity', 42, false],
      ['NaN', 42, false],
      ['9007199254740991', Number.MAX_SAFE_INTEGER, true],
      ['-9007199254740991', -Number.MAX_SAFE_INTEGER, true],
    ])('header %j, body %p', (header, body, accepted) => {
      expect(check(header, body, limit) === undefined).toBe(accepted);
    });

    it('refuses a body integer beyond the safe range, which cannot be compared', () => {
      expect(check('9007199254740993', 2 ** 53 + 2, limit)?.message).toMatch(/outside the safe integer range/);
    });

    it('a number-typed declaration is compared the same way', () => {
      const ratio: HeaderParam[] = [{ path: ['ratio'], header: 'Ratio', type: 'number' }];
      expect(check('1.50', 1.5, ratio)).toBeUndefined();
      expect(check('1.5000001', 1.5, ratio)).toBeDefined();
    });
  });

  describe('booleans', () => {
    const dry: HeaderParam[] = [{ path: ['dry'], header: 'Dry-Run', type: 'boolean' }];
    it.each<[string, boolean, boolean]>([
      ['true', true, true],
      ['false', false, true],
      [' true ', true, true],
      ['false', true, false],
      ['TRUE', true, false],
      ['True', true, false],
      ['1', true, false],
      ['0', false, false],
      ['', false, false],
    ])('header %j, body %p', (header, body, accepted) => {
      expect(check(header, body, dry) === undefined).toBe(accepted);
    });
  });

  describe('a null or absent body value', () => {
    it('does not expect the header', () => {
      expect(checkParamHeaders({}, region, {})).toBeUndefined();
      expect(checkParamHeaders({}, region, { region: null })).toBeUndefined();
    });

    it('ignores the value of a header sent anyway', () => {
      expect(checkParamHeaders({ 'mcp-param-region': 'anything' }, region, {})).toBeUndefined();
      expect(checkParamHeaders({ 'mcp-param-region': 'anything' }, region, { region: null })).toBeUndefined();
    });

    it('still refuses one with invalid characters (a recognised header must be well-formed)', () => {
      expect(checkParamHeaders({ 'mcp-param-region': 'R\xe9gion' }, region, {})?.message).toMatch(/Mcp-Param-Region header value .* is invalid/);
      expect(checkParamHeaders({ 'mcp-param-region': '=?base64?SGVsbG8?=' }, region, { region: null })).toBeDefined();
    });
  });

  it('finds nested values by path', () => {
    const nested: HeaderParam[] = [{ path: ['options', 'tenant'], header: 'Tenant', type: 'string' }];
    expect(checkParamHeaders({ 'mcp-param-tenant': 'acme' }, nested, { options: { tenant: 'acme' } })).toBeUndefined();
    expect(checkParamHeaders({ 'mcp-param-tenant': 'acme' }, nested, { options: { tenant: 'other' } })).toBeDefined();
    expect(checkParamHeaders({}, nested, { options: { tenant: 'acme' } })?.data).toEqual({ missing: 'Mcp-Param-Tenant' });
    expect(checkParamHeaders({}, nested, { options: 'not an object' })).toBeUndefined();
    expect(checkParamHeaders({}, nested, {})).toBeUndefined();
  });

  it('does not read inherited properties as values', () => {
    const proto: HeaderParam[] = [{ path: ['toString'], header: 'X', type: 'string' }];
    expect(checkParamHeaders({}, proto, {})).toBeUndefined();
  });

  it('refuses an object or array body value, which has no header form', () => {
    // The body value is echoed as its JSON text: a structure of any depth is never sent back as is.
    expect(check('[object Object]', { a: 1 })?.data.mismatch).toEqual({ header: '[object Object]', body: '{"a":1}' });
    expect(check('a,b', ['a', 'b'])?.message).toBe(`Header mismatch: Mcp-Param-Region header value 'a,b' does not match body value ["a","b"]`);
  });

  it('ignores Mcp-Param-* headers no declaration names', () => {
    expect(checkParamHeaders({ 'mcp-param-other': 'x', 'mcp-param-region': 'eu' }, region, { region: 'eu' })).toBeUndefined();
    expect(checkParamHeaders({ 'mcp-param-other': '\x01' }, [], { other: 'y' })).toBeUndefined();
  });

  it('matches header names ignoring case (the declaration keeps its own case in messages)', async () => {
    const declarations: HeaderParam[] = [{ path: ['region'], header: 'ReGiOn', type: 'string' }];
    const received = await headersAsNodeParsesThem([['MCP-PARAM-REGION', 'eu']]);
    expect(checkParamHeaders(received, declarations, { region: 'eu' })).toBeUndefined();
    expect(checkParamHeaders({}, declarations, { region: 'eu' })?.message).toBe('Header mismatch: required header Mcp-Param-ReGiOn is missing');
  });

  it('reports the first problem, in declaration order', () => {
    const two: HeaderParam[] = [
      { path: ['a'], header: 'A', type: 'string' },
      { path: ['b'], header: 'B', type: 'string' },
    ];
    expect(checkParamHeaders({ 'mcp-param-a': 'x' }, two, { a: 'y', b: 'z' })?.data.mismatch).toEqual({ header: 'x', body: 'y' });
    expect(checkParamHeaders({ 'mcp-param-a': 'y' }, two, { a: 'y', b: 'z' })?.data).toEqual({ missing: 'Mcp-Param-B' });
  });

  it('works on declarations found by headerParamsOf', () => {
    const declarations = headerParamsOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
    expect(checkParamHeaders({ 'mcp-param-region': '=?base64?SGVsbG8=?=' }, declarations, { region: 'Hello' })).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Sends the header lines, spelled exactly as given (names, whitespace, duplicates), to a real Node
 * server over a raw socket; returns `req.headers` as Node parsed them.
 */
async function headersAsNodeParsesThem(pairs: Array<[string, string]>): Promise<IncomingHttpHeaders> {
  let received: IncomingHttpHeaders = {};
  const server: Server = createServer((req, res) => {
    received = req.headers;
    res.setHeader('Connection', 'close');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const lines = ['POST / HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Content-Length: 0', 'Connection: close', ...pairs.map(([name, value]) => `${name}:${value}`)];
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(`${lines.join('\r\n')}\r\n\r\n`));
      socket.on('error', reject);
      socket.on('close', () => resolve());
      socket.resume();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return received;
}
