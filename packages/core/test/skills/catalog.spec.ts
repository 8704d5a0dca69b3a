/**
 * The skills catalog built from real folders (temp dirs) and inline files: digests and sizes of the
 * raw bytes, order, nesting, what is skipped and why — and that nothing escapes a skill's folder:
 * symlinks (out or in), FIFOs and huge files refuse the whole skill, a huge file without being read.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { McpFactory, McpServer, Skill, isolatedContainer, type SkillFiles, type SkillsOptions } from '@hermes-mcp/core';
import { capturingLogger } from '../../../../test-support/hardening';
import { tempTree } from '../../../../test-support/temp-tree';

const sha = (bytes: string | Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const md = (name: string, extra = '') => `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n# ${name}\n`;

/** A temp folder with `files` (path → content) written in it. */
const folder = (files: Record<string, string | Buffer>): string => tempTree('hermes-skills-', files);

let apps = 0;

/** An app serving `skills`, with its warn lines. */
function create(skills: string | SkillsOptions) {
  @McpServer({ name: 'skills', version: '1.0.0', skills })
  class SkillsServer {}
  const { logger, lines } = capturingLogger('warn');
  const app = McpFactory.create(SkillsServer, { logger, container: isolatedContainer(`skills-${++apps}`) });
  return { app, lines, uris: app.skills.entries.map((skill) => skill.uri) };
}

describe('the skills catalog', () => {
  it('lists every file with the SHA-256 and size of its raw bytes (CRLF and a BOM kept), SKILL.md included, sorted by URI', () => {
    const manifest = `\uFEFF${md('pdf').replace(/\n/g, '\r\n')}`;
    const root = folder({ 'pdf/SKILL.md': manifest, 'pdf/references/FORMS.md': 'forms\r\n', 'pdf/empty.txt': '' });
    const { app } = create(root);
    expect(app.skills.entries).toEqual([
      {
        uri: 'skill://pdf/SKILL.md',
        frontmatter: { name: 'pdf', description: 'The pdf skill' },
        resources: [
          { uri: 'skill://pdf/SKILL.md', digest: sha(manifest), size: Buffer.byteLength(manifest) },
          { uri: 'skill://pdf/empty.txt', digest: 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', size: 0 },
          { uri: 'skill://pdf/references/FORMS.md', digest: sha('forms\r\n'), size: 7 },
        ],
      },
    ]);
    expect(Object.isFrozen(app.skills.entries[0].resources)).toBe(true);
  });

  it('takes a prefix, nested skills (the outer one lists the inner files too) and inline skills, and skips hidden files', () => {
    const root = folder({
      'billing/refunds/SKILL.md': md('refunds'),
      'billing/refunds/.DS_Store': 'x',
      'git/SKILL.md': md('git'),
      'git/hooks/pre/SKILL.md': md('pre'),
      '.hidden/SKILL.md': md('hidden'),
    });
    const { app, uris } = create({ folders: [root], prefix: 'acme', inline: { 'reports/weekly': { 'SKILL.md': md('weekly'), 'table.md': '|a|' } } });
    expect(uris).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://acme/git/SKILL.md', 'skill://acme/git/hooks/pre/SKILL.md', 'skill://acme/reports/weekly/SKILL.md']);
    const git = app.skills.entries[1].resources as { uri: string }[];
    expect(git.map((r) => r.uri)).toEqual(['skill://acme/git/SKILL.md', 'skill://acme/git/hooks/pre/SKILL.md']);
    expect((app.skills.entries[0].resources as unknown[]).length).toBe(1);
  });

  it('skips with one warning per skill naming the rule: a bad name, a name that is not its folder, bad YAML, anchors, tags, .inf, __proto__, no fence', () => {
    const cases: Record<string, string> = {
      Upper: md('Upper'),
      other: md('mismatch'),
      dup: '---\nname: dup\nname: dup\ndescription: d\n---\n',
      anchor: '---\nname: anchor\ndescription: &d text\nx: *d\n---\n',
      tagged: '---\nname: tagged\ndescription: !!str d\n---\n',
      inf: '---\nname: inf\ndescription: d\nscore: .inf\n---\n',
      proto: '---\nname: proto\ndescription: d\n__proto__: {}\n---\n',
      nofence: 'name: nofence\ndescription: d\n',
      meta: md('meta', 'metadata:\n  version: 2\n'),
      good: md('good'),
    };
    const root = folder(Object.fromEntries(Object.entries(cases).map(([dir, text]) => [`${dir}/SKILL.md`, text])));
    const { uris, lines } = create(root);
    expect(uris).toEqual(['skill://good/SKILL.md']);
    const warned = lines.filter((line) => line.code === 'HERMES_SKILL_INVALID').map((line) => line.msg);
    expect(warned).toHaveLength(9);
    for (const [dir, rule] of Object.entries({
      Upper: /lowercase/,
      other: /name "mismatch" must equal its folder's name "other"/,
      dup: /not valid YAML/,
      anchor: /anchor/,
      tagged: /explicit tag/,
      inf: /Infinity, which JSON cannot carry/,
      proto: /__proto__/,
      nofence: /must begin with a frontmatter block/,
      meta: /metadata must map strings to strings/,
    })) {
      expect({ dir, line: warned.find((line) => line!.includes(`${path.sep}${dir}:`)) }).toEqual({ dir, line: expect.stringMatching(rule) });
    }
  });

  it('fails create under strict, with every problem in one error', () => {
    const root = folder({ 'a/SKILL.md': md('b'), 'c/SKILL.md': 'no fence', 'ok/SKILL.md': md('ok') });
    expect(() => create({ folders: root, strict: true })).toThrow(/HERMES_SKILL_INVALID: 2 skill\(s\) break a rule \(skills.strict\):.*a: .*must equal.*c: .*frontmatter block/s);
  });

  it('refuses the whole skill for a symlink to a file outside, a symlink inside, a symlinked folder and a FIFO', () => {
    const outside = folder({ 'secret.txt': 'top secret' });
    const root = folder({ 'out/SKILL.md': md('out'), 'in/SKILL.md': md('in'), 'in/real.md': 'x', 'dir/SKILL.md': md('dir'), 'fifo/SKILL.md': md('fifo'), 'ok/SKILL.md': md('ok') });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out/secret.txt'));
    symlinkSync('real.md', path.join(root, 'in/alias.md'));
    symlinkSync(outside, path.join(root, 'dir/linked'));
    execFileSync('mkfifo', [path.join(root, 'fifo/pipe')]);
    const { uris, lines } = create(root);
    expect(uris).toEqual(['skill://ok/SKILL.md']);
    const unsafe = lines.filter((line) => line.code === 'HERMES_SKILL_UNSAFE').map((line) => line.msg);
    expect(unsafe).toEqual([
      expect.stringMatching(/dir: "linked" is a symlink \(symlinks are not followed\)/),
      expect.stringMatching(/fifo: "pipe" is a FIFO/),
      expect.stringMatching(/in: "alias.md" is a symlink/),
      expect.stringMatching(/out: "secret.txt" is a symlink/),
    ]);
  });

  it('refuses a file over limits.fileBytes without opening it, and skills over limits.files or limits.bytes; raised limits serve them', () => {
    const root = folder({
      'ok/SKILL.md': md('ok'),
      'huge/SKILL.md': md('huge'),
      'many/SKILL.md': md('many'),
      'many/a.md': 'a',
      'many/b.md': 'b',
      'big/SKILL.md': md('big'),
      'big/x.md': 'x'.repeat(300),
    });
    // A sparse 20 GiB file: reading it would take minutes and memory; refusing it from lstat takes none.
    writeFileSync(path.join(root, 'huge/blob.bin'), '');
    truncateSync(path.join(root, 'huge/blob.bin'), 20 * 1024 ** 3);
    const opened: string[] = [];
    // The module object core's folder walker calls through (not an import's copy of it).
    const nodeFs = jest.requireActual<typeof fs>('node:fs');
    const original = nodeFs.openSync;
    const openSync = jest.spyOn(nodeFs, 'openSync').mockImplementation((file: fs.PathLike, flags?: fs.OpenMode) => {
      opened.push(String(file));
      return original(file, flags ?? 'r');
    });
    try {
      const { uris, lines } = create({ folders: root, limits: { files: 2, bytes: 256 } });
      expect(uris).toEqual(['skill://ok/SKILL.md']);
      // The spy sees the reads (ok's SKILL.md), and the huge file is never among them.
      expect(opened.filter((file) => file.endsWith(`ok${path.sep}SKILL.md`))).toHaveLength(1);
      expect(opened.filter((file) => file.endsWith('blob.bin'))).toEqual([]);
      expect(lines.map((line) => [line.code, line.msg])).toEqual(
        expect.arrayContaining([
          ['HERMES_SKILL_TOO_LARGE', expect.stringMatching(/big: its files add up to \d+ bytes, over limits.bytes \(256\)/)],
          ['HERMES_SKILL_UNSAFE', expect.stringMatching(/huge: "blob.bin" is 21474836480 bytes, over limits.fileBytes/)],
          ['HERMES_SKILL_TOO_LARGE', expect.stringMatching(/many: it has more than limits.files \(2\) files/)],
        ]),
      );
    } finally {
      openSync.mockRestore();
    }
    fs.rmSync(path.join(root, 'huge'), { recursive: true });
    expect(create({ folders: root, limits: { files: 3, bytes: 1024 } }).uris).toEqual(['skill://big/SKILL.md', 'skill://many/SKILL.md', 'skill://ok/SKILL.md']);
  });

  it('says what is wrong with the option: a missing folder, a file for a folder, the same skill twice, a bad inline skill', () => {
    expect(() => create('/no/such/folder')).toThrow(/HERMES_SKILL_FOLDER: the skills folder \/no\/such\/folder does not exist/);
    const root = folder({ 'a/SKILL.md': md('a') });
    expect(() => create(path.join(root, 'a/SKILL.md'))).toThrow(/HERMES_SKILL_FOLDER: .* is not a directory/);
    expect(() => create({ folders: root, inline: { a: { 'SKILL.md': md('a') } } })).toThrow(/HERMES_SKILL_DUPLICATE: the skill skill:\/\/a\/SKILL.md is given twice/);
    expect(() => create({ inline: { x: { 'SKILL.md': md('y') } } })).toThrow(/HERMES_SKILL_INVALID: skills.inline\["x"\]: SKILL.md name "y" must equal its folder's name "x"/);
    expect(() => create({ inline: { '../x': { 'SKILL.md': md('x') } } })).toThrow(
      /HERMES_INVALID_OPTIONS: the skill path of skills.inline\["..\/x"\]: "..\/x" must be a relative path/,
    );
    expect(() => create({ folders: root, limits: { files: 0 } })).toThrow(/HERMES_INVALID_OPTIONS: skills.limits.files must be a positive integer/);
  });

  it('serves @Skill methods of the server and its components (called once), declaring the extension without a skills option', async () => {
    let calls = 0;
    class Reports {
      @Skill({ path: 'reports/weekly' })
      weekly(): SkillFiles {
        calls++;
        return { 'SKILL.md': md('weekly'), 'templates/table.md': Buffer.from('|a|') };
      }
    }
    @McpServer({ name: 'code-skills', version: '1.0.0', components: [Reports] })
    class CodeSkills {}
    const app = McpFactory.create(CodeSkills, { logger: capturingLogger('warn').logger, container: isolatedContainer(`skills-${++apps}`) });
    expect(app.skills.entries.map((skill) => [skill.uri, (skill.resources as unknown[]).length])).toEqual([['skill://reports/weekly/SKILL.md', 2]]);
    expect(calls).toBe(1);
    await app.skills.reload();
    expect(calls).toBe(1);
  });

  it('refuses a @Skill whose SKILL.md breaks a rule, or that returns a promise', () => {
    class Wrong {
      @Skill({ path: 'a/b' })
      b(): SkillFiles {
        return { 'SKILL.md': md('c') };
      }
    }
    class Later {
      @Skill({ path: 'later' })
      later(): Promise<SkillFiles> {
        return Promise.resolve({ 'SKILL.md': md('later') });
      }
    }
    for (const [component, error] of [
      [Wrong, /HERMES_SKILL_INVALID: @Skill Wrong.b: SKILL.md name "c" must equal its folder's name "b"/],
      [Later, /HERMES_INVALID_OPTIONS: @Skill Later.later returned a promise/],
    ] as const) {
      @McpServer({ name: 'bad', version: '1.0.0', components: [component] })
      class Bad {}
      expect(() => McpFactory.create(Bad, { logger: capturingLogger('warn').logger, container: isolatedContainer(`skills-${++apps}`) })).toThrow(error);
    }
  });

  it('serves a skill with a reserved metadata key (io.modelcontextprotocol/), with a warning', () => {
    const root = folder({ 'x/SKILL.md': md('x', 'metadata:\n  io.modelcontextprotocol/owner: me\n') });
    const { uris, lines } = create(root);
    expect(uris).toEqual(['skill://x/SKILL.md']);
    expect(lines.map((line) => line.msg)).toEqual([expect.stringMatching(/x: metadata key "io.modelcontextprotocol\/owner" is reserved/)]);
  });

  it('warns about a root SKILL.md and a misnamed skill.md, serving neither', () => {
    const root = folder({ 'SKILL.md': md('root'), 'lower/skill.md': md('lower') });
    const { uris, lines } = create(root);
    expect(uris).toEqual([]);
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/SKILL.md is at the root of the skills folder/), expect.stringMatching(/skill.md is not named SKILL.md/)]),
    );
  });
});
