/**
 * Interoperability with the official SDK client over real HTTP, on each HTTP adapter: `StreamableHTTPClientTransport`
 * for 2025-03-26, 2025-06-18 and 2025-11-25, `SSEClientTransport` (the HTTP+SSE transport) for
 * 2024-11-05 — tools (validated input, invalid input as a tool error), static and template
 * resources, prompts, progress, logging after `logging/setLevel`, and a server→client elicitation
 * answered by the client. Every message the server wrote is validated afterwards against that
 * revision's official JSON Schema, including "no field the revision lacks".
 */
import 'reflect-metadata';
import { IsBoolean, IsInt, IsNumber, IsString, Length, Max, Min } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { McpContext, McpServer, Prompt, Resource, Tool } from '@hermes-mcp/core';
import { LEGACY_REVISIONS, type LegacyRevision, loadSchemas, validateServerMessage } from '../../../../test-support/mcp-schema';
import { RecordingHttpTransport } from '../../../../test-support/recording-http-transport';
import { eventually, textOf } from '../../../../test-support/e2e';
import { bounded } from '../../../../test-support/hardening';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';

const schemas = loadSchemas();

class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class CountInput {
  @IsInt() @Min(1) @Max(10) steps!: number;
}

class SayInput {
  @IsString() text!: string;
}

class ItemParams {
  @IsString() id!: string;
}

class GreetArgs {
  @IsString() @Length(1, 40) name!: string;
}

class WhoForm {
  @IsString() @Length(1, 40) name!: string;
  @IsBoolean() sure: boolean = false;
}

/**
 * What `count` awaits between its last progress and its result. The SDK Client handles
 * notifications in a microtask but responses at once, so progress that arrives in the same chunk
 * as the response (the HTTP+SSE transport parses a chunk in one go) reaches no `onprogress`: the
 * test makes `count` wait until its client has seen the progress, so the order on the wire is also
 * the order of handling.
 */
let beforeCountAnswers: () => Promise<void> = () => Promise.resolve();

@McpServer({ name: 'interop', version: '1.2.3', instructions: 'A server for the HTTP interop tests.' })
class InteropServer {
  @Tool({ description: 'Add two numbers' })
  add(input: AddInput) {
    return String(input.a + input.b);
  }

  @Tool({ description: 'Count, reporting progress at each step' })
  async count(input: CountInput, ctx: McpContext) {
    for (let step = 1; step <= input.steps; step++) await ctx.progress(step, input.steps, `step ${step}`);
    await beforeCountAnswers();
    return `counted to ${input.steps}`;
  }

  @Tool({ description: 'Log a message at debug and at info' })
  async say(input: SayInput, ctx: McpContext) {
    await ctx.notify('debug', { said: input.text, level: 'debug' }, 'interop');
    await ctx.notify('info', { said: input.text, level: 'info' }, 'interop');
    return 'said';
  }

  @Tool({ description: 'Ask the user who they are (form elicitation)' })
  async who(ctx: McpContext) {
    const answer = await ctx.elicit('Who are you?', WhoForm);
    if (answer.action !== 'accept') return `no answer: ${answer.action}`;
    return `hello ${answer.content.name}${answer.content.sure ? ' (sure)' : ''}`;
  }

  @Resource({ uri: 'interop://readme', name: 'readme', mimeType: 'text/plain' })
  readme() {
    return 'read me';
  }

  @Resource({ uri: 'interop://item/{id}', name: 'item', mimeType: 'text/plain' })
  item(params: ItemParams) {
    return `item ${params.id}`;
  }

  @Prompt({ description: 'Greet someone' })
  greet(args: GreetArgs) {
    return `Hello, ${args.name}!`;
  }
}

type Raw = Record<string, unknown>;

describe.each(ADAPTERS)('%s', (adapter) => {
  let serving: Serving;
  let base: string;

  beforeAll(async () => {
    serving = await serveOn(adapter, InteropServer);
    base = serving.origin;
  });

  afterAll(async () => {
    await serving.close();
  });

  describe.each(LEGACY_REVISIONS)('the SDK client over HTTP, revision %s', (revision: LegacyRevision) => {
    const streamable = revision !== '2024-11-05';
    let transport: RecordingHttpTransport;
    let client: Client;
    const logs: Raw[] = [];
    const elicitations: Raw[] = [];

    beforeAll(async () => {
      transport = streamable
        ? new RecordingHttpTransport((fetch) => new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch }), revision)
        : new RecordingHttpTransport((fetch) => new SSEClientTransport(new URL(`${base}/mcp/sse`), { fetch }), revision);
      client = new Client({ name: 'interop-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params as Raw));
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        elicitations.push(request.params);
        return { action: 'accept', content: { name: 'Ada', sure: true } };
      });
      await client.connect(transport);
    });

    afterAll(async () => {
      await client?.close();
    });

    it(`negotiates ${revision} and, on Streamable HTTP, gets a session and the version header on every later request`, async () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'interop', version: '1.2.3' });
      expect(client.getInstructions()).toBe('A server for the HTTP interop tests.');
      await eventually('the initialize result on the wire', () => transport.wire.length > 0);
      const init = transport.wire[0] as Raw;
      expect(init).toMatchObject({ id: 0, result: { protocolVersion: revision } });
      await client.ping();
      if (streamable) {
        expect(transport.sessionId).toMatch(/^[\x21-\x7e]{32,}$/);
        // The SDK opens the standalone GET stream after `notifications/initialized`, without waiting for it.
        await eventually('the SDK to open its GET stream', () => transport.http.some((r) => r.method === 'GET' && r.status === 200 && r.contentType === 'text/event-stream'));
        const [first, ...later] = transport.http;
        expect(first).toMatchObject({ method: 'POST', status: 200, contentType: expect.stringMatching(/^application\/json/) });
        expect(first.headers['mcp-protocol-version']).toBeUndefined();
        expect(later.length).toBeGreaterThan(0);
        for (const record of later) {
          expect(record.headers['mcp-protocol-version']).toBe(revision);
          expect(record.headers['mcp-session-id']).toBe(transport.sessionId);
          expect(record.status).toBeLessThan(300);
        }
      } else {
        expect(transport.http[0]).toMatchObject({ method: 'GET', status: 200, contentType: 'text/event-stream' });
        expect(transport.http.filter((r) => r.method === 'POST').every((r) => r.url.includes('/mcp/messages?sessionId=') && r.status === 202)).toBe(true);
      }
    });

    it('lists and calls tools; invalid input is a tool error that names the problem', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['add', 'count', 'say', 'who']);
      expect(tools[0].inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
      const invalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/Invalid arguments for tool "add"[\s\S]*\ba\b/);
      const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(unknown).toBeInstanceOf(McpError);
      expect((unknown as McpError).message).toContain('Unknown tool: nope');
    });

    it('reads a static resource and a template resource', async () => {
      const { resources } = await client.listResources();
      expect(resources).toEqual([expect.objectContaining({ uri: 'interop://readme', name: 'readme', mimeType: 'text/plain' })]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'interop://item/{id}', name: 'item' })]);
      expect((await client.readResource({ uri: 'interop://readme' })).contents).toEqual([{ uri: 'interop://readme', mimeType: 'text/plain', text: 'read me' }]);
      expect((await client.readResource({ uri: 'interop://item/42' })).contents).toEqual([{ uri: 'interop://item/42', mimeType: 'text/plain', text: 'item 42' }]);
    });

    it('gets a prompt', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([expect.objectContaining({ name: 'greet', arguments: [expect.objectContaining({ name: 'name', required: true })] })]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
    });

    it('receives progress (with messages from 2025-03-26 on), before the result', async () => {
      const updates: Progress[] = [];
      let allSeen!: () => void;
      const seen = new Promise<void>((resolve) => (allSeen = resolve));
      beforeCountAnswers = () => bounded(seen, 'the client to see three progress notifications');
      const onprogress = (p: Progress) => {
        updates.push(p);
        if (updates.length === 3) allSeen();
      };
      const result = await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, { onprogress });
      beforeCountAnswers = () => Promise.resolve();
      expect(textOf(result)).toBe('counted to 3');
      const withMessage = revision >= '2025-03-26';
      expect(updates).toEqual([1, 2, 3].map((progress) => (withMessage ? { progress, total: 3, message: `step ${progress}` } : { progress, total: 3 })));
    });

    it('sends log messages at or above the level set with logging/setLevel', async () => {
      // Before any setLevel the server sends none.
      await client.callTool({ name: 'say', arguments: { text: 'unheard' } });
      expect(logs).toEqual([]);
      await client.setLoggingLevel('info');
      expect(textOf(await client.callTool({ name: 'say', arguments: { text: 'heard' } }))).toBe('said');
      // Related to the call, the log travels before its response: it is there once the call resolved.
      expect(logs).toEqual([{ level: 'info', logger: 'interop', data: { said: 'heard', level: 'info' } }]);
    });

    if (revision >= '2025-06-18') {
      it('asks the client through elicitation/create and gets the answer validated', async () => {
        expect(textOf(await client.callTool({ name: 'who', arguments: {} }))).toBe('hello Ada (sure)');
        expect(elicitations).toHaveLength(1);
        expect(elicitations[0]).toMatchObject({
          message: 'Who are you?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, sure: { type: 'boolean', default: false } }, required: ['name'] },
        });
        if (revision === '2025-11-25') expect(elicitations[0].mode).toBe('form');
        else expect(elicitations[0]).not.toHaveProperty('mode');
        // The request travelled on the stream of the POST that carried the call; the answer was accepted with 202.
        const call = transport.http.find((r) => r.body?.includes('"name":"who"'));
        expect(call).toMatchObject({ status: 200, contentType: 'text/event-stream' });
        const answer = transport.http.find((r) => r.body?.includes('"action":"accept"'));
        expect(answer).toMatchObject({ method: 'POST', status: 202 });
      });
    } else {
      it('refuses elicitation, which this revision lacks, with an error that says so', async () => {
        const error = await client.callTool({ name: 'who', arguments: {} }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).message).toMatch(/elicitation needs MCP 2025-06-18 or newer/);
        expect(elicitations).toEqual([]);
      });
    }

    it(`every message the server wrote validates against the ${revision} schema`, async () => {
      if (streamable) await transport.terminateSession();
      await client.close();
      await transport.settled();
      expect(transport.unreadable).toEqual([]);
      expect(transport.errors.filter((e) => !/abort/i.test(String(e)))).toEqual([]);
      // Every message the SDK received came off the wire (and was recorded there).
      expect(transport.wire.length).toBeGreaterThanOrEqual(transport.received.length);
      expect(transport.wire.length).toBeGreaterThan(15);
      const schema = schemas.revisions.get(revision)!;
      const violations = transport.wire.flatMap((message) => validateServerMessage(schema, message, transport.requestMethodById));
      expect(violations).toEqual([]);
    });
  });
});
