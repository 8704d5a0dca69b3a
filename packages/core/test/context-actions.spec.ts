/**
 * What a handler does to the whole server, through its context alone — no service filled in by
 * `main`: `ctx.notifyResourceUpdated(uri)` reaches every session subscribed to `uri`, the
 * 2026-07-28 listen streams that named it and, with a cluster, the other instances' (the app's own
 * path); `ctx.notifyListChanged(list)` tells the clients told of that list; `McpApp.of(ctx)` is the
 * app serving the request, for what changes the server (`addTool`, `tool(name).disable()`…).
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { InMemoryTransport, JsonRpcNotification, McpError, Peer } from '@hermes-mcp/protocol';
import {
  Cluster,
  ClusterBus,
  ClusterMessage,
  InMemoryEventStore,
  InMemorySessionStore,
  InMemoryTaskStore,
  McpApp,
  McpContext,
  McpFactory,
  McpHandler,
  McpServer,
  Resource,
  Tool,
  createLogger,
} from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });
const CLIENT = { name: 'actions', version: '1.0.0' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT,
};
const GRAPH = 'memory://graph';

class EntityInput {
  @IsString() name!: string;
}

/** A small knowledge graph, as the official "memory" server keeps one. */
@McpServer({ name: 'memory', version: '1.0.0' })
class MemoryServer {
  private readonly entities: string[] = [];

  @Resource({ uri: GRAPH, mimeType: 'application/json' }) graph() {
    return this.entities;
  }

  @Tool({ description: 'Adds an entity to the graph' })
  addEntity(input: EntityInput, ctx: McpContext) {
    this.entities.push(input.name);
    ctx.notifyResourceUpdated(GRAPH);
    return `added ${input.name}`;
  }

  @Tool({ description: 'Adds a tool that recalls an entity' })
  addRecall(input: EntityInput, ctx: McpContext) {
    McpApp.of(ctx).addTool({ name: `recall_${input.name}`, description: `Recalls ${input.name}` }, () => input.name);
    return `added recall_${input.name}`;
  }

  @Tool({ description: 'Switches a tool off' })
  forget(input: EntityInput, ctx: McpContext) {
    McpApp.of(ctx).tool(input.name).disable();
    return `switched ${input.name} off`;
  }
}

type Note = { method: string; params?: Record<string, unknown> };

/** A raw client on a stream of `app` (our Peer), noting the notifications it receives. */
async function open(app: McpApp) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const notes: Note[] = [];
  const peer = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n: JsonRpcNotification) => void notes.push({ method: n.method, params: n.params }) });
  await app.connect(serverSide);
  await peer.start();
  return { peer, notes };
}

/** A legacy session of `app`. */
async function session(app: McpApp) {
  const client = await open(app);
  await client.peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
  await client.peer.notify('notifications/initialized', {});
  return client;
}

/** A 2026-07-28 `subscriptions/listen` stream of `app`, resolved once acknowledged. */
async function listen(app: McpApp, notifications: Record<string, unknown>) {
  const client = await open(app);
  const listening = client.peer.request('subscriptions/listen', { notifications, _meta: ENVELOPE }).catch(() => undefined);
  await until(() => client.notes.some((n) => n.method === 'notifications/subscriptions/acknowledged'));
  return { ...client, listening };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
const methods = (notes: Note[]) => notes.map((n) => n.method).filter((m) => m !== 'notifications/subscriptions/acknowledged');

describe('app.onSubscribe', () => {
  it('is told each URI a session subscribes to and each URI a listen stream names, before the client is answered; a throw fails that subscription', async () => {
    const app = McpFactory.create(MemoryServer, { logger });
    const told: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const stop = app.onSubscribe(async (uri) => {
      told.push(uri);
      if (uri === 'memory://held') await held;
      if (uri === 'memory://refused') throw new McpError(-32602, `no updates of ${uri}`);
    });
    const subscribed = await session(app);
    await subscribed.peer.request('resources/subscribe', { uri: GRAPH });
    expect(told).toEqual([GRAPH]);

    // The answer waits for the listener.
    let answered = false;
    const pending = subscribed.peer.request('resources/subscribe', { uri: 'memory://held' }).then(() => (answered = true));
    await until(() => told.length === 2);
    await tick();
    expect(answered).toBe(false);
    release();
    await pending;

    // Refused: the client gets the listener's error, and no updates of it.
    await expect(subscribed.peer.request('resources/subscribe', { uri: 'memory://refused' })).rejects.toMatchObject({ code: -32602, message: 'no updates of memory://refused' });
    app.notifyResourceUpdated('memory://refused');
    app.notifyResourceUpdated('memory://held');
    await until(() => subscribed.notes.length === 1);
    await tick();
    expect(subscribed.notes).toEqual([{ method: 'notifications/resources/updated', params: { uri: 'memory://held' } }]);

    // A listen stream: each URI it names, once.
    await listen(app, { resourceSubscriptions: [GRAPH, 'memory://other', GRAPH] });
    expect(told.slice(3)).toEqual([GRAPH, 'memory://other']);

    // Stopped: told no more.
    stop();
    await subscribed.peer.request('resources/subscribe', { uri: 'memory://later' });
    expect(told).not.toContain('memory://later');
    await app.close();
  });
});

describe('ctx.notifyResourceUpdated', () => {
  it('reaches the sessions subscribed to the URI and the listen streams that named it, from a tool, in either era', async () => {
    const app = McpFactory.create(MemoryServer, { logger });
    const subscribed = await session(app);
    await subscribed.peer.request('resources/subscribe', { uri: GRAPH });
    const other = await session(app);
    const stream = await listen(app, { resourceSubscriptions: [GRAPH] });

    expect(await other.peer.request('tools/call', { name: 'addEntity', arguments: { name: 'Ada' } })).toMatchObject({ content: [{ text: 'added Ada' }] });
    await until(() => subscribed.notes.length > 0 && methods(stream.notes).length > 0);
    expect(subscribed.notes).toEqual([{ method: 'notifications/resources/updated', params: { uri: GRAPH } }]);
    expect(stream.notes.at(-1)).toEqual({
      method: 'notifications/resources/updated',
      params: { uri: GRAPH, _meta: { 'io.modelcontextprotocol/subscriptionId': expect.anything() } },
    });
    // A 2026-07-28 call reaches the legacy subscriber the same way.
    await stream.peer.request('tools/call', { name: 'addEntity', arguments: { name: 'Grace' }, _meta: ENVELOPE });
    await until(() => subscribed.notes.length === 2);
    await tick();
    expect(other.notes).toEqual([]);
    await app.close();
  });

  it('crosses the cluster: a session on another instance hears it, as it hears app.notifyResourceUpdated', async () => {
    const [first, second] = linkedCluster();
    const here = McpFactory.create(MemoryServer, { logger, cluster: first });
    const there = McpFactory.create(MemoryServer, { logger, cluster: second });
    const far = await session(there);
    await far.peer.request('resources/subscribe', { uri: GRAPH });
    const near = await session(here);
    await near.peer.request('tools/call', { name: 'addEntity', arguments: { name: 'Ada' } });
    await until(() => far.notes.length === 1);
    expect(far.notes).toEqual([{ method: 'notifications/resources/updated', params: { uri: GRAPH } }]);
    here.notifyResourceUpdated(GRAPH);
    await until(() => far.notes.length === 2);
    await Promise.all([here.close(), there.close()]);
  });
});

describe('McpApp.of(ctx)', () => {
  it('is the app serving the request: a tool adds a tool, and every session is told and sees it', async () => {
    const app = McpFactory.create(MemoryServer, { logger });
    const watcher = await session(app);
    const caller = await session(app);
    expect(await caller.peer.request('tools/call', { name: 'addRecall', arguments: { name: 'ada' } })).toMatchObject({ content: [{ text: 'added recall_ada' }] });
    await until(() => watcher.notes.length > 0);
    expect(watcher.notes).toEqual([{ method: 'notifications/tools/list_changed', params: undefined }]);
    expect(await watcher.peer.request('tools/call', { name: 'recall_ada', arguments: {} })).toMatchObject({ content: [{ text: 'ada' }] });
    await caller.peer.request('tools/call', { name: 'forget', arguments: { name: 'recall_ada' } });
    await until(() => watcher.notes.length === 2);
    await expect(watcher.peer.request('tools/call', { name: 'recall_ada', arguments: {} })).rejects.toBeInstanceOf(McpError);
    await app.close();
  });

  it('refuses a context no app made', () => {
    expect(() => McpApp.of({ server: {} } as unknown as McpContext)).toThrow('HERMES_INVALID_OPTIONS');
  });
});

describe('ctx.notifyListChanged', () => {
  /** A hand-written server whose tool list grows when its `grow` tool is called. */
  function growing(capabilities: McpHandler['capabilities']): McpHandler {
    const tools = [{ name: 'grow', inputSchema: { type: 'object' } }];
    return {
      serverInfo: { name: 'growing', version: '1.0.0' },
      capabilities,
      handleRequest(ctx) {
        if (ctx.request.method === 'tools/list') return { tools };
        if (ctx.request.method !== 'tools/call') throw McpError.methodNotFound(ctx.request.method);
        tools.push({ name: `grown_${tools.length}`, inputSchema: { type: 'object' } });
        // Twice in one tick: one notification.
        ctx.notifyListChanged('tools');
        ctx.notifyListChanged('tools');
        return { content: [{ type: 'text', text: `${tools.length} tools` }] };
      },
    };
  }

  it("tells the sessions and listen streams of an McpHandler's own list, once per tick", async () => {
    const app = McpFactory.create(growing({ tools: { listChanged: true } }), { logger });
    const watcher = await session(app);
    const stream = await listen(app, { toolsListChanged: true });
    await watcher.peer.request('tools/call', { name: 'grow', arguments: {} });
    await until(() => watcher.notes.length > 0 && methods(stream.notes).length > 0);
    await tick();
    expect(methods(watcher.notes)).toEqual(['notifications/tools/list_changed']);
    expect(methods(stream.notes)).toEqual(['notifications/tools/list_changed']);
    await app.close();
  });

  it('tells no client of a list the server does not declare with listChanged', async () => {
    const app = McpFactory.create(growing({ tools: {} }), { logger });
    const watcher = await session(app);
    const stream = await listen(app, { toolsListChanged: true });
    await watcher.peer.request('tools/call', { name: 'grow', arguments: {} });
    await tick();
    expect(methods(watcher.notes)).toEqual([]);
    expect(methods(stream.notes)).toEqual([]);
    await app.close();
  });
});

/** Two clusters whose buses carry broadcasts to each other (the stores are each instance's own: sessions stay where they opened). */
function linkedCluster(): [Cluster, Cluster] {
  const receivers: Array<((message: ClusterMessage) => void) | undefined> = [];
  const cluster = (index: number): Cluster => {
    const bus: ClusterBus = {
      instanceId: `i${index}`,
      join: () => undefined,
      leave: () => undefined,
      publish: () => 0,
      broadcast: (message) => receivers[1 - index]?.(message),
      onBroadcast: (receive) => void (receivers[index] = receive),
    };
    return { bus, sessionStore: new InMemorySessionStore(), eventStore: () => new InMemoryEventStore(), taskStore: new InMemoryTaskStore(), close: () => Promise.resolve() };
  };
  return [cluster(0), cluster(1)];
}
