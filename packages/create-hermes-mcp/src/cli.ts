#!/usr/bin/env node
/**
 * `npm create hermes-mcp [folder]` (or `npx create-hermes-mcp [folder]`): scaffolds a project and
 * says what to run next.
 *
 *   create-hermes-mcp my-server [--name my-server]
 *
 * `--hermes-core`, `--hermes-testing` set what the Hermes dependencies say (a version range, or
 * `file:` paths to packed tarballs, to try unpublished packages).
 */
import * as path from 'node:path';
import { HermesPackage, scaffold } from './scaffold';

function main(argv: string[]): number {
  let directory: string | undefined;
  let name: string | undefined;
  const hermes: Partial<Record<HermesPackage, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--help' || arg === '-h') {
      process.stdout.write('Usage: npm create hermes-mcp [folder] [-- --name <package name>]\n');
      return 0;
    } else if (arg === '--name') name = value();
    else if (arg === '--hermes-core') hermes.core = value();
    else if (arg === '--hermes-testing') hermes.testing = value();
    else if (arg === '--hermes-fastify') hermes.fastify = value();
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg} (see --help)`);
    else if (directory === undefined) directory = arg;
    else throw new Error(`one folder only (got "${directory}" and "${arg}")`);
  }
  const result = scaffold({ directory: directory ?? 'my-mcp-server', name, hermes });
  const shown = path.relative(process.cwd(), result.directory) || '.';
  process.stdout.write(
    [
      `Created ${result.name} in ${shown} (${result.files.length} files).`,
      '',
      'Next:',
      `  cd ${shown}`,
      '  npm install',
      '  npm test        # tests in process, both MCP eras',
      '  npm start       # builds, then serves on stdio',
      '  npm run dev     # rebuilds and restarts on change',
      '  npm run inspect # opens it in the MCP Inspector',
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
