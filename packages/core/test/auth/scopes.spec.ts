/**
 * Scopes on components, whatever the transport (here in memory, with the caller `ctx.auth` an
 * HTTP endpoint would have verified): `scopes` on @Tool/@Resource/@Prompt/@McpServer and
 * @RequireScopes on a class or method add up; a caller without them does not see the component
 * listed and is refused with -32012 (`data.requiredScopes`); a caller with them calls it; a caller
 * with no credentials at all (stdio) is refused the same way; scopes no token could carry are
 * refused at start-up.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { AuthInfo, McpFactory, McpServer, Prompt, RequireScopes, Resource, StdioTransport, Tool, createLogger } from '@hermes-mcp/core';
import { createTestClient } from '@hermes-mcp/testing';

class NoteInput {
  @IsString() text!: string;
}

@RequireScopes('notes:read')
class Notes {
  @Tool({ description: 'Lists notes' }) list() {
    return 'notes';
  }
  @RequireScopes('notes:admin')
  @Tool({ description: 'Deletes every note', scopes: ['notes:write'] })
  purge() {
    return 'purged';
  }
  @Resource({ uri: 'notes://all', description: 'All notes', scopes: ['notes:export'] }) all() {
    return 'everything';
  }
  @Prompt({ description: 'Summarises notes', scopes: ['notes:write'] }) summarise() {
    return 'Summarise the notes';
  }
}

@McpServer({ name: 'scoped', version: '1.0.0', components: [Notes], scopes: ['mcp'] })
class Scoped {
  @Tool({ description: 'Adds a note', scopes: ['notes:write'] }) add(input: NoteInput) {
    return `added ${input.text}`;
  }
}

@McpServer({ name: 'open', version: '1.0.0' })
class Open {
  @Tool({ description: 'Anyone' }) hello() {
    return 'hello';
  }
}

function caller(...scopes: string[]): AuthInfo {
  return { subject: 'ada', scopes };
}

describe.each(['legacy', 'modern'] as const)('scopes on components (%s)', (era) => {
  it('lists only what the caller’s scopes allow, and refuses the rest with -32012 naming every scope needed', async () => {
    const client = await createTestClient(Scoped, { era, auth: caller('mcp', 'notes:read') });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['list']);
    expect(await client.listResources()).toEqual([]);
    expect(await client.listPrompts()).toEqual([]);
    expect((await client.callTool('list')).content).toEqual([{ type: 'text', text: 'notes' }]);
    await expect(client.callTool('purge')).rejects.toMatchObject({
      code: -32012,
      message: 'Forbidden: the tool "purge" needs the scopes mcp notes:read notes:admin notes:write',
      data: { requiredScopes: ['mcp', 'notes:read', 'notes:admin', 'notes:write'] },
    });
    await expect(client.callTool('add', { text: 'x' })).rejects.toMatchObject({ code: -32012, data: { requiredScopes: ['mcp', 'notes:write'] } });
    await expect(client.readResource('notes://all')).rejects.toMatchObject({ code: -32012 });
    await expect(client.getPrompt('summarise')).rejects.toMatchObject({ code: -32012 });
    await client.close();
  });

  it('lets a caller with every scope see and call everything', async () => {
    const client = await createTestClient(Scoped, { era, auth: caller('mcp', 'notes:read', 'notes:write', 'notes:admin', 'notes:export') });
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['add', 'list', 'purge']);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['notes://all']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['summarise']);
    expect((await client.callTool('purge')).content).toEqual([{ type: 'text', text: 'purged' }]);
    expect((await client.readResource('notes://all')).contents).toEqual([{ uri: 'notes://all', text: 'everything' }]);
    await client.close();
  });

  it('refuses a caller with no credentials at all (stdio, in memory without auth)', async () => {
    const client = await createTestClient(Scoped, { era });
    expect(await client.listTools()).toEqual([]);
    await expect(client.callTool('list')).rejects.toMatchObject({ code: -32012 });
    await client.close();
  });
});

it('guards a tool added at run time with scopes', async () => {
  const app = McpFactory.create(Open, { logger: createLogger({ level: 'silent' }) });
  app.addTool({ name: 'secret', description: 'Needs a scope', scopes: ['vault'] }, () => 'opened');
  const without = await createTestClient(app, { auth: caller() });
  expect((await without.listTools()).map((t) => t.name)).toEqual(['hello']);
  await expect(without.callTool('secret')).rejects.toMatchObject({ code: -32012, data: { requiredScopes: ['vault'] } });
  await without.close();
  const withIt = await createTestClient(app, { auth: caller('vault') });
  expect((await withIt.callTool('secret')).content).toEqual([{ type: 'text', text: 'opened' }]);
  await withIt.close();
});

it('refuses at start-up a scope no token could carry', () => {
  expect(() => RequireScopes('has space')).toThrow(/scopes must be strings of printable ASCII/);
  @McpServer({ name: 'bad', version: '1.0.0' })
  class Bad {
    @Tool({ description: 'x', scopes: ['quote"d'] }) x() {
      return 'x';
    }
  }
  expect(() => McpFactory.create(Bad, { logger: createLogger({ level: 'silent' }) })).toThrow(expect.objectContaining({ code: 'HERMES_INVALID_OPTIONS' }));
});

describe('on stdio', () => {
  /** The scoped server on a StdioTransport over in-process streams; `call` sends one line and reads the answer. */
  async function stdioServer(auth?: AuthInfo) {
    const input = new PassThrough();
    const output = new PassThrough();
    const app = McpFactory.create(Scoped, { logger: createLogger({ level: 'silent' }) });
    await app.connect(new StdioTransport({ input, output, redirectConsole: false, ...(auth && { auth }) }));
    const lines = createInterface({ input: output });
    const answers: Array<Record<string, unknown>> = [];
    const waiting: Array<() => void> = [];
    lines.on('line', (line) => {
      answers.push(JSON.parse(line) as Record<string, unknown>);
      waiting.shift()?.();
    });
    let id = 0;
    const call = async (method: string, params: Record<string, unknown> = {}) => {
      const answered = new Promise<void>((resolve) => waiting.push(resolve));
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
      await answered;
      return answers[answers.length - 1];
    };
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return { call, close: () => app.close() };
  }

  it('refuses scoped components without an identity, and serves the identity `stdio.auth` gives', async () => {
    const anonymous = await stdioServer();
    expect(((await anonymous.call('tools/call', { name: 'list', arguments: {} })).error as { code: number }).code).toBe(-32012);
    await anonymous.close();
    const local = await stdioServer({ subject: 'local', scopes: ['mcp', 'notes:read'] });
    expect((await local.call('tools/call', { name: 'list', arguments: {} })).result).toMatchObject({ content: [{ type: 'text', text: 'notes' }] });
    expect(((await local.call('tools/list')).result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['list']);
    await local.close();
  });
});
