/**
 * What a refused input is told (validation/messages.ts, formatIssues): one short line per field,
 * leading with its path and saying what is wrong and what was expected, for the whole family of
 * failures (a missing value, a wrong type, `each` rules, nested paths, constraints given as
 * functions), while a message the user wrote stays as written and every issue keeps its path and
 * the names of the constraints that failed (what clients read from `data.issues`). The same text
 * whichever path validated (the fast path, class-validator's public API), in both eras and on
 * every transport.
 */
import 'reflect-metadata';
import { WebSocket } from 'ws';
import { IsString, Length, Matches } from 'class-validator';
import { McpClient, StreamableHttpClientTransport, WebSocketClientTransport, WebSocketConstructor } from '@hermes-mcp/client';
import { McpError, McpServer, Prompt, Resource, Tool } from '@hermes-mcp/core';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { Serving, serveOn } from '../../../../test-support/adapters';
import { planOf } from '../../src/validation/fast-path';
import { ValidationIssue, formatIssues, validateInput, validateInputAsync } from '../../src/validation/validator';
import { CLASSES, CreateEntities } from './message-cases';

type ClassName = keyof typeof CLASSES;

/** A case: the input, the lines formatIssues prints, and each issue's path with its constraints' names (class-validator's). */
type Case = [label: string, cls: ClassName, input: unknown, lines: string[], names: Record<string, string[]>];

const ENTITY = { name: 'Ada', entityType: 'person', observations: ['writes programs'] };

const CASES: Case[] = [
  // A missing value: what it must be, once, however many rules failed.
  ['a missing array', 'Entity', { name: 'Ada', entityType: 'person' }, ['observations is required: an array of strings'], { observations: ['isArray', 'isString'] }],
  ['a missing scalar', 'Entity', { entityType: 'person', observations: [] }, ['name is required: a string'], { name: ['isNotEmpty', 'isString'] }],
  ['a missing nested object', 'AddObservations', { count: 1 }, ['entity is required: an Entity object'], { entity: ['isDefined'] }],
  ['a missing array of nested objects', 'CreateEntities', {}, ['entities is required: an array of Entity objects'], { entities: ['isArray'] }],
  [
    'a missing value whose rules name no JSON type',
    'Contact',
    {},
    ['email is required: an email', 'order is required: one of the following values: asc, desc'],
    { email: ['isEmail'], order: ['isIn'] },
  ],

  // A value of another JSON type, null included.
  ['a string for a number', 'AddObservations', { entity: ENTITY, count: '5' }, ['count must be an integer, not a string'], { count: ['isInt'] }],
  ['a number for a string', 'Entity', { ...ENTITY, name: 5 }, ['name must be a string, not a number'], { name: ['isString'] }],
  ['an array for a string', 'Entity', { ...ENTITY, entityType: ['person'] }, ['entityType must be a string, not an array'], { entityType: ['isString'] }],
  [
    'an object for an array',
    'Entity',
    { ...ENTITY, observations: { first: 'x' } },
    ['observations must be an array of strings, not an object'],
    { observations: ['isArray', 'isString'] },
  ],
  [
    'an object for an array of nested objects',
    'CreateEntities',
    { entities: ENTITY },
    ['entities must be an array of Entity objects, not an object'],
    { entities: ['nestedValidation'] },
  ],
  ['an array for one nested object', 'AddObservations', { entity: [ENTITY], count: 1 }, ['entity must be one Entity object, not an array'], { entity: ['nestedValidation'] }],
  ['a string for a nested object', 'AddObservations', { entity: 'Ada', count: 1 }, ['entity must be an Entity object, not a string'], { entity: ['nestedValidation'] }],
  ['null for a nested object', 'AddObservations', { entity: null, count: 1 }, ['entity must be an Entity object, not null'], { entity: ['isDefined', 'nestedValidation'] }],
  ['null inside an array of objects', 'CreateEntities', { entities: [null] }, ['entities[0] must be an Entity object, not null'], { 'entities[0]': ['nestedValidation'] }],
  [
    'a number inside an array of objects without @IsArray',
    'DeleteRelations',
    { relations: [{ from: 'a', to: 'b' }, 3] },
    ['relations[1] must be a Relation object, not a number'],
    { 'relations[1]': ['nestedValidation'] },
  ],
  [
    'null for an array of objects without @IsArray',
    'DeleteRelations',
    { relations: null },
    ['relations must be an array of Relation objects, not null'],
    { relations: ['nestedValidation'] },
  ],

  // `each` rules: on the element that fails, or on a lone value.
  ['an element of another type', 'Entity', { ...ENTITY, observations: ['x', 7] }, ['observations[1] must be a string, not a number'], { 'observations[1]': ['isString'] }],
  [
    'each rules on their elements',
    'Tagged',
    { words: ['ab', 'abcdef', 3] },
    ['words[1] must be shorter than or equal to 4 characters', 'words[2] must be a string, not a number'],
    { 'words[1]': ['isLength'], 'words[2]': ['isLength', 'isString'] },
  ],
  ['each rules on a lone value', 'Tagged', { words: 'a' }, ['words must be longer than or equal to 2 characters'], { words: ['isLength'] }],
  ['a lone value of another type', 'Tagged', { words: 5 }, ['words must be a string or an array of strings, not a number'], { words: ['isLength', 'isString'] }],
  ['a lone value where a rule takes only arrays', 'Tagged', { tags: 'a' }, ['tags must be an array, not a string'], { tags: ['arrayNotEmpty', 'arrayUnique'] }],
  ['a missing array with each rules and @ArrayMaxSize', 'Listed', {}, ['labels is required: an array of strings'], { labels: ['arrayMaxSize', 'isString'] }],

  // Nested paths.
  [
    'fields of nested objects',
    'CreateEntities',
    { entities: [ENTITY, { entityType: 'person', observations: ['o', 1] }] },
    ['entities[1].name is required: a string', 'entities[1].observations[1] must be a string, not a number'],
    { 'entities[1].name': ['isNotEmpty', 'isString'], 'entities[1].observations[1]': ['isString'] },
  ],

  // Constraints given as functions, and dates: the value, not the source text.
  ['@MaxDate(() => d)', 'Dated', { before: '2025-01-01' }, ['before must not be after 2024-01-01'], { before: ['maxDate'] }],
  ['@MinDate(() => d)', 'Dated', { after: '2020-01-01' }, ['after must not be before 2024-01-01'], { after: ['minDate'] }],
  ['@MinDate(d) with a time of day', 'Dated', { from: '2024-05-01' }, ['from must not be before 2024-05-01T10:30:00Z'], { from: ['minDate'] }],
  ['@ArrayUnique(selector)', 'Tagged', { tags: ['a', 'A'] }, ['tags must not hold the same element twice'], { tags: ['arrayUnique'] }],
  ['"should not", said "must not"', 'Tagged', { tags: [] }, ['tags must not be empty'], { tags: ['arrayNotEmpty'] }],
  ['@IsIn', 'Tagged', { order: 'up' }, ['order must be one of the following values: asc, desc'], { order: ['isIn'] }],

  // What the user wrote: kept, given the path when it does not start with it.
  ['a message the user wrote, its date function printed as the date', 'Dated', { due: '2025-01-01' }, ['due: pick a day up to 2024-01-01'], { due: ['maxDate'] }],
  ['a message the user wrote beside one of Hermes', 'Worded', {}, ['title is required: a string; a title, please'], { title: ['isLength', 'isString'] }],
  ['a message the user wrote', 'Worded', { title: 'T', id: 'x' }, ['id: digits only, please'], { id: ['matches'] }],
  ['a message the user wrote on @ValidateNested', 'Worded', { title: 'T', entity: 'Ada' }, ['entity: give the entity as an object'], { entity: ['nestedValidation'] }],
  ["a custom constraint's message", 'Worded', { title: 'T', handle: 'taken' }, ['handle: that name is already taken'], { handle: ['isFreeName'] }],
];

/** Each issue's path with the sorted names of its constraints. */
function namesOf(issues: ValidationIssue[]): Record<string, string[]> {
  return Object.fromEntries(issues.map((issue) => [issue.path, Object.keys(issue.constraints).sort()]));
}

function refused(cls: ClassName, input: unknown, options = {}): ValidationIssue[] {
  const result = validateInput(CLASSES[cls] as new () => object, input, options);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.issues;
}

describe('validation messages', () => {
  it.each(CASES)('%s', (_label, cls, input, lines, names) => {
    const issues = refused(cls, input);
    expect(formatIssues(issues)).toBe(lines.join('\n'));
    expect(namesOf(issues)).toEqual(names);
  });

  it('keep the messages the user wrote, as written, in the issue', () => {
    expect(refused('Worded', { title: 'T', id: 'x' })).toEqual([{ path: 'id', constraints: { matches: 'digits only, please' } }]);
    expect(refused('Worded', {})).toEqual([{ path: 'title', constraints: { isLength: 'title is required: a string', isString: 'a title, please' } }]);
    expect(refused('Dated', { due: '2025-01-01' })).toEqual([{ path: 'due', constraints: { maxDate: 'pick a day up to 2024-01-01' } }]);
  });

  it('give every constraint that failed for one reason its message, printed once', () => {
    const issues = refused('Entity', { name: 'Ada', entityType: 'person' });
    expect(issues).toEqual([
      { path: 'observations', constraints: { isString: 'observations is required: an array of strings', isArray: 'observations is required: an array of strings' } },
    ]);
  });

  it('name unknown keys and the input itself', () => {
    expect(formatIssues(refused('Entity', { ...ENTITY, rank: 1 }, { forbidNonWhitelisted: true }))).toBe('rank is not a known field: leave it out');
    expect(namesOf(refused('Entity', { ...ENTITY, rank: 1 }, { forbidNonWhitelisted: true }))).toEqual({ rank: ['whitelistValidation'] });
    expect(formatIssues(refused('Entity', null))).toBe('the input must be a JSON object, not null');
    expect(formatIssues(refused('Entity', [ENTITY]))).toBe('the input must be a JSON object, not an array');
  });

  it('are the same through validateInputAsync, and through class-validator’s public API as through the fast paths', async () => {
    // Flat classes are checked by the fast path first (fast-path.ts), which leaves every refusal to the general path.
    expect(planOf(CLASSES.Entity)).toBeDefined();
    expect(planOf(CLASSES.Tagged)).toBeDefined();
    const fast = CASES.map(([, cls, input]) => refused(cls, input));
    const asynchronous = await Promise.all(CASES.map(([, cls, input]) => validateInputAsync(CLASSES[cls] as new () => object, input)));
    expect(asynchronous.map((result) => (result.ok ? [] : result.issues))).toEqual(fast);

    let viaPublic: ValidationIssue[][] = [];
    let publicStatus: { fast: boolean } | undefined;
    jest.isolateModules(() => {
      process.env.HERMES_INTEROP = 'public';
      try {
        const validator = require('../../src/validation/validator') as typeof import('../../src/validation/validator');
        const cases = require('./message-cases') as typeof import('./message-cases');
        const interop = require('../../src/interop/class-validator') as typeof import('../../src/interop/class-validator');
        viaPublic = CASES.map(([, name, input]) => {
          const cls: new () => object = cases.CLASSES[name];
          const result = validator.validateInput(cls, input);
          return result.ok ? [] : result.issues;
        });
        publicStatus = interop.classValidatorStatus();
      } finally {
        delete process.env.HERMES_INTEROP;
      }
    });
    expect(publicStatus?.fast).toBe(false);
    expect(viaPublic).toEqual(fast);
  });
});

class SummaryArgs {
  @IsString() @Length(2, 40) topic!: string;
}

class EntityParams {
  @Matches(/^[a-z]+$/) name!: string;
}

@McpServer({ name: 'memory', version: '1.0.0' })
class MemoryServer {
  @Tool({ description: 'Creates entities in the knowledge graph' })
  create_entities(input: CreateEntities) {
    return `created ${input.entities.length}`;
  }

  @Prompt({ description: 'Summarises what the graph knows of a topic' })
  summarize(args: SummaryArgs) {
    return `Summarise ${args.topic}`;
  }

  @Resource({ uri: 'memory://entity/{name}' })
  entity(params: EntityParams) {
    return `entity ${params.name}`;
  }
}

const TOOL_TEXT = [
  'Invalid arguments for tool "create_entities":',
  'entities[0] must be an Entity object, not null',
  'entities[1].observations is required: an array of strings',
].join('\n');
const TOOL_ARGS = { entities: [null, { name: 'Ada', entityType: 'person' }] };
const PROMPT_ISSUES = [{ path: 'topic', constraints: { isLength: 'topic is required: a string', isString: 'topic is required: a string' } }];
const RESOURCE_ISSUES = [{ path: 'name', constraints: { matches: 'name must match /^[a-z]+$/ regular expression' } }];

/** What a client is told: the tool's text, the prompt's and the resource's errors (message and data). */
async function told(client: {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  getPrompt(name: string, args: Record<string, string>): Promise<unknown>;
  readResource(uri: string): Promise<unknown>;
}): Promise<unknown> {
  const error = async (pending: Promise<unknown>) => {
    const caught = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(caught).toBeInstanceOf(McpError);
    const { code, message, data } = caught as McpError;
    return { code, message, data };
  };
  const tool = (await client.callTool('create_entities', TOOL_ARGS)) as Parameters<typeof textOf>[0] & { isError?: boolean };
  return {
    tool: { isError: tool.isError, text: textOf(tool) },
    prompt: await error(client.getPrompt('summarize', {})),
    resource: await error(client.readResource('memory://entity/Ada')),
  };
}

describe('validation messages on the wire', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serveOn('fastify', MemoryServer);
  });
  afterAll(() => serving?.close());

  it('are the same in both eras and on every transport', async () => {
    const answers: Array<[string, unknown]> = [];
    for (const era of ['legacy', 'modern'] as const) {
      const client = await createTestClient(MemoryServer, { era });
      try {
        answers.push([`in memory, ${era}`, await told(client)]);
      } finally {
        await client.close();
      }
    }
    for (const protocolVersion of ['2025-11-25', '2026-07-28'] as const) {
      const client = new McpClient(new StreamableHttpClientTransport(new URL(serving.url)), { protocolVersion, responseCache: false });
      await client.connect();
      try {
        answers.push([`Streamable HTTP, ${protocolVersion}`, await told(client)]);
      } finally {
        await client.close();
      }
    }
    const socket = new McpClient(new WebSocketClientTransport({ url: `${serving.url.replace('http', 'ws')}/ws`, WebSocket: WebSocket as unknown as WebSocketConstructor }), {
      protocolVersion: '2025-11-25',
    });
    await socket.connect();
    try {
      answers.push(['WebSocket, 2025-11-25', await told(socket)]);
    } finally {
      await socket.close();
    }

    const [, first] = answers[0];
    expect(first).toEqual({
      tool: { isError: true, text: TOOL_TEXT },
      prompt: { code: -32602, message: expect.stringContaining('invalid arguments for prompt "summarize":\ntopic is required: a string'), data: { issues: PROMPT_ISSUES } },
      resource: {
        code: -32602,
        message: expect.stringContaining('does not fit MemoryServer.entity:\nname must match /^[a-z]+$/ regular expression'),
        data: { uri: 'memory://entity/Ada', issues: RESOURCE_ISSUES },
      },
    });
    for (const [where, answer] of answers) expect({ where, answer }).toEqual({ where, answer: first });
  }, 30_000);
});
