/**
 * A cluster for tests: instances of examples/cluster as separate processes, and a round-robin
 * loopback proxy in front of them with no stickiness at all — each request of a session goes to the
 * instance after the one its previous request went to (skipping dead ones), so no two requests in
 * a row of a session meet the same instance. The proxy logs what went where.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { IncomingMessage, ServerResponse, createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freePort } from './redis-server';

/** One request the proxy forwarded. */
export interface Forwarded {
  method: string;
  url: string;
  /** The session it belongs to (`Mcp-Session-Id`, or the `sessionId` of a 2024-11-05 POST). */
  session?: string;
  /** The JSON-RPC method of its body, `response` for a client's answer, or undefined (GET, DELETE). */
  rpc?: string;
  /** The instance that answered (its index). */
  backend: number;
  status?: number;
  lastEventId?: string;
}

/** The round-robin proxy. */
export interface Proxy {
  readonly url: string;
  readonly log: Forwarded[];
  /**
   * Stops passing on what the instance sends on the session's open GET stream (it stays unread in
   * the proxy, as on a congested network): events the instance sent and stored, that the client
   * never got.
   */
  hold(session: string): void;
  close(): Promise<void>;
}

/** What a request's body says it is: its method, `response`, or `batch`. */
function rpcOf(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const value = JSON.parse(body.toString()) as unknown;
    if (Array.isArray(value)) return 'batch';
    const message = value as { method?: unknown };
    return typeof message.method === 'string' ? message.method : 'response';
  } catch {
    return 'unreadable';
  }
}

/** Starts the proxy in front of instances listening on `ports` (127.0.0.1). */
export async function startProxy(ports: readonly number[]): Promise<Proxy> {
  const log: Forwarded[] = [];
  /** The instance each session went to last. */
  const last = new Map<string, number>();
  let next = 0;
  const open = new Set<ServerResponse>();
  /** The open GET streams' answers, by session. */
  const streams = new Map<string, IncomingMessage>();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, entry: Forwarded, attempt: number): void => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: ports[entry.backend], method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${ports[entry.backend]}` }, agent: false },
      (answer) => {
        entry.status = answer.statusCode;
        const created = answer.headers['mcp-session-id'];
        if (entry.session === undefined && typeof created === 'string') {
          entry.session = created;
          last.set(created, entry.backend);
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        if (req.method === 'GET' && entry.session !== undefined && answer.statusCode === 200) streams.set(entry.session, answer);
        // The instance died mid-stream: so does the client's connection.
        answer.on('aborted', () => res.destroy());
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      // Nobody listens there (a killed instance): the next one takes the request.
      if (error.code === 'ECONNREFUSED' && attempt < ports.length) {
        entry.backend = (entry.backend + 1) % ports.length;
        // The next request of the session goes on from where this one really went.
        if (entry.session !== undefined) last.set(entry.session, entry.backend);
        return forward(req, res, body, entry, attempt + 1);
      }
      res.writeHead(502).end(String(error));
    });
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const header = req.headers['mcp-session-id'];
      const session = typeof header === 'string' ? header : (new URL(url, 'http://x').searchParams.get('sessionId') ?? undefined);
      // Requests without a session (2026-07-28) that name a rotation (`x-rotation`) take turns as a
      // session's do, whatever other clients send meanwhile; others take the next instance overall.
      const rotation = req.headers['x-rotation'];
      const turns = session ?? (typeof rotation === 'string' ? `rotation:${rotation}` : undefined);
      const previous = turns === undefined ? undefined : last.get(turns);
      const backend = previous === undefined ? next++ % ports.length : (previous + 1) % ports.length;
      const entry: Forwarded = { method: req.method ?? 'GET', url, session, rpc: rpcOf(body), backend };
      const lastEventId = req.headers['last-event-id'];
      if (typeof lastEventId === 'string') entry.lastEventId = lastEventId;
      log.push(entry);
      if (turns !== undefined) last.set(turns, entry.backend);
      forward(req, res, body, entry, 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    hold: (session) => {
      const answer = streams.get(session);
      if (!answer) throw new Error(`no GET stream open for session ${session}`);
      answer.unpipe();
      answer.pause();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        // Sockets between requests (the clients' keep-alive ones) would hold close() up to their
        // keep-alive timeout, or longer for one whose next request is still arriving.
        server.closeAllConnections();
      }),
  };
}

/** One instance of examples/cluster, as its own process. */
export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** SIGKILL: the instance dies at once, mid-stream, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for it to end. */
  stop(): Promise<void>;
}

/** Starts one instance on a free port; resolves once it listens. */
export async function startInstance(name: string, redisUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '../../examples/cluster/dist/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      REDIS_URL: redisUrl,
      INSTANCE: name,
      CURSOR_SECRET: 'cluster-test-cursor-secret-0123456789abcdef',
      REQUEST_STATE_SECRET: 'cluster-test-request-state-secret-0123456789',
      LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not start: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening ')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited with ${code}: ${out}`));
    });
  });
  const ended = (signal: NodeJS.Signals) => async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  return { name, port, url: `http://127.0.0.1:${port}`, kill: ended('SIGKILL'), stop: ended('SIGTERM') };
}
