import 'reflect-metadata';
import { IsString } from 'class-validator';
import { InMemoryTransport, Peer } from '@hermes-mcp/protocol';
import { HermesError, JSON_SCHEMA_2020_12, JsonSchemaObject, McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });

/** A schema no class could produce: every keyword must reach the client untouched. */
const CONTACT: JsonSchemaObject = {
  $schema: JSON_SCHEMA_2020_12,
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }] }],
  if: { required: ['address'] },
  then: { required: ['name'] },
  additionalProperties: false,
};

class NameInput {
  @IsString() name!: string;
}

async function connect(server: Function) {
  const app = McpFactory.create(server as new () => unknown, { logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Peer(clientSide, { onRequest: () => ({}) });
  await app.connect(serverSide);
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  return { app, client };
}

describe('@Tool({ inputSchema })', () => {
  it('publishes the schema verbatim and hands the handler the raw arguments', async () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool({ description: 'raw', inputSchema: CONTACT }) contact(args: Record<string, unknown>) {
        return { got: args };
      }
    }
    const { client } = await connect(Server);
    const { tools } = (await client.request('tools/list', {})) as { tools: Array<{ inputSchema: unknown }> };
    expect(tools[0].inputSchema).toEqual(CONTACT);
    // Not validated against the schema: the arguments arrive as sent, unknown keys included.
    const result = await client.request('tools/call', { name: 'contact', arguments: { name: 'Ada', extra: 1 } });
    expect(result.structuredContent).toEqual({ got: { name: 'Ada', extra: 1 } });
    await expect(client.request('tools/call', { name: 'contact', arguments: [1] })).rejects.toMatchObject({ code: -32602 });
  });

  it('still validates into the input class when one is given', async () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool({ inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'as written' } } } }) hello(input: NameInput) {
        return `hello ${input.name} (${input instanceof NameInput})`;
      }
    }
    const { client } = await connect(Server);
    const { tools } = (await client.request('tools/list', {})) as { tools: Array<{ inputSchema: unknown }> };
    expect(tools[0].inputSchema).toEqual({ type: 'object', properties: { name: { type: 'string', description: 'as written' } } });
    expect(await client.request('tools/call', { name: 'hello', arguments: { name: 'Ada' } })).toEqual({ content: [{ type: 'text', text: 'hello Ada (true)' }] });
    expect(await client.request('tools/call', { name: 'hello', arguments: { name: 7 } })).toMatchObject({ isError: true });
  });

  it('keeps its own copy: changing the object afterwards changes nothing', () => {
    const schema: JsonSchemaObject = { type: 'object', properties: { a: { type: 'string' } } };
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool({ inputSchema: schema }) t(args: Record<string, unknown>) {
        return args;
      }
    }
    const registry = McpFactory.create(Server, { logger }).registry!;
    schema.properties = {};
    expect(registry.tool('t')!.descriptor.inputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('refuses a schema whose root is not an object schema, at bootstrap', () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool({ inputSchema: { type: 'array' } as unknown as JsonSchemaObject }) t() {
        return 'never';
      }
    }
    let caught: unknown;
    try {
      McpFactory.create(Server, { logger });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HermesError);
    expect((caught as HermesError).code).toBe('HERMES_INVALID_OPTIONS');
    expect((caught as HermesError).message).toMatch(/Server\.t: `inputSchema` must be a JSON Schema whose root is \{ type: 'object'/);
  });

  it('works for tools added at runtime', async () => {
    @McpServer({ name: 's', version: '1' })
    class Server {}
    const { app, client } = await connect(Server);
    app.addTool({ name: 'late', inputSchema: CONTACT }, (args: unknown) => JSON.stringify(args));
    const { tools } = (await client.request('tools/list', {})) as { tools: Array<{ inputSchema: unknown }> };
    expect(tools[0].inputSchema).toEqual(CONTACT);
    expect(await client.request('tools/call', { name: 'late', arguments: { x: 1 } })).toEqual({ content: [{ type: 'text', text: '{"x":1}' }] });
  });
});
