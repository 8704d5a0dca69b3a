/**
 * What a tool publishes, as a port of the official "memory" server needs it (its input properties
 * described, its output schemas closed at every level, nothing behind a `$ref`):
 * - nested classes are written out where they are used, `$defs` kept for recursive classes only:
 *   a validator that resolves no reference compiles every schema of a server without recursion,
 *   and agrees with the server; `schemas: { nested: 'defs' }` (server-wide or per tool) publishes
 *   `$defs` as before; a class shared at every level keeps its schema small;
 * - `schemas: { closedOutput: true }` closes `outputSchema` at every level, and the server holds
 *   results to it (the official SDK v1 client checks `structuredContent` against it);
 * - a class-level `@JSONSchema` applies to subclasses, with or without properties of their own;
 * - `@Description` reaches input and output schemas, nested classes included, in either form, and
 *   the README's first server shows it.
 */
import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import { Exclude, Type } from 'class-transformer';
import { IsArray, IsDefined, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Description, HermesError, JSONSchema, McpFactory, McpServer, Tool, buildObjectSchema, createLogger } from '@hermes-mcp/core';
import { createTestClient } from '@hermes-mcp/testing';
import { closedObjectSchema } from '../../src/schema/schema-builder';
import { INLINE_LIMIT } from '../../src/schema/inline';
import { loadSchemas, validateServerMessage } from '../../../../test-support/mcp-schema';
import { RecordingHttpTransport } from '../../../../test-support/recording-http-transport';
import { serveOn } from '../../../../test-support/adapters';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// The memory server's shapes.

@Description('A node of the knowledge graph')
class Entity {
  @Description('The name of the entity') @IsString() name!: string;
  @Description('The type of the entity') @IsString() entityType!: string;
  @Description('Observations about the entity') @IsArray() @IsString({ each: true }) observations!: string[];
}

@Description('A directed edge between two entities, in active voice')
class Relation {
  @Description('The entity the relation starts at') @IsString() from!: string;
  @Description('The entity the relation ends at') @IsString() to!: string;
  @Description('The type of the relation') @IsString() relationType!: string;
}

class CreateEntities {
  @Description('The entities to create') @IsArray() @ValidateNested({ each: true }) @Type(() => Entity) entities!: Entity[];
}

class Graph {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Entity) entities!: Entity[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => Relation) relations!: Relation[];
}

/** One class, used twice. */
class Pair {
  @Description('The first entity') @IsDefined() @ValidateNested() @Type(() => Entity) first!: Entity;
  @IsDefined() @ValidateNested() @Type(() => Entity) second!: Entity;
}

/** Recursive, with a class that is not. */
class TreeNode {
  @IsString() label!: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
  @IsOptional() @ValidateNested() @Type(() => Entity) about?: Entity;
}

class Ping {
  @IsOptional() @ValidateNested() @Type(() => Pong) pong?: object; // Pong: not defined yet when the decorators run
}

class Pong {
  @IsOptional() @ValidateNested() @Type(() => Ping) ping?: Ping;
  @IsOptional() @ValidateNested() @Type(() => Relation) relation?: Relation;
}

class Rally {
  @IsDefined() @ValidateNested() @Type(() => Ping) serve!: Ping;
}

/** What the next call of a tool returns (the tests set it). */
let returned: unknown;

@McpServer({ name: 'memory', version: '1.0.0', schemas: { closedOutput: true } })
class MemoryServer {
  private readonly graph: { entities: Entity[]; relations: Relation[] } = { entities: [], relations: [] };

  @Tool({ description: 'Create entities in the knowledge graph', output: Graph })
  create_entities(input: CreateEntities) {
    this.graph.entities.push(...input.entities);
    return this.graph;
  }

  @Tool({ description: 'Whatever the test set', output: Graph })
  read_graph() {
    return returned;
  }

  @Tool({ description: 'Compare two entities' })
  compare(input: Pair) {
    return `${input.first.name} / ${input.second.name}`;
  }

  @Tool({ description: 'A tree', input: TreeNode, output: TreeNode })
  tree(input: TreeNode) {
    return input;
  }

  @Tool({ description: 'Mutual recursion', input: Rally })
  rally() {
    return 'ok';
  }

  @Tool({ description: 'Published with $defs', input: Pair, output: Graph, schemas: { nested: 'defs', closedOutput: false } })
  pair_with_defs() {
    return returned;
  }
}

const silent = () => createLogger({ level: 'silent' });

/** A JSON Schema validator that resolves no reference: the published schema without its `$defs`. */
function refless(schema: Json) {
  const { $defs: _defs, ...rest } = schema;
  return new Ajv2020({ strict: true, allErrors: true }).compile(rest);
}

/** Every `$ref` in a schema. */
function refsOf(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(refsOf);
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === '$ref' ? [value as string] : refsOf(value)));
}

/** Every object schema (`type: 'object'`) in a schema, `$defs` included. */
function objectsOf(schema: unknown): Json[] {
  if (Array.isArray(schema)) return schema.flatMap(objectsOf);
  if (typeof schema !== 'object' || schema === null) return [];
  const here = (schema as Json).type === 'object' ? [schema as Json] : [];
  return [...here, ...Object.values(schema).flatMap(objectsOf)];
}

async function toolsOf(server: Function) {
  const client = await createTestClient(server as new () => object, { appOptions: { logger: silent() } });
  try {
    return new Map((await client.listTools()).map((tool) => [tool.name, tool as unknown as { inputSchema: Json; outputSchema?: Json }]));
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------------------------------------

describe('nested classes are written out where they are used (no $ref but for recursion)', () => {
  it('a validator that resolves no reference compiles every schema of a tool without recursion, and agrees with the server', async () => {
    const tools = await toolsOf(MemoryServer);
    for (const name of ['create_entities', 'read_graph', 'compare']) {
      const tool = tools.get(name)!;
      for (const schema of [tool.inputSchema, tool.outputSchema].filter((s): s is Json => s !== undefined)) {
        expect([name, refsOf(schema), schema.$defs]).toEqual([name, [], undefined]);
        expect(() => refless(schema)).not.toThrow();
      }
    }
    const check = refless(tools.get('create_entities')!.inputSchema);
    const inputs = [
      { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      { entities: [{ name: 'Ada', entityType: 'person' }] },
      { entities: [{ name: 'Ada', entityType: 'person', observations: [1] }] },
      { entities: [] },
      { entities: {} },
    ];
    const client = await createTestClient(MemoryServer, { appOptions: { logger: silent() } });
    try {
      for (const input of inputs) {
        const byServer = await client.callTool('create_entities', input).then((result) => result.isError !== true);
        expect([input, check(input)]).toEqual([input, byServer]);
      }
    } finally {
      await client.close();
    }
  });

  it('writes a class used twice twice, each with the description of its own property', () => {
    const schema = buildObjectSchema(Pair) as Json;
    const { first, second } = schema.properties as Record<string, Json>;
    const { description: own, ...body } = first;
    expect(own).toBe('The first entity');
    expect(second).toEqual({ ...body, description: 'A node of the knowledge graph' });
    expect(body).toMatchObject({ type: 'object', required: ['name', 'entityType', 'observations'] });
    expect(buildObjectSchema(Pair, { nested: 'defs' }).properties).toEqual({
      first: { $ref: '#/$defs/Entity', description: 'The first entity', not: { type: 'null' } },
      second: { $ref: '#/$defs/Entity', not: { type: 'null' } },
    });
  });

  it('keeps under $defs only the classes that refer to themselves, directly or through others; the rest is written out inside them', () => {
    const tree = buildObjectSchema(TreeNode) as Json;
    expect(Object.keys(tree.$defs as Json)).toEqual(['TreeNode']);
    expect(new Set(refsOf(tree))).toEqual(new Set(['#/$defs/TreeNode']));
    const node = (tree.$defs as Record<string, Json>).TreeNode;
    expect((node.properties as Record<string, Json>).about).toMatchObject({ anyOf: [{ type: 'object', properties: { name: { type: 'string' } } }, { type: 'null' }] });
    const rally = buildObjectSchema(Rally) as Json;
    expect(Object.keys(rally.$defs as Json).sort()).toEqual(['Ping', 'Pong']);
    expect(refsOf(rally)).not.toContain('#/$defs/Relation');
    // Both forms accept the same values.
    const ajv = new Ajv2020({ strict: true });
    const [inline, defs] = [ajv.compile(tree), ajv.compile(buildObjectSchema(TreeNode, { nested: 'defs' }))];
    for (const value of [
      { label: 'a' },
      { label: 'a', children: [{ label: 'b', children: [{ label: 'c', about: { name: 'x', entityType: 'y', observations: [] } }] }] },
      { label: 'a', children: [{ label: 'b', about: { name: 'x' } }] },
      { label: 'a', children: [{}] },
    ]) {
      expect(inline(value)).toBe(defs(value));
    }
  });

  it(`keeps a class shared at every level under $defs past ${INLINE_LIMIT} characters, no longer than the $defs form`, () => {
    // Level0 has two Level1s, each two Level2s…: written out, 2^14 copies of Level14.
    let next: Function | undefined;
    for (let depth = 14; depth >= 0; depth--) {
      class Level {
        @Description('What this level is called, in a sentence long enough to count') @IsString() name!: string;
      }
      Object.defineProperty(Level, 'name', { value: `Level${depth}` });
      const child = next;
      if (child) {
        for (const key of ['left', 'right']) {
          IsDefined()(Level.prototype, key);
          ValidateNested()(Level.prototype, key);
          Type(() => child)(Level.prototype, key);
        }
      }
      next = Level;
    }
    const started = Date.now();
    const schema = buildObjectSchema(next!) as Json;
    const defs = buildObjectSchema(next!, { nested: 'defs' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(JSON.stringify(schema).length).toBeLessThanOrEqual(JSON.stringify(defs).length);
    expect(Object.keys(schema.$defs as Json)).toHaveLength(14); // Level1…Level14, each used twice
    const ajv = new Ajv2020({ strict: true });
    const leaf = { name: 'leaf' };
    const deep = (depth: number): Json => (depth === 14 ? leaf : { name: `l${depth}`, left: deep(depth + 1), right: deep(depth + 1) });
    expect(ajv.compile(schema)(deep(0))).toBe(true);
    expect(ajv.compile(schema)({ name: 'l0', left: leaf, right: leaf })).toBe(false);
  });

  it("publishes with $defs as before with schemas: { nested: 'defs' } (server-wide, or per tool, whose own win)", async () => {
    const tools = await toolsOf(MemoryServer);
    const pair = tools.get('pair_with_defs')!;
    expect(Object.keys(pair.inputSchema.$defs as Json)).toEqual(['Entity']);
    expect(Object.keys(pair.outputSchema!.$defs as Json).sort()).toEqual(['Entity', 'Relation']);
    expect(pair.outputSchema).not.toHaveProperty('additionalProperties'); // closedOutput: false, its own

    @McpServer({ name: 'defs', version: '1.0.0', schemas: { nested: 'defs' } })
    class WithDefs {
      @Tool() compare(input: Pair) {
        return input.first.name;
      }

      @Tool({ input: Pair, schemas: { nested: 'inline' } })
      inline() {
        return 'ok';
      }
    }
    const listed = await toolsOf(WithDefs);
    expect(listed.get('compare')!.inputSchema.$defs).toHaveProperty('Entity');
    expect(refsOf(listed.get('inline')!.inputSchema)).toEqual([]);
  });

  it('refuses another value at start-up, naming the option', () => {
    @McpServer({ name: 'bad', version: '1.0.0', schemas: { nested: 'flat' as 'defs' } })
    class Bad {}
    expect(() => McpFactory.create(Bad, { logger: silent() })).toThrow(HermesError);
    expect(() => McpFactory.create(Bad, { logger: silent() })).toThrow(/@McpServer on Bad: `schemas\.nested` is 'inline' .* or 'defs', not "flat"/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the official SDK v1 client, over HTTP', () => {
  it('lists tools whose schemas hold no $ref (but the recursive one), with every description; calls them; each message the server sent is valid MCP 2025-11-25', async () => {
    const serving = await serveOn('web', MemoryServer);
    const transport = new RecordingHttpTransport((fetch) => new StreamableHTTPClientTransport(new URL(serving.url), { fetch }), '2025-11-25');
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool as unknown as { inputSchema: Json; outputSchema?: Json }]));
      for (const [name, tool] of byName) {
        const refs = refsOf([tool.inputSchema, tool.outputSchema]);
        expect([name, refs.every((ref) => ['#/$defs/TreeNode', '#/$defs/Ping', '#/$defs/Pong'].includes(ref)) || name === 'pair_with_defs']).toEqual([name, true]);
      }
      const input = byName.get('create_entities')!.inputSchema;
      expect(input).toMatchObject({
        properties: {
          entities: {
            description: 'The entities to create',
            items: { description: 'A node of the knowledge graph', properties: { name: { description: 'The name of the entity' } } },
          },
        },
      });
      const output = byName.get('create_entities')!.outputSchema!;
      expect(output).toMatchObject({
        additionalProperties: false,
        properties: { relations: { items: { additionalProperties: false, properties: { relationType: { description: 'The type of the relation' } } } } },
      });

      // The SDK client checks structuredContent against the outputSchema it listed.
      const created = await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['a'] }] } });
      expect(created.isError).toBeUndefined();
      expect(created.structuredContent).toEqual({ entities: [{ name: 'Ada', entityType: 'person', observations: ['a'] }], relations: [] });
      returned = { entities: [{ name: 'Ada', entityType: 'person', observations: [], secret: 's' }], relations: [] };
      const leaky = await client.callTool({ name: 'read_graph', arguments: {} });
      expect(leaky).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool "read_graph" failed with an internal error.' }] });
      expect(leaky).not.toHaveProperty('structuredContent');
      await transport.settled();
    } finally {
      await client.close();
      await serving.close();
    }
    const schema = loadSchemas(['2025-11-25']).revisions.get('2025-11-25')!;
    const problems = transport.wire.flatMap((message) => validateServerMessage(schema, message, transport.requestMethodById));
    expect(problems).toEqual([]);
    expect(transport.wire.length).toBeGreaterThan(3);
  });
});

// ---------------------------------------------------------------------------------------------

describe('closed output schemas: schemas: { closedOutput: true }', () => {
  it('say additionalProperties: false on every object of outputSchema (nested, array items, recursive $defs); the input schema follows validation only', async () => {
    const tools = await toolsOf(MemoryServer);
    for (const name of ['create_entities', 'read_graph', 'tree']) {
      const output = tools.get(name)!.outputSchema!;
      const objects = objectsOf(output);
      expect(objects.length).toBeGreaterThan(1);
      expect([name, objects.filter((object) => object.additionalProperties !== false)]).toEqual([name, []]);
    }
    expect(objectsOf(tools.get('create_entities')!.inputSchema).filter((object) => 'additionalProperties' in object)).toEqual([]);
  });

  it('hold the results to it: a key the output class does not declare, at any level, fails the call (HERMES_OUTPUT_INVALID, logged); the schema and the server agree', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'error', destination: { write: (line: string) => void lines.push(line) } });
    const client = await createTestClient(MemoryServer, { appOptions: { logger } });
    const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
    const check = new Ajv2020({ strict: true }).compile(tools.get('read_graph')!.outputSchema!);
    const entity = { name: 'Ada', entityType: 'person', observations: [] };
    const relation = { from: 'Ada', to: 'Charles', relationType: 'wrote to' };
    const results = [
      { entities: [entity], relations: [relation] },
      { entities: [], relations: [], extra: 1 },
      { entities: [{ ...entity, id: 7 }], relations: [] },
      { entities: [], relations: [{ ...relation, weight: 1 }] },
      { entities: [{ name: 'Ada' }], relations: [] },
    ];
    const byServer: boolean[] = [];
    try {
      for (const result of results) {
        returned = result;
        byServer.push(await client.callTool('read_graph', {}).then((answer) => answer.isError !== true));
      }
    } finally {
      await client.close();
    }
    expect(byServer).toEqual([true, false, false, false, false]);
    expect(results.map((result) => check(result))).toEqual(byServer);
    const logged = lines.map((line) => JSON.parse(line) as { err?: { code?: string; message?: string } });
    expect(logged.filter((line) => line.err?.code === 'HERMES_OUTPUT_INVALID').map((line) => line.err!.message)).toEqual([
      'HERMES_OUTPUT_INVALID: MemoryServer.read_graph returned output that does not match Graph: extra is not a known field: leave it out',
      expect.stringMatching(/: entities\[0\]\.id is not a known field: leave it out$/),
      expect.stringMatching(/: relations\[0\]\.weight is not a known field: leave it out$/),
      expect.stringMatching(/: entities\[0\]\.entityType is required: a string\nentities\[0\]\.observations is required/),
    ]);
  });

  it('are off by default: extra keys are sent, and the open schema takes them', async () => {
    @McpServer({ name: 'open', version: '1.0.0' })
    class Open {
      @Tool({ output: Graph })
      read_graph() {
        return returned;
      }
    }
    const client = await createTestClient(Open, { appOptions: { logger: silent() } });
    try {
      const [tool] = await client.listTools();
      expect(objectsOf(tool.outputSchema).filter((object) => 'additionalProperties' in object)).toEqual([]);
      returned = { entities: [{ name: 'Ada', entityType: 'person', observations: [], id: 7 }], relations: [], extra: 1 };
      const result = await client.callTool('read_graph', {});
      expect(result.structuredContent).toEqual(returned);
      expect(new Ajv2020({ strict: true }).compile(tool.outputSchema!)(returned)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('keep the keys class-transformer drops from a closed input root that has nested classes (as the server takes them)', async () => {
    class Secretive {
      @Exclude() @IsOptional() @IsString() secret?: string;
      @IsDefined() @ValidateNested() @Type(() => Relation) relation!: Relation;
    }
    const schema = closedObjectSchema(Secretive);
    expect(schema).toMatchObject({ additionalProperties: false, patternProperties: { '^(?:secret)$': {} } });
    @McpServer({ name: 'secretive', version: '1.0.0' })
    class Server {
      @Tool() keep(input: Secretive) {
        return input.relation.from;
      }
    }
    const client = await createTestClient(Server, { appOptions: { logger: silent(), validation: { forbidNonWhitelisted: true } } });
    try {
      const input = { secret: 's', relation: { from: 'a', to: 'b', relationType: 'c' } };
      expect((await client.callTool('keep', input)).isError).toBeUndefined();
      expect(new Ajv2020({ strict: true }).compile(schema)(input)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('a class-level @JSONSchema on a base class', () => {
  @JSONSchema({ additionalProperties: false, title: 'Base' })
  class Base {
    @IsString() name!: string;
  }

  it('carries to a subclass that declares properties of its own', () => {
    class Extended extends Base {
      @IsInt() age!: number;
    }
    expect(buildObjectSchema(Extended)).toMatchObject({ additionalProperties: false, title: 'Base', required: ['age', 'name'] });
  });

  it("and a subclass's own applies, over the base's, whether or not it declares properties", () => {
    @JSONSchema({ title: 'Renamed' })
    class Renamed extends Base {}
    expect(buildObjectSchema(Renamed)).toMatchObject({ additionalProperties: false, title: 'Renamed', properties: { name: { type: 'string' } } });
    @JSONSchema({ additionalProperties: true })
    class Reopened extends Base {
      @IsInt() age!: number;
    }
    expect(buildObjectSchema(Reopened)).toMatchObject({ additionalProperties: true, title: 'Base' });
  });

  it('closes an output class that only extends a closed base with no rules of its own (the closing mixin)', () => {
    @JSONSchema({ additionalProperties: false })
    class Closed {}
    class Out extends Closed {
      @IsString() id!: string;
    }
    class Empty extends Closed {}
    expect(buildObjectSchema(Out)).toEqual({ type: 'object', additionalProperties: false, properties: { id: { type: 'string' } }, required: ['id'] });
    expect(buildObjectSchema(Empty)).toEqual({ type: 'object', additionalProperties: false, properties: {} });
  });

  it('runs function forms base first', () => {
    @JSONSchema((schema) => ({ ...schema, examples: [...((schema.examples as unknown[]) ?? []), 'base'] }))
    class Counted {
      @IsString() name!: string;
    }
    @JSONSchema((schema) => ({ ...schema, examples: [...((schema.examples as unknown[]) ?? []), 'sub'] }))
    class Sub extends Counted {
      @IsInt() age!: number;
    }
    expect(buildObjectSchema(Sub).examples).toEqual(['base', 'sub']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('@Description', () => {
  it('reaches input and output schemas, nested classes included, written out or under $defs', async () => {
    const tools = await toolsOf(MemoryServer);
    const described = (schema: unknown) =>
      objectsOf(schema)
        .flatMap((object) => Object.values((object.properties ?? {}) as Record<string, Json>).map((property) => property.description))
        .filter((text): text is string => typeof text === 'string');
    const texts = new Set([...described(tools.get('create_entities')!.inputSchema), ...described(tools.get('create_entities')!.outputSchema)]);
    for (const text of ['The entities to create', 'The name of the entity', 'Observations about the entity', 'The entity the relation starts at']) expect(texts).toContain(text);
    const withDefs = tools.get('pair_with_defs')!;
    expect((withDefs.inputSchema.$defs as Record<string, Json>).Entity).toMatchObject({
      description: 'A node of the knowledge graph',
      properties: { entityType: { description: 'The type of the entity' } },
    });
  });

  it("is shown on the README's first server, on its properties and on a class", () => {
    const { docBlocks } = require('../../../../scripts/doc-blocks.cjs') as { docBlocks(repo: string): Array<{ file: string; marker?: { what: string }; code: string }> };
    const server = docBlocks(`${__dirname}/../../../..`).find((block) => block.file === 'README.md' && block.marker?.what === 'src/weather.server.ts');
    expect(server?.code).toMatch(/@Description\('[^']+'\)[^\n]*\n\s*class /);
    expect(server?.code).toMatch(/@Description\('[^']+'\)[^\n]*\n\s*@Is\w+\(/);
  });
});
