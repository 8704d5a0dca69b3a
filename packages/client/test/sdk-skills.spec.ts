/**
 * Skills (SEP-2640) across implementations, over Streamable HTTP on 127.0.0.1: McpClient against
 * the official SDK v2 skills server (`SkillsExtension.load(memorySkillFiles(…))` attached to its
 * `McpServer`, behind `createMcpHandler`) in a legacy session and in 2026-07-28.
 */
import type { Server } from 'node:http';
import { createMcpHandler, McpServer as V2Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { McpClient, McpError, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { closeServers, serveFetch } from './fixtures/http-servers';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1.0"\n---\n\nRead references/FORMS.md first.\n';
const FORMS_MD = '# Forms\n\nFill every field.\n';
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
const GIT_MD = '---\nname: git-workflow\ndescription: Branch, commit, rebase\nlicense: Apache-2.0\n---\nUse small commits.\n';

const servers: Server[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await closeServers(servers);
});

/** The SDK's skills server over the files of `record` (changed later by the test), and a client of it. */
async function sdkSkills(
  protocolVersion: '2025-11-25' | '2026-07-28',
  record: Record<string, string | Uint8Array>,
  cacheHint?: { ttlMs: number; cacheScope: 'public' | 'private' },
): Promise<{ client: McpClient; handler: McpHttpHandler; catalog: Awaited<ReturnType<typeof SkillsExtension.load>> }> {
  const catalog = await SkillsExtension.load(memorySkillFiles(record), {
    onWarning: (warning) => {
      throw new Error(`${warning.path}: ${warning.message}`);
    },
    ...(cacheHint && { cacheHint }),
  });
  const handler = createMcpHandler(() => {
    const server = new V2Server({ name: 'sdk-v2-skills', version: '2.0.0' });
    catalog.attach(server);
    return server;
  });
  const { server, origin } = await serveFetch(handler);
  servers.push(server);
  const client = new McpClient(new StreamableHttpClientTransport({ url: `${origin}/mcp` }), { protocolVersion });
  clients.push(client);
  await client.connect();
  return { client, handler, catalog };
}

function files(): Record<string, string | Uint8Array> {
  return { 'pdf-processing/SKILL.md': SKILL_MD, 'pdf-processing/references/FORMS.md': FORMS_MD, 'pdf-processing/assets/logo.png': LOGO, 'git-workflow/SKILL.md': GIT_MD };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('McpClient and the official SDK v2 skills server, at %s', (era) => {
  it('lists, gets, loads and reads every file verified, and reads the skill’s directories', async () => {
    const { client } = await sdkSkills(era, files());
    expect([client.era, client.supportsSkills]).toEqual([era === '2026-07-28' ? 'modern' : 'legacy', true]);
    const skills = await client.listAllSkills();
    expect(skills.map((skill) => [skill.uri, skill.frontmatter])).toEqual([
      ['skill://git-workflow/SKILL.md', { name: 'git-workflow', description: 'Branch, commit, rebase', license: 'Apache-2.0' }],
      ['skill://pdf-processing/SKILL.md', { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { version: '2.1.0' } }],
    ]);
    const pdf = skills[1];
    expect((await client.getSkill(pdf.uri)).skill).toEqual(pdf);

    const loaded = await client.loadSkill(pdf);
    expect(loaded.manifest).toMatchObject({ text: SKILL_MD, verified: true, body: '\nRead references/FORMS.md first.\n' });
    expect(loaded.files).toEqual(['skill://pdf-processing/assets/logo.png', 'skill://pdf-processing/references/FORMS.md']);
    expect((await loaded.read('references/FORMS.md')).text).toBe(FORMS_MD);
    const logo = await loaded.read('assets/logo.png');
    expect([logo.verified, logo.text, Buffer.from(logo.bytes)]).toEqual([true, undefined, Buffer.from(LOGO)]);

    expect((await client.readSkillDirectory('skill://pdf-processing')).map((child) => [child.uri, child.mimeType])).toEqual([
      ['skill://pdf-processing/SKILL.md', 'text/markdown'],
      ['skill://pdf-processing/assets', 'inode/directory'],
      ['skill://pdf-processing/references', 'inode/directory'],
    ]);
  });

  it('passes on the SDK’s -32603 for a file changed after its catalog was loaded, and its -32602 for an unknown skill', async () => {
    const record = files();
    const { client } = await sdkSkills(era, record);
    const [, pdf] = await client.listAllSkills();
    const loaded = await client.loadSkill(pdf);
    record['pdf-processing/references/FORMS.md'] = '# Forms, changed\n';
    await expect(loaded.read('references/FORMS.md')).rejects.toMatchObject({ code: -32603 });
    const unknown = await client.getSkill('skill://nothing-here/SKILL.md').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
  });
});

it('reads skills/list again, not from its cache, once the SDK server says its resources changed (2026-07-28, listen)', async () => {
  const record = files();
  const { client, handler, catalog } = await sdkSkills('2026-07-28', record, { ttlMs: 600_000, cacheScope: 'private' });
  expect((await client.listAllSkills()).map((skill) => skill.frontmatter.name)).toEqual(['git-workflow', 'pdf-processing']);
  record['csv-cleaning/SKILL.md'] = '---\nname: csv-cleaning\ndescription: Tidy CSV files\n---\n';
  // Until the client hears of the change, its cached page stands.
  expect((await client.listAllSkills()).map((skill) => skill.frontmatter.name)).toEqual(['git-workflow', 'pdf-processing']);
  const heard = (async () => {
    for await (const notification of client.listen({ resourcesListChanged: true })) {
      if (notification.method === 'notifications/subscriptions/acknowledged') {
        if ((await catalog.reload()).listChanged) handler.notify.resourcesChanged();
      } else return notification.method;
    }
  })();
  expect(await heard).toBe('notifications/resources/list_changed');
  expect((await client.listAllSkills()).map((skill) => skill.frontmatter.name)).toEqual(['csv-cleaning', 'git-workflow', 'pdf-processing']);
});
