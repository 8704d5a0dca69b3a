/**
 * A mounted tool run as a task (MCP 2026-07-28 tasks extension), spoken to by a raw client: found
 * by its prefixed name, its background work (`taskStart: 'manual'`, `ctx.runAsTask`) still speaks
 * for its server — the resource update it sends with its own URI reaches the listen stream that
 * named the prefixed one.
 */
import 'reflect-metadata';
import { InMemoryTransport, JsonRpcNotification, Peer } from '@hermes-mcp/protocol';
import { McpContext, McpFactory, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { eventually } from '../../../../test-support/e2e';

const TASKS = 'io.modelcontextprotocol/tasks';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'mount-tasks', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

@McpServer({ name: 'reports', version: '1.0.0' })
class ReportsServer {
  private built = 0;

  @Resource({ uri: 'reports://latest' }) latest() {
    return `report ${this.built}`;
  }

  @Tool({ task: 'required', taskStart: 'manual' })
  build(ctx: McpContext) {
    return ctx.runAsTask(async (task) => {
      this.built++;
      task.notifyResourceUpdated('reports://latest'); // the task's own context
      return `built ${this.built}`;
    });
  }
}

@McpServer({ name: 'office', version: '1.0.0', mount: { reports: ReportsServer } })
class OfficeServer {}

async function open(app: ReturnType<typeof McpFactory.create>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const notes: JsonRpcNotification[] = [];
  const peer = new Peer(clientSide, { onRequest: () => ({}), onNotification: (n: JsonRpcNotification) => void notes.push(n) });
  await app.connect(serverSide);
  await peer.start();
  return { peer, notes };
}

it('runs a mounted tool as a task by its prefixed name; its work notifies the prefixed URI', async () => {
  const app = McpFactory.create(OfficeServer, { logger: createLogger({ level: 'silent' }) });
  const listener = await open(app);
  const listening = listener.peer
    .request('subscriptions/listen', { notifications: { resourceSubscriptions: ['reports://reports/latest'] }, _meta: ENVELOPE })
    .catch(() => undefined);
  await eventually('the listen stream acknowledged', () => listener.notes.some((n) => n.method === 'notifications/subscriptions/acknowledged'));

  const caller = await open(app);
  const handle = await caller.peer.request('tools/call', { name: 'reports_build', arguments: {}, _meta: ENVELOPE });
  expect(handle).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
  let task: Record<string, unknown> = {};
  await eventually('the task completed', async () => {
    task = await caller.peer.request('tasks/get', { taskId: handle.taskId, _meta: ENVELOPE });
    return task.status === 'completed';
  });
  expect(JSON.stringify(task.result)).toContain('built 1');
  await eventually('the update on the listen stream', () => listener.notes.some((n) => n.method === 'notifications/resources/updated'));
  expect(listener.notes.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params?.uri)).toEqual(['reports://reports/latest']);

  const read = (await caller.peer.request('resources/read', { uri: 'reports://reports/latest', _meta: ENVELOPE })) as { contents: unknown[] };
  expect(read.contents).toEqual([{ uri: 'reports://reports/latest', text: 'report 1' }]);
  await app.close();
  await listening;
});
