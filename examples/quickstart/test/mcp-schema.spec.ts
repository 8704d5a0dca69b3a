/**
 * The referee refereed: the schema validator used by the e2e suite must accept what the revision
 * allows and catch what it does not, or a green e2e run would prove nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LEGACY_REVISIONS, loadModernSchema, loadSchemas, validateServerMessage } from '../../../test-support/mcp-schema';

const schemas = loadSchemas();

// A clone runs every test: the referee is part of the repository, never looked up beside it.
describe('the official MCP schemas', () => {
  const repository = path.resolve(__dirname, '../../..');
  const inRepository = (file: string) => !path.relative(repository, file).startsWith('..');

  it('are in the repository, one per revision (test-support/mcp-schema)', () => {
    expect([...schemas.revisions.keys()]).toEqual([...LEGACY_REVISIONS]);
    for (const schema of [...schemas.revisions.values(), loadModernSchema()])
      expect({ file: schema.file, inRepository: inRepository(schema.file) }).toEqual({ file: schema.file, inRepository: true });
  });

  it('fail the suite that needs one when it is missing, naming the file (no test is skipped for want of it)', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-mcp-schema-'));
    expect(() => loadSchemas(['2025-06-18'], empty)).toThrow(`${path.join(empty, '2025-06-18', 'schema.json')} does not exist`);
    expect(() => loadModernSchema(empty)).toThrow(`${path.join(empty, '2026-07-28', 'schema.json')} does not exist`);
  });
});

const asked = new Map<string | number, string>([
  [1, 'tools/list'],
  [2, 'tools/call'],
  [3, 'initialize'],
  [4, 'ping'],
  [5, 'resources/read'],
  [6, 'prompts/list'],
]);

const tool = { name: 'add', description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } };

describe('validateServerMessage', () => {
  const schema = (revision: '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25') => schemas.revisions.get(revision)!;

  it('accepts valid results, notifications and errors', () => {
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const) {
      const s = schema(revision);
      expect(validateServerMessage(s, { jsonrpc: '2.0', id: 1, result: { tools: [tool] } }, asked)).toEqual([]);
      expect(validateServerMessage(s, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }], isError: true } }, asked)).toEqual([]);
      expect(validateServerMessage(s, { jsonrpc: '2.0', id: 4, result: {} }, asked)).toEqual([]);
      expect(validateServerMessage(s, { jsonrpc: '2.0', id: 5, error: { code: -32002, message: 'Resource not found', data: { uri: 'x://y' } } }, asked)).toEqual([]);
      expect(validateServerMessage(s, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1, total: 2 } }, asked)).toEqual([]);
      expect(validateServerMessage(s, { jsonrpc: '2.0', id: 6, result: { prompts: [{ name: 'p', arguments: [{ name: 'a', required: false }] }] } }, asked)).toEqual([]);
    }
  });

  it('checks a result against the result type of the method that was asked', () => {
    const violations = validateServerMessage(schema('2025-06-18'), { jsonrpc: '2.0', id: 1, result: { content: [] } }, asked);
    expect(violations.join('\n')).toMatch(/ListToolsResult.*tools/);
    expect(validateServerMessage(schema('2025-06-18'), { jsonrpc: '2.0', id: 99, result: {} }, asked)).toEqual(['result 99 (unknown request): answers no request the client sent']);
    const init = validateServerMessage(schema('2024-11-05'), { jsonrpc: '2.0', id: 3, result: { protocolVersion: '2024-11-05', capabilities: {} } }, asked);
    expect(init.join('\n')).toContain('serverInfo');
  });

  it('catches fields a revision lacks, however deep', () => {
    const old = schema('2024-11-05');
    expect(validateServerMessage(old, { jsonrpc: '2.0', id: 1, result: { tools: [{ ...tool, title: 'Add', annotations: { readOnlyHint: true } }] } }, asked)).toEqual([
      'result 1 (tools/list): result.tools[0].title is not a field of this object in 2024-11-05',
      'result 1 (tools/list): result.tools[0].annotations is not a field of this object in 2024-11-05',
    ]);
    expect(validateServerMessage(old, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{}' }], structuredContent: {} } }, asked)).toEqual([
      'result 2 (tools/call): result.structuredContent is not a field of this object in 2024-11-05',
    ]);
    expect(validateServerMessage(old, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1, message: 'half' } }, asked)).toEqual([
      'notification notifications/progress: params.message is not a field of this object in 2024-11-05',
    ]);
    expect(validateServerMessage(old, { jsonrpc: '2.0', id: 6, result: { prompts: [{ name: 'p', arguments: [{ name: 'a', title: 'A' }] }] } }, asked)).toEqual([
      'result 6 (prompts/list): result.prompts[0].arguments[0].title is not a field of this object in 2024-11-05',
    ]);
    expect(
      validateServerMessage(
        schema('2025-06-18'),
        { jsonrpc: '2.0', id: 3, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1', icons: [] } } },
        asked,
      ),
    ).toEqual(['result 3 (initialize): result.serverInfo.icons is not a field of this object in 2025-06-18']);
    // Content blocks are told apart by their type: audio does not exist in 2024-11-05.
    const audio = validateServerMessage(old, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }] } }, asked);
    expect(audio.length).toBeGreaterThan(0);
    // JSON Schemas inside a tool are open by design and not checked key by key.
    expect(
      validateServerMessage(old, { jsonrpc: '2.0', id: 1, result: { tools: [{ ...tool, inputSchema: { ...tool.inputSchema, additionalProperties: false } }] } }, asked),
    ).toEqual([]);
  });

  it('checks envelopes: ids, batches, unknown notifications', () => {
    const nullId = validateServerMessage(schema('2025-06-18'), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, asked);
    expect(nullId.length).toBeGreaterThan(0);
    expect(validateServerMessage(schema('2025-06-18'), [{ jsonrpc: '2.0', id: 4, result: {} }], asked)).toEqual(['a batch array was sent, but 2025-06-18 has no JSON-RPC batches']);
    expect(validateServerMessage(schema('2025-03-26'), [{ jsonrpc: '2.0', id: 4, result: {} }], asked)).toEqual([]);
    expect(validateServerMessage(schema('2025-03-26'), { jsonrpc: '2.0', method: 'notifications/bogus' }, asked)).toEqual([
      'notification notifications/bogus: no definition is known for notifications/bogus',
    ]);
    expect(validateServerMessage(schema('2025-03-26'), { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'x' } }, asked)).toEqual([
      'notification notifications/elicitation/complete: 2025-03-26 has no ElicitationCompleteNotification',
    ]);
    expect(validateServerMessage(schema('2025-11-25'), { jsonrpc: '1.0', id: 4, result: {} }, asked).length).toBeGreaterThan(0);
  });
});
