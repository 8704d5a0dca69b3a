/**
 * The cluster test: three instances of examples/cluster as separate processes, one real
 * redis-server, and a round-robin loopback proxy with no stickiness in front — each request of a
 * session goes to another instance than the one before. Real clients no one here wrote (the
 * official SDK v1 over Streamable HTTP and over HTTP+SSE) and ours, through the proxy: elicitation
 * answered through another instance, progress, a resource update raised on one instance reaching a
 * subscriber's stream on another, a listen stream seeing a list change made elsewhere, a task
 * started, polled and cancelled on three instances, an instance killed mid-stream and its GET
 * stream resumed with Last-Event-ID on another, and Redis restarted under the cluster. A tool added
 * at runtime is seen to exist on its own instance only (docs/scaling.md, "Limits").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { McpClient, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { eventually, textOf } from '../../../test-support/e2e';
import { Forwarded, Instance, Proxy, startInstance, startProxy } from '../../../test-support/redis/cluster';
import { RedisServer, startRedis } from '../../../test-support/redis/redis-server';

jest.setTimeout(60_000);

let redis: RedisServer;
let instances: Instance[];
let proxy: Proxy;
/** The instance the kill test killed. */
let killed = -1;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedis();
  instances = await Promise.all(['one', 'two', 'three'].map((name) => startInstance(name, redis.url, { TASK_LEASE_MS: '1000' })));
  proxy = await startProxy(instances.map((i) => i.port));
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await proxy?.close();
  await Promise.allSettled((instances ?? []).map((i) => i.stop()));
  await redis?.stop();
});

/** An SDK v1 client through the proxy (Streamable HTTP), answering elicitations with `name`. */
async function sdkClient(name = 'Ada', url = `${proxy.url}/mcp`): Promise<Client> {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

/**
 * An SDK v1 client through the proxy subscribed to `uris`, once its GET stream is open: the
 * resource updates it receives, and the instance holding its GET stream.
 */
async function subscriber(...uris: string[]): Promise<{ client: Client; session: string; updates: string[]; holder: number }> {
  const client = await sdkClient();
  const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  for (const uri of uris) await client.subscribeResource({ uri });
  return { client, session, updates, holder: await getStreamHolder(session) };
}

/** What the proxy forwarded for one session, in order. */
function ofSession(session: string | undefined): Forwarded[] {
  expect(session).toBeDefined();
  return proxy.log.filter((f) => f.session === session);
}

/** No two requests in a row of the session met the same instance. */
function expectRotation(entries: Forwarded[]): void {
  expect(entries.length).toBeGreaterThan(3);
  for (let i = 1; i < entries.length; i++) expect(entries[i].backend).not.toBe(entries[i - 1].backend);
}

/** Which instance holds the session's GET stream now (the last GET the proxy forwarded that got 200). */
async function getStreamHolder(session: string): Promise<number> {
  let holder = -1;
  await eventually('the GET stream is open', () => {
    const get = ofSession(session)
      .filter((f) => f.method === 'GET' && f.status === 200)
      .pop();
    holder = get?.backend ?? -1;
    return holder >= 0;
  });
  return holder;
}

describe('a cluster of three instances behind a round-robin proxy', () => {
  it('serves an SDK v1 Streamable HTTP session from every instance in turn: tools, elicitation through another instance, progress', async () => {
    const client = await sdkClient('Ada');
    const transport = client.transport as StreamableHTTPClientTransport;
    const answered = new Set<string>();
    for (let i = 0; i < 6; i++) answered.add(textOf(await client.callTool({ name: 'whoami' })));
    expect([...answered].sort()).toEqual(['one', 'three', 'two']);

    // The tool runs on one instance; the client's answer to its elicitation is POSTed to the next.
    expect(textOf(await client.callTool({ name: 'greet' }))).toMatch(/^hello Ada, from (one|two|three)$/);
    const entries = ofSession(transport.sessionId);
    const call = entries.filter((f) => f.rpc === 'tools/call').pop()!;
    const answer = entries.filter((f) => f.rpc === 'response').pop()!;
    expect(answer.backend).not.toBe(call.backend);
    expect(answer.status).toBe(202);

    const progress: Progress[] = [];
    expect(textOf(await client.callTool({ name: 'steps', arguments: { steps: 4, delayMs: 10 } }, undefined, { onprogress: (p) => progress.push(p) }))).toMatch(/^4 steps on /);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    expectRotation(ofSession(transport.sessionId));

    // DELETE on one instance ends the session on all of them (each held a copy).
    const session = transport.sessionId!;
    await transport.terminateSession();
    for (const instance of instances) {
      const response = await fetch(`${instance.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } }),
      });
      expect(response.status).toBe(404);
    }
  });

  it('brings a resource update raised on one instance to the subscriber whose GET stream another holds', async () => {
    const { session, updates, holder } = await subscriber('status://a');
    // Raised by a client of its own, straight on another instance than the one with the stream.
    const raiser = await sdkClient('x', `${instances[(holder + 1) % 3].url}/mcp`);
    expect(textOf(await raiser.callTool({ name: 'touch', arguments: { uri: 'status://a' } }))).toBe(`touched status://a on ${instances[(holder + 1) % 3].name}`);
    await eventually('the update arrived', () => updates.length === 1);
    // Not subscribed to it: nothing comes.
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://other' } });
    await sleep(200);
    expect(updates).toEqual(['status://a']);
    expectRotation(ofSession(session));
  });

  it('brings a cancellation that reached another instance to the one running the call', async () => {
    const { client, session, updates } = await subscriber('cancelled://c1');
    const stop = new AbortController();
    const progress: Progress[] = [];
    const call = client.callTool({ name: 'steps', arguments: { steps: 100, delayMs: 100, label: 'c1' } }, undefined, {
      signal: stop.signal,
      onprogress: (p) => progress.push(p),
    });
    await eventually('the call is running', () => progress.length > 0);
    stop.abort('changed my mind');
    await expect(call).rejects.toThrow();
    // The tool saw its signal aborted, on its own instance, and said so to every instance.
    await eventually('the call was cancelled where it ran', () => updates.includes('cancelled://c1'));
    const entries = ofSession(session);
    const ran = entries.filter((f) => f.rpc === 'tools/call').pop()!;
    const cancelled = entries.filter((f) => f.rpc === 'notifications/cancelled').pop()!;
    expect(cancelled.backend).not.toBe(ran.backend);
    expect(progress.length).toBeLessThan(100);
  });

  it('serves an SDK v1 HTTP+SSE (2024-11-05) session whose POSTs each reach another instance than the stream', async () => {
    const client = new Client({ name: 'sdk-v1-sse', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Lin' } }));
    const transport = new SSEClientTransport(new URL(`${proxy.url}/mcp/sse`));
    await client.connect(transport);
    clients.push(client);
    const names = new Set<string>();
    for (let i = 0; i < 4; i++) names.add(textOf(await client.callTool({ name: 'whoami' })));
    // The stream's instance runs every request: the POSTs were handed to it.
    expect(names.size).toBe(1);
    expect(textOf(await client.callTool({ name: 'greet' }))).toBe(`hello Lin, from ${[...names][0]}`);
    const stream = proxy.log.find((f) => f.url.startsWith('/mcp/sse'))!;
    const session = proxy.log.find((f) => f.url.startsWith('/mcp/messages'))?.session;
    // The answer to the elicitation is handed over before its POST's own 202 comes back: wait for it.
    await eventually('every POST answered', () => ofSession(session).every((f) => f.status !== undefined));
    const posts = ofSession(session);
    expect(posts.map((f) => f.status)).toEqual(posts.map(() => 202));
    expectRotation(posts);
    expect(posts.filter((f) => f.backend !== stream.backend).length).toBeGreaterThan(2);
  });

  it('serves our client in both eras: a listen stream sees a list change made elsewhere; a task is started, polled and cancelled on three instances', async () => {
    const legacy = new McpClient(new StreamableHttpClientTransport({ url: `${proxy.url}/mcp` }), {
      protocolVersion: '2025-11-25',
      onElicitation: () => ({ action: 'accept', content: { name: 'Kay' } }),
    });
    await legacy.connect();
    clients.push(legacy);
    expect(textOf(await legacy.callTool('greet'))).toMatch(/^hello Kay, from /);

    // Its requests take turns among the instances whatever other clients send meanwhile (a stream
    // of an earlier test reconnecting would otherwise shift the proxy's rotation).
    const modern = new McpClient(new StreamableHttpClientTransport({ url: `${proxy.url}/mcp`, headers: { 'x-rotation': 'modern' } }), {
      protocolVersion: '2026-07-28',
      tasks: true,
    });
    await modern.connect();
    clients.push(modern);
    const stop = new AbortController();
    const seen: string[] = [];
    const listening = (async () => {
      for await (const n of modern.listen({ toolsListChanged: true }, { signal: stop.signal })) seen.push(n.method);
    })().catch(() => undefined);
    await eventually('the listen stream is open', () => proxy.log.some((f) => f.rpc === 'subscriptions/listen' && f.status === 200));
    const listen = proxy.log.filter((f) => f.rpc === 'subscriptions/listen').pop()!;
    expect(textOf(await modern.callTool('add_tool', { name: 'added_elsewhere' }))).toMatch(/^added added_elsewhere on /);
    const added = proxy.log.filter((f) => f.rpc === 'tools/call').pop()!;
    expect(added.backend).not.toBe(listen.backend);
    await eventually('the list change reached the listen stream', () => seen.includes('notifications/tools/list_changed'));
    stop.abort();
    await listening;
    // The tool itself exists on the instance that added it only: a handler is code, it does not cross the bus.
    for (const [i, instance] of instances.entries()) {
      const direct = new McpClient(new StreamableHttpClientTransport({ url: `${instance.url}/mcp` }), { protocolVersion: '2026-07-28' });
      await direct.connect();
      clients.push(direct);
      expect((await direct.listTools()).items.map((t) => t.name).includes('added_elsewhere')).toBe(i === added.backend);
      if (i === added.backend) expect(textOf(await direct.callTool('added_elsewhere'))).toBe('hello from added_elsewhere');
      else await expect(direct.callTool('added_elsewhere')).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool/) });
    }

    const before = proxy.log.length;
    const handle = await modern.startTask('job', { durationMs: 30_000, label: 'long' });
    expect(handle).toMatchObject({ status: 'working' });
    const taskId = handle.taskId as string;
    expect(await modern.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    await modern.cancelTask(taskId);
    expect(await modern.getTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    const [start, poll, cancel] = proxy.log.slice(before).filter((f) => f.rpc === 'tools/call' || f.rpc === 'tasks/get' || f.rpc === 'tasks/cancel');
    expect(new Set([start.backend, poll.backend, cancel.backend]).size).toBe(3);
    // The instance running it stopped the work: it stays cancelled, never completed.
    await sleep(300);
    expect(await modern.getTask(taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('goes on when an instance dies mid-stream: the GET stream resumes with Last-Event-ID elsewhere, nothing lost (not even what was raised while no instance held it) or duplicated; its running task fails once its lease runs out', async () => {
    const { client, session, updates, holder } = await subscriber('status://1', 'status://2', 'status://3', 'status://gap', 'status://4');
    const survivor = instances[(holder + 1) % 3];
    const raiser = await sdkClient('x', `${survivor.url}/mcp`);
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://1' } });
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://2' } });
    await eventually('two updates', () => updates.length === 2);

    // A task running on the instance that is about to die.
    const modern = new McpClient(new StreamableHttpClientTransport({ url: `${instances[holder].url}/mcp` }), { protocolVersion: '2026-07-28', tasks: true });
    await modern.connect();
    const task = await modern.startTask('job', { durationMs: 60_000 });
    await modern.close();

    // Sent by the instance, stored in Redis, never received: the network holds it when the instance dies.
    proxy.hold(session);
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://3' } });
    await sleep(200);
    expect(updates).toEqual(['status://1', 'status://2']);

    const resumesBefore = proxy.log.filter((f) => f.session === session && f.lastEventId !== undefined).length;
    await instances[holder].kill();
    killed = holder;
    // Raised while no instance holds the stream (before the client reconnects, after its `retry`).
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://gap' } });
    await eventually(
      'the client resumed its GET stream on another instance',
      () => ofSession(session).filter((f) => f.lastEventId !== undefined && f.status === 200).length > resumesBefore,
      10_000,
    );
    const resumed = ofSession(session)
      .filter((f) => f.lastEventId !== undefined && f.status === 200)
      .pop()!;
    expect(resumed.backend).not.toBe(holder);
    expect(resumed.lastEventId).toMatch(/^get\.[0-9a-f]+_\d+$/);

    // The resumed stream replayed what the dead instance had stored after the last event the client
    // got, then what was raised while no instance held it.
    await eventually('the held update, replayed, and the one raised meanwhile', () => updates.length >= 4);
    await raiser.callTool({ name: 'touch', arguments: { uri: 'status://4' } });
    await eventually('five updates', () => updates.length >= 5);
    await sleep(200);
    expect(updates).toEqual(['status://1', 'status://2', 'status://3', 'status://gap', 'status://4']);
    // The session itself goes on, on the instances left.
    expect(textOf(await client.callTool({ name: 'whoami' }))).not.toBe(instances[holder].name);

    const poller = new McpClient(new StreamableHttpClientTransport({ url: `${survivor.url}/mcp` }), { protocolVersion: '2026-07-28', tasks: true });
    await poller.connect();
    clients.push(poller);
    await eventually('the dead instance’s task reads as failed', async () => ((await poller.getTask(task.taskId as string)).status as string) === 'failed', 5_000);
    expect(await poller.getTask(task.taskId as string)).toMatchObject({ status: 'failed', error: { code: -32603 } });
  });

  it('survives Redis restarting: requests fail with a clear error meanwhile, then the instances serve again', async () => {
    const alive = instances.filter((_, i) => i !== killed);
    const client = await sdkClient();
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    await redis.stop();
    // What a client sees meanwhile: an error that says what failed, never a hang.
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(
        await client.callTool({ name: 'whoami' }).then(
          (r) => `ok ${textOf(r)}`,
          (error: Error) => `error ${error.message}`,
        ),
      );
    }
    const fresh = await sdkClient().then(
      () => 'ok',
      (error: Error) => `error ${error.message}`,
    );
    // An instance that holds the session serves it from memory; one that would take it up cannot read its record.
    for (const s of seen) expect(s).toMatch(/^ok |^error .*HTTP 503.*Service Unavailable: the session store could not be read/);
    expect(fresh).toMatch(/^error .*the session store failed, so the session could not be kept/);

    await redis.start();
    // Back: a new session is served across the instances left.
    let again: Client | undefined;
    await eventually(
      'a new session works again',
      async () => {
        again = await sdkClient().catch(() => undefined);
        return again !== undefined;
      },
      15_000,
    );
    const names = new Set<string>();
    for (let i = 0; i < 4; i++) names.add(textOf(await again!.callTool({ name: 'whoami' })));
    expect([...names].sort()).toEqual(alive.map((i) => i.name).sort());
    // Redis kept nothing on disk, so the old session's record is gone; the instances that hold the
    // session in memory (each has, by now) go on serving it.
    const old = await client.callTool({ name: 'whoami' }).then(
      (r) => textOf(r),
      (error: Error) => error.message,
    );
    expect(alive.map((i) => i.name)).toContain(old);
    expect(ofSession(session).pop()?.status).toBe(200);
  });
});
