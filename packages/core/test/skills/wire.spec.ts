/**
 * Skills on the wire, in both eras (MCP 2025-11-25 through initialize, 2026-07-28 stateless):
 * the declaration, skills/list pages, skills/get, resources/directory/read, the skill files through
 * resources/read and resources/list, the errors each method gives, cache hints only where the
 * revision has them, traversal spellings that reach nothing, a file changed on disk, and reload's
 * list_changed.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { McpFactory, McpServer, SKILLS_EXTENSION, isolatedContainer, type McpApp, type SkillsOptions } from '@hermes-mcp/core';
import { McpError, type Skill } from '@hermes-mcp/protocol';
import { createTestClient, type TestClient } from '@hermes-mcp/testing';
import { capturingLogger } from '../../../../test-support/hardening';
import { tempTree } from '../../../../test-support/temp-tree';

const md = (name: string, description = `The ${name} skill`) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);

/** A temp skills folder: `refunds` (with a subfolder) under `billing`, and `pdf` with a binary file. */
function skillsFolder(): string {
  return tempTree('hermes-skills-wire-', {
    'billing/refunds/SKILL.md': md('refunds'),
    'billing/refunds/examples/email.md': 'Dear customer',
    'pdf/SKILL.md': md('pdf'),
    'pdf/assets/logo.png': PNG,
    'pdf/scripts/extract.py': 'print(1)\n',
  });
}

let apps = 0;

function app(skills: string | SkillsOptions | undefined, pageSize?: number) {
  @McpServer({ name: 'skills', version: '1.0.0', skills })
  class SkillsServer {}
  const { logger, lines } = capturingLogger('warn');
  return { app: McpFactory.create(SkillsServer, { logger, container: isolatedContainer(`wire-${++apps}`), pageSize }), lines };
}

/** The JSON-RPC error code a request fails with. */
async function codeOf(pending: Promise<unknown>): Promise<number> {
  try {
    await pending;
  } catch (error) {
    if (error instanceof McpError) return error.code;
    throw error;
  }
  throw new Error('the request succeeded');
}

const ERAS = [
  { label: '2025-11-25', options: { era: 'legacy', protocolVersion: '2025-11-25' }, resourceNotFound: -32002 },
  { label: '2026-07-28', options: { era: 'modern' }, resourceNotFound: -32602 },
] as const;

describe.each(ERAS)('skills on $label', ({ label, options, resourceNotFound }) => {
  let root: string;
  let served: McpApp;
  let lines: ReturnType<typeof capturingLogger>['lines'];
  let client: TestClient;

  beforeAll(async () => {
    root = skillsFolder();
    ({ app: served, lines } = app({ folders: root, prefix: 'acme', cache: { ttlMs: 60_000, cacheScope: 'public' } }, 1));
    client = await createTestClient(served, options);
  });
  afterAll(() => client.close());

  it('declares the extension with directoryRead', () => {
    expect(client.serverCapabilities.extensions).toMatchObject({ [SKILLS_EXTENSION]: { directoryRead: true } });
    expect(client.serverCapabilities.resources).toBeDefined();
  });

  it('lists whole entries a page at a time (pageSize 1), and refuses an edited cursor', async () => {
    const first = await client.request('skills/list');
    expect(first.skills).toEqual([served.skills.entries[0]]);
    expect(typeof first.nextCursor).toBe('string');
    const second = await client.request('skills/list', { cursor: first.nextCursor });
    expect(second.skills).toEqual([served.skills.entries[1]]);
    expect(second.nextCursor).toBeUndefined();
    expect(served.skills.entries.map((skill) => skill.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://acme/pdf/SKILL.md']);
    expect(await codeOf(client.request('skills/list', { cursor: `${String(first.nextCursor)}x` }))).toBe(-32602);
  });

  it(`puts the cache hints on skills results only in ${label === '2026-07-28' ? 'this era' : 'the modern era'}`, async () => {
    const result = await client.request('skills/get', { uri: 'skill://acme/pdf/SKILL.md' });
    if (label === '2026-07-28') expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public', resultType: 'complete' });
    else expect(Object.keys(result).filter((key) => key === 'ttlMs' || key === 'cacheScope' || key === 'resultType')).toEqual([]);
  });

  it('gets a skill by the URI of its SKILL.md, -32602 for any other', async () => {
    const { skill } = (await client.request('skills/get', { uri: 'skill://acme/pdf/SKILL.md' })) as { skill: Skill };
    expect(skill).toEqual(served.skills.entries[1]);
    expect(skill.resources).toContainEqual({ uri: 'skill://acme/pdf/assets/logo.png', digest: `sha256:${createHash('sha256').update(PNG).digest('hex')}`, size: PNG.length });
    expect(await codeOf(client.request('skills/get', { uri: 'skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md' }))).toBe(-32602);
    expect(await codeOf(client.request('skills/get', { uri: 'skill://acme/pdf' }))).toBe(-32602);
    expect(await codeOf(client.request('skills/get', {}))).toBe(-32602);
  });

  it('reads a skill root and a folder in it (subfolders as inode/directory), -32602 for a file, a trailing slash or a prefix folder', async () => {
    // pageSize 1 pages directories too: walk them.
    const children: unknown[] = [];
    let cursor: unknown;
    do {
      const page = await client.request('resources/directory/read', { uri: 'skill://acme/pdf', ...(cursor !== undefined && { cursor }) });
      children.push(...(page.resources as unknown[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(children).toEqual([
      { uri: 'skill://acme/pdf/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(md('pdf')) },
      { uri: 'skill://acme/pdf/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://acme/pdf/scripts', name: 'scripts', mimeType: 'inode/directory' },
    ]);
    const scripts = await client.request('resources/directory/read', { uri: 'skill://acme/pdf/scripts' });
    expect(scripts.resources).toEqual([{ uri: 'skill://acme/pdf/scripts/extract.py', name: 'extract.py', mimeType: 'text/x-python', size: 9 }]);
    for (const uri of ['skill://acme/pdf/SKILL.md', 'skill://acme/pdf/', 'skill://acme', 'skill://acme/billing']) {
      expect({ uri, code: await codeOf(client.request('resources/directory/read', { uri })) }).toEqual({ uri, code: -32602 });
    }
  });

  it('serves the files through resources/read: text, binary as a blob, a directory refused', async () => {
    const skillMd = await client.readResource('skill://acme/pdf/SKILL.md');
    expect(skillMd.contents).toEqual([{ uri: 'skill://acme/pdf/SKILL.md', mimeType: 'text/markdown', text: md('pdf') }]);
    const logo = await client.readResource('skill://acme/pdf/assets/logo.png');
    expect(logo.contents).toEqual([{ uri: 'skill://acme/pdf/assets/logo.png', mimeType: 'image/png', blob: PNG.toString('base64') }]);
    expect(await codeOf(client.readResource('skill://acme/pdf/assets'))).toBe(resourceNotFound);
  });

  it('lists each SKILL.md in resources/list with its name, description and MIME type', async () => {
    const resources = await client.listResources();
    expect(resources).toEqual(
      expect.arrayContaining([
        { uri: 'skill://acme/billing/refunds/SKILL.md', name: 'refunds', description: 'The refunds skill', mimeType: 'text/markdown', size: Buffer.byteLength(md('refunds')) },
        { uri: 'skill://acme/pdf/SKILL.md', name: 'pdf', description: 'The pdf skill', mimeType: 'text/markdown', size: Buffer.byteLength(md('pdf')) },
      ]),
    );
  });

  it('reaches nothing outside the catalog, whatever the spelling (.., %2e%2e, %2F, backslash, NUL, file:)', async () => {
    const sneaky = [
      'skill://acme/pdf/../../../../etc/passwd',
      'skill://acme/pdf/%2e%2e/%2e%2e/etc/passwd',
      'skill://acme/pdf/scripts%2Fextract.py',
      'skill://acme/pdf\\scripts\\extract.py',
      'skill://acme/pdf/scripts/extract.py%00.md',
      `file://${path.join(root, 'pdf/SKILL.md')}`,
      path.join(root, 'pdf/SKILL.md'),
    ];
    for (const uri of sneaky) {
      expect({ uri, read: await codeOf(client.readResource(uri)) }).toEqual({ uri, read: resourceNotFound });
      expect({ uri, get: await codeOf(client.request('skills/get', { uri })) }).toEqual({ uri, get: -32602 });
      expect({ uri, dir: await codeOf(client.request('resources/directory/read', { uri })) }).toEqual({ uri, dir: -32602 });
    }
  });

  it('resolves dot segments as any URI does (RFC 3986 §5.2.4), inside the catalog: a .. that climbs out of a skill names another entry, or none', async () => {
    const probe = async (uri: string) => {
      try {
        const read = await client.readResource(uri);
        return { uri: read.contents[0]?.uri };
      } catch (error) {
        return { code: (error as { code?: number }).code };
      }
    };
    expect({
      inside: await probe('skill://acme/pdf/scripts/../SKILL.md'),
      encoded: await probe('skill://acme/pdf/scripts/%2e%2e/SKILL.md'),
      beyond: await probe('skill://acme/pdf/../../../../etc/passwd'),
    }).toEqual({ inside: { uri: 'skill://acme/pdf/SKILL.md' }, encoded: { uri: 'skill://acme/pdf/SKILL.md' }, beyond: { code: resourceNotFound } });
  });

  it('refuses a file changed on disk since the catalog was built (-32603), with a HERMES_SKILL_CHANGED line', async () => {
    writeFileSync(path.join(root, 'billing/refunds/examples/email.md'), 'Dear customer, changed');
    expect(await codeOf(client.readResource('skill://acme/billing/refunds/examples/email.md'))).toBe(-32603);
    expect(lines.filter((line) => line.code === 'HERMES_SKILL_CHANGED')).toHaveLength(1);
  });
});

describe('skills where they are not offered', () => {
  it('are not declared below 2025-11-25, and their methods are -32601 there', async () => {
    const client = await createTestClient(app(skillsFolder()).app, { era: 'legacy', protocolVersion: '2025-06-18' });
    try {
      expect(client.serverCapabilities.extensions).toBeUndefined();
      expect(await codeOf(client.request('skills/list'))).toBe(-32601);
      expect(await codeOf(client.request('resources/directory/read', { uri: 'skill://pdf' }))).toBe(-32601);
    } finally {
      await client.close();
    }
  });

  it.each(ERAS)('are -32601 on $label from a server without the option, and directory reads without directoryRead', async ({ options }) => {
    const none = await createTestClient(app(undefined).app, options);
    const noDirs = await createTestClient(app({ folders: skillsFolder(), directoryRead: false }).app, options);
    try {
      expect(Object.keys(none.serverCapabilities.extensions ?? {})).not.toContain(SKILLS_EXTENSION);
      expect(await codeOf(none.request('skills/list'))).toBe(-32601);
      expect(noDirs.serverCapabilities.extensions).toMatchObject({ [SKILLS_EXTENSION]: {} });
      expect(await codeOf(noDirs.request('resources/directory/read', { uri: 'skill://pdf' }))).toBe(-32601);
      expect((await noDirs.request('skills/list')).skills).toHaveLength(2);
    } finally {
      await none.close();
      await noDirs.close();
    }
  });
});

describe('app.skills.reload', () => {
  it('swaps the catalog and sends resources/list_changed when the listing changed, not for a content-only change', async () => {
    const root = skillsFolder();
    const { app: served } = app(root);
    const client = await createTestClient(served, { era: 'legacy', protocolVersion: '2025-11-25' });
    const changes = () => client.notifications.filter((n) => n.method === 'notifications/resources/list_changed').length;
    try {
      writeFileSync(path.join(root, 'pdf/scripts/extract.py'), 'print(2)\n');
      expect(await served.skills.reload()).toEqual({ added: [], removed: [], changed: ['skill://pdf/SKILL.md'], listChanged: false });
      mkdirSync(path.join(root, 'git'));
      writeFileSync(path.join(root, 'git/SKILL.md'), md('git'));
      expect(await served.skills.reload()).toEqual({ added: ['skill://git/SKILL.md'], removed: [], changed: [], listChanged: true });
      await client.request('ping');
      expect(changes()).toBe(1);
      expect(((await client.request('skills/list')).skills as Skill[]).map((skill) => skill.uri)).toContain('skill://git/SKILL.md');
      expect((await client.readResource('skill://pdf/scripts/extract.py')).contents).toEqual([
        { uri: 'skill://pdf/scripts/extract.py', mimeType: 'text/x-python', text: 'print(2)\n' },
      ]);
    } finally {
      await client.close();
    }
  });
});
