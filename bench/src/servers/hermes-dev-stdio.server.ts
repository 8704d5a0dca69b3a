/**
 * `hermes-mcp dev` in front of the Hermes stdio server (hermes-stdio.server.js): what a host that
 * spawned `hermes-mcp dev <entry>` pays for the extra hop (every line read, routed and written
 * again by dev). Runs the CLI's built file as a user does; ends when stdin closes or on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const cli = join(__dirname, '../../../packages/client/dist/cli.js');
const dev = spawn(process.execPath, [cli, 'dev', join(__dirname, 'hermes-stdio.server.js')], { stdio: 'inherit' });
process.once('SIGTERM', () => dev.kill('SIGTERM'));
dev.once('exit', (code) => process.exit(code ?? 0));
