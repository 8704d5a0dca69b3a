/**
 * The tasks extension from the client side (MCP 2026-07-28): with `tasks: true` a task-capable
 * tool runs as a task and callTool follows it to its result, answering its questions through
 * tasks/update; startTask holds the handle; failures and cancellation come back as McpErrors. And
 * without the extension, the same tool answers at once.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpContext, McpFactory, McpServer, Tool, ToolError, createLogger } from '@hermes-mcp/core';
import { InMemoryTransport, McpClient, McpClientOptions, McpError, unwrap } from '@hermes-mcp/client';

class NameForm {
  @IsString() name!: string;
}

let stopped = 0;

@McpServer({ name: 'task-client-test', version: '1.0.0' })
class TaskServer {
  @Tool({ description: 'Asks a name, as a task when it can', task: 'optional' }) async greet(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `hello ${answer.content.name}` : answer.action;
  }
  @Tool({ description: 'Fails with a protocol error, as a task', task: 'optional' }) async broken() {
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw McpError.invalidParams('the job cannot be done');
  }
  @Tool({ description: 'A tool error, as a task', task: 'optional' }) refuse() {
    throw new ToolError('not today');
  }
  @Tool({ description: 'Waits until cancelled, as a task', task: 'optional' }) async wait(ctx: McpContext) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    stopped++;
    return 'stopped';
  }
}

const clients: McpClient[] = [];
async function connect(options: McpClientOptions): Promise<McpClient> {
  const app = McpFactory.create(TaskServer, { logger: createLogger({ level: 'silent' }), tasks: { pollIntervalMs: 10 } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new McpClient(clientSide, options);
  clients.push(client);
  await client.connect();
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  stopped = 0;
});

const onElicitation: McpClientOptions['onElicitation'] = () => ({ action: 'accept', content: { name: 'Ada' } });

it('follows a task to its result, answering its question through tasks/update', async () => {
  const client = await connect({ tasks: true, onElicitation });
  expect(client.serverCapabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
  expect(unwrap(await client.callTool('greet')).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
});

it('holds the handle with startTask, and reads the task until it completes', async () => {
  const client = await connect({ tasks: true, onElicitation });
  const handle = await client.startTask('greet');
  expect(handle).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String), pollIntervalMs: 10 });
  const result = await client.waitForTask(handle.taskId as string);
  expect(result).toMatchObject({ content: [{ type: 'text', text: 'hello Ada' }] });
  expect(await client.getTask(handle.taskId as string)).toMatchObject({ status: 'completed' });
});

it('gives a failed task’s protocol error as an McpError, and a tool error as a result', async () => {
  const client = await connect({ tasks: true });
  await expect(client.callTool('broken')).rejects.toMatchObject({ code: -32602, message: 'Invalid params: the job cannot be done', data: { taskId: expect.any(String) } });
  expect(await client.callTool('refuse')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'not today' }] });
});

it('cancels the task when the call’s signal aborts: the tool sees its signal abort', async () => {
  const client = await connect({ tasks: true });
  const controller = new AbortController();
  const call = client.callTool('wait', {}, { signal: controller.signal }).catch((e: unknown) => e);
  await new Promise((resolve) => setTimeout(resolve, 30));
  controller.abort();
  expect(await call).toMatchObject({ message: 'Task cancelled by the client' });
  for (let i = 0; i < 100 && stopped === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(stopped).toBe(1);
});

it('runs the same tool at once without the extension (an input round instead of a task)', async () => {
  const client = await connect({ onElicitation });
  expect(unwrap(await client.callTool('greet')).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  await expect(client.startTask('greet')).rejects.toThrow(/tasks: true/);
});
