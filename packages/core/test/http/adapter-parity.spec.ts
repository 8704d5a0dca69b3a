/**
 * Both HTTP adapters answer every request the same way, because core answers it: the Fastify
 * plugin and the Web-standard handler behind Node's HTTP server (`toNodeListener`), each on
 * 127.0.0.1, sent the same raw requests on a TCP socket — what a careless or hostile client
 * sends as well as what a browser sends first.
 *
 * - Nothing a client sends throws out of a listener (issue 25, item 1): `TRACE`, a Host that is
 *   no host (`[`, `user@evil`, a port past 65535) — the Web handler's `new Request` threw
 *   synchronously in Node's `'request'` listener and the process died. Each is answered (405,
 *   403) and the server goes on serving.
 * - Every method on every path Hermes owns gets core's answer (item 14): 405 with `Allow`,
 *   204 for `OPTIONS` (no Fastify body-parser error for an `OPTIONS` with a JSON content type),
 *   no 200 `text/event-stream` for a `HEAD`; one media-type rule (`application/jsonx` is 415).
 * - The protected-resource metadata answers a CORS preflight (item 9): a browser's discovery
 *   request carries `MCP-Protocol-Version`, which needs one.
 */
import 'reflect-metadata';
import { connect } from 'node:net';
import { InvalidTokenError, McpServer, Tool, createLogger, createWebHandler } from '@hermes-mcp/core';
import type { HttpEndpointOptions } from '@hermes-mcp/core';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';
import { RawAnswer, parseAnswer } from '../../../../test-support/raw-http';

@McpServer({ name: 'parity', version: '1.0.0' })
class ParityServer {
  @Tool({ description: 'Says hello' })
  hello() {
    return 'hello';
  }
}

const silent = createLogger({ level: 'silent' });

const running: Serving[] = [];

async function start(adapter: Adapter, options: HttpEndpointOptions = {}): Promise<number> {
  const serving = await serveOn(adapter, ParityServer, () => options);
  running.push(serving);
  return serving.port;
}

afterAll(async () => {
  await Promise.all(running.map((serving) => serving.close()));
});

/** Sends `head` (a request line and headers, no blank line) and `body` on a new connection; reads the whole answer. */
function raw(port: number, head: string, body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = parseAnswer(Buffer.concat(chunks));
      if (!answer) return reject(new Error(`no answer to ${head.split('\r\n')[0]}: ${JSON.stringify(Buffer.concat(chunks).toString('utf8'))}`));
      resolve(answer);
    });
    const length = body === '' ? '' : `content-length: ${Buffer.byteLength(body)}\r\n`;
    socket.end(`${head}\r\nconnection: close\r\n${length}\r\n${body}`);
  });
}

/** What must be the same on both adapters: status, the headers that carry meaning, the JSON-RPC error. */
function essence(answer: RawAnswer): Record<string, unknown> {
  let error: unknown;
  if (answer.body !== '') error = (JSON.parse(answer.body) as { error?: unknown }).error;
  const mediaType = answer.headers['content-type']?.split(';')[0];
  const pick = ['allow', 'access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'];
  return { status: answer.status, mediaType, error, ...Object.fromEntries(pick.filter((h) => answer.headers[h] !== undefined).map((h) => [h, answer.headers[h]])) };
}

const HOST = 'host: 127.0.0.1';
const ACCEPT_BOTH = 'accept: application/json, text/event-stream';

describe.each(ADAPTERS)('%s: nothing a client sends throws out of a listener', (adapter) => {
  let port: number;

  beforeAll(async () => {
    port = await start(adapter);
  });

  it.each([
    ['TRACE /mcp', HOST, 405],
    ['GET /mcp', 'host: [', 403],
    ['GET /mcp', 'host: user@evil', 403],
    ['GET /mcp', 'host: 127.0.0.1:99999', 403],
    ['POST /mcp', 'host: ]:1', 403],
  ])('%s with "%s" is answered %i, and the server goes on serving', async (line, host, status) => {
    const answer = await raw(port, `${line} HTTP/1.1\r\n${host}`);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const ping = await raw(port, `POST /mcp HTTP/1.1\r\n${HOST}\r\ncontent-type: application/json\r\n${ACCEPT_BOTH}`, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(ping.status).toBe(200);
  });
});

// WebSocket is the Fastify plugin's (@fastify/websocket): the Web handler has no WebSocket route.
describe('fastify: hostile WebSocket upgrades are answered, and the server goes on serving', () => {
  let port: number;

  beforeAll(async () => {
    port = await start('fastify');
  });

  const upgrade = 'upgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-protocol: mcp';
  it.each([
    { what: 'a Host that is no host', headers: `host: [\r\n${upgrade}\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==`, status: 403 },
    {
      what: 'no subprotocol',
      headers: `${HOST}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==`,
      status: 400,
    },
    { what: 'no key', headers: `${HOST}\r\n${upgrade}`, status: 400 },
    { what: 'a key that is not base64 of 16 bytes', headers: `${HOST}\r\n${upgrade}\r\nsec-websocket-key: !!`, status: 400 },
    {
      what: 'a version ws does not speak',
      headers: `${HOST}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 99\r\nsec-websocket-protocol: mcp\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==`,
      status: 400,
    },
  ])('$what → $status', async ({ headers, status }) => {
    const answer = await raw(port, `GET /mcp/ws HTTP/1.1\r\n${headers}`);
    expect(answer.status).toBe(status);
    const ping = await raw(port, `POST /mcp HTTP/1.1\r\n${HOST}\r\ncontent-type: application/json\r\n${ACCEPT_BOTH}`, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(ping.status).toBe(200);
  });
});

describe('both adapters answer every method the same way, from core', () => {
  const ports: Partial<Record<Adapter, number>> = {};

  beforeAll(async () => {
    ports.fastify = await start('fastify');
    ports.web = await start('web');
  });

  /** The request, and what core answers it with. */
  const cases: Array<[string, string, string, Record<string, unknown>]> = [
    ['HEAD /mcp', '', '', { status: 405, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['OPTIONS /mcp', 'content-type: application/json', '', { status: 204, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['OPTIONS /mcp', 'content-type: application/json', '{"a":', { status: 204, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['PUT /mcp', 'content-type: application/json', '{}', { status: 405, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['PATCH /mcp', '', '', { status: 405, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['TRACE /mcp', '', '', { status: 405, allow: 'GET, POST, DELETE, OPTIONS' }],
    ['POST /mcp', `content-type: application/jsonx\r\n${ACCEPT_BOTH}`, '{}', { status: 415 }],
    ['POST /mcp', `content-type: application/json-seq\r\n${ACCEPT_BOTH}`, '{}', { status: 415 }],
    ['POST /mcp', `content-type: Application/JSON; charset=utf-8\r\n${ACCEPT_BOTH}`, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', { status: 200 }],
    ['HEAD /mcp/sse', '', '', { status: 405, allow: 'GET, OPTIONS' }],
    ['POST /mcp/sse', 'content-type: application/json', '{}', { status: 405, allow: 'GET, OPTIONS' }],
    ['OPTIONS /mcp/sse', '', '', { status: 204, allow: 'GET, OPTIONS' }],
    ['GET /mcp/messages', '', '', { status: 405, allow: 'POST, OPTIONS' }],
    ['DELETE /mcp/messages', '', '', { status: 405, allow: 'POST, OPTIONS' }],
    ['POST /mcp/messages?sessionId=x', 'content-type: application/jsonx', '{}', { status: 415 }],
    ['POST /mcp/messages?sessionId=x', 'content-type: application/json', '{}', { status: 404 }],
  ];

  const named = cases.map(([line, headers, body, expected]) => ({
    name: `${line}${headers ? ` [${headers.replace(/\r\n/g, '; ')}]` : ''}${body ? ` ${body}` : ''} → ${expected.status as number}`,
    line,
    headers,
    body,
    expected,
  }));

  it.each(named)('$name', async ({ line, headers, body, expected }) => {
    const head = `${line} HTTP/1.1\r\n${HOST}${headers ? `\r\n${headers}` : ''}`;
    const fastify = essence(await raw(ports.fastify!, head, body));
    const web = essence(await raw(ports.web!, head, body));
    expect(fastify).toEqual(web);
    expect(fastify).toMatchObject(expected);
    if (expected.status === 405 && !line.startsWith('HEAD')) expect(fastify.error).toMatchObject({ code: -32600, message: expect.stringContaining('Method Not Allowed') });
    if (expected.status === 415) expect(fastify.error).toMatchObject({ code: -32600, message: expect.stringContaining('application/json') });
  });
});

describe.each(ADAPTERS)('%s: the protected-resource metadata answers a CORS preflight', (adapter) => {
  let port: number;
  const path = '/.well-known/oauth-protected-resource/mcp';

  beforeAll(async () => {
    port = await start(adapter, {
      auth: {
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['http://127.0.0.1:1'],
        verifier: () => {
          throw new InvalidTokenError('no token is good here');
        },
      },
    });
  });

  it('OPTIONS from another origin, asking for MCP-Protocol-Version: 204 with the CORS headers, no token needed', async () => {
    const answer = await raw(
      port,
      `OPTIONS ${path} HTTP/1.1\r\n${HOST}\r\norigin: https://app.example\r\naccess-control-request-method: GET\r\naccess-control-request-headers: mcp-protocol-version\r\ncontent-type: application/json`,
    );
    expect(essence(answer)).toEqual({
      status: 204,
      mediaType: undefined,
      error: undefined,
      allow: 'GET, OPTIONS',
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, OPTIONS',
      'access-control-allow-headers': 'mcp-protocol-version',
    });
    expect(answer.headers['access-control-max-age']).toBe('86400');
  });

  it('a preflight naming something that is not a header list is allowed MCP-Protocol-Version only', async () => {
    const answer = await raw(port, `OPTIONS ${path} HTTP/1.1\r\n${HOST}\r\norigin: https://app.example\r\naccess-control-request-headers: a b, "c"`);
    expect(answer.headers['access-control-allow-headers']).toBe('mcp-protocol-version');
  });

  it('the GET that follows is readable from any origin; other methods are 405', async () => {
    const get = await raw(port, `GET ${path} HTTP/1.1\r\n${HOST}\r\norigin: https://app.example\r\nmcp-protocol-version: 2025-11-25`);
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(get.body)).toMatchObject({ resource: 'http://127.0.0.1/mcp', authorization_servers: ['http://127.0.0.1:1'] });
    const put = await raw(port, `PUT ${path} HTTP/1.1\r\n${HOST}\r\ncontent-type: application/json`, '{}');
    expect(essence(put)).toMatchObject({ status: 405, allow: 'GET, OPTIONS', 'access-control-allow-origin': '*' });
  });
});

describe.each(ADAPTERS)('%s: a body that trickles in is cut at bodyTimeout (Fastify has no request timeout by default)', (adapter) => {
  let port: number;

  beforeAll(async () => {
    port = await start(adapter, { bodyTimeout: 500 });
  });

  it('a byte every 100 ms of a 1 000-byte body: 408 naming the limit, the connection closed, the server goes on serving', async () => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(`POST /mcp HTTP/1.1\r\n${HOST}\r\ncontent-type: application/json\r\n${ACCEPT_BOTH}\r\ncontent-length: 1000\r\n\r\n[`);
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    await closed;
    clearInterval(drip);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.slice(0, 12)).toBe('HTTP/1.1 408');
    expect(JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1))).toMatchObject({ error: { code: -32600, message: expect.stringContaining('bodyTimeout') } });
    const ping = await raw(port, `POST /mcp HTTP/1.1\r\n${HOST}\r\ncontent-type: application/json\r\n${ACCEPT_BOTH}`, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(ping.status).toBe(200);
  });
});

describe('the output limits are checked at start', () => {
  it('maxUnreadBytes smaller than the app’s maxResultBytes is refused with HERMES_INVALID_OPTIONS: the largest answer could never be sent', () => {
    expect(() => createWebHandler(ParityServer, { maxUnreadBytes: 1024 * 1024, appOptions: { logger: silent } })).toThrow(
      expect.objectContaining({
        code: 'HERMES_INVALID_OPTIONS',
        message: expect.stringMatching(/maxUnreadBytes \(1048576\) is smaller than the app's maxResultBytes \(16777216\)/),
      }),
    );
    expect(() => createWebHandler(ParityServer, { maxUnreadBytes: 1024 * 1024, appOptions: { logger: silent, maxResultBytes: 512 * 1024 } })).not.toThrow();
  });
});
