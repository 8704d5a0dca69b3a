#!/usr/bin/env node
/**
 * `npm create hermes-mcp [folder]` (or `npx create-hermes-mcp [folder]`): scaffolds a project and
 * says what to run next. `--help` lists the options; they come from one table, {@link OPTIONS},
 * which the parser reads too, so an option cannot be accepted without being listed.
 */
import * as path from 'node:path';
import { ScaffoldOptions, scaffold } from './scaffold';

type Settings = ScaffoldOptions & { hermes: NonNullable<ScaffoldOptions['hermes']> };

/** Every option that takes a value: what it is called in the help, what it says, what it sets. */
const OPTIONS: Record<string, { value: string; help: string; set(settings: Settings, value: string): void }> = {
  '--name': {
    value: '<package name>',
    help: "the package and server name (default: the folder's name)",
    set: (settings, value) => void (settings.name = value),
  },
  '--hermes-core': {
    value: '<spec>',
    help: 'what the @hermes-mcp/core dependency says: a version range (default: ^ the version of create-hermes-mcp), or file:<packed tarball> to try unpublished packages',
    set: (settings, value) => void (settings.hermes.core = value),
  },
  '--hermes-testing': {
    value: '<spec>',
    help: 'the same for @hermes-mcp/testing',
    set: (settings, value) => void (settings.hermes.testing = value),
  },
  '--hermes-client': {
    value: '<spec>',
    help: 'the same for @hermes-mcp/client (the hermes-mcp command: dev, inspect, call, install)',
    set: (settings, value) => void (settings.hermes.client = value),
  },
};

const USAGE = [
  'Usage: npm create hermes-mcp [folder] [-- options]',
  '       npx create-hermes-mcp [folder] [options]',
  '',
  'Writes a Hermes MCP server project into folder (default: my-mcp-server), which must be new or empty.',
  '',
  'Options:',
  ...Object.entries(OPTIONS).map(([name, option]) => `  ${`${name} ${option.value}`.padEnd(26)}${option.help}`),
  `  ${'-h, --help'.padEnd(26)}this help`,
  '',
].join('\n');

/** A folder as the user would type it after `cd`: quoted when the shell would split or expand it. */
function shellWord(folder: string): string {
  return /^[\w./-]+$/.test(folder) ? folder : JSON.stringify(folder);
}

function main(argv: string[]): number {
  const settings: Settings = { directory: 'my-mcp-server', hermes: {} };
  let directory: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      return 0;
    }
    const option = Object.prototype.hasOwnProperty.call(OPTIONS, arg) ? OPTIONS[arg] : undefined;
    if (option) {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value: ${arg} ${option.value}`);
      option.set(settings, value);
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg} (see --help)`);
    else if (directory === undefined) directory = arg;
    else throw new Error(`one folder only (got "${directory}" and "${arg}")`);
  }
  const result = scaffold({ ...settings, directory: directory ?? settings.directory });
  const shown = path.relative(process.cwd(), result.directory) || '.';
  // "Created my-server in my-server" says the name twice: the folder is named only when it differs.
  const where = shown === result.name ? '' : ` in ${shown}`;
  process.stdout.write(
    [
      `Created ${result.name}${where} (${result.files.length} files).`,
      '',
      'Next:',
      `  cd ${shellWord(shown)}`,
      '  npm install',
      '  npm run dev     # serves src/main.ts, restarted on change; the host stays connected',
      '  npm test        # tests in process (both MCP eras), and the manifest against test/manifest.json',
      '  npm run inspect # prints the manifest: tools and their schemas, resources, prompts',
      '  (README.md: calling a tool with key=value, installing into Claude, Cursor, VS Code or Gemini CLI)',
      '',
    ].join('\n'),
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`create-hermes-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
