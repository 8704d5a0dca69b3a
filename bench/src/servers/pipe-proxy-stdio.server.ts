/**
 * The limit of one extra hop on stdio: a process that pipes its stdin to the Hermes stdio server
 * (hermes-stdio.server.js) and the server's stdout back, reading nothing. What
 * `hermes-mcp dev`'s row is read against: the part of its cost that any process in between pays.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const server = spawn(process.execPath, [join(__dirname, 'hermes-stdio.server.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(server.stdin);
server.stdout.pipe(process.stdout);
process.once('SIGTERM', () => server.kill('SIGTERM'));
server.once('exit', (code) => process.exit(code ?? 0));
