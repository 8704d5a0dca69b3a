/**
 * `hermes-mcp dev --http <port>`: the same as on stdio, behind one Streamable HTTP endpoint on
 * 127.0.0.1 (`/mcp`). The host's sessions are dev's own: each is a {@link DevSession} — a server
 * process on stdio that is replaced on a change, the host's `initialize`, log level and resource
 * subscriptions replayed to the new one — so a session id stays valid across restarts, and a
 * session keeps what it set, without the server knowing anything of it (no shared session
 * store, no id mapping; one code path with stdio). The price: what answers HTTP is this small
 * front, not the app's own HTTP endpoint (its auth and header checks do not run here).
 *
 * A request's answer comes back on its POST (JSON); the server's other messages (notifications,
 * its requests, list_changed after a restart) go on the session's GET stream, and wait for one.
 * A POST without a session that is not `initialize` (a 2026-07-28 request) goes to one shared
 * session, which is initialized by no one.
 */
import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { Entry } from './entry';
import { DevSession, Message } from './dev';
import { ErrorCode } from '@hermes-mcp/protocol';

/** Most of the server's messages kept for a session until it opens a GET stream (the oldest go first). */
const MAX_BACKLOG = 1_000;

/** The largest POST body the front reads (a bigger one is answered 413). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One host session: its server process, the POSTs waiting for an answer, its GET stream. */
interface HttpSession {
  readonly dev: DevSession;
  /** POSTs waiting for the answer to their request, by the request's id (as JSON). */
  readonly waiting: Map<string, ServerResponse>;
  stream?: ServerResponse;
  /** The server's messages that came while no GET stream was open. */
  readonly backlog: string[];
}

/** The dev HTTP front on 127.0.0.1:`port`; `reload` restarts every session's process. */
export function serveDevHttp(entry: Entry, port: number, say: (text: string) => void): Promise<{ server: Server; reload(why: string): void; close(): Promise<void> }> {
  const sessions = new Map<string, HttpSession>();

  const open = (id: string): HttpSession => {
    const session: HttpSession = {
      waiting: new Map(),
      backlog: [],
      dev: new DevSession(entry, (line, message) => toHost(session, id, line, message), say),
    };
    sessions.set(id, session);
    return session;
  };

  const toHost = (session: HttpSession, id: string, line: string, message: Message) => {
    const post = message.method === undefined && message.id != null ? session.waiting.get(JSON.stringify(message.id)) : undefined;
    if (post) {
      session.waiting.delete(JSON.stringify(message.id));
      post.writeHead(200, { 'content-type': 'application/json', ...(id !== STATELESS && { 'mcp-session-id': id }) }).end(line);
    } else if (session.stream) session.stream.write(`data: ${line}\n\n`);
    else if (session.backlog.push(line) > MAX_BACKLOG) session.backlog.shift(); // a host that never opens a GET stream
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin))
      return refuse(response, 403, `dev answers pages of this machine only, not Origin ${origin}`);
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return refuse(response, 404, 'the endpoint is /mcp');
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && !known) return refuse(response, 404, `no session ${sessionId} (it ended): initialize again`);
    if (request.method === 'GET') {
      if (!known) return refuse(response, 405, 'a GET stream belongs to a session: send Mcp-Session-Id');
      known.stream?.end();
      known.stream = response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      response.flushHeaders();
      for (const line of known.backlog.splice(0)) response.write(`data: ${line}\n\n`);
      response.on('close', () => known.stream === response && (known.stream = undefined));
      return;
    }
    if (request.method === 'DELETE') {
      if (!known) return refuse(response, 400, 'DELETE needs Mcp-Session-Id');
      sessions.delete(sessionId as string);
      known.stream?.end();
      await known.dev.end();
      return void response.writeHead(200).end();
    }
    if (request.method !== 'POST') return refuse(response, 405, 'POST, GET or DELETE');
    const body = await read(request);
    if (body === undefined) return refuse(response, 413, `a POST body is at most ${MAX_BODY_BYTES} bytes`);
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(body) as typeof message;
    } catch {
      return refuse(response, 400, 'the body is not JSON');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return refuse(response, 400, 'dev takes one JSON-RPC message a POST (no batches)');
    const id = known ? (sessionId as string) : message.method === 'initialize' ? randomUUID() : STATELESS;
    const session = known ?? sessions.get(id) ?? open(id);
    if (message.method !== undefined && message.id != null) {
      session.waiting.set(JSON.stringify(message.id), response);
      response.on('close', () => session.waiting.get(JSON.stringify(message.id)) === response && session.waiting.delete(JSON.stringify(message.id)));
    } else response.writeHead(202).end();
    session.dev.fromHost(body.replace(/\r?\n/g, ' '));
  };

  const server = createServer((request, response) => void handle(request, response).catch((error: unknown) => refuse(response, 500, String(error))));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        reload: (why) => {
          for (const session of sessions.values()) void session.dev.reload(why);
        },
        close: async () => {
          for (const session of sessions.values()) session.stream?.end();
          await Promise.all([...sessions.values()].map((session) => session.dev.end()));
          await new Promise((done) => server.close(done));
        },
      }),
    );
  });
}

/** The session of requests that come without one (2026-07-28, stateless). */
const STATELESS = 'stateless';

function refuse(response: ServerResponse, status: number, message: string): void {
  if (!response.headersSent)
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: `hermes-mcp dev: ${message}` } }));
}

function read(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
