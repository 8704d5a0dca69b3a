/**
 * The method table (src/methods.ts) against the official schemas (`test-support/mcp-schema`), and
 * against the packages that read it: a method named anywhere in core, client or opentelemetry has
 * a row.
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { MCP_METHODS, MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS, REVISIONS, SKILLS_EXTENSION, declaresCapability, mcpMethod, type ProtocolVersion } from '@hermes-mcp/protocol';

const ROOT = path.resolve(__dirname, '../../..');

interface Definition {
  properties?: Record<string, { const?: unknown }>;
  required?: string[];
}

/** The definitions of one revision's official schema. */
function definitions(version: ProtocolVersion): Record<string, Definition> {
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'test-support/mcp-schema', version, 'schema.json'), 'utf8')) as {
    definitions?: Record<string, Definition>;
    $defs?: Record<string, Definition>;
  };
  return schema.definitions ?? schema.$defs ?? {};
}

/** Every method of a revision's schema, with the name of the definition that has it (`CallToolRequest`). */
function schemaMethods(version: ProtocolVersion): Map<string, string> {
  const methods = new Map<string, string>();
  for (const [name, definition] of Object.entries(definitions(version))) {
    const method = definition.properties?.method?.const;
    if (typeof method === 'string' && /(Request|Notification)$/.test(name) && !methods.has(method)) methods.set(method, name);
  }
  return methods;
}

const SCHEMAS = new Map(PROTOCOL_VERSIONS.map((version) => [version, schemaMethods(version)] as const));

describe('the method table', () => {
  it.each(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const)(
    'has every method and notification of the official %s schema, of its kind',
    (version) => {
      const methods = SCHEMAS.get(version)!;
      expect(methods.size).toBeGreaterThan(10);
      for (const [method, definition] of methods) {
        expect({ method, row: mcpMethod(method) !== undefined }).toEqual({ method, row: true });
        expect({ method, kind: mcpMethod(method)!.kind }).toEqual({ method, kind: definition.endsWith('Notification') ? 'notification' : 'request' });
      }
    },
  );

  it("gives each method the revisions whose schema has it (a modern revision's extension methods: that revision; skills: 2025-11-25 and 2026-07-28)", () => {
    for (const row of MCP_METHODS.values()) {
      const expected = PROTOCOL_VERSIONS.filter(
        (version) =>
          SCHEMAS.get(version)!.has(row.name) || (row.extension !== undefined && REVISIONS[version].era === 'modern') || (row.extension === 'skills' && version === '2025-11-25'),
      );
      expect({ method: row.name, revisions: row.revisions }).toEqual({ method: row.name, revisions: expected });
      expect({ method: row.name, legacy: row.legacy, modern: row.modern }).toEqual({
        method: row.name,
        legacy: expected.some((version) => REVISIONS[version].era === 'legacy'),
        modern: expected.some((version) => REVISIONS[version].era === 'modern'),
      });
    }
  });

  it('marks cacheable exactly the modern requests whose result carries ttlMs and cacheScope', () => {
    for (const version of MODERN_PROTOCOL_VERSIONS) {
      const defs = definitions(version);
      for (const [method, definition] of SCHEMAS.get(version)!) {
        const result = defs[definition.replace(/Request$/, 'Result')];
        const cacheable = result?.required?.includes('ttlMs') === true && result.required.includes('cacheScope');
        expect({ method, cacheable: mcpMethod(method)!.cacheable === true }).toEqual({ method, cacheable });
      }
    }
  });

  it('names as result field one that every revision having the method requires of its result', () => {
    let checked = 0;
    for (const row of MCP_METHODS.values()) {
      if (!row.result || row.extension === 'skills') continue;
      for (const version of row.revisions) {
        const definition = SCHEMAS.get(version)!.get(row.name)!;
        const result = definitions(version)[definition.replace(/Request$/, 'Result')];
        expect({ method: row.name, version, required: result?.required?.includes(row.result.field) }).toEqual({ method: row.name, version, required: true });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('has the Skills methods (SEP-2640) in no official schema: server-declared, cacheable, no Mcp-Name, behind the extension capability', () => {
    const skills = [...MCP_METHODS.values()].filter((row) => row.extension === 'skills');
    expect(skills.map((row) => row.name).sort()).toEqual(['resources/directory/read', 'skills/get', 'skills/list']);
    for (const row of skills) {
      for (const version of PROTOCOL_VERSIONS)
        expect({ method: row.name, version, inSchema: SCHEMAS.get(version)!.has(row.name) }).toEqual({ method: row.name, version, inSchema: false });
      expect({ method: row.name, revisions: row.revisions, cacheable: row.cacheable, nameField: row.nameField, capability: row.capability?.slice(0, 2) }).toEqual({
        method: row.name,
        revisions: ['2025-11-25', '2026-07-28'],
        cacheable: true,
        nameField: undefined,
        capability: ['extensions', SKILLS_EXTENSION],
      });
    }
    expect(mcpMethod('resources/directory/read')!.capability).toEqual(['extensions', SKILLS_EXTENSION, 'directoryRead']);
    expect(mcpMethod('skills/list')!.result).toEqual({ field: 'skills', is: 'array' });
    expect(mcpMethod('skills/get')!.result).toEqual({ field: 'skill', is: 'object' });
    expect(mcpMethod('resources/directory/read')!.result).toEqual({ field: 'resources', is: 'array' });
    // The extension is declared by the server as a settings object: `{}` or `{ directoryRead: true }`.
    expect(declaresCapability({ extensions: { [SKILLS_EXTENSION]: {} } }, mcpMethod('skills/list')!.capability!)).toBe(true);
    expect(declaresCapability({ extensions: { [SKILLS_EXTENSION]: {} } }, mcpMethod('resources/directory/read')!.capability!)).toBe(false);
    expect(declaresCapability({ extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } }, mcpMethod('resources/directory/read')!.capability!)).toBe(true);
  });

  it('has Mcp-Name mirror a field of requests only', () => {
    for (const row of MCP_METHODS.values()) if (row.nameField) expect({ method: row.name, kind: row.kind }).toEqual({ method: row.name, kind: 'request' });
  });
});

describe('declaresCapability', () => {
  it('reads a capability (an object) or a flag (true) at its path, and nothing else', () => {
    expect(declaresCapability({ tools: {} }, ['tools'])).toBe(true);
    expect(declaresCapability({ resources: {} }, ['tools'])).toBe(false);
    expect(declaresCapability({ resources: { subscribe: true } }, ['resources', 'subscribe'])).toBe(true);
    expect(declaresCapability({ resources: { subscribe: false } }, ['resources', 'subscribe'])).toBe(false);
    expect(declaresCapability({ resources: {} }, ['resources', 'subscribe'])).toBe(false);
    expect(declaresCapability({}, ['resources', 'subscribe'])).toBe(false);
  });
});

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The string literals of a file that look like a method of a family the table has (`tools/…`, `notifications/…`). */
function methodLiterals(file: string, families: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const family = /^([a-z]+)\/[a-zA-Z_/]+$/.exec(node.text)?.[1];
      if (family !== undefined && families.has(family)) found.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  return found;
}

describe('the packages that read the table', () => {
  it('name no method in core, client or opentelemetry that the table lacks', () => {
    const families = new Set([...MCP_METHODS.keys()].filter((name) => name.includes('/')).map((name) => name.split('/')[0]));
    const unknown: string[] = [];
    let seen = 0;
    for (const pkg of ['core', 'client', 'opentelemetry', 'protocol']) {
      for (const file of sources(path.join(ROOT, 'packages', pkg, 'src'))) {
        for (const method of methodLiterals(file, families)) {
          seen++;
          if (!MCP_METHODS.has(method)) unknown.push(`${path.relative(ROOT, file)}: ${method}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(50);
    expect(unknown).toEqual([]);
  });
});
