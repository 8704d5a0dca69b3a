/**
 * Servers that misbehave on purpose (issue 26), written here: an answer larger than the client
 * reads, a stdio line that does not end, a flood of requests to the client, redirects to another
 * origin, a body that is not JSON, many calls at once over HTTP+SSE. The client fails the call that
 * met them, naming the limit and the option that sets it, and goes on; its host never goes down.
 * Each HTTP server is `node:http` on 127.0.0.1, the stdio one a spawned `node`.
 */
import { spawn } from 'node:child_process';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import {
  InMemoryTransport,
  McpClient,
  McpClientOptions,
  McpError,
  OAuthClient,
  OAuthError,
  SseClientTransport,
  StdioClientTransport,
  StreamableHttpClientOptions,
  StreamableHttpClientTransport,
  unwrap,
} from '@hermes-mcp/client';
import { eventually } from '../../../test-support/e2e';

const MiB = 1024 * 1024;
/** A legacy revision: the hostile servers answer `initialize`, not `server/discover`. */
const REVISION = '2025-06-18';

type Message = {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** What a hostile HTTP server does beyond the handshake (each default: 405, or 202 for what the client POSTs). */
interface Misbehaviour {
  /** A `tools/call` POST. */
  call?: (message: Message, res: ServerResponse) => void;
  /** A GET (the session's stream). */
  get?: (res: ServerResponse) => void;
  /** A POST of the client's answer to one of the server's requests. */
  answer?: (message: Message, res: ServerResponse) => void;
}

interface Hostile {
  url: string;
  /** Every request it saw: method, path and headers. */
  seen: Array<{ method: string; path: string; headers: IncomingMessage['headers'] }>;
  /** The client's answers to the server's requests, as they came. */
  answers: Message[];
}

const servers: Server[] = [];
const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A Streamable HTTP server on 127.0.0.1 that initializes a session, then does what `misbehaviour` says. */
async function hostile(misbehaviour: Misbehaviour = {}): Promise<Hostile> {
  const seen: Hostile['seen'] = [];
  const answers: Message[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!, headers: req.headers });
    if (req.method === 'GET') return misbehaviour.get ? misbehaviour.get(res) : void res.writeHead(405).end();
    if (req.method !== 'POST') return void res.writeHead(200).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
      if (message.method === 'initialize') {
        const result = { protocolVersion: REVISION, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } };
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'hostile-session' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      } else if (message.method === 'tools/call' && misbehaviour.call) misbehaviour.call(message, res);
      else if (message.method === undefined) {
        answers.push(message);
        if (misbehaviour.answer) misbehaviour.answer(message, res);
        else res.writeHead(202).end();
      } else res.writeHead(202).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen, answers };
}

/** A client connected over Streamable HTTP to `url`. */
async function connectHttp(url: string, transportOptions: Partial<StreamableHttpClientOptions> = {}, options: McpClientOptions = {}): Promise<McpClient> {
  const client = new McpClient(new StreamableHttpClientTransport({ url, ...transportOptions }), { protocolVersion: REVISION, ...options });
  clients.push(client);
  await client.connect();
  return client;
}

/** The McpError `promise` rejects with (the test fails when it resolves, or rejects with anything else). */
async function failureOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** The JSON of a `tools/call` result whose text is `text`. */
function resultOf(id: Message['id'], text: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
}

/**
 * Writes the JSON of a result whose text is `bytes` of "a", chunk by chunk as the socket drains,
 * until it is written or the client hung up; resolves with the bytes written then.
 */
function writeLargeResult(res: ServerResponse, id: Message['id'], bytes: number): Promise<number> {
  const [head, tail] = resultOf(id, '\u0000').split('\\u0000');
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.write(head);
  let written = head.length;
  return new Promise((resolve) => {
    res.once('close', () => resolve(written));
    const write = (): void => {
      while (written < bytes && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      if (!res.destroyed) res.end(tail);
    };
    write();
  });
}

/** The built client (`npx tsc -b`), for code that runs in a process of its own. */
const CLIENT_DIST = path.join(__dirname, '../dist/index.js');

/**
 * Runs `body` (async, with `McpClient`, `SseClientTransport` and `url` in scope) in a new Node
 * process: what Node prints to stderr, such as a `MaxListenersExceededWarning`, is read there,
 * out of reach of a test's own process. Resolves with its output once it exited.
 */
function runClient(body: string, url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { McpClient, SseClientTransport } = require(${JSON.stringify(CLIENT_DIST)});
const url = process.argv[1];
(async () => { ${body} })().then(() => setImmediate(() => process.exit(0)), (error) => { console.error(error); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script, url]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const fetches = [
  ['node:http (the default)', undefined],
  ['the fetch option', (url: string | URL | Request, init?: RequestInit) => fetch(url, init)],
] as const;

describe('a JSON answer larger than the client reads (item 1)', () => {
  it.each(fetches)('%s: the call fails with -32013 naming maxMessageBytes once the limit passed, and the rest is not read', async (_, given) => {
    let sent: Promise<number> | undefined;
    const server = await hostile({
      call: (message, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        sent = writeLargeResult(res, message.id, 64 * MiB);
      },
    });
    const client = await connectHttp(server.url, { maxMessageBytes: MiB, fetch: given });
    const error = await failureOf(client.callTool('large'));
    expect({ code: error.code, data: error.data }).toEqual({ code: -32013, data: { maxMessageBytes: MiB } });
    expect(error.message).toContain(`limit of ${MiB} bytes (maxMessageBytes)`);
    // The client hung up: the server could not write its 64 MiB.
    expect(await sent).toBeLessThan(64 * MiB);
  });

  it('by default reads at most 16 MiB: an answer whose Content-Length says more is refused before it is read', async () => {
    let declared = 0;
    const server = await hostile({
      call: (message, res) => {
        const body = resultOf(message.id, 'a'.repeat(17 * MiB));
        declared = Buffer.byteLength(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      },
    });
    const client = await connectHttp(server.url);
    const error = await failureOf(client.callTool('large'));
    expect(error).toMatchObject({ code: -32013, data: { maxMessageBytes: 16 * MiB, bytes: declared } });
    expect(error.message).toContain("Raise the transport's maxMessageBytes");
  });
});

/**
 * The source of a stdio server (for `node -e`) that answers `initialize` and runs `onCall` for each
 * `tools/call` (`m` the request, `calls` how many came, `out(message)` writes one line).
 */
function stdioServer(onCall: string): string {
  return `
let partial = '';
let calls = 0;
const out = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
process.stdin.on('data', (chunk) => {
  const lines = (partial + chunk).split('\\n');
  partial = lines.pop();
  for (const line of lines) {
    const m = JSON.parse(line);
    if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stdio', version: '1.0.0' } } });
    else if (m.method === 'tools/call') {
      calls++;
      ${onCall}
    }
  }
});`;
}

/** A client connected to `node -e script ...args`. */
async function connectStdio(script: string, args: string[] = [], maxMessageBytes?: number): Promise<McpClient> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', script, ...args], closeGracePeriod: 500, maxMessageBytes });
  const client = new McpClient(transport, { protocolVersion: REVISION });
  clients.push(client);
  await client.connect();
  return client;
}

/** A stdio server whose first answer is a line of `argv[1]` bytes without its newline; the newline and an answer come with the next call. */
const ENDLESS_LINE_SERVER = stdioServer(`
      if (calls === 1) {
        const chunk = Buffer.alloc(65536, 'x');
        let written = 0;
        const write = () => {
          while (written < Number(process.argv[1])) {
            written += chunk.length;
            if (!process.stdout.write(chunk)) return process.stdout.once('drain', write);
          }
        };
        write();
      } else {
        process.stdout.write('\\n');
        out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'a line of its own' }] } });
      }`);

/**
 * A stdio server that, once called, reads nothing more and sends pings as fast as the client
 * takes them (through a socket on fd 1, so that its writes wait and its timers run): on stderr,
 * "blocked after N" once a write waited 3 s for the pipe, or "all sent N" after 64 MiB.
 */
const FLOOD_SERVER = stdioServer(`
      process.stdin.pause();
      process.stdin.removeAllListeners('data');
      const pipe = new (require('node:net').Socket)({ fd: 1, readable: false, writable: true });
      let sent = 0;
      let id = 0;
      const write = () => {
        while (sent < 64 * 1024 * 1024) {
          let text = '';
          for (let i = 0; i < 1000; i++) text += JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'ping' }) + '\\n';
          sent += text.length;
          if (!pipe.write(text)) {
            const timer = setTimeout(() => process.stderr.write('blocked after ' + sent + '\\n'), 3000);
            return pipe.once('drain', () => (clearTimeout(timer), write()));
          }
        }
        process.stderr.write('all sent ' + sent + '\\n');
      };
      write();`);

describe('a stdio server that floods requests and reads none of the answers', () => {
  it('is read no further while the answers wait for its stdin: it blocks, the client holds a pipe’s worth', async () => {
    let stderr = '';
    let heard!: () => void;
    const said = new Promise<void>((resolve) => (heard = resolve));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', FLOOD_SERVER],
      closeGracePeriod: 500,
      onStderr: (chunk) => {
        stderr += chunk;
        if (/(blocked after|all sent) \d+\n/.test(stderr)) heard();
      },
    });
    const client = new McpClient(transport, { protocolVersion: REVISION });
    clients.push(client);
    await client.connect();
    void client.callTool('flood').catch(() => undefined);
    await said;
    const [, what, bytes] = /(blocked after|all sent) (\d+)/.exec(stderr)!;
    expect(what).toBe('blocked after');
    // Without the pause the client read all 64 MiB, and held an answer for each ping.
    expect(Number(bytes)).toBeLessThan(8 * MiB);
    expect(transport.status().bytesIn).toBeLessThan(8 * MiB);
  });
});

describe('a stdio line longer than the client reads (item 2)', () => {
  it.each([
    ['maxMessageBytes 1 MiB', MiB, 8 * MiB],
    ['the default, 16 MiB', undefined, 17 * MiB],
  ])('%s: the pending call fails with -32013 naming the limit before the line ends, and the connection goes on', async (_, maxMessageBytes, lineBytes) => {
    const client = await connectStdio(ENDLESS_LINE_SERVER, [String(lineBytes)], maxMessageBytes);
    // The line never ends before the second call: only the limit can fail the first one.
    const error = await failureOf(client.callTool('endless', {}, { timeout: 15_000 }));
    const limit = maxMessageBytes ?? 16 * MiB;
    expect({ code: error.code, data: error.data }).toEqual({ code: -32013, data: { maxMessageBytes: limit } });
    expect(error.message).toContain(`limit of ${limit} bytes (maxMessageBytes)`);
    expect(error.message).toContain('every request pending failed');
    expect(unwrap(await client.callTool('next')).content).toEqual([{ type: 'text', text: 'a line of its own' }]);
  });
});

/** A stdio server whose answer is one line of 3 MiB of multi-byte characters, written in slices that cut them, ending with CRLF. */
const SLICED_LINE_SERVER = stdioServer(`
      const text = 'é😀'.repeat(3 * 1024 * 1024 / 6);
      const bytes = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } }) + '\\r\\n');
      for (let at = 0; at < bytes.length; at += 7777) process.stdout.write(bytes.subarray(at, at + 7777));`);

describe('long messages within the limit', () => {
  it('a stdio line of 3 MiB whose characters are cut between writes is read whole', async () => {
    const client = await connectStdio(SLICED_LINE_SERVER);
    expect(unwrap(await client.callTool('sliced')).content).toEqual([{ type: 'text', text: 'é😀'.repeat((3 * MiB) / 6) }]);
  });

  it('an SSE event of 3 MiB with CRLF line ends, its characters and line ends cut between writes, is read whole', async () => {
    const text = 'é😀'.repeat((3 * MiB) / 6);
    const server = await hostile({
      call: (message, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const bytes = Buffer.from(`: a comment\r\nevent: message\r\ndata: ${resultOf(message.id, text)}\r\n\r\n`);
        const cuts = [5, 12, 13, 14, 15, 16];
        for (let at = 17; at < bytes.length; at += 7777) cuts.push(at);
        cuts.push(bytes.length - 3, bytes.length - 1);
        let from = 0;
        for (const cut of [...cuts, bytes.length]) {
          res.write(bytes.subarray(from, cut));
          from = cut;
        }
        res.end();
      },
    });
    const client = await connectHttp(server.url);
    expect(unwrap(await client.callTool('sliced')).content).toEqual([{ type: 'text', text }]);
  });
});

/** A stdio server that answers a call with a message of exactly `arguments.bytes` bytes of JSON. */
const EXACT_SIZE_SERVER = stdioServer(`
      const empty = { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: '' }] } };
      empty.result.content[0].text = 'a'.repeat(m.params.arguments.bytes - JSON.stringify(empty).length);
      out(empty);`);

describe('the limit, to the byte', () => {
  const limit = 64 * 1024;
  /** A result of exactly `bytes` bytes of JSON, answering `message`. */
  const exact = (message: Message) => {
    const id = message.id;
    const bytes = (message.params!.arguments as { bytes: number }).bytes;
    return resultOf(id, 'a'.repeat(bytes - resultOf(id, '').length));
  };
  const clientOf: Record<string, () => Promise<McpClient>> = {
    'a JSON answer': async () =>
      connectHttp((await hostile({ call: (message, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(exact(message)) })).url, { maxMessageBytes: limit }),
    'an SSE event with an id and an event name': async () => {
      const server = await hostile({
        call: (message, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`id: 1\nevent: message\ndata: ${exact(message)}\n\n`),
      });
      return connectHttp(server.url, { maxMessageBytes: limit });
    },
    'a stdio line': () => connectStdio(EXACT_SIZE_SERVER, [], limit),
  };
  it.each(Object.keys(clientOf))('%s of exactly maxMessageBytes is read; one byte more is not', async (kind) => {
    const client = await clientOf[kind]();
    const result = unwrap(await client.callTool('exact', { bytes: limit }));
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^a+$/);
    expect(await failureOf(client.callTool('exact', { bytes: limit + 1 }))).toMatchObject({ code: -32013, data: { maxMessageBytes: limit } });
  });
});

describe('a flood of the server’s requests (item 3)', () => {
  it('runs at most maxInboundRequests of them at once; the rest are refused with -32600 naming the limit, their handler not called', async () => {
    const flood = 100;
    let stream: ServerResponse | undefined;
    let callId: Message['id'];
    const server = await hostile({
      call: (message, res) => {
        callId = message.id;
        stream = res.writeHead(200, { 'content-type': 'text/event-stream' });
        let events = '';
        for (let i = 0; i < flood; i++) events += `data: ${JSON.stringify({ jsonrpc: '2.0', id: `roots-${i}`, method: 'roots/list' })}\n\n`;
        res.write(events);
      },
    });
    let running = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const client = await connectHttp(
      server.url,
      {},
      {
        maxInboundRequests: 10,
        onRoots: async () => {
          running++;
          await released;
          return [{ uri: 'file:///tmp', name: 'tmp' }];
        },
      },
    );
    const call = client.callTool('flood');
    // Each of the server's requests either runs or is answered at once.
    await eventually('every roots/list run or refused', () => running + server.answers.length === flood);
    expect(running).toBe(10);
    for (const refusal of server.answers) {
      expect(refusal.error).toMatchObject({ code: -32600, data: { maxInboundRequests: 10 } });
      expect(refusal.error!.message).toContain('at most 10 of yours are handled here at a time (maxInboundRequests)');
    }
    release();
    await eventually('the ten answered', () => server.answers.filter((a) => a.result !== undefined).length === 10);
    stream!.end(`data: ${resultOf(callId, 'flood over')}\n\n`);
    expect(unwrap(await call).content).toEqual([{ type: 'text', text: 'flood over' }]);
  });

  it('reads no further while 16 answers are on their way: 40 pings on the GET stream, the server taking no answer', async () => {
    const held: ServerResponse[] = [];
    let holding = true;
    const server = await hostile({
      get: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let events = '';
        for (let i = 0; i < 40; i++) events += `data: ${JSON.stringify({ jsonrpc: '2.0', id: `ping-${i}`, method: 'ping' })}\n\n`;
        events += `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after the pings' } })}\n\n`;
        res.write(events);
      },
      answer: (_, res) => (holding ? held.push(res) : res.writeHead(202).end()),
    });
    const logs: unknown[] = [];
    await connectHttp(server.url, {}, { onLog: (log) => logs.push(log.data) });
    await eventually('16 answers held by the server', () => held.length >= 16);
    // The 17th ping, and the notification after it, wait in the stream.
    expect({ held: held.length, logs }).toEqual({ held: 16, logs: [] });
    holding = false;
    for (const res of held.splice(0)) res.writeHead(202).end();
    await eventually('every ping answered and the notification heard', () => server.answers.length === 40 && logs.length === 1);
    expect(server.answers.every((a) => typeof a.id === 'string' && a.id.startsWith('ping-') && a.result !== undefined)).toBe(true);
  });
});

describe('redirects (item 4)', () => {
  it.each(fetches)('%s: a redirect to another origin is refused, the error names its target, and nothing reaches it', async (_, given) => {
    const elsewhere = await hostile({ call: (message, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(resultOf(message.id, 'reached elsewhere')) });
    const server = await hostile({ call: (_message, res) => res.writeHead(307, { location: `${elsewhere.url}?token=t` }).end() });
    const client = await connectHttp(server.url, { headers: { 'x-api-key': 'secret' }, fetch: given });
    const error = await failureOf(client.callTool('moved'));
    expect(error.message).toBe(
      `HTTP 307 from ${server.url} redirects to ${elsewhere.url}: not followed, another origin (the client follows redirects only within the server's origin, so that its headers stay there; use that URL as the endpoint if it is the server meant)`,
    );
    expect(error.data).toEqual({ status: 307, location: elsewhere.url });
    // Neither the API key nor the session id went there.
    expect(elsewhere.seen).toEqual([]);
  });

  it.each(fetches)('%s: a redirect within the server’s origin is followed, with the session', async (_, given) => {
    const server = await hostile({
      call: (message, res) => {
        const last = server.seen[server.seen.length - 1];
        if (last.path === '/mcp') res.writeHead(308, { location: '/mcp/moved' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(resultOf(message.id, `moved, session ${String(last.headers['mcp-session-id'])}`));
      },
    });
    const client = await connectHttp(server.url, { fetch: given });
    expect(unwrap(await client.callTool('moved')).content).toEqual([{ type: 'text', text: 'moved, session hostile-session' }]);
  });
  const refusals = [
    ['a 303 of a POST', 303, () => '/mcp/other', 'a 303 would turn the POST into a GET (only 307 and 308 keep it)'],
    ['a sixth redirect in a row', 307, (path: string) => `${path}/next`, 'the redirect after 5 in a row'],
    ['a URL with credentials', 307, (_path: string, port: string) => `http://user:pass@127.0.0.1:${port}/mcp/other`, 'other credentials in the URL'],
  ] as const;
  it.each(fetches.flatMap(([name, given]) => refusals.map(([what, status, to, why]) => [name, what, given, status, to, why] as const)))(
    '%s: %s is not followed either, and the error says why',
    async (_, _what, given, status, to, why) => {
      const server = await hostile({
        call: (_message, res) => {
          const last = server.seen[server.seen.length - 1];
          res.writeHead(status, { location: to(last.path, new URL(server.url).port) }).end();
        },
      });
      const client = await connectHttp(server.url, { fetch: given });
      const error = await failureOf(client.callTool('moved'));
      expect(error.message).toMatch(new RegExp(`^HTTP ${status} from http://127\\.0\\.0\\.1:\\d+/mcp\\S* redirects to http://127\\.0\\.0\\.1:\\d+/mcp/\\S+: not followed, `));
      expect(error.message.endsWith(why)).toBe(true);
      expect(error.data).toMatchObject({ status });
    },
  );
});

/**
 * Writes `a` without end, as the socket drains, until the client hangs up; resolves with the
 * bytes written then.
 */
function writeForever(res: ServerResponse): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let written = 0;
  return new Promise((resolve) => {
    res.once('close', () => resolve(written));
    const write = (): void => {
      while (!res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
    };
    write();
  });
}

/**
 * An MCP server behind OAuth whose every answer is right but `endless`'s, which writes without
 * end: the 401's body, the protected resource metadata, the authorization server's metadata, or
 * its token answer. Resolves `cut` with the bytes that answer wrote before the client hung up.
 */
async function endlessAuthorization(endless: 'challenge' | 'resource metadata' | 'server metadata' | 'token'): Promise<{ url: string; cut: Promise<number> }> {
  let cut!: (bytes: number) => void;
  const written = new Promise<number>((resolve) => (cut = resolve));
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = (what: typeof endless, status: number, headers: Record<string, string>, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      if (what === endless) void writeForever(res).then(cut);
      else res.end(JSON.stringify(body));
    };
    req.resume();
    if (req.url === '/mcp') answer('challenge', 401, { 'www-authenticate': `Bearer resource_metadata="${base}/prm"` }, { error: 'sign in' });
    else if (req.url === '/prm') answer('resource metadata', 200, {}, { resource: `${base}/mcp`, authorization_servers: [base] });
    else if (req.url === '/.well-known/oauth-authorization-server')
      answer('server metadata', 200, {}, { issuer: base, token_endpoint: `${base}/token`, grant_types_supported: ['client_credentials'] });
    else if (req.url === '/token') answer('token', 200, {}, { access_token: 'not-taken', token_type: 'Bearer' });
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, cut: written };
}

describe('an authorization server that answers without end', () => {
  it.each(['resource metadata', 'server metadata', 'token'] as const)(
    'the %s is read to MAX_OAUTH_ANSWER_BYTES (1 MiB), then the sign-in fails naming the limit',
    async (endless) => {
      const { url, cut } = await endlessAuthorization(endless);
      const auth = new OAuthClient({ grant: 'client_credentials', clientId: 'robot', clientSecret: 'robot-secret' });
      const client = new McpClient(new StreamableHttpClientTransport({ url, auth }), { protocolVersion: REVISION });
      clients.push(client);
      const error = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OAuthError);
      expect((error as Error).message).toMatch(
        / answered with more than 1048576 bytes, the most this client reads from an authorization server \(MAX_OAUTH_ANSWER_BYTES\): not read further$/,
      );
      // What the server wrote is what the client took plus what the sockets and pipes held: far less than without end.
      expect(await cut).toBeLessThan(16 * MiB);
    },
  );

  it.each(fetches)('%s: the body of a 401 is read no further than 64 KiB before the client signs in', async (_, given) => {
    const { url, cut } = await endlessAuthorization('challenge');
    const auth = new OAuthClient({ grant: 'client_credentials', clientId: 'robot', clientSecret: 'robot-secret' });
    const client = new McpClient(new StreamableHttpClientTransport({ url, auth, fetch: given }), { protocolVersion: REVISION });
    clients.push(client);
    // It signs in (the token is taken), and the server's second 401 stands: the connect fails, it does not hang.
    await expect(client.connect()).rejects.toThrow();
    expect(await cut).toBeLessThan(16 * MiB);
  });
});

describe('errors that say what was wrong (item 5)', () => {
  it('an SSE event past maxMessageBytes fails its call with -32013 naming the limit', async () => {
    const server = await hostile({
      call: (message, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${resultOf(message.id, 'a'.repeat(2 * MiB))}\n\n`);
      },
    });
    const client = await connectHttp(server.url, { maxMessageBytes: MiB });
    const error = await failureOf(client.callTool('large'));
    expect({ code: error.code, data: error.data }).toEqual({ code: -32013, data: { maxMessageBytes: MiB } });
    expect(error.message).toContain(`limit of ${MiB} bytes (maxMessageBytes)`);
  });

  it('a comment line past maxMessageBytes that does not end fails its call with -32013 as it comes', async () => {
    const server = await hostile({
      call: (_message, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // No line end, no end of the stream: only the limit can fail the call.
        res.write(`: ${'x'.repeat(2 * MiB)}`);
      },
    });
    const client = await connectHttp(server.url, { maxMessageBytes: MiB });
    expect(await failureOf(client.callTool('endless'))).toMatchObject({ code: -32013, data: { maxMessageBytes: MiB } });
  });

  it('a JSON answer that does not parse is said to be invalid JSON', async () => {
    const server = await hostile({ call: (message, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(resultOf(message.id, 'cut').slice(0, 40)) });
    const client = await connectHttp(server.url);
    const error = await failureOf(client.callTool('cut'));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(new RegExp(`^HTTP 200 from ${server.url}: the body is not valid JSON \\(.+\\): \\{"jsonrpc"`));
  });
});

/**
 * A 2024-11-05 HTTP+SSE server on 127.0.0.1: its stream starts with the endpoint event, each POST
 * gets 202 and its answer comes on the stream; `onCall` answers a `tools/call` (by default the
 * text "called"). Resolves with the URL of its stream.
 */
async function legacySse(onCall?: (message: Message, res: ServerResponse, stream: ServerResponse) => void): Promise<string> {
  let stream: ServerResponse | undefined;
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      stream = res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.write('event: endpoint\ndata: /messages\n\n');
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
      if (message.method === 'tools/call' && onCall) return onCall(message, res, stream!);
      res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'sse', version: '1.0.0' } },
            })
          : message.method === 'tools/call'
            ? resultOf(message.id, 'called')
            : undefined;
      if (result !== undefined) stream!.write(`event: message\ndata: ${result}\n\n`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
}

describe('HTTP+SSE (2024-11-05)', () => {
  it('makes 20 calls at once without a MaxListenersExceededWarning (item 6)', async () => {
    const calls = 20;
    const posted: Array<{ message: Message; res: ServerResponse }> = [];
    const url = await legacySse((message, res, stream) => {
      // Every call's POST is held until all of them are under way.
      posted.push({ message, res });
      if (posted.length < calls) return;
      for (const post of posted) {
        post.res.writeHead(202).end();
        stream.write(`event: message\ndata: ${resultOf(post.message.id, 'called')}\n\n`);
      }
    });
    const run = await runClient(
      `const client = new McpClient(new SseClientTransport({ url }), { protocolVersion: '2024-11-05' });
      await client.connect();
      const results = await Promise.all(Array.from({ length: ${calls} }, () => client.callTool('many')));
      console.log(JSON.stringify(results.map((r) => r.content[0].text)));
      await client.close();`,
      url,
    );
    expect({ code: run.code, results: JSON.parse(run.stdout) as unknown }).toEqual({ code: 0, results: Array.from({ length: calls }, () => 'called') });
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
  });

  it('an event past maxMessageBytes fails every pending call with -32013 naming the limit; the stream reads on', async () => {
    let calls = 0;
    const url = await legacySse((message, res, stream) => {
      res.writeHead(202).end();
      const text = ++calls === 1 ? 'a'.repeat(2 * MiB) : 'after the large one';
      stream.write(`event: message\ndata: ${resultOf(message.id, text)}\n\n`);
    });
    const client = new McpClient(new SseClientTransport({ url, maxMessageBytes: MiB }), { protocolVersion: '2024-11-05' });
    clients.push(client);
    await client.connect();
    const error = await failureOf(client.callTool('large'));
    expect({ code: error.code, data: error.data }).toEqual({ code: -32013, data: { maxMessageBytes: MiB } });
    expect(error.message).toContain(`limit of ${MiB} bytes (maxMessageBytes); it was dropped, and every request pending failed`);
    expect(unwrap(await client.callTool('next')).content).toEqual([{ type: 'text', text: 'after the large one' }]);
  });
});

describe('limits given badly', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses %p as maxMessageBytes on every transport and as maxInboundRequests, naming the option', (bad) => {
    const url = 'http://127.0.0.1:1/mcp';
    const message = `must be a positive integer (default 16777216), not ${String(bad)}`;
    expect(() => new StdioClientTransport({ command: process.execPath, maxMessageBytes: bad })).toThrow(new RangeError(`maxMessageBytes ${message}`));
    expect(() => new StreamableHttpClientTransport({ url, maxMessageBytes: bad })).toThrow(new RangeError(`maxMessageBytes ${message}`));
    expect(() => new SseClientTransport({ url, maxMessageBytes: bad })).toThrow(new RangeError(`maxMessageBytes ${message}`));
    expect(() => new McpClient(InMemoryTransport.createLinkedPair()[0], { maxInboundRequests: bad })).toThrow(
      new RangeError(`maxInboundRequests must be a positive integer (default 64), not ${String(bad)}`),
    );
  });
});
