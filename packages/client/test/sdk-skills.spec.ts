/**
 * Skills (SEP-2640) across implementations, over Streamable HTTP on 127.0.0.1, in a legacy session
 * and in 2026-07-28: McpClient against the official SDK v2 skills server
 * (`SkillsExtension.load(memorySkillFiles(…))` attached to its `McpServer`, behind
 * `createMcpHandler`); the SDK v2 client (`Client` + `SkillsClient`) and McpClient against a
 * Hermes skills server (a folder of skills) on each HTTP adapter.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { McpFactory, McpServer, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { Client as SdkClient, StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createMcpHandler, McpServer as V2Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { McpClient, McpError, StreamableHttpClientTransport } from '@hermes-mcp/client';
import { closeServers, serveFetch } from './fixtures/http-servers';
import { ADAPTERS, Serving, serveOn } from '../../../test-support/adapters';
import { tempTree } from '../../../test-support/temp-tree';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1.0"\n---\n\nRead references/FORMS.md first.\n';
const FORMS_MD = '# Forms\n\nFill every field.\n';
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
const GIT_MD = '---\nname: git-workflow\ndescription: Branch, commit, rebase\nlicense: Apache-2.0\n---\nUse small commits.\n';

const servers: Server[] = [];
const clients: Array<{ close(): Promise<void> }> = [];
const servings: Serving[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await closeServers(servers);
  await Promise.all(servings.splice(0).map((serving) => serving.close()));
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

/** A folder of skills on disk: `record`'s files under a temp root. */
function skillsFolder(record: Record<string, string | Uint8Array>): string {
  return tempTree('hermes-sdk-skills-', record);
}

let hermesApps = 0;

/** A Hermes server serving {@link files} from a folder under the prefix `acme`, on `adapter`. */
async function hermesSkills(adapter: (typeof ADAPTERS)[number]): Promise<Serving> {
  @McpServer({ name: 'hermes-skills', version: '1.0.0', skills: { folders: [skillsFolder(files())], prefix: 'acme' } })
  class HermesSkills {}
  const app = McpFactory.create(HermesSkills, { logger: createLogger({ level: 'silent' }), container: isolatedContainer(`sdk-skills-${++hermesApps}`) });
  const serving = await serveOn(adapter, app);
  servings.push(serving);
  return serving;
}

const ERAS = [
  { era: '2025-11-25', mode: 'legacy' as const },
  { era: '2026-07-28', mode: { pin: '2026-07-28' } },
];

describe.each(ADAPTERS)('a Hermes skills server (%s)', (adapter) => {
  it.each(ERAS)('is read by the official SDK v2 client at $era: every entry valid, every file verified, its directories', async ({ era, mode }) => {
    const serving = await hermesSkills(adapter);
    const sdk = new SdkClient({ name: 'sdk-v2-client', version: '2.4.0' }, { versionNegotiation: { mode } });
    clients.push(sdk);
    await sdk.connect(new SdkHttpTransport(new URL(serving.url)));
    expect(sdk.getNegotiatedProtocolVersion()).toBe(era);
    const skills = new SkillsClient(sdk);
    expect([skills.supported, skills.directoryRead]).toEqual([true, true]);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((skill) => skill.uri)).toEqual(['skill://acme/git-workflow/SKILL.md', 'skill://acme/pdf-processing/SKILL.md']);
    for (const skill of listing.skills) {
      expect((await skills.get(skill.uri)).skill).toEqual(skill);
      for (const resource of skill.resources === 'dynamic' ? [] : skill.resources) expect((await skills.read(skill, resource.uri)).verified).toBe(true);
    }
    const manifest = await skills.read(listing.skills[1]);
    expect([manifest.text, manifest.frontmatter]).toEqual([
      SKILL_MD,
      { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { version: '2.1.0' } },
    ]);
    expect((await skills.readDirectory('skill://acme/pdf-processing')).resources.map((child) => [child.uri, child.mimeType])).toEqual([
      ['skill://acme/pdf-processing/SKILL.md', 'text/markdown'],
      ['skill://acme/pdf-processing/assets', 'inode/directory'],
      ['skill://acme/pdf-processing/references', 'inode/directory'],
    ]);
  });

  it.each(ERAS)('is read by McpClient at $era: loaded, every listed file verified, its directories', async ({ era }) => {
    const serving = await hermesSkills(adapter);
    const client = new McpClient(new StreamableHttpClientTransport({ url: serving.url }), { protocolVersion: era as '2025-11-25' | '2026-07-28' });
    clients.push(client);
    await client.connect();
    expect(client.protocolVersion).toBe(era);
    const [git, pdf] = await client.listAllSkills();
    expect(git.frontmatter).toEqual({ name: 'git-workflow', description: 'Branch, commit, rebase', license: 'Apache-2.0' });
    const loaded = await client.loadSkill(pdf);
    expect(loaded.manifest.text).toBe(SKILL_MD);
    const read = await Promise.all(loaded.files.map((file) => loaded.read(file)));
    expect(read.map((file) => [file.uri, file.verified, file.mimeType])).toEqual([
      ['skill://acme/pdf-processing/assets/logo.png', true, 'image/png'],
      ['skill://acme/pdf-processing/references/FORMS.md', true, 'text/markdown'],
    ]);
    expect(Buffer.from(read[0].bytes)).toEqual(Buffer.from(LOGO));
    expect((await client.readSkillDirectory('skill://acme/pdf-processing/references')).map((child) => child.uri)).toEqual(['skill://acme/pdf-processing/references/FORMS.md']);
  });
});
