/**
 * The tasks extension (2026-07-28) through a remote mount: examples/everything (built) over stdio
 * mounted at `every` in a Hermes app served over HTTP. A tool the upstream runs as a task answers
 * the client with a task of the app's that follows the upstream's — its question asked through
 * `tasks/get` / `tasks/update`, its result the upstream's — and a tool that asks through MRTR before
 * its task starts does so first. Driven by @hermes-mcp/client with `tasks: true` (the official SDK
 * v2 client does not follow tasks).
 */
import 'reflect-metadata';
import { Server } from 'node:http';
import { McpApp, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { McpClient, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { RemoteMount, mountRemote } from '@hermes-mcp/gateway';
import { EVERYTHING, closeServer, serveApp, textOf } from './support';

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: 'The app’s own tool' })
  hello() {
    return 'hello from the gateway';
  }
}

let gateway: Server;
let app: McpApp;
let mount: RemoteMount;
let url: string;

beforeAll(async () => {
  app = McpFactory.create(GatewayServer, { logger: createLogger({ level: 'silent' }) });
  mount = await mountRemote(app, 'every', { command: EVERYTHING[0], args: EVERYTHING.slice(1) }, { onStderr: () => undefined });
  const served = await serveApp(app);
  gateway = served.server;
  url = served.url.href;
});

afterAll(async () => {
  await closeServer(gateway);
  await app?.close();
  await mount?.close();
});

it('follows an upstream task with a task of the app’s: handle, input through tasks/update, result; MRTR before a task first', async () => {
  const asked: string[] = [];
  const client = new McpClient(new StreamableHttpClientTransport({ url }), {
    tasks: true,
    onElicitation: (request) => (asked.push(request.message), { action: 'accept', content: { name: 'Ada', color: 'red', subscribe: false } }),
  });
  await client.connect();
  try {
    expect(client.era).toBe('modern');
    const handle = await client.startTask('every_long_job', { steps: 2, delayMs: 5, label: 'j' });
    expect(handle).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    expect(textOf(await client.waitForTask(String(handle.taskId)))).toBe('j: kept for Ada');
    expect(asked).toEqual(['Keep the result?']);
    expect(textOf(await client.callTool('every_composed'))).toBe('built for Ada');
    expect(asked).toEqual(['Keep the result?', 'Who is this for?']);
    // Without the extension, the app's own tools and the upstream's plain ones answer as before.
    expect(textOf(await client.callTool('hello'))).toBe('hello from the gateway');
  } finally {
    await client.close();
  }
});
