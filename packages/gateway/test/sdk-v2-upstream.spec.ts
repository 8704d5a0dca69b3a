/**
 * The official SDK v2 server (`createMcpHandler`, MCP 2026-07-28 only) over Streamable HTTP,
 * behind `hermes-mcp proxy <url> --http 0`: a 2026-07-28 client gets the upstream's input round as
 * the upstream asked it (its keys, two questions in one round); a 2025-11-25 session is served
 * over 2026-07-28 upstream (`--session-upstream newest`: the SDK's older revisions are served per
 * request, without questions), its questions sent as requests of the session.
 */
import type { Server } from 'node:http';
import { createMcpHandler, inputRequired, McpServer as V2Server } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { serveFetch } from '../../client/test/fixtures/http-servers';
import { RunningProxy, startProxy, textOf } from './support';

const ANSWERS = {
  elicit: { action: 'accept' as const, content: { name: 'Ada' } },
  sample: { role: 'assistant' as const, model: 'm', content: { type: 'text' as const, text: 'hello' } },
};

let upstream: Server;
let proxy: RunningProxy;

beforeAll(async () => {
  const handler = createMcpHandler(() => {
    const server = new V2Server({ name: 'sdk-v2', version: '2.0.0' });
    server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('who', { description: 'Asks a name and the model, in one round' }, (ctx) => {
      const responses = ctx.mcpReq.inputResponses as Record<string, { content?: { name?: string; text?: string } }> | undefined;
      if (responses?.name === undefined || responses.model === undefined)
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({ message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
            model: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 }),
          },
        });
      return { content: [{ type: 'text', text: `you are ${String(responses.name.content?.name)}; the model said ${String(responses.model.content?.text)}` }] };
    });
    return server;
  });
  const served = await serveFetch(handler);
  upstream = served.server;
  proxy = await startProxy([`${served.origin}/mcp`, '--http', '0', '--session-upstream', 'newest']);
});

afterAll(async () => {
  await proxy?.stop();
  upstream?.closeAllConnections();
  upstream?.close();
});

it('gives a 2026-07-28 client the upstream’s input round under its own keys, both questions at once', async () => {
  const client = new ModernClient(
    { name: 'sdk-v2', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => (asked.push(request.params.message), ANSWERS.elicit));
  client.setRequestHandler('sampling/createMessage', async () => (asked.push('sampling'), ANSWERS.sample));
  await client.connect(new ModernHttpTransport(new URL(proxy.urls[0])));
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'sdk-v2' });
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('you are Ada; the model said hello');
    expect(asked.sort()).toEqual(['Who are you?', 'sampling']);
  } finally {
    await client.close();
  }
  // On the wire: one round asking both, under the upstream's keys.
  const round = (await (
    await fetch(proxy.urls[0], {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'who',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'who',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, sampling: {} },
          },
        },
      }),
    })
  ).json()) as { result: { resultType: string; inputRequests: Record<string, { method: string }> } };
  expect(round.result.resultType).toBe('input_required');
  expect(Object.entries(round.result.inputRequests).map(([key, question]) => [key, question.method])).toEqual([
    ['name', 'elicitation/create'],
    ['model', 'sampling/createMessage'],
  ]);
});

it('with --session-upstream newest, serves a 2025-11-25 session through 2026-07-28 upstream (whose older revisions cannot ask): the questions come as requests of the session', async () => {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ANSWERS.elicit);
  client.setRequestHandler(CreateMessageRequestSchema, () => ANSWERS.sample);
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.urls[0])));
  try {
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } }))).toBe('42');
    expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('you are Ada; the model said hello');
  } finally {
    await client.close();
  }
});
