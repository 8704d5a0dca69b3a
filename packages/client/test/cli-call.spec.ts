/**
 * `hermes-mcp call <tool> key=value …`, run as a user runs it (the built dist/cli.js in a child
 * process) against a real Hermes server spawned over stdio (fixtures/schema-shapes.server.ts,
 * compiled here with decorator metadata), whose tools hold every JSON Schema type and keyword form
 * the schema builder emits and answer with the input they received.
 */
import * as path from 'node:path';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as ts from 'typescript';
import { ArgumentError, coerceArguments, parseAssignments } from '../src/cli/arguments';

const root = path.join(__dirname, '../../..');
const cli = path.join(root, 'packages/client/dist/cli.js');

let dir: string;
let server: string;
beforeAll(() => {
  // Under the repository (git-ignored .scratch), so the server resolves the workspace's packages.
  mkdirSync(path.join(root, '.scratch'), { recursive: true });
  dir = mkdtempSync(path.join(root, '.scratch', 'cli-call-'));
  const source = readFileSync(path.join(__dirname, 'fixtures/schema-shapes.server.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true },
  });
  server = path.join(dir, 'server.js');
  writeFileSync(server, outputText);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Outcome = { code: number | null; stdout: string; stderr: string };

function call(closed: boolean, ...args: string[]): Outcome {
  const env = { ...process.env, CLOSED: closed ? '1' : '0' };
  const result = spawnSync(process.execPath, [cli, 'call', ...args, '--stdio', `"${process.execPath}" "${server}"`], { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What the tool received, from its answer; fails with the CLI's stderr when it did not answer. */
function received(outcome: Outcome): unknown {
  if (outcome.code !== 0) throw new Error(`exit ${outcome.code}: ${outcome.stderr}${outcome.stdout}`);
  return JSON.parse((JSON.parse(outcome.stdout) as { content: Array<{ text: string }> }).content[0].text);
}

describe('hermes-mcp call key=value', () => {
  it.each([
    // type: string, number, integer, boolean; anyOf [string, null]; enum [null]; a string with a pattern
    [
      'scalars',
      ['text=hello world', 'ratio=2.5', 'count=3', 'flag=false', 'note=null', 'nothing=null', 'digits=042'],
      { text: 'hello world', ratio: 2.5, count: 3, flag: false, note: null, nothing: null, digits: '042' },
    ],
    ['scalars', ['text=', 'note=true'], { text: '', note: 'true' }],
    // enum of strings; enum of integers and strings; enum of mixed types; enum with a type; not
    ['choices', ['color=green', 'level=1', 'mixed=true', 'one=1', 'other=y'], { color: 'green', level: 1, mixed: true, one: 1, other: 'y' }],
    ['choices', ['level=Low', 'mixed=a', 'other=null'], { level: 'Low', mixed: 'a', other: null }],
    // type: array with items (repeated, JSON, one value); anyOf one value or an array; uniqueItems; allOf of contains
    ['lists', ['ids=1', 'ids=2', 'tags=a', 'unique=x', 'unique=y', 'has=[1,"a"]'], { ids: [1, 2], tags: 'a', unique: ['x', 'y'], has: [1, 'a'] }],
    ['lists', ['ids=[3,4]', 'tags=a', 'tags=b'], { ids: [3, 4], tags: ['a', 'b'] }],
    ['lists', ['ids=7'], { ids: [7] }],
    // $ref to $defs (nested keys, and JSON), items $ref, type: object, oneOf with const (a discriminator)
    [
      'nested',
      ['address.city=Paris', 'address.zip=75001', 'meta={"a":[1]}', 'pet.kind=cat', 'pet.lives=9'],
      { address: { city: 'Paris', zip: 75001 }, meta: { a: [1] }, pet: { kind: 'cat', lives: 9 } },
    ],
    [
      'nested',
      ['address={"city":"Lyon"}', 'address.zip=69001', 'stops={"city":"Nice"}', 'pet.kind=dog', 'pet.bark=woof'],
      { address: { city: 'Lyon', zip: 69001 }, stops: [{ city: 'Nice' }], pet: { kind: 'dog', bark: 'woof' } },
    ],
    // anyOf number | numeric string | booleans (@Type(() => Number)); a date string; anyOf number | string
    ['converted', ['n=5', 'when=2024-05-01', 'lat=45.5'], { n: 5, when: '2024-05-01T00:00:00.000Z', lat: 45.5 }],
    // {} (anything): JSON first, else the string; not/allOf; a renamed key
    ['loose', ['any=5', 'given=hello', 'first_name=Ada'], { any: 5, given: 'hello', firstName: 'Ada' }],
    ['loose', ['any={"deep":[true]}', 'given=[1]'], { any: { deep: [true] }, given: [1] }],
    // key:=<json> is sent as it is; --args is the base the words are set over
    ['loose', ['any:="5"', 'given:=0', '--args', '{"given":1,"first_name":"Grace"}'], { any: '5', given: 0, firstName: 'Grace' }],
    // an index fills an array of objects (the memory server's create_entities); a key given twice inside an item is its array
    [
      'graph',
      [
        'entities.0.name=Ada',
        'entities.0.entityType=person',
        'entities.0.observations=likes tea',
        'entities.1.name=Bob',
        'entities.1.entityType=org',
        'entities.1.observations=a',
        'entities.1.observations=b',
      ],
      {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['likes tea'] },
          { name: 'Bob', entityType: 'org', observations: ['a', 'b'] },
        ],
      },
    ],
    // an index extends an array given as JSON, or set in --args; an item's key replaces what --args had there
    [
      'graph',
      ['entities:=[{"name":"Ada","entityType":"person","observations":[]}]', 'entities.1.name=Bob', 'entities.1.entityType=org', 'entities.1.observations=x', 'depth=2'],
      {
        entities: [
          { name: 'Ada', entityType: 'person', observations: [] },
          { name: 'Bob', entityType: 'org', observations: ['x'] },
        ],
        depth: 2,
      },
    ],
    [
      'graph',
      ['entities.0.observations=b', 'entities.0.observations=c', '--args', '{"entities":[{"name":"Ada","entityType":"person","observations":["a"]}]}'],
      { entities: [{ name: 'Ada', entityType: 'person', observations: ['b', 'c'] }] },
    ],
  ] as Array<[string, string[], Record<string, unknown>]>)('%s %j', (tool, words, expected) => {
    expect(received(call(false, tool, ...words))).toEqual(expected);
  });

  it('says what an argument takes and shows its schema when a value does not fit, and sends nothing', () => {
    const integer = call(false, 'scalars', 'count=abc');
    expect(integer).toMatchObject({ code: 2, stdout: '' });
    expect(integer.stderr).toBe('hermes-mcp: count=abc: "abc" is not what it takes; count takes integer or null. Its schema: {"anyOf":[{"type":"integer"},{"type":"null"}]}\n');
    const choice = call(false, 'choices', 'color=blue');
    expect(choice).toMatchObject({ code: 2, stdout: '' });
    expect(choice.stderr).toContain('color=blue: "blue" is not what it takes; color takes one of ["red","green"] or string or null. Its schema: ');
    const nested = call(false, 'nested', 'address.zip=x');
    expect(nested.stderr).toContain('address.zip=x: "x" is not what it takes; address.zip takes integer or null.');
    const twice = call(false, 'scalars', 'count=1', 'count=2');
    expect(twice).toMatchObject({ code: 2, stdout: '' });
    expect(twice.stderr).toBe(
      'hermes-mcp: count is given 2 times, but it takes one value (integer or null), not an array. Its schema: {"anyOf":[{"type":"integer"},{"type":"null"}]}\n',
    );
  });

  it('refuses a key a closed schema does not name (forbidNonWhitelisted), at any depth; passes it on where the schema is open', () => {
    const top = call(true, 'scalars', 'text=a', 'colour=red');
    expect(top).toMatchObject({ code: 2, stdout: '' });
    expect(top.stderr).toBe("hermes-mcp: unknown argument colour: the tool's schema is closed and takes text, ratio, count, flag, note, nothing, digits\n");
    const deep = call(true, 'nested', 'address.town=Paris');
    expect(deep.stderr).toBe("hermes-mcp: unknown argument address.town: the tool's schema is closed and takes city, zip inside address\n");
    expect(received(call(true, 'scalars', 'text=42'))).toEqual({ text: '42' });
    // patternProperties: a closed schema takes an @Expose'd property's own name too (the server ignores it).
    expect(call(true, 'loose', 'given=1', 'firstName=Ada', 'first_name=Grace')).toMatchObject({ code: 0 });
    // Open (the default): the key goes to the server, which strips it.
    expect(received(call(false, 'scalars', 'text=a', 'colour=red'))).toEqual({ text: 'a' });
  });

  it('checks the words before it spawns the server, and --args stays as it was', () => {
    for (const [word, said] of [
      ['count', '"count" is not key=value (or key:=<json>)'],
      ['=1', '"=1" is not key=value'],
      ['a..b=1', 'has an empty key'],
      ['n:={x', 'n:= takes JSON, and {x is not'],
    ]) {
      const outcome = call(false, 'scalars', word);
      expect({ word, code: outcome.code, said: outcome.stderr.split('\n')[0] }).toEqual({ word, code: 2, said: expect.stringContaining(said) });
    }
    expect(received(call(false, 'scalars', '--args', '{"count":4,"digits":"7"}'))).toEqual({ count: 4, digits: '7' });
  });

  it('exits 1 naming the tools there are for a tool the server does not have', () => {
    expect(call(false, 'nope', 'a=1')).toMatchObject({
      code: 1,
      stderr: 'hermes-mcp: the server has no tool nope (it has: scalars, choices, lists, nested, converted, loose, graph)\n',
    });
  });

  it('refuses a key into an array without an index, saying which to write; an index past a gap; a key inside a number (exit 2, nothing sent)', () => {
    expect(call(false, 'graph', 'entities.name=Ada', 'entities.entityType=person')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'hermes-mcp: entities.name=Ada: entities takes an array, so say which item: entities.0.name=… sets it in the first item (entities.1.name=… in the second, and so on)\n',
    });
    expect(call(false, 'graph', 'entities.1.name=Bob')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'hermes-mcp: entities.0 is not given, but entities.1 is: the items of an array are numbered from 0, without a gap\n',
    });
    expect(call(false, 'graph', 'depth.max=1')).toEqual({ code: 2, stdout: '', stderr: 'hermes-mcp: depth.max=1: depth takes integer or null, so nothing can be set inside it\n' });
    // `stops` takes an array of addresses: the index says which address.
    expect(call(false, 'nested', 'stops.city=Nice')).toMatchObject({ code: 2, stderr: expect.stringContaining('stops.0.city=… sets it in the first item') });
    expect(received(call(false, 'nested', 'stops.0.city=Nice', 'stops.1.city=Lyon'))).toEqual({ stops: [{ city: 'Nice' }, { city: 'Lyon' }] });
  });

  it('checks the assembled arguments against the whole input schema and names every path that fails it (exit 2, nothing sent)', () => {
    // Required properties inside an item, a bound (@Min), each listed.
    expect(call(false, 'graph', 'entities.0.name=Ada', 'depth=0')).toEqual({
      code: 2,
      stdout: '',
      stderr: [
        "hermes-mcp: the arguments do not fit the tool's input schema, so nothing was sent:",
        '  entities.0.entityType: required, and not given',
        '  entities.0.observations: required, and not given',
        '  depth: 0 is below the minimum 1',
        '',
      ].join('\n'),
    });
    // key:= JSON is not typed by the schema, but the whole is still checked; so is --args once words are given.
    expect(call(false, 'graph', 'entities:={"name":"Ada"}').stderr).toBe(
      'hermes-mcp: the arguments do not fit the tool\'s input schema, so nothing was sent:\n  entities: {"name":"Ada"} is not what it takes; entities takes array\n',
    );
    expect(call(false, 'graph', 'depth=2', '--args', '{"entities":[1,{"name":"Ada","entityType":"person","observations":[]},3,4]}')).toEqual({
      code: 2,
      stdout: '',
      stderr: [
        "hermes-mcp: the arguments do not fit the tool's input schema, so nothing was sent:",
        '  entities: has 4 items, and takes at most 3',
        '  entities.0: 1 is not what it takes; entities.0 takes object',
        '  entities.2: 3 is not what it takes; entities.2 takes object',
        '  entities.3: 4 is not what it takes; entities.3 takes object',
        '',
      ].join('\n'),
    });
    // A required property at the top; the branch of a oneOf the value comes closest to (a cat, by its kind).
    expect(call(false, 'loose', 'any=1')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('\n  given: required, and not given\n') });
    expect(call(false, 'nested', 'pet.kind=cat')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/:\n {2}pet\.lives: required, and not given\n$/) });
    // --args alone is sent as it is (no tools/list): the server's own validation answers.
    const raw = call(false, 'graph', '--args', '{"entities":{"0":{"name":"Ada"}}}');
    expect(raw).toMatchObject({ code: 1, stderr: expect.stringContaining('the tool answered with an error (isError)') });
  });
});

describe('coerceArguments: the check of the assembled arguments, keyword by keyword (schemas other servers publish)', () => {
  /** The problems listed for `words` against `schema` (none: []). */
  const problems = (schema: Record<string, unknown>, ...words: string[]): string[] => {
    try {
      coerceArguments(parseAssignments(words), { type: 'object', ...schema });
      return [];
    } catch (error) {
      if (!(error instanceof ArgumentError)) throw error;
      return error.message.split('\n').slice(1);
    }
  };

  it.each([
    ['minLength, maxLength (characters)', { properties: { s: { type: 'string', minLength: 2, maxLength: 3 } } }, ['s=é'], ['  s: "é" is shorter than 2 characters']],
    ['pattern', { properties: { s: { type: 'string', pattern: '^[a-z]+$' } } }, ['s=A1'], ['  s: "A1" does not match the pattern ^[a-z]+$']],
    ['exclusive bounds (2020-12)', { properties: { n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } } }, ['n=1'], ['  n: 1 is not below 1 (exclusiveMaximum)']],
    ['exclusive bounds (draft 4)', { properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } } }, ['n=0'], ['  n: 0 is below the exclusive minimum 0']],
    ['multipleOf', { properties: { n: { type: 'number', multipleOf: 0.1 } } }, ['n=0.3'], []],
    ['multipleOf, refused', { properties: { n: { type: 'integer', multipleOf: 5 } } }, ['n=7'], ['  n: 7 is not a multiple of 5']],
    [
      'minItems, uniqueItems',
      { properties: { a: { type: 'array', minItems: 3, uniqueItems: true } } },
      ['a=1', 'a=1'],
      ['  a: has 2 items, and takes at least 3', '  a: items 0 and 1 are the same (1), and its items must differ'],
    ],
    [
      'prefixItems, then items',
      { properties: { t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } } },
      ['t.0=a', 't.1:="x"'],
      ['  t.1: "x" is not what it takes; t.1 takes integer'],
    ],
    [
      'prefixItems: past them, items false',
      { properties: { t: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } },
      ['t:=["a",2]'],
      ['  t.1: 2 is not taken here: the schema takes nothing at t.1'],
    ],
    ['draft-07 tuple items, additionalItems', { properties: { t: { type: 'array', items: [{ type: 'integer' }], additionalItems: { type: 'string' } } } }, ['t.0=1', 't.1=2'], []],
    [
      'minProperties, propertyNames',
      { properties: { o: { type: 'object', minProperties: 2, propertyNames: { pattern: '^[a-z]+$' } } } },
      ['o.A=1'],
      ['  o: has 1 properties, and takes at least 2', '  o.A: the name "A" is not one the schema takes (propertyNames)'],
    ],
    [
      'dependentRequired',
      { properties: { card: { type: 'string' }, cvc: { type: 'string' } }, dependentRequired: { card: ['cvc'] } },
      ['card=1234'],
      ['  cvc: required with card, and not given'],
    ],
    [
      'additionalProperties as a schema',
      { properties: { o: { type: 'object', additionalProperties: { type: 'integer' } } } },
      ['o.a=1', 'o.b:="x"'],
      ['  o.b: "x" is not what it takes; o.b takes integer'],
    ],
    [
      'if / then / else',
      { properties: { kind: { type: 'string' }, size: {} }, if: { properties: { kind: { const: 'box' } } }, then: { required: ['size'] } },
      ['kind=box'],
      ['  size: required, and not given'],
    ],
    ['not', { properties: { s: { not: { const: 'root' } } } }, ['s=root'], ['  s: "root" is what the schema rules out: {"const":"root"}']],
    [
      'oneOf that two branches take',
      { properties: { n: { oneOf: [{ type: 'integer' }, { type: 'number' }] } } },
      ['n=1'],
      ['  n: 1 fits 2 of its oneOf branches (0, 1), where it must fit exactly one'],
    ],
    [
      'anyOf no branch of which takes the type',
      { properties: { n: { anyOf: [{ type: 'integer' }, { enum: ['a', 'b'] }] } } },
      ['n:=true'],
      ['  n: true is not what it takes; n takes integer or one of ["a","b"]'],
    ],
    [
      'a recursive $ref',
      {
        properties: { tree: { $ref: '#/$defs/Node' } },
        $defs: { Node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/Node' } }, v: { type: 'integer' } }, required: ['v'] } },
      },
      ['tree.v=1', 'tree.kids.0.v=2', 'tree.kids.1.v:="x"'],
      ['  tree.kids.1.v: "x" is not what it takes; tree.kids.1.v takes integer'],
    ],
    ['format is an annotation', { properties: { d: { type: 'string', format: 'date-time' } } }, ['d=yesterday'], []],
  ] as Array<[string, Record<string, unknown>, string[], string[]]>)('%s', (_name, schema, words, said) => {
    expect(problems(schema, ...words)).toEqual(said);
  });

  it('a schema that names "0" as a property takes tree.0 as that property, not an index', () => {
    expect(coerceArguments(parseAssignments(['o.0=a']), { type: 'object', properties: { o: { type: ['object', 'array'], properties: { '0': { type: 'string' } } } } })).toEqual({
      o: { '0': 'a' },
    });
  });
});
