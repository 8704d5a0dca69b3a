/**
 * `hermes-mcp inspect <entry> [--json | --markdown] [--check]`: the server's manifest — tools with
 * their input and output schemas, resources, templates, prompts, capabilities, extensions — and
 * the warnings core logged while bootstrapping it, without serving it (inspect-child.ts loads the
 * entry in a process of its own). JSON by default, a schema snapshot for a project's CI; `--check`
 * exits 1 when there is a warning.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Entry, EntryUsageError, parseEntryArgs, resolveEntry, usage } from './entry';
import type { Manifest } from './inspect-child';

const USAGE = `usage: hermes-mcp inspect <entry> [--json | --markdown] [--check]

Loads the server of <entry> (a .js file, or a .ts file compiled by SWC with decorator metadata)
without serving it and prints its manifest: tools with input and output schemas, resources,
resource templates, prompts, capabilities, extensions, and the warnings core logged at bootstrap
(HERMES_* codes). The entry either calls McpFactory.create(…).listen() or exports an @McpServer
class.

  --json       the manifest as JSON (the default)
  --markdown   the manifest as Markdown
  --check      exit 1 when bootstrapping logged a warning (e.g. HERMES_SCHEMA_LOOSER)

Exit codes: 0 done, 1 the entry failed to load or --check found a warning, 2 a command line that
cannot be read.`;

/** A warning core logged while bootstrapping (a pino line at `warn` or above with a HERMES_* code). */
export interface BootstrapWarning {
  code: string;
  message: string;
}

/** `hermes-mcp inspect`; resolves with the exit code. */
export async function inspect(argv: string[]): Promise<number> {
  if (argv.includes('--help')) return (process.stderr.write(`${USAGE}\n`), 0);
  let entry: Entry;
  let format: 'json' | 'markdown';
  let check: boolean;
  try {
    const { operand, flags } = parseEntryArgs(argv, 'inspect', { '--json': false, '--markdown': false, '--check': false });
    if (flags.has('--json') && flags.has('--markdown')) throw new EntryUsageError('inspect: give --json or --markdown, not both');
    format = flags.has('--markdown') ? 'markdown' : 'json';
    check = flags.has('--check');
    entry = resolveEntry(operand, 'inspect');
  } catch (error) {
    return usage(error, USAGE);
  }
  const { code, stdout, stderr } = await load(entry);
  const warnings = warningsIn(stderr);
  if (code !== 0 || !stdout.trim()) {
    process.stderr.write(stderr);
    process.stderr.write(`hermes-mcp inspect: ${entry.file} did not load (exit code ${String(code)})\n`);
    return 1;
  }
  // The manifest is the child's last line: an entry may print on stdout while it loads.
  const manifest = { ...(JSON.parse(stdout.trimEnd().split('\n').pop()!) as Manifest), warnings };
  process.stdout.write(format === 'json' ? `${JSON.stringify(manifest, null, 2)}\n` : markdown(manifest));
  for (const warning of warnings) process.stderr.write(`hermes-mcp inspect: ${warning.code}: ${warning.message}\n`);
  if (check && warnings.length > 0) {
    process.stderr.write(`hermes-mcp inspect: --check: ${warnings.length} bootstrap warning(s)\n`);
    return 1;
  }
  return 0;
}

/** Runs inspect-child.js on the entry; what it wrote, and how it ended. */
function load(entry: Entry): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...entry.nodeArgs, path.join(__dirname, 'inspect-child.js'), entry.file], {
    cwd: entry.root,
    env: entry.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The HERMES_* warnings among core's log lines (JSON lines on stderr; pino's `warn` is 40). */
export function warningsIn(stderr: string): BootstrapWarning[] {
  const warnings: BootstrapWarning[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; code?: unknown; msg?: unknown };
      if ((entry.level ?? 0) >= 40 && typeof entry.code === 'string' && entry.code.startsWith('HERMES_'))
        warnings.push({ code: entry.code, message: typeof entry.msg === 'string' ? entry.msg : '' });
    } catch {
      // not a log line of core's
    }
  }
  return warnings;
}

type Named = { name?: string; title?: string; description?: string; uri?: string; uriTemplate?: string; mimeType?: string };

/** The manifest as Markdown: a section per list, schemas as JSON blocks. */
function markdown(manifest: Manifest & { warnings: BootstrapWarning[] }): string {
  const info = (manifest.serverInfo ?? {}) as { name?: string; version?: string };
  const json = (value: unknown) => ['```json', JSON.stringify(value, null, 2), '```'];
  const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [`# ${info.name ?? 'server'} ${info.version ?? ''}`.trimEnd(), '', `Protocol ${manifest.protocolVersion ?? 'unknown'}.`];
  if (manifest.instructions) lines.push('', manifest.instructions);
  lines.push('', '## Capabilities', '', ...json(manifest.capabilities));
  if (Object.keys(manifest.extensions).length > 0) lines.push('', '## Extensions', '', ...Object.keys(manifest.extensions).map((id) => `- \`${id}\``));
  lines.push('', `## Tools (${manifest.tools.length})`);
  for (const tool of manifest.tools as Array<Named & { inputSchema?: unknown; outputSchema?: unknown }>) {
    lines.push('', `### \`${tool.name}\``);
    if (tool.description) lines.push('', tool.description);
    lines.push('', 'Input schema:', '', ...json(tool.inputSchema));
    if (tool.outputSchema !== undefined) lines.push('', 'Output schema:', '', ...json(tool.outputSchema));
  }
  const table = (title: string, items: Named[], key: 'uri' | 'uriTemplate') => {
    lines.push('', `## ${title} (${items.length})`);
    if (items.length === 0) return;
    lines.push('', `| ${key === 'uri' ? 'URI' : 'URI template'} | name | MIME type | description |`, '| --- | --- | --- | --- |');
    for (const item of items) lines.push(`| \`${cell(item[key])}\` | ${cell(item.name)} | ${cell(item.mimeType)} | ${cell(item.description)} |`);
  };
  table('Resources', manifest.resources as Named[], 'uri');
  table('Resource templates', manifest.resourceTemplates as Named[], 'uriTemplate');
  lines.push('', `## Prompts (${manifest.prompts.length})`);
  for (const prompt of manifest.prompts as Array<Named & { arguments?: Array<Named & { required?: boolean }> }>) {
    lines.push('', `### \`${prompt.name}\``);
    if (prompt.description) lines.push('', prompt.description);
    for (const arg of prompt.arguments ?? []) lines.push(`- \`${arg.name}\`${arg.required ? ' (required)' : ''}${arg.description ? `: ${arg.description}` : ''}`);
  }
  if (manifest.warnings.length > 0) lines.push('', '## Warnings', '', ...manifest.warnings.map((warning) => `- ${warning.code}: ${warning.message}`));
  return `${lines.join('\n')}\n`;
}
