import {
  ConnectionClosedError,
  ErrorCode,
  InMemoryTransport,
  InboundRequestExtra,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  McpError,
  ParsedFrame,
  Peer,
  PeerHandlers,
  PeerOptions,
  ProgressUpdate,
  RequestId,
  parseFrame,
} from '@hermes-mcp/protocol';
import { FrameRecorder, LinkedTransport, flush, linkedTransports, sleep } from './support/linked-transports';

/** A promise with its resolve exposed. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves when the signal aborts (immediately if it already did). */
function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

/** The rejection of `promise` (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    return error as McpError;
  }
  throw new Error('expected the promise to reject');
}

/** Handlers that record what reaches them; `onRequest` is the one given. */
function recording(onRequest: PeerHandlers['onRequest'], extra: Partial<PeerHandlers> = {}) {
  const notes: JsonRpcNotification[] = [];
  const errors: Array<{ error: unknown; context: { method?: string; id?: RequestId | null; origin: 'peer' | 'local' } }> = [];
  const requests: JsonRpcRequest[] = [];
  const handlers: PeerHandlers = {
    onRequest: (request, signal) => {
      requests.push(request);
      return onRequest(request, signal);
    },
    onNotification: (note) => void notes.push(note),
    onError: (error, context) => void errors.push({ error, context }),
    ...extra,
  };
  return { handlers, notes, errors, requests };
}

/** A client Peer and a server Peer over a linked pair. */
async function connect(server: PeerHandlers, options: { client?: PeerHandlers; clientOptions?: PeerOptions; serverOptions?: PeerOptions } = {}) {
  const [clientSide, serverSide] = linkedTransports();
  const clientPeer = new Peer(clientSide, options.client ?? { onRequest: () => ({}) }, options.clientOptions);
  const serverPeer = new Peer(serverSide, server, options.serverOptions);
  await Promise.all([clientPeer.start(), serverPeer.start()]);
  return { client: clientPeer, server: serverPeer, clientSide, serverSide };
}

/** A server Peer, and a raw client end that sends text by hand and records what comes back. */
async function rawClient(server: PeerHandlers) {
  const [clientSide, serverSide] = linkedTransports();
  const recorder = new FrameRecorder(clientSide);
  const peer = new Peer(serverSide, server);
  await peer.start();
  const send = (message: unknown) => clientSide.sendRaw(JSON.stringify(message));
  return { peer, recorder, clientSide, serverSide, send };
}

/** The messages of a single frame (or the messages of a batch frame). */
function messagesOf(frame: ParsedFrame) {
  if (frame.kind === 'single') return [frame.message];
  if (frame.kind === 'batch') return frame.messages;
  throw new Error(`unexpected invalid frame: ${frame.error.message}`);
}

/** The responses (result or error) a transport sent, flattened out of batches. */
function responsesSent(transport: LinkedTransport) {
  return transport.sent.flat().filter((m: JsonRpcMessage) => 'result' in m || 'error' in m);
}

describe('Peer: request/response correlation', () => {
  it('matches many concurrent requests to their responses, delivered out of order', async () => {
    const gates = new Map<number, () => void>();
    const all = deferred();
    const { handlers } = recording(async (req) => {
      const n = req.params?.n as number;
      const gate = deferred();
      gates.set(n, () => gate.resolve());
      if (gates.size === 25) all.resolve();
      await gate.promise;
      return { n, square: n * n };
    });
    const { client, serverSide } = await connect(handlers);

    const calls = Array.from({ length: 25 }, (_, n) => client.request('square', { n }));
    expect(client.pendingCount).toBe(25);
    await all.promise;
    // Answer in reverse, then in an interleaved order.
    for (const n of [24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0]) gates.get(n)!();
    await flush();
    for (const n of [1, 23, 3, 21, 5, 19, 7, 17, 9, 15, 11, 13]) gates.get(n)!();

    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 25 }, (_, n) => ({ n, square: n * n })));
    // The responses really went out of order on the wire.
    const order = responsesSent(serverSide).map((m) => ('result' in m ? (m.result.n as number) : -1));
    expect(order.slice(0, 3)).toEqual([24, 22, 20]);
    expect(order).toHaveLength(25);
    expect(client.pendingCount).toBe(0);
  });

  it('uses distinct ids for outgoing requests', async () => {
    const { handlers, requests } = recording(() => ({}));
    const { client } = await connect(handlers);
    await Promise.all([client.request('a', undefined), client.request('b', {}), client.request('c', { x: 1 })]);
    const ids = requests.map((r) => r.id);
    expect(new Set(ids).size).toBe(3);
    expect(requests.map((r) => r.method)).toEqual(['a', 'b', 'c']);
    expect(requests[0].params).toBeUndefined();
    expect(requests[2].params).toEqual({ x: 1 });
  });

  it('passes the relatedRequestId routing hint to the transport', async () => {
    const { client, clientSide } = await connect({ onRequest: () => ({}) });
    await client.request('m', {}, { relatedRequestId: 'in-1' });
    await client.notify('n', {}, 'in-2');
    expect(clientSide.sentOptions).toEqual([{ relatedRequestId: 'in-1' }, { relatedRequestId: 'in-2' }]);
  });
});

describe('Peer: errors from handlers', () => {
  it('answers with the McpError a handler throws, code, message and data', async () => {
    const { handlers, errors } = recording(() => {
      throw McpError.invalidParams('"n" must be an integer', { field: 'n' });
    });
    const { client } = await connect(handlers);
    const error = await rejection(client.request('square', { n: 1.5 }));
    expect(error).toBeInstanceOf(McpError);
    expect(error.toJSON()).toEqual({ code: -32602, message: 'Invalid params: "n" must be an integer', data: { field: 'n' } });
    expect(errors).toEqual([]);
  });

  it('answers with the McpError an async handler rejects with', async () => {
    const { client } = await connect({
      onRequest: async () => {
        await sleep(1);
        throw McpError.methodNotFound('tools/fly');
      },
    });
    const error = await rejection(client.request('tools/fly', {}));
    expect([error.code, error.message]).toEqual([-32601, 'Method not found: tools/fly']);
  });

  it('answers a plain Error with -32603 "Internal error", without its message, and reports it', async () => {
    const secret = new Error('password=hunter2 at /srv/db.ts:12');
    const { handlers, errors } = recording(async () => {
      throw secret;
    });
    const { client, serverSide } = await connect(handlers);
    const error = await rejection(client.request('tools/call', { name: 'x' }));
    expect(error.toJSON()).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' });
    expect(JSON.stringify(serverSide.sent)).not.toContain('hunter2');
    expect(JSON.stringify(serverSide.sent)).not.toContain('srv/db.ts');
    expect(errors).toEqual([{ error: secret, context: { method: 'tools/call', id: 0, origin: 'local' } }]);
  });

  it('answers a synchronous throw of a non-Error value with -32603 too', async () => {
    const { handlers, errors } = recording(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a handler that throws a non-Error, on purpose
      throw 'a string';
    });
    const { client } = await connect(handlers);
    const error = await rejection(client.request('m', {}));
    expect(error.code).toBe(-32603);
    expect(errors.map((e) => e.error)).toEqual(['a string']);
  });
});

describe('Peer: frames that are not valid requests', () => {
  it('answers bytes that are not JSON with -32700 and id null', async () => {
    const { recorder, clientSide } = await rawClient({ onRequest: () => ({}) });
    await clientSide.sendRaw('{"jsonrpc":"2.0","id":1,"method":');
    const [frame] = await recorder.waitFor(1);
    const [message] = messagesOf(frame);
    expect(message.kind).toBe('error');
    if (message.kind !== 'error') throw new Error('unreachable');
    expect(message.message.id).toBeNull();
    expect(message.message.error.code).toBe(-32700);
    expect(message.message.error.message).toMatch(/^Parse error: /);
  });

  it('answers an invalid request with -32600 and echoes its id when readable', async () => {
    const { handlers, requests } = recording(() => ({}));
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: 'abc', method: 42 });
    await send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: ['positional'] });
    await send({ jsonrpc: '2.0', id: 1.5, method: 'ping' });
    await send('just a string');
    await send([]);
    const frames = await recorder.waitFor(5);
    const answers = frames.map((f) => {
      const [m] = messagesOf(f);
      if (m.kind !== 'error') throw new Error(`expected an error response, got ${m.kind}`);
      return [m.message.id, m.message.error.code];
    });
    expect(answers).toEqual([
      ['abc', -32600],
      [5, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(requests).toEqual([]);
  });

  it('lets the handler answer an unknown method with -32601', async () => {
    const { recorder, send } = await rawClient({
      onRequest: (req) => {
        throw McpError.methodNotFound(req.method);
      },
    });
    await send({ jsonrpc: '2.0', id: 3, method: 'no/such' });
    const [frame] = await recorder.waitFor(1);
    expect(messagesOf(frame)).toEqual([{ kind: 'error', message: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: no/such' } } }]);
  });

  it('reports an error response with id null instead of answering it', async () => {
    const { handlers, errors } = recording(() => ({}));
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: x' } });
    await flush();
    expect(recorder.frames).toEqual([]);
    expect(errors).toHaveLength(1);
    expect((errors[0].error as McpError).toJSON()).toEqual({ code: -32700, message: 'Parse error: x' });
    expect(errors[0].context).toEqual({ id: null, origin: 'peer' });
  });

  it('ignores a response to a request it never sent', async () => {
    const { handlers, errors } = recording(() => ({}));
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: 99, result: {} });
    await flush();
    expect(recorder.frames).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('Peer: outgoing request timeout and cancellation', () => {
  it('rejects with -32001 on timeout and cancels the request on the other side', async () => {
    const handlerDone = deferred<unknown>();
    const { handlers, notes } = recording(async (_req, { signal }) => {
      const reason = await aborted(signal);
      handlerDone.resolve(reason);
      return { late: true };
    });
    const { client, server, clientSide, serverSide } = await connect(handlers);

    const started = Date.now();
    const error = await rejection(client.request('slow', {}, { timeout: 50 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32001);
    expect(error.message).toBe('Request timed out after 50 ms');
    expect(error.data).toEqual({ timeout: 50 });
    expect(client.pendingCount).toBe(0);

    const reason = (await handlerDone.promise) as McpError;
    expect(reason).toBeInstanceOf(McpError);
    expect(reason.message).toBe('Request timed out after 50 ms');
    await flush();
    expect(clientSide.sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'slow', params: {} },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'Request timed out after 50 ms' } },
    ]);
    expect(responsesSent(serverSide)).toEqual([]);
    expect(server.inflightCount).toBe(0);
    // The peer consumes cancellations itself; the handler's onNotification never sees them.
    expect(notes.map((n) => n.method)).toEqual([]);
  });

  it('uses the peer-wide requestTimeout when the request gives none', async () => {
    const { client } = await connect({ onRequest: (_r, { signal }) => aborted(signal).then(() => ({})) }, { clientOptions: { requestTimeout: 30 } });
    const error = await rejection(client.request('slow', {}));
    expect([error.code, error.message]).toEqual([-32001, 'Request timed out after 30 ms']);
  });

  it('times out each request at its own deadline, whatever order they were sent in (one timer for all)', async () => {
    const { client } = await connect({ onRequest: (_r, { signal }) => aborted(signal).then(() => ({})) });
    const started = performance.now();
    const when = (timeout: number) => rejection(client.request('slow', {}, { timeout })).then((error) => ({ timeout, error: error.message, after: performance.now() - started }));
    // A long one first, then shorter ones that must move the timer earlier, then one with none at all.
    const endless = rejection(client.request('slow', {}, { timeout: Infinity }));
    const results = await Promise.all([when(240), when(40), when(120), when(80)]);
    for (const { timeout, error, after } of results) {
      expect(error).toBe(`Request timed out after ${timeout} ms`);
      expect(after).toBeGreaterThanOrEqual(timeout - 2);
      expect(after).toBeLessThan(timeout + 1000);
    }
    // Settled in deadline order, not in the order they were sent.
    const order: number[] = [];
    await Promise.all([40, 20, 60].map((t) => rejection(client.request('slow', {}, { timeout: t })).then(() => order.push(t))));
    expect(order).toEqual([20, 40, 60]);
    expect(client.pendingRequests().map((p) => p.method)).toEqual(['slow']); // the one without a timeout
    expect(client.cancel(client.pendingRequests()[0].id)).toBe(true);
    expect((await endless).message).toBe('Request cancelled');
  });

  it('a caller AbortSignal rejects with -32001 and cancels the request on the other side', async () => {
    const started = deferred();
    const handlerDone = deferred<unknown>();
    const { client, clientSide, serverSide } = await connect({
      onRequest: async (_req, { signal }) => {
        started.resolve();
        handlerDone.resolve(await aborted(signal));
        return {};
      },
    });
    const controller = new AbortController();
    const call = client.request('slow', { a: 1 }, { signal: controller.signal });
    await started.promise;
    controller.abort(new Error('user pressed stop'));
    const error = await rejection(call);
    expect(error).toBeInstanceOf(McpError);
    expect([error.code, error.message]).toEqual([-32001, 'user pressed stop']);
    expect(((await handlerDone.promise) as McpError).message).toBe('user pressed stop');
    await flush();
    expect(clientSide.sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'user pressed stop' },
    });
    expect(responsesSent(serverSide)).toEqual([]);
    expect(client.pendingCount).toBe(0);
  });

  it('passes an McpError abort reason through unchanged', async () => {
    const { client } = await connect({ onRequest: (_r, { signal }) => aborted(signal).then(() => ({})) });
    const controller = new AbortController();
    const call = client.request('slow', {}, { signal: controller.signal });
    const reason = new McpError(-32099, 'shutting down');
    controller.abort(reason);
    expect(await rejection(call)).toBe(reason);
  });

  it('rejects at once, sending nothing, when the signal is already aborted', async () => {
    const { client, clientSide } = await connect({ onRequest: () => ({}) });
    const error = await rejection(client.request('m', {}, { signal: AbortSignal.abort() }));
    expect(error.code).toBe(-32001);
    expect(clientSide.sent).toEqual([]);
    expect(client.pendingCount).toBe(0);
  });

  it('a response that arrives before the timeout wins, and nothing is cancelled', async () => {
    const { client, clientSide } = await connect({ onRequest: async () => (await sleep(10), { ok: 1 }) });
    await expect(client.request('m', {}, { timeout: 200 })).resolves.toEqual({ ok: 1 });
    await sleep(250);
    expect(clientSide.sent.map((m) => (m as JsonRpcMessage & { method?: string }).method)).toEqual(['m']);
  });
});

describe('Peer: inbound notifications/cancelled', () => {
  it('aborts the handler signal and suppresses its response', async () => {
    const reasons: unknown[] = [];
    const { recorder, send, peer } = await rawClient({
      onRequest: async (req, { signal }) => {
        if (req.method === 'slow') {
          reasons.push(await aborted(signal));
          return { shouldNotBeSent: true };
        }
        return { fast: true };
      },
    });
    await send({ jsonrpc: '2.0', id: 1, method: 'slow' });
    await flush();
    expect(peer.inflightCount).toBe(1);
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'no longer needed' } });
    await flush();
    expect(peer.inflightCount).toBe(0);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(McpError);
    expect((reasons[0] as McpError).message).toBe('no longer needed');

    // The channel still works, and the only response ever sent is the later one.
    await send({ jsonrpc: '2.0', id: 2, method: 'fast' });
    const frames = await recorder.waitFor(1);
    await flush();
    expect(recorder.frames).toHaveLength(1);
    expect(messagesOf(frames[0])).toEqual([{ kind: 'result', message: { jsonrpc: '2.0', id: 2, result: { fast: true } } }]);
  });

  it('suppresses the response of a handler that throws after being cancelled', async () => {
    const { handlers, errors } = recording(async (_req, { signal }) => {
      await aborted(signal);
      throw new Error('aborted work');
    });
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: 'x', method: 'slow' });
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } });
    await sleep(5);
    expect(recorder.frames).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('ignores a cancellation for an unknown id', async () => {
    const { recorder, send } = await rawClient({ onRequest: () => ({ ok: true }) });
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 77 } });
    await send({ jsonrpc: '2.0', id: 77, method: 'm' });
    const [frame] = await recorder.waitFor(1);
    expect(messagesOf(frame)[0]).toEqual({ kind: 'result', message: { jsonrpc: '2.0', id: 77, result: { ok: true } } });
  });
});

describe('Peer: progress', () => {
  /** A server that sends `count` progress notifications, `every` ms apart, then answers. */
  function progressServer(count: number, every: number) {
    return recording(async (req) => {
      const token = (req.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      for (let i = 1; i <= count; i++) {
        await sleep(every);
        if (token !== undefined) await server!.notify('notifications/progress', { progressToken: token, progress: i, total: count, message: `step ${i}` }, req.id);
      }
      return { done: true };
    });
  }
  let server: Peer | undefined;
  afterEach(() => (server = undefined));

  it('adds _meta.progressToken, keeping params and other _meta keys', async () => {
    const { handlers, requests } = progressServer(0, 0);
    const connection = await connect(handlers);
    server = connection.server;
    await connection.client.request('work', { a: 1, _meta: { 'example.com/trace': 't1' } }, { onprogress: () => undefined });
    await connection.client.request('work', undefined, { onprogress: () => undefined });
    await connection.client.request('work', { a: 2 });
    expect(requests.map((r) => r.params)).toEqual([
      { a: 1, _meta: { 'example.com/trace': 't1', progressToken: requests[0].id } },
      { _meta: { progressToken: requests[1].id } },
      { a: 2 },
    ]);
  });

  it('delivers progress in order and restarts the timeout on each update', async () => {
    const { handlers, notes } = progressServer(5, 100);
    const connection = await connect(handlers);
    server = connection.server;
    const updates: ProgressUpdate[] = [];
    const started = Date.now();
    const result = await connection.client.request('work', {}, { timeout: 250, onprogress: (p) => updates.push(p) });
    const elapsed = Date.now() - started;
    expect(result).toEqual({ done: true });
    expect(elapsed).toBeGreaterThanOrEqual(450); // far beyond the 250 ms timeout: progress kept it alive
    expect(updates).toEqual([1, 2, 3, 4, 5].map((i) => ({ progress: i, total: 5, message: `step ${i}` })));
    // Progress for our own request is consumed, not passed to onNotification.
    expect(notes).toEqual([]);
    // The server routed its progress with the request it belongs to.
    expect(connection.serverSide.sentOptions.slice(0, 5)).toEqual(Array(5).fill({ relatedRequestId: 0 }));
  });

  it('times out despite progress when resetTimeoutOnProgress is false', async () => {
    // Ten updates a tenth of a second apart, a third of a second allowed: some arrive, the call
    // times out long before the last (how many arrive first depends on how busy the machine is).
    const { handlers } = progressServer(10, 100);
    const connection = await connect(handlers);
    server = connection.server;
    const updates: ProgressUpdate[] = [];
    const error = await rejection(connection.client.request('work', {}, { timeout: 350, resetTimeoutOnProgress: false, onprogress: (p) => updates.push(p) }));
    expect(error.code).toBe(-32001);
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThan(10);
    expect(updates.map((u) => u.progress)).toEqual(updates.map((_, i) => i + 1));
  });

  it('passes progress with an unknown token to onNotification', async () => {
    const { handlers: clientHandlers, notes } = recording(() => ({}));
    const { client, server: other } = await connect({ onRequest: () => ({}) }, { client: clientHandlers });
    await other.notify('notifications/progress', { progressToken: 'nobody', progress: 1 });
    await client.request('sync', {});
    expect(notes).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'nobody', progress: 1 } }]);
  });
});

describe('Peer: batches', () => {
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'double', params: { n: 2 } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'double', params: { n: 5 } },
    { jsonrpc: '2.0', id: 3, method: 'double', params: ['positional'] },
  ];
  const double = (req: JsonRpcRequest) => ({ n: (req.params?.n as number) * 2 });

  it('answers a batch with one -32600 error, id null, when batches are not accepted', async () => {
    const { handlers, requests, notes } = recording(double);
    const { recorder, send } = await rawClient(handlers);
    await send(batch);
    const [frame] = await recorder.waitFor(1);
    await flush();
    expect(recorder.frames).toHaveLength(1);
    expect(frame.kind).toBe('single');
    const [message] = messagesOf(frame);
    expect(message.kind).toBe('error');
    if (message.kind !== 'error') throw new Error('unreachable');
    expect(message.message.id).toBeNull();
    expect(message.message.error.code).toBe(-32600);
    expect(message.message.error.message).toMatch(/batches are not supported/);
    expect(requests).toEqual([]);
    expect(notes).toEqual([]);
  });

  it('answers an accepted batch with one array holding only the requests’ responses', async () => {
    const { handlers, notes } = recording(double, { acceptBatch: () => true });
    const { recorder, send } = await rawClient(handlers);
    await send(batch);
    const [frame] = await recorder.waitFor(1);
    await flush();
    expect(recorder.frames).toHaveLength(1);
    expect(frame.kind).toBe('batch');
    const responses = messagesOf(frame).map((m) => (m.kind === 'invalid' ? m : m.message));
    expect(responses).toHaveLength(3);
    expect(responses).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: { n: 4 } },
        { jsonrpc: '2.0', id: 2, result: { n: 10 } },
        { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32600 }) },
      ]),
    );
    expect(notes.map((n) => n.method)).toEqual(['notifications/initialized']);
  });

  it('sends nothing back for an accepted batch of notifications only', async () => {
    const { handlers, notes } = recording(double, { acceptBatch: () => true });
    const { recorder, send } = await rawClient(handlers);
    await send([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    await sleep(5);
    expect(recorder.frames).toEqual([]);
    expect(notes.map((n) => n.method)).toEqual(['a', 'b']);
  });

  it('leaves cancelled requests out of a batch response', async () => {
    const { recorder, send } = await rawClient({
      acceptBatch: () => true,
      onRequest: async (req, { signal }) => {
        if (req.method === 'slow') await aborted(signal);
        return { method: req.method };
      },
    });
    await send([
      { jsonrpc: '2.0', id: 'a', method: 'slow' },
      { jsonrpc: '2.0', id: 'b', method: 'fast' },
    ]);
    await flush();
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } });
    const [frame] = await recorder.waitFor(1);
    expect(frame.kind).toBe('batch');
    expect(messagesOf(frame)).toEqual([{ kind: 'result', message: { jsonrpc: '2.0', id: 'b', result: { method: 'fast' } } }]);
  });
});

describe('Peer: duplicate ids', () => {
  it('answers a second request with an id still in flight with -32600, and still answers the first', async () => {
    const gate = deferred();
    const { handlers, requests } = recording(async () => {
      await gate.promise;
      return { first: true };
    });
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: 7, method: 'slow' });
    await send({ jsonrpc: '2.0', id: 7, method: 'slow' });
    const [duplicate] = await recorder.waitFor(1);
    expect(messagesOf(duplicate)).toEqual([
      {
        kind: 'error',
        message: { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid request: a request with id 7 is already in progress' } },
      },
    ]);
    expect(requests).toHaveLength(1);
    gate.resolve();
    const frames = await recorder.waitFor(2);
    expect(messagesOf(frames[1])).toEqual([{ kind: 'result', message: { jsonrpc: '2.0', id: 7, result: { first: true } } }]);
  });

  it('accepts an id again once its request is done', async () => {
    const { handlers, requests } = recording(() => ({}));
    const { recorder, send } = await rawClient(handlers);
    await send({ jsonrpc: '2.0', id: 7, method: 'a' });
    await recorder.waitFor(1);
    await send({ jsonrpc: '2.0', id: 7, method: 'b' });
    const frames = await recorder.waitFor(2);
    expect(frames.map((f) => messagesOf(f)[0].kind)).toEqual(['result', 'result']);
    expect(requests.map((r) => r.method)).toEqual(['a', 'b']);
  });

  it('keeps a string id and a number id with the same digits apart', async () => {
    const gate = deferred();
    const { recorder, send } = await rawClient({ onRequest: async (req) => (await gate.promise, { id: req.id }) });
    await send({ jsonrpc: '2.0', id: 1, method: 'm' });
    await send({ jsonrpc: '2.0', id: '1', method: 'm' });
    await flush();
    gate.resolve();
    const frames = await recorder.waitFor(2);
    expect(frames.map((f) => messagesOf(f)[0].kind)).toEqual(['result', 'result']);
  });
});

describe('Peer: close', () => {
  it('rejects pending requests with a ConnectionClosedError (no wire code) and aborts in-flight handlers, on both ends', async () => {
    const serverHandlerReason = deferred<unknown>();
    const clientHandlerReason = deferred<unknown>();
    const serverStarted = deferred();
    const clientStarted = deferred();
    const { client, server, serverSide } = await connect(
      {
        onRequest: async (_r, { signal }) => {
          serverStarted.resolve();
          serverHandlerReason.resolve(await aborted(signal));
          return {};
        },
      },
      {
        client: {
          onRequest: async (_r, { signal }) => {
            clientStarted.resolve();
            clientHandlerReason.resolve(await aborted(signal));
            return {};
          },
        },
      },
    );
    const fromClient = client.request('slow', {});
    const fromServer = server.request('sampling/createMessage', {});
    await Promise.all([serverStarted.promise, clientStarted.promise]);
    expect([client.pendingCount, client.inflightCount, server.pendingCount, server.inflightCount]).toEqual([1, 1, 1, 1]);

    await client.close();
    const clientError = await rejection(fromClient);
    expect(clientError).toBeInstanceOf(ConnectionClosedError);
    expect(clientError).not.toBeInstanceOf(McpError);
    expect(clientError.code).toBe('CONNECTION_CLOSED');
    expect(clientError.message).toMatch(/^Connection closed/);
    expect(await clientHandlerReason.promise).toBeInstanceOf(ConnectionClosedError);

    // The other end learns of the close through its transport.
    expect(await rejection(fromServer)).toBeInstanceOf(ConnectionClosedError);
    expect(await serverHandlerReason.promise).toBeInstanceOf(ConnectionClosedError);
    await flush();
    expect([client.pendingCount, client.inflightCount, server.pendingCount, server.inflightCount]).toEqual([0, 0, 0, 0]);
    expect(responsesSent(serverSide)).toEqual([]);
  });

  it('rejects requests made after close with a ConnectionClosedError, sending nothing', async () => {
    const { client, clientSide } = await connect({ onRequest: () => ({}) });
    await client.close();
    const error = await rejection(client.request('m', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect([error.code, error.message]).toEqual(['CONNECTION_CLOSED', 'Connection closed']);
    expect(clientSide.sent).toEqual([]);
  });

  it('makes notify a no-op after close', async () => {
    const { handlers, notes } = recording(() => ({}));
    const { client, clientSide } = await connect(handlers);
    await client.close();
    await expect(client.notify('notifications/message', { level: 'info' })).resolves.toBeUndefined();
    await flush();
    expect(clientSide.sent).toEqual([]);
    expect(notes).toEqual([]);
  });

  it('closes only once', async () => {
    const { client } = await connect({ onRequest: () => ({}) });
    await client.close();
    await expect(client.close()).resolves.toBeUndefined();
  });
});

describe('Peer: notifications', () => {
  it('delivers notifications to onNotification in order, and reports a throwing handler', async () => {
    const seen: string[] = [];
    const failure = new Error('handler broke');
    const { handlers: serverHandlers, errors } = recording(() => ({}), {
      onNotification: (note: JsonRpcNotification) => {
        seen.push(note.method);
        if (note.method === 'bad') throw failure;
      },
    });
    const { client } = await connect(serverHandlers);
    await client.notify('one', { a: 1 });
    await client.notify('bad');
    await client.notify('two');
    await client.request('sync', {});
    expect(seen).toEqual(['one', 'bad', 'two']);
    expect(errors).toEqual([{ error: failure, context: { method: 'bad', origin: 'local' } }]);
  });

  it('reports a rejecting async notification handler', async () => {
    const failure = new Error('async handler broke');
    const { handlers, errors } = recording(() => ({}), {
      onNotification: async () => {
        throw failure;
      },
    });
    const { client } = await connect(handlers);
    await client.notify('n');
    await client.request('sync', {});
    await flush();
    expect(errors).toEqual([{ error: failure, context: { method: 'n', origin: 'local' } }]);
  });
});

describe('Peer: aborting from the receiving side', () => {
  it('aborts the handler signal but still sends the response it settles with', async () => {
    const [clientSide, serverSide] = linkedTransports();
    let seen: InboundRequestExtra | undefined;
    new Peer(serverSide, {
      async onRequest(_req, extra) {
        seen = extra;
        extra.abort(new Error('timed out'));
        expect(extra.signal.aborted).toBe(true);
        throw new McpError(ErrorCode.RequestTimeout, 'handler timed out');
      },
    });
    const client = new Peer(clientSide, { onRequest: () => ({}) });
    const error = await client.request('slow', {}).catch((e: McpError) => e);
    expect(seen?.signal.reason).toEqual(new Error('timed out'));
    expect((error as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect((error as McpError).message).toBe('handler timed out');
  });
});

/** One regression test per bug found in src/peer.ts while writing this spec. */
describe('Peer: regressions', () => {
  it('a throwing onprogress callback is reported, not thrown into the transport, and the request still completes', async () => {
    const failure = new Error('progress UI broke');
    const { handlers: clientHandlers, errors } = recording(() => ({}));
    const gate = deferred();
    const { client } = await connect({ onRequest: async () => (await gate.promise, { ok: true }) }, { client: clientHandlers });
    const call = client.request(
      'work',
      {},
      {
        onprogress: () => {
          throw failure;
        },
      },
    );
    await flush();
    // Feed the progress frame in directly, as a transport's read loop would, and see that it returns normally.
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } });
    expect(() => client.receive(parseFrame(progress))).not.toThrow();
    gate.resolve();
    await expect(call).resolves.toEqual({ ok: true });
    expect(errors).toEqual([{ error: failure, context: { method: 'notifications/progress', origin: 'local' } }]);
  });

  it('a handler that returns no object answers -32603 at once (it used to send a response without "result")', async () => {
    const { handlers, errors } = recording(() => undefined as unknown as Record<string, unknown>);
    const { client, serverSide } = await connect(handlers);
    const error = await rejection(client.request('tools/call', {}, { timeout: 300 }));
    expect(error.toJSON()).toEqual({ code: -32603, message: 'Internal error' });
    expect(serverSide.sent).toEqual([{ jsonrpc: '2.0', id: 0, error: { code: -32603, message: 'Internal error' } }]);
    expect(errors).toHaveLength(1);
    expect(errors[0].context).toEqual({ method: 'tools/call', id: 0, origin: 'local' });
  });

  it('answers a synchronous handler within the frame it came in, and an async one once it settles', async () => {
    const later = deferred<Record<string, unknown>>();
    const { peer, serverSide } = await rawClient({ onRequest: (req) => (req.method === 'sync' ? { now: true } : later.promise) });
    serverSide.onframe!(parseFrame('{"jsonrpc":"2.0","id":1,"method":"sync"}'));
    expect(serverSide.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: { now: true } }]); // no turn of the loop in between
    serverSide.onframe!(parseFrame('{"jsonrpc":"2.0","id":2,"method":"async"}'));
    await flush();
    expect(serverSide.sent).toHaveLength(1);
    later.resolve({ later: true });
    await flush();
    expect(serverSide.sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { now: true } },
      { jsonrpc: '2.0', id: 2, result: { later: true } },
    ]);
    await peer.close();
  });

  it('a malformed response rejects the request it answers, and is not answered (it used to echo an error with that id)', async () => {
    const { handlers, errors } = recording(() => ({}));
    const { peer, recorder, send } = await rawClient(handlers);
    const call = peer.request('sampling/createMessage', {}, { timeout: 300 });
    const [outgoing] = await recorder.waitFor(1);
    const [req] = messagesOf(outgoing);
    if (req.kind !== 'request') throw new Error('expected the request');
    await send({ jsonrpc: '2.0', id: req.message.id, result: 'not an object' });
    const error = await rejection(call);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/"result" member must be an object/);
    // Responses to responses are forbidden: they would be read as the answer to the other side's own request with that id.
    await send({ jsonrpc: '2.0', id: 12, error: 'not an error object' });
    await send({ jsonrpc: '2.0', result: {} });
    await sleep(5);
    expect(recorder.frames).toHaveLength(1);
    expect(errors.map((e) => [(e.error as McpError).code, e.context.id])).toEqual([
      [-32600, 12],
      [-32600, null],
    ]);
  });

  it('close() still rejects pending requests when the transport fails to close', async () => {
    class FailingClose extends LinkedTransport {
      override close(): Promise<void> {
        return Promise.reject(new Error('EPIPE'));
      }
    }
    const [a, b] = [new FailingClose(), new LinkedTransport()];
    a.other = b;
    b.other = a;
    new Peer(b, { onRequest: () => new Promise<Record<string, unknown>>(() => undefined) });
    const peer = new Peer(a, { onRequest: () => ({}) });
    const call = peer.request('slow', {}, { timeout: 300 });
    await expect(peer.close()).rejects.toThrow('EPIPE');
    expect(await rejection(call)).toBeInstanceOf(ConnectionClosedError);
    await expect(peer.notify('n')).resolves.toBeUndefined();
    expect(a.sent.map((m) => (m as { method?: string }).method)).toEqual(['slow']);
  });

  it('timeout: Infinity means no timeout (setTimeout used to fire it at once)', async () => {
    // Node fires a timer whose delay is over 2^31 - 1 ms at once (with a TimeoutOverflowWarning, which
    // jest's sandbox does not relay): no delay that long may reach setTimeout.
    const timers = jest.spyOn(globalThis, 'setTimeout');
    try {
      const { client } = await connect({ onRequest: async () => (await sleep(30), { ok: true }) });
      await expect(client.request('m', {}, { timeout: Infinity })).resolves.toEqual({ ok: true });
      const { client: other } = await connect({ onRequest: async () => (await sleep(30), { ok: true }) }, { clientOptions: { requestTimeout: 2 ** 40 } });
      await expect(other.request('m', {})).resolves.toEqual({ ok: true });
      await flush();
      expect(timers).toHaveBeenCalled();
      expect(timers.mock.calls.map(([, delay]) => delay).filter((delay) => !(typeof delay === 'number' && delay <= 2 ** 31 - 1) && delay !== undefined)).toEqual([]);
    } finally {
      timers.mockRestore();
    }
  });
});

describe('Peer: input end (drain)', () => {
  it('answers requests still running when the input ends, then closes', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = new Peer(serverSide, {
      async onRequest() {
        await gate;
        return { done: true };
      },
    });
    const client = new Peer(clientSide, { onRequest: () => ({}) });
    let closed = false;
    const onclose = serverSide.onclose!;
    serverSide.onclose = () => {
      closed = true;
      onclose();
    };
    const answer = client.request('work', {});
    await new Promise((resolve) => setTimeout(resolve, 5));
    serverSide.oninputend!();
    expect(closed).toBe(false);
    release();
    expect(await answer).toEqual({ done: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toBe(true);
    expect(server.inflightCount).toBe(0);
  });

  it('closes at once when nothing is running', async () => {
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    new Peer(serverSide, { onRequest: () => ({}) });
    let closed = false;
    const onclose = serverSide.onclose!;
    serverSide.onclose = () => {
      closed = true;
      onclose();
    };
    serverSide.oninputend!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
  });
});

describe('Peer: draining, failing and cancelling inbound requests', () => {
  it('drain: refuses new requests with -32010, answers the running ones, then closes and resolves', async () => {
    const release = deferred();
    const { client, server } = await connect(recording(async (request) => (request.method === 'slow' ? (await release.promise, { done: true }) : {})).handlers);
    const slow = client.request('slow', {});
    await flush();
    const drained = server.drain(10_000);
    expect(server.isDraining).toBe(true);
    expect(await rejection(client.request('ping', {}))).toMatchObject({ code: ErrorCode.ServerShuttingDown, message: 'Server shutting down: no new requests are taken' });
    release.resolve();
    expect(await slow).toEqual({ done: true });
    await drained;
    expect(server.inflightCount).toBe(0);
  });

  it('drain: past its timeout, what still runs is aborted and answered with -32010; a shorter second drain brings the end forward', async () => {
    let signal!: AbortSignal;
    const { client, server } = await connect(
      recording((_request, extra) => {
        signal = extra.signal;
        return new Promise(() => undefined);
      }).handlers,
    );
    const stuck = client.request('stuck', {});
    await flush();
    void server.drain(60_000);
    const drained = server.drain(20);
    const error = await rejection(stuck);
    expect(error).toMatchObject({ code: -32010, message: 'Server shutting down: the request was still running when the grace period ended' });
    expect(signal.aborted).toBe(true);
    await drained;
  });

  it("failInbound: aborts the handler and answers at once with the error; the handler's late result is dropped", async () => {
    const release = deferred();
    let signal!: AbortSignal;
    const { client, server } = await connect(
      recording(async (_request, extra) => {
        signal = extra.signal;
        await release.promise;
        return { late: true };
      }).handlers,
    );
    const call = client.request('work', {});
    await flush();
    expect(server.failInbound(0, new McpError(ErrorCode.ClientTooSlow, 'too slow'))).toBe(true);
    expect(await rejection(call)).toMatchObject({ code: -32011, message: 'too slow' });
    expect(signal.aborted).toBe(true);
    release.resolve();
    await flush();
    expect(server.failInbound(0, new McpError(ErrorCode.ClientTooSlow, 'again'))).toBe(false);
  });

  it('a transport that can no longer carry a request (onabort) gets it failed through the peer', async () => {
    const { client, server, serverSide } = await connect(recording(() => new Promise(() => undefined)).handlers);
    const call = client.request('work', {});
    await flush();
    serverSide.onabort!(0, new McpError(ErrorCode.ClientTooSlow, 'the client left too much unread'));
    expect(await rejection(call)).toMatchObject({ code: -32011 });
    expect(server.inflightCount).toBe(0);
  });

  it('tells the transport when a request was cancelled by the other side (requestCancelled)', async () => {
    const { client, serverSide } = await connect(recording(() => new Promise(() => undefined)).handlers);
    const cancelled: RequestId[] = [];
    serverSide.requestCancelled = (id) => void cancelled.push(id);
    const controller = new AbortController();
    const call = client.request('work', {}, { signal: controller.signal });
    await flush();
    controller.abort('changed my mind');
    await rejection(call);
    await flush();
    expect(cancelled).toEqual([0]);
  });
});
