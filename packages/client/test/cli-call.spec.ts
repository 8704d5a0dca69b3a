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
    expect(call(false, 'nope', 'a=1')).toMatchObject({ code: 1, stderr: 'hermes-mcp: the server has no tool nope (it has: scalars, choices, lists, nested, converted, loose)\n' });
  });
});
