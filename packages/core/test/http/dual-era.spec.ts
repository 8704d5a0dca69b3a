/**
 * Interop in one test, against one running endpoint: the official v2 client
 * (`@modelcontextprotocol/client`) in modern mode (2026-07-28: discover, tools, resources, prompts,
 * an elicitation through a multi round-trip request, a listen stream that sees a runtime change)
 * and the v1 client (`@modelcontextprotocol/sdk`) in legacy mode (initialize, a session, an
 * elicitation as a server→client request) — both at once, on the same URL of one server, on each HTTP adapter.
 *
 * One fetch recorder sits under both clients. Each HTTP exchange is put in an era by its request
 * (a body with the `_meta` envelope claim is modern), and every message the server wrote is
 * validated against that era's schema: 2026-07-28 for the modern ones, 2025-11-25 for the legacy
 * ones.
 */
import 'reflect-metadata';
import { IsBoolean, IsNumber, IsString, Length } from 'class-validator';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpContext, McpFactory, McpServer, Prompt, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { MODERN_REVISION, loadModernSchema, loadSchemas, validateModernServerMessage, validateServerMessage } from '../../../../test-support/mcp-schema';
import { type FetchExchange, RecordingFetch } from '../../../../test-support/recording-fetch';
import { eventually, textOf } from '../../../../test-support/e2e';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

const LEGACY = '2025-11-25';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const modernSchema = loadModernSchema();
const legacySchema = loadSchemas([LEGACY]).revisions.get(LEGACY)!;

class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class WhoForm {
  @IsString() @Length(1, 40) name!: string;
  @IsBoolean() sure: boolean = false;
}

class ItemParams {
  @IsString() id!: string;
}

class GreetArgs {
  @IsString() @Length(1, 40) name!: string;
}

@McpServer({ name: 'dual-era', version: '2.0.0', instructions: 'One endpoint, two eras.' })
class DualEraServer {
  @Tool({ description: 'Add two numbers' })
  add(input: AddInput) {
    return String(input.a + input.b);
  }

  @Tool({ description: 'Ask the user who they are (a form)' })
  async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', WhoForm, { key: 'who' });
    if (answer.action !== 'accept') return `no answer: ${answer.action}`;
    return `hello ${answer.content.name}${answer.content.sure ? ' (sure)' : ''}`;
  }

  @Resource({ uri: 'dual://readme', name: 'readme', mimeType: 'text/plain' })
  readme() {
    return 'read me';
  }

  @Resource({ uri: 'dual://item/{id}', name: 'item', mimeType: 'text/plain' })
  item(params: ItemParams) {
    return `item ${params.id}`;
  }

  @Prompt({ description: 'Greet someone' })
  greet(args: GreetArgs) {
    return `Hello, ${args.name}!`;
  }
}

type Raw = Record<string, unknown>;

/** The JSON-RPC request an exchange carried. */
function requestOf(exchange: FetchExchange): Raw {
  return exchange.body as Raw;
}

/** The response (result or error) an exchange's body ends with. */
function answerOf(exchange: FetchExchange): Raw {
  const answer = exchange.messages.find((m) => 'result' in (m as Raw) || 'error' in (m as Raw));
  if (!answer) throw new Error(`no answer in ${JSON.stringify(exchange.messages)}`);
  return answer as Raw;
}

describe.each(ADAPTERS)('%s: both eras on one endpoint', (adapter) => {
  let serving: Serving;
  let url: URL;
  const app = McpFactory.create(DualEraServer, { logger: createLogger({ level: 'silent' }) });
  const recorder = new RecordingFetch();

  beforeAll(async () => {
    // Connections are not forced closed: the last listen stream's result must reach the client as the server closes.
    serving = await serveOn(adapter, app, undefined, { forceCloseConnections: false });
    url = new URL(serving.url);
  });

  /** True once the test closed the server itself. */
  let stopped = false;

  afterAll(async () => {
    if (!stopped) await serving?.close();
  });

  it('serves the v2 client in 2026-07-28 and the v1 client in 2025-11-25 on one endpoint, every message valid for its era', async () => {
    // ---- The v2 client, modern mode ---------------------------------------------------------------
    const modern = new ModernClient(
      { name: 'v2-client', version: '2.4.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    const modernElicitations: Raw[] = [];
    modern.setRequestHandler('elicitation/create', async (request) => {
      modernElicitations.push(request.params);
      return { action: 'accept', content: { name: 'Ada', sure: true } };
    });
    const modernToolChanges: Raw[] = [];
    modern.setNotificationHandler('notifications/tools/list_changed', (notification) => void modernToolChanges.push(notification as unknown as Raw));
    await modern.connect(new ModernHttpTransport(url, { fetch: recorder.fetch }));

    // Discover: the probe on connect, then once more by hand.
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
    expect(modern.getServerVersion()).toMatchObject({ name: 'dual-era', version: '2.0.0' });
    expect(modern.getInstructions()).toBe('One endpoint, two eras.');
    const discovered = await modern.discover();
    expect(discovered.supportedVersions).toEqual([MODERN_REVISION]);
    expect(discovered.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } });
    expect(discovered.capabilities).not.toHaveProperty('tasks');
    expect(recorder.ofEra('modern').filter((e) => requestOf(e).method === 'server/discover')).toHaveLength(2);

    // Tools: validated input; invalid input is a tool error naming the field.
    const { tools } = await modern.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'who']);
    expect(tools[0].inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    expect(textOf(await modern.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    const invalid = await modern.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments for tool "add"[\s\S]*\ba\b/);

    // Resources: a static one and a template.
    expect((await modern.listResources()).resources).toEqual([expect.objectContaining({ uri: 'dual://readme', name: 'readme' })]);
    expect((await modern.listResourceTemplates()).resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'dual://item/{id}', name: 'item' })]);
    expect((await modern.readResource({ uri: 'dual://readme' })).contents).toEqual([{ uri: 'dual://readme', mimeType: 'text/plain', text: 'read me' }]);
    expect((await modern.readResource({ uri: 'dual://item/7' })).contents).toEqual([{ uri: 'dual://item/7', mimeType: 'text/plain', text: 'item 7' }]);

    // Prompts.
    expect((await modern.listPrompts()).prompts).toEqual([expect.objectContaining({ name: 'greet' })]);
    expect((await modern.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);

    // An elicitation through MRTR: the client's handler answers, its answer reaches the tool.
    expect(textOf(await modern.callTool({ name: 'who', arguments: {} }))).toBe('hello Ada (sure)');
    expect(modernElicitations).toEqual([
      {
        mode: 'form',
        message: 'Who are you?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, sure: { type: 'boolean', default: false } }, required: ['name'] },
      },
    ]);
    const whoCalls = recorder.ofEra('modern').filter((e) => requestOf(e).method === 'tools/call' && (requestOf(e).params as Raw).name === 'who');
    expect(whoCalls).toHaveLength(2);
    const [round1, round2] = whoCalls.map(answerOf);
    expect(round1.result).toMatchObject({ resultType: 'input_required', inputRequests: { who: { method: 'elicitation/create' } }, requestState: expect.any(String) });
    const retry = requestOf(whoCalls[1]);
    expect(retry.id).not.toBe(requestOf(whoCalls[0]).id);
    expect(retry.params).toMatchObject({ inputResponses: { who: { action: 'accept', content: { name: 'Ada', sure: true } } }, requestState: (round1.result as Raw).requestState });
    expect(round2.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hello Ada (sure)' }] });

    // A listen stream: acknowledged with the honored filter.
    const subscription = await modern.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    const listenExchange = recorder.ofEra('modern').find((e) => requestOf(e).method === 'subscriptions/listen')!;
    const listenId = requestOf(listenExchange).id;
    expect(listenExchange).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/event-stream/) });

    // ---- The v1 client, legacy mode, on the same URL ---------------------------------------------
    const legacy = new LegacyClient({ name: 'v1-client', version: '1.32.2' }, { capabilities: { elicitation: {} } });
    const legacyElicitations: Raw[] = [];
    legacy.setRequestHandler(ElicitRequestSchema, (request) => {
      legacyElicitations.push(request.params);
      return { action: 'accept', content: { name: 'Grace', sure: false } };
    });
    const legacyToolChanges: Raw[] = [];
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void legacyToolChanges.push(notification as unknown as Raw));
    const legacyTransport = new LegacyHttpTransport(url, { fetch: recorder.fetch });
    await legacy.connect(legacyTransport);
    expect(legacyTransport.sessionId).toEqual(expect.any(String));
    expect(legacy.getServerVersion()).toMatchObject({ name: 'dual-era', version: '2.0.0' });
    const initialize = recorder.ofEra('legacy').find((e) => requestOf(e)?.method === 'initialize')!;
    expect(answerOf(initialize).result).toMatchObject({ protocolVersion: LEGACY, serverInfo: { name: 'dual-era' } });
    expect(initialize.responseHeaders['mcp-session-id']).toBe(legacyTransport.sessionId);

    expect(textOf(await legacy.callTool({ name: 'add', arguments: { a: 40, b: 2 } }))).toBe('42');
    // The same tool asks through a real server→client request in this era.
    expect(textOf(await legacy.callTool({ name: 'who', arguments: {} }))).toBe('hello Grace');
    expect(legacyElicitations).toEqual([expect.objectContaining({ mode: 'form', message: 'Who are you?' })]);
    const legacyWho = recorder.ofEra('legacy').find((e) => requestOf(e)?.method === 'tools/call' && (requestOf(e).params as Raw).name === 'who')!;
    expect(legacyWho.messages[0]).toMatchObject({ method: 'elicitation/create', id: expect.anything() });
    expect(answerOf(legacyWho).result).not.toHaveProperty('resultType');

    // ---- A runtime change reaches both eras ------------------------------------------------------
    await eventually('the v1 client to open its GET stream', () => recorder.ofEra('legacy').some((e) => e.method === 'GET' && e.status === 200));
    const late = app.addTool({ name: 'late', description: 'Added while both clients were connected' }, () => 'late but here');
    await eventually('tools/list_changed on the listen stream and on the legacy session', () => modernToolChanges.length === 1 && legacyToolChanges.length === 1);
    const tagged = listenExchange.messages.filter((m) => (m as Raw).method === 'notifications/tools/list_changed');
    expect(tagged).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: listenId } } }]);
    expect(textOf(await modern.callTool({ name: 'late', arguments: {} }))).toBe('late but here');
    expect((await legacy.listTools()).tools.map((t) => t.name)).toEqual(['add', 'who', 'late']);
    late.disable();
    await eventually('a second tools/list_changed in both eras', () => modernToolChanges.length === 2 && legacyToolChanges.length === 2);
    expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(['add', 'who']);
    // Only what was asked for travels on the stream: the acknowledgement, then tool changes.
    expect(listenExchange.messages.map((m) => (m as Raw).method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);

    // ---- Goodbye: the client ends one listen, the server's shutdown ends another -------------------
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await eventually('the server to let the closed listen stream go', () => app.engine.listenStreams === 0);
    await legacyTransport.terminateSession();
    await legacy.close();
    const lastListen = await modern.listen({ promptsListChanged: true });
    await serving.close();
    stopped = true;
    expect(await lastListen.closed).toBe('graceful');
    const lastExchange = recorder.ofEra('modern').filter((e) => requestOf(e).method === 'subscriptions/listen')[1];
    const lastId = requestOf(lastExchange).id;
    expect(lastExchange.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUBSCRIPTION_ID]: lastId }, notifications: { promptsListChanged: true } } },
      { jsonrpc: '2.0', id: lastId, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: lastId, [SERVER_INFO]: expect.objectContaining({ name: 'dual-era' }) } } },
    ]);
    await modern.close();
    await recorder.settled();

    // ---- The wire, era by era ---------------------------------------------------------------------
    expect(recorder.unreadable).toEqual([]);
    const modernExchanges = recorder.ofEra('modern');
    for (const exchange of modernExchanges) {
      const request = requestOf(exchange);
      // Stateless: never a session; requests carry the body-derived headers and get 200, the
      // client's notification (cancelling the listen) gets 202.
      expect(exchange.responseHeaders['mcp-session-id']).toBeUndefined();
      expect(exchange.headers['mcp-session-id']).toBeUndefined();
      expect(exchange.headers['mcp-protocol-version']).toBe(MODERN_REVISION);
      if ('id' in request) {
        expect(exchange.headers['mcp-method']).toBe(request.method);
        expect(exchange.status).toBe(200);
      } else {
        expect(request.method).toBe('notifications/cancelled');
        expect(exchange.status).toBe(202);
      }
    }
    const modernMessages = recorder.messages('modern');
    expect(modernExchanges.map((e) => requestOf(e).method)).toEqual([
      'server/discover',
      'server/discover',
      'tools/list',
      'tools/call',
      'tools/call',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'resources/read',
      'prompts/list',
      'prompts/get',
      'tools/call',
      'tools/call',
      'subscriptions/listen',
      'tools/call',
      'tools/list',
      'notifications/cancelled',
      'subscriptions/listen',
    ]);
    // Every request but the listen the client closed (which gets nothing more) got a result.
    const modernResults = modernMessages.filter((m) => 'result' in (m as Raw)) as Raw[];
    expect(modernResults).toHaveLength(16);
    for (const response of modernResults) expect((response.result as Raw)._meta).toMatchObject({ [SERVER_INFO]: { name: 'dual-era', version: '2.0.0' } });
    expect(modernMessages.filter((m) => 'error' in (m as Raw))).toEqual([]);

    const legacyMessages = recorder.messages('legacy');
    // initialize, add, elicitation/create, who, tools/list results; two list changes on the GET stream.
    expect(legacyMessages).toHaveLength(7);
    expect(legacyMessages.some((m) => SUBSCRIPTION_ID in ((((m as Raw).params as Raw | undefined)?._meta as Raw | undefined) ?? {}))).toBe(false);

    expect(modernMessages.flatMap((m) => validateModernServerMessage(modernSchema, m, recorder.requestMethodById('modern')))).toEqual([]);
    expect(legacyMessages.flatMap((m) => validateServerMessage(legacySchema, m, recorder.requestMethodById('legacy')))).toEqual([]);
  });
});
