/**
 * McpClient's Skills extension (SEP-2640): entries checked as listed, files verified as read —
 * listed, size, digest, frontmatter — and nothing read ahead of need, against a server written by
 * hand (fixtures/skills-server.ts) that serves what no honest server would, in a legacy session
 * and in 2026-07-28.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Server } from 'node:http';
import { McpClient, McpError, SkillVerificationError, StreamableHttpClientTransport } from '@hermes-mcp/client';
import type { Skill } from '@hermes-mcp/protocol';
import { closeServers } from './fixtures/http-servers';
import { SkillsEra, SkillsServer, digestOf, entryOf, skillsServer } from './fixtures/skills-server';

const SKILL = 'skill://acme/pdf-processing/SKILL.md';
const FORMS = 'skill://acme/pdf-processing/references/FORMS.md';
const LOGO = 'skill://acme/pdf-processing/assets/logo.png';
const FRONTMATTER = { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { version: '2.1' } };
const MARKDOWN = `---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1"\n---\n\nUse references/FORMS.md.\n`;
const FORMS_MD = 'Form fields.\n';
/** Bytes that are not UTF-8: served as a blob. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]);

const servers: Server[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await closeServers(servers);
});

/** The honest skill: SKILL.md, FORMS.md and a binary file, its entry listing all three. */
function honest(): { skills: unknown[]; files: Map<string, string | Buffer> } {
  const files = { [SKILL]: MARKDOWN, [FORMS]: FORMS_MD, [LOGO]: PNG };
  return { skills: [entryOf(SKILL, FRONTMATTER, files)], files: new Map(Object.entries(files)) };
}

async function connected(era: SkillsEra, data: Parameters<typeof skillsServer>[1] = honest()): Promise<{ client: McpClient; served: SkillsServer }> {
  const served = await skillsServer(era, data);
  servers.push(served.server);
  const client = new McpClient(new StreamableHttpClientTransport({ url: served.url }), { protocolVersion: era });
  clients.push(client);
  await client.connect();
  return { client, served };
}

/** What `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<SkillVerificationError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof SkillVerificationError)) throw new Error(`expected a SkillVerificationError, got ${String(error)}`);
  return error;
}

describe.each(['2025-11-25', '2026-07-28'] as const)('the Skills extension, at %s', (era) => {
  it('lists and gets skills reading no file; loading reads SKILL.md only; a listed file is read when asked, verified', async () => {
    const { client, served } = await connected(era);
    expect(client.supportsSkills).toBe(true);
    const skills = await client.listAllSkills();
    expect(skills).toEqual(honest().skills);
    expect((await client.getSkill(SKILL)).skill).toEqual(honest().skills[0]);
    expect(served.reads()).toEqual([]);

    const loaded = await client.loadSkill(skills[0]);
    expect(served.reads()).toEqual([SKILL]);
    expect(loaded.manifest).toMatchObject({ uri: SKILL, verified: true, text: MARKDOWN, frontmatter: FRONTMATTER, body: '\nUse references/FORMS.md.\n' });
    expect(loaded.files).toEqual([FORMS, LOGO]);

    const forms = await loaded.read('references/FORMS.md');
    expect(forms).toMatchObject({ uri: FORMS, verified: true, text: FORMS_MD });
    const logo = await loaded.read(LOGO);
    expect([logo.verified, logo.text, Buffer.from(logo.bytes)]).toEqual([true, undefined, PNG]);
    expect(served.reads()).toEqual([SKILL, FORMS, LOGO]);
  });

  it('refuses a SKILL.md whose size differs from its entry’s, and reads nothing more of the skill', async () => {
    const data = honest();
    data.files.set(SKILL, `${MARKDOWN}extra bytes the entry did not account for\n`);
    const { client, served } = await connected(era, data);
    const [skill] = await client.listAllSkills();
    const error = await refusal(client.loadSkill(skill));
    expect([error.reason, error.uri, error.code]).toEqual(['size', SKILL, 'SKILL_VERIFICATION']);
    expect(error.message).toBe(`${SKILL} failed verification (size): ${Buffer.byteLength(data.files.get(SKILL)!)} bytes; the entry lists ${Buffer.byteLength(MARKDOWN)}`);
    expect(served.reads()).toEqual([SKILL]);
  });

  it('refuses a file whose bytes differ from its entry’s digest, at the same size', async () => {
    const data = honest();
    data.files.set(FORMS, FORMS_MD.replace('Form', 'Evil'));
    const { client } = await connected(era, data);
    const loaded = await client.loadSkill((await client.listAllSkills())[0]);
    const error = await refusal(loaded.read('references/FORMS.md'));
    expect(error.reason).toBe('digest');
    expect(error.message).toContain(`the entry lists ${digestOf(FORMS_MD)}`);
  });

  it('refuses a SKILL.md whose frontmatter differs from its entry’s, even with digest and size made to match', async () => {
    const data = honest();
    const tampered = MARKDOWN.replace('description: Extract, fill, and assemble PDF documents', 'description: Exfiltrate credentials');
    data.files.set(SKILL, tampered);
    data.skills = [entryOf(SKILL, FRONTMATTER, { [SKILL]: tampered, [FORMS]: FORMS_MD })];
    const { client, served } = await connected(era, data);
    const error = await refusal(client.loadSkill((await client.listAllSkills())[0]));
    expect(error.reason).toBe('frontmatter');
    expect(error.differences).toEqual(['description: the entry has "Extract, fill, and assemble PDF documents", SKILL.md has "Exfiltrate credentials"']);
    expect(served.reads()).toEqual([SKILL]);
  });

  it('refuses a SKILL.md whose frontmatter is not YAML, or has a key twice', async () => {
    for (const block of ['name: [pdf-processing', 'name: pdf-processing\nname: pdf-processing\ndescription: d']) {
      const markdown = `---\n${block}\n---\nbody\n`;
      const data = { skills: [entryOf(SKILL, FRONTMATTER, { [SKILL]: markdown })], files: new Map([[SKILL, markdown]]) };
      const { client } = await connected(era, data);
      const error = await refusal(client.loadSkill(data.skills[0]));
      expect([error.reason, error.message]).toEqual(['frontmatter', expect.stringContaining('its frontmatter is not YAML')]);
    }
  });

  it('refuses, unsent, a file the held entry does not list — even one the server serves, or one outside the skill', async () => {
    const data = honest();
    data.files.set('skill://acme/pdf-processing/secrets.md', 'secret');
    data.files.set('skill://acme/other/SKILL.md', 'other');
    const { client, served } = await connected(era, data);
    const loaded = await client.loadSkill((await client.listAllSkills())[0]);
    for (const ref of ['secrets.md', '../other/SKILL.md', 'skill://acme/other/SKILL.md', '%2e%2e/other/SKILL.md']) {
      const error = await refusal(loaded.read(ref));
      expect([ref, error.reason]).toEqual([ref, 'unlisted']);
    }
    expect(served.reads()).toEqual([SKILL]);
  });

  it('finds a listed file however either side percent-encodes its name, and ignores a fragment', async () => {
    const odd = 'skill://acme/pdf-processing/Q%26A.md';
    const files = { [SKILL]: MARKDOWN, [odd]: 'answers' };
    const { client, served } = await connected(era, { skills: [entryOf(SKILL, FRONTMATTER, files)], files: new Map(Object.entries(files)) });
    const loaded = await client.loadSkill((await client.listAllSkills())[0]);
    expect((await loaded.read('Q&A.md#top')).text).toBe('answers');
    expect(served.reads()).toEqual([SKILL, odd]);
  });

  it('fails a listing with an entry that breaks the rules, naming it; skipInvalid leaves it out and names it', async () => {
    const data = honest();
    const wrongName = { ...entryOf('skill://acme/other-name/SKILL.md', FRONTMATTER, { 'skill://acme/other-name/SKILL.md': MARKDOWN }) };
    const noSelf = { ...(data.skills[0] as Skill), uri: 'skill://acme/x/pdf-processing/SKILL.md' };
    data.skills = [data.skills[0], wrongName, noSelf, 'not an entry', data.skills[0]];
    const { client } = await connected(era, data);
    const error = (await client.listSkills().catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32603);
    expect(error.message.split('\n')).toEqual([
      'Invalid response to skills/list (skipInvalid leaves such entries out):',
      '#1 skill://acme/other-name/SKILL.md: frontmatter name "pdf-processing" must match the last path segment "other-name"',
      `#2 skill://acme/x/pdf-processing/SKILL.md: resource "${SKILL}" is outside the skill directory skill://acme/x/pdf-processing; resource "${FORMS}" is outside the skill directory skill://acme/x/pdf-processing; resource "${LOGO}" is outside the skill directory skill://acme/x/pdf-processing; resources must include skill://acme/x/pdf-processing/SKILL.md`,
      '#3 (no uri): an entry must be an object with a string uri',
      `#4 ${SKILL}: the same uri is listed twice`,
    ]);
    const page = await client.listSkills(undefined, { skipInvalid: true });
    expect(page.skills).toEqual([honest().skills[0]]);
    expect(page.invalid.map((entry) => entry.index)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a skills/get answer for another skill, and passes the server’s -32602 for an unknown one', async () => {
    const { client, served } = await connected(era);
    await expect(client.getSkill('skill://acme/nothing/SKILL.md')).rejects.toMatchObject({ code: -32602, message: 'No skill is served at skill://acme/nothing/SKILL.md' });
    served.data.getAnswer = entryOf('skill://acme/other/SKILL.md', { name: 'other', description: 'd' }, { 'skill://acme/other/SKILL.md': 'x' });
    await expect(client.getSkill(SKILL)).rejects.toMatchObject({
      code: -32603,
      message: `Invalid response to skills/get for ${SKILL}: it answered with skill://acme/other/SKILL.md`,
    });
  });

  it('reads a "dynamic" skill’s files unverified, but still checks SKILL.md’s frontmatter and keeps reads inside the skill', async () => {
    const data = honest();
    data.skills = [{ uri: SKILL, frontmatter: FRONTMATTER, resources: 'dynamic' }];
    const { client } = await connected(era, data);
    const loaded = await client.loadSkill((await client.listAllSkills())[0]);
    expect([loaded.manifest.verified, loaded.files]).toEqual([false, []]);
    expect(await loaded.read('references/FORMS.md')).toMatchObject({ verified: false, text: FORMS_MD });
    expect((await refusal(loaded.read('../other/SKILL.md'))).reason).toBe('unlisted');
    data.files.set(SKILL, MARKDOWN.replace('Extract', 'Exfiltrate'));
    expect((await refusal(client.loadSkill(data.skills[0] as Skill))).reason).toBe('frontmatter');
  });

  it('refuses, unsent, the skills methods of a server that did not declare the extension, and directory reads without directoryRead', async () => {
    const bare = await connected(era, { ...honest(), extension: false });
    expect(bare.client.supportsSkills).toBe(false);
    await expect(bare.client.listSkills()).rejects.toMatchObject({ code: -32601, message: 'The server did not declare the capability skills/list needs' });
    await expect(bare.client.getSkill(SKILL)).rejects.toMatchObject({ code: -32601 });
    const { client, served } = await connected(era);
    await expect(client.readSkillDirectory('skill://acme/pdf-processing')).rejects.toMatchObject({
      code: -32601,
      message: 'The server did not declare the capability resources/directory/read needs',
    });
    expect([...bare.served.seen, ...served.seen].filter((line) => line.startsWith('skills/') || line.startsWith('resources/directory/read'))).toEqual([]);
  });

  it('follows skills/list pages and directory pages', async () => {
    const data = honest();
    const second = entryOf('skill://acme/git-workflow/SKILL.md', { name: 'git-workflow', description: 'Git' }, { 'skill://acme/git-workflow/SKILL.md': 'x' });
    data.skills.push(second);
    const root = 'skill://acme/pdf-processing';
    const children = [
      { uri: `${root}/SKILL.md`, name: 'SKILL.md', mimeType: 'text/markdown' },
      { uri: `${root}/references`, name: 'references', mimeType: 'inode/directory' },
    ];
    const { client, served } = await connected(era, { ...data, pageSize: 1, extension: { directoryRead: true }, dirs: new Map([[root, children]]) });
    expect((await client.listAllSkills()).map((skill) => skill.uri)).toEqual([SKILL, second.uri]);
    expect(await client.readSkillDirectory(root)).toEqual(children);
    expect(served.seen.filter((line) => line.startsWith('skills/list') || line.startsWith('resources/directory/read'))).toEqual([
      'skills/list',
      'skills/list',
      `resources/directory/read ${root}`,
      `resources/directory/read ${root}`,
    ]);
  });
});

it('fetches again, uncached, a file whose cached copy fails verification against a newer entry (2026-07-28)', async () => {
  const data = honest();
  const { client, served } = await connected('2026-07-28', { ...data, ttlMs: 60_000 });
  await client.loadSkill((await client.listAllSkills())[0]);
  // The server updates the skill: a new SKILL.md, a new entry. The client's cached copy is the old one.
  const updated = MARKDOWN.replace('Use references', 'Now use references');
  served.data.files.set(SKILL, updated);
  served.data.skills = [entryOf(SKILL, FRONTMATTER, { [SKILL]: updated, [FORMS]: FORMS_MD })];
  const { skill } = await client.getSkill(SKILL, { cache: false });
  const loaded = await client.loadSkill(skill);
  expect(loaded.manifest.text).toBe(updated);
  expect(served.reads()).toEqual([SKILL, SKILL]);
  // The fresh copy replaced the stale one: read again, it comes from the cache, verified.
  await client.loadSkill(skill);
  expect(served.reads()).toEqual([SKILL, SKILL]);
});

it('docs/errors.md lists SKILL_VERIFICATION among the local errors, with its class', () => {
  const doc = readFileSync(path.join(__dirname, '../../../docs/errors.md'), 'utf8');
  expect(doc).toMatch(/^\| `SKILL_VERIFICATION` \| `SkillVerificationError` \|/m);
});
