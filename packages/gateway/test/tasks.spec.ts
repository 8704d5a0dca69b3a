/**
 * The tasks extension (2026-07-28) through `hermes-mcp proxy`: a tool the upstream runs as a task
 * answers the client with a task of the gateway's, which follows the upstream's — its question asked
 * through `tasks/get` / `tasks/update` under the upstream's key, its result the upstream's — and a
 * tool that asks through MRTR before its task starts does so first. Driven by @hermes-mcp/client
 * with `tasks: true` (the official SDK v2 client does not follow tasks), and by hand for the wire.
 */
import { McpClient, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { EVERYTHING, RunningProxy, startProxy, textOf } from './support';

let proxy: RunningProxy;

beforeAll(async () => {
  proxy = await startProxy(['--http', '0', '--', ...EVERYTHING]);
});

afterAll(async () => {
  await proxy?.stop();
});

it('follows an upstream task with a task of its own: handle, input through tasks/update, result', async () => {
  const asked: string[] = [];
  const client = new McpClient(new StreamableHttpClientTransport({ url: proxy.urls[0] }), {
    tasks: true,
    onElicitation: (request) => (asked.push(request.message), { action: 'accept', content: { name: 'Ada', color: 'red', subscribe: false } }),
  });
  await client.connect();
  try {
    expect(client.era).toBe('modern');
    const handle = await client.startTask('long_job', { steps: 2, delayMs: 5, label: 'j' });
    expect(handle).toMatchObject({ resultType: 'task', taskId: expect.any(String), status: expect.any(String) });
    const result = await client.waitForTask(String(handle.taskId));
    expect(textOf(result)).toBe('j: kept for Ada');
    expect(asked).toEqual(['Keep the result?']);
    // MRTR first (the upstream's key), then the task.
    expect(textOf(await client.callTool('composed'))).toBe('built for Ada');
    expect(asked).toEqual(['Keep the result?', 'Who is this for?']);
  } finally {
    await client.close();
  }
});

it('refuses a tool that runs only as a task to a client without the extension, as the upstream does (-32021)', async () => {
  const client = new McpClient(new StreamableHttpClientTransport({ url: proxy.urls[0] }));
  await client.connect();
  try {
    await expect(client.callTool('composed')).rejects.toMatchObject({ code: -32021 });
  } finally {
    await client.close();
  }
});
