/**
 * The refusals and plain answers of the Streamable HTTP endpoint that need nothing but a served
 * server (any server: no tool is called), driven with raw `fetch` and `node:http`: 202, 400, 403,
 * 404, 406, 409, 415, session ids, the 2024-11-05 HTTP+SSE transport. Both HTTP adapters run them
 * (packages/core/test/http/http-edges.spec.ts), and so do Bun and Deno serving the Web handler
 * (test-support/runtimes/test/http-edges.spec.ts): the runtimes answer as Node does.
 */
import { request as httpRequest } from 'node:http';
import { SseReader } from './sse-reader';

/** Both kinds of Accept a Streamable HTTP POST must list. */
export const ACCEPT_BOTH = 'application/json, text/event-stream';

type Raw = Record<string, unknown>;

/** A served MCP endpoint: its URL (`…/mcp`) and port on 127.0.0.1. */
export interface Endpoint {
  url: string;
  port: number;
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function initializeRequest(protocolVersion = '2025-11-25', id: number | string = 1): Raw {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-fetch', version: '1.0.0' } } };
}

/** Initializes a session (and sends `notifications/initialized`); returns its id. */
export async function initialize(url: string, protocolVersion = '2025-11-25'): Promise<string> {
  const response = await post(url, initializeRequest(protocolVersion));
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  expect(((await response.json()) as Raw).result).toMatchObject({ protocolVersion });
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId! });
  expect(initialized.status).toBe(202);
  return sessionId!;
}

/** Expects a JSON-RPC error body (no id) with `status`, whose message matches `message`; returns the error. */
export async function expectError(response: Response, status: number, message: RegExp, code = -32600): Promise<{ code: number; message: string }> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { jsonrpc: string; id?: unknown; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id ?? null).toBeNull();
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(message);
  return body.error;
}

/** A raw HTTP request through node:http (fetch does not let a test set Host). */
export function rawRequest(port: number, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; contentType?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: '/mcp', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The refusals every server answers alike, whatever it serves: `endpoint()` is the server under
 * test (read once its `beforeAll` has run).
 */
export function describeRefusals(endpoint: () => Endpoint): void {
  let server: Endpoint;

  beforeAll(() => {
    server = endpoint();
  });

  describe('202 Accepted', () => {
    it('answers a notification and a response with 202 and no body; a request gets its JSON answer', async () => {
      const sessionId = await initialize(server.url);
      const notification = await post(server.url, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { 'mcp-session-id': sessionId });
      expect(notification.status).toBe(202);
      expect(await notification.text()).toBe('');
      // A response to a server→client request nobody is waiting for: still accepted.
      const response = await post(server.url, { jsonrpc: '2.0', id: 'server-1', result: {} }, { 'mcp-session-id': sessionId });
      expect(response.status).toBe(202);
      expect(await response.text()).toBe('');
      const ping = await post(server.url, { jsonrpc: '2.0', id: 7, method: 'ping' }, { 'mcp-session-id': sessionId });
      expect(ping.status).toBe(200);
      expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    });
  });

  describe('400 Bad Request', () => {
    it('refuses a request other than initialize without an Mcp-Session-Id header', async () => {
      await expectError(await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 400, /Mcp-Session-Id header is required.*initialize/);
      // GET and DELETE too.
      await expectError(await fetch(server.url, { headers: { accept: 'text/event-stream' } }), 400, /Mcp-Session-Id header is required/);
      await expectError(await fetch(server.url, { method: 'DELETE' }), 400, /Mcp-Session-Id header is required/);
    });

    it('refuses an unsupported MCP-Protocol-Version header, listing the supported ones', async () => {
      const sessionId = await initialize(server.url, '2025-06-18');
      const refused = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' });
      await expectError(refused, 400, /unsupported MCP-Protocol-Version "1999-01-01" \(supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25\)/);
      const accepted = await post(server.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
      expect(accepted.status).toBe(200);
    });

    it('answers a body that is not JSON with 400 and a -32700 parse error', async () => {
      await expectError(await post(server.url, '{"jsonrpc": "2.0", "id": 1, "method":'), 400, /^Parse error/, -32700);
    });

    it('refuses an empty batch and an empty body', async () => {
      const sessionId = await initialize(server.url, '2025-03-26');
      await expectError(await post(server.url, [], { 'mcp-session-id': sessionId }), 400, /empty batch/);
      await expectError(await post(server.url, '', { 'mcp-session-id': sessionId }), 400, /body is empty/);
    });

    it('refuses a batch on a revision without batches at once, instead of leaving the POST unanswered', async () => {
      const sessionId = await initialize(server.url, '2025-06-18');
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ];
      await expectError(await post(server.url, batch, { 'mcp-session-id': sessionId }), 400, /batches are not supported.*2025-03-26/);
      // On 2025-03-26 the same batch is answered with a batch.
      const old = await initialize(server.url, '2025-03-26');
      const answered = await post(server.url, batch, { 'mcp-session-id': old });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as Raw[]).map((m) => m.id)).toEqual([1, 2]);
      // A member that is not JSON-RPC (so has no id) is answered in the batch, with id null.
      const mixed = await post(
        server.url,
        [
          { jsonrpc: '2.0', method: 5 },
          { jsonrpc: '2.0', id: 3, method: 'ping' },
        ],
        { 'mcp-session-id': old },
      );
      expect(mixed.status).toBe(200);
      expect(await mixed.json()).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: the "method" member must be a string' } },
        { jsonrpc: '2.0', id: 3, result: {} },
      ]);
    });

    it('refuses a message that is not JSON-RPC and carries no id, instead of accepting it', async () => {
      const sessionId = await initialize(server.url);
      await expectError(await post(server.url, { jsonrpc: '2.0', hello: 'world' }, { 'mcp-session-id': sessionId }), 400, /needs a "method".*"result".*"error"/);
      await expectError(await post(server.url, { jsonrpc: '1.0', method: 'ping' }, { 'mcp-session-id': sessionId }), 400, /"jsonrpc" member must be exactly "2.0"/);
    });

    it('refuses initialize inside a batch', async () => {
      await expectError(await post(server.url, [initializeRequest()]), 400, /"initialize" must not be part of a batch/);
    });
  });

  describe('403 Forbidden (DNS rebinding protection)', () => {
    it('refuses a foreign Host with a JSON-RPC error naming it', async () => {
      const response = await rawRequest(
        server.port,
        'POST',
        { host: 'evil.example:80', 'content-type': 'application/json', accept: ACCEPT_BOTH },
        JSON.stringify(initializeRequest()),
      );
      expect(response.status).toBe(403);
      expect(response.contentType).toMatch(/^application\/json/);
      expect(JSON.parse(response.body)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Forbidden: the Host "evil.example:80" is not allowed (allowedHosts)' } });
      // Loopback names on any port pass.
      const local = await rawRequest(
        server.port,
        'POST',
        { host: `localhost:${server.port}`, 'content-type': 'application/json', accept: ACCEPT_BOTH },
        JSON.stringify(initializeRequest()),
      );
      expect(local.status).toBe(200);
    });

    it('refuses a foreign Origin on every method, with a JSON-RPC error naming it', async () => {
      const origin = { origin: 'https://evil.example' };
      await expectError(await post(server.url, initializeRequest(), origin), 403, /^Forbidden: the Origin "https:\/\/evil.example" is not allowed \(allowedOrigins\)$/);
      await expectError(await fetch(server.url, { headers: { ...origin, accept: 'text/event-stream' } }), 403, /Origin "https:\/\/evil.example"/);
      await expectError(await fetch(server.url, { method: 'DELETE', headers: origin }), 403, /Origin "https:\/\/evil.example"/);
      // A loopback origin passes.
      expect((await post(server.url, initializeRequest(), { origin: 'http://localhost:5173' })).status).toBe(200);
    });
  });

  describe('404 Not Found', () => {
    it('answers an unknown session id with 404 and a hint to initialize again', async () => {
      await expectError(await post(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'no-such-session' }), 404, /Session not found.*send "initialize"/);
    });

    it('ends the session on DELETE: later requests on it get 404', async () => {
      const sessionId = await initialize(server.url);
      const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(deleted.status).toBe(200);
      await expectError(await post(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId }), 404, /Session not found/);
      await expectError(await fetch(server.url, { headers: { 'mcp-session-id': sessionId, accept: 'text/event-stream' } }), 404, /Session not found/);
      await expectError(await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }), 404, /Session not found/);
    });
  });

  describe('406 Not Acceptable', () => {
    it('refuses a POST whose Accept lacks text/event-stream', async () => {
      await expectError(await post(server.url, initializeRequest(), { accept: 'application/json' }), 406, /Accept header must list both application\/json and text\/event-stream/);
    });

    it('refuses a GET whose Accept lacks text/event-stream', async () => {
      const sessionId = await initialize(server.url);
      await expectError(await fetch(server.url, { headers: { 'mcp-session-id': sessionId, accept: 'application/json' } }), 406, /Accept header must list text\/event-stream/);
    });
  });

  describe('409 Conflict', () => {
    it('refuses a second GET stream while the first is open, and allows one again once it closed', async () => {
      const sessionId = await initialize(server.url);
      const headers = { 'mcp-session-id': sessionId, accept: 'text/event-stream' };
      const first = new AbortController();
      const stream = await fetch(server.url, { headers, signal: first.signal });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      await expectError(await fetch(server.url, { headers }), 409, /already has a GET stream open/);
      first.abort();
      // The server learns of the close asynchronously: retry (bounded) until the new GET is taken.
      let again = await fetch(server.url, { headers });
      const deadline = Date.now() + 5_000;
      while (again.status === 409 && Date.now() < deadline) {
        await again.text();
        await new Promise((resolve) => setTimeout(resolve, 10));
        again = await fetch(server.url, { headers });
      }
      expect(again.status).toBe(200);
      await again.body?.cancel();
    });
  });

  describe('415 Unsupported Media Type', () => {
    it('answers a body that is not application/json with 415', async () => {
      await expectError(
        await post(server.url, JSON.stringify(initializeRequest()), { 'content-type': 'text/plain' }),
        415,
        /Unsupported Media Type: the body must be application\/json/,
      );
      await expectError(await post(server.url, '<initialize/>', { 'content-type': 'application/xml' }), 415, /Unsupported Media Type/);
    });
  });

  describe('sessions', () => {
    it('have ids of visible ASCII, long and distinct', async () => {
      const ids = await Promise.all(Array.from({ length: 8 }, () => initialize(server.url)));
      for (const id of ids) {
        expect(id).toMatch(/^[\x21-\x7e]+$/);
        expect(id.length).toBeGreaterThanOrEqual(32);
      }
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('the HTTP+SSE transport of 2024-11-05', () => {
    it('names the endpoint, answers on the stream, and refuses unknown sessions, other media types and a missing Accept', async () => {
      await expectError(await fetch(`${server.url}/sse`, { headers: { accept: 'application/json' } }), 406, /Accept header must list text\/event-stream/);
      const controller = new AbortController();
      const response = await fetch(`${server.url}/sse`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      expect(response.status).toBe(200);
      const reader = new SseReader(response.body!);
      const endpoint = await reader.expect('the endpoint event');
      expect(endpoint.event).toBe('endpoint');
      expect(endpoint.data).toMatch(/^\/mcp\/messages\?sessionId=[\x21-\x7e]{32,}$/);
      const messages = `http://127.0.0.1:${server.port}${endpoint.data}`;
      const accepted = await post(messages, initializeRequest('2024-11-05'));
      expect(accepted.status).toBe(202);
      const answer = await reader.message('the initialize result');
      expect(answer.event.event).toBe('message');
      expect(answer.message).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
      await expectError(await post(messages, '{}', { 'content-type': 'text/plain' }), 415, /must be application\/json/);
      await expectError(await post(`${server.url}/messages?sessionId=nope`, initializeRequest('2024-11-05')), 404, /Session not found: open a stream with GET/);
      // The session lives as long as its stream.
      controller.abort();
      await reader.cancel();
      let after = await post(messages, { jsonrpc: '2.0', id: 2, method: 'ping' });
      const deadline = Date.now() + 5_000;
      while (after.status === 202 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        after = await post(messages, { jsonrpc: '2.0', id: 2, method: 'ping' });
      }
      await expectError(after, 404, /Session not found/);
    });
  });
}
