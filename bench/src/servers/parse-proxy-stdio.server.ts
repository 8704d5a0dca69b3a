/**
 * The limit of a hop that reads the protocol: like the bare pipe (pipe-proxy-stdio.server.ts), a
 * process between the runner and the Hermes stdio server (hermes-stdio.server.js), but it parses
 * every newline-delimited message each way and writes it again (`JSON.parse`, `JSON.stringify`),
 * giving each request an id of its own upstream and the answer its id back (a map), what any
 * forwarder that serves more than one caller on one upstream must do, and nothing more: no
 * validation, no routing, no cancellation. What the remote mount's row is read against, besides
 * the bare pipe.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

const server = spawn(process.execPath, [join(__dirname, 'hermes-stdio.server.js')], { stdio: ['pipe', 'pipe', 'inherit'] });

/** The caller's id of each request in flight, by the id it has upstream. */
const callers = new Map<number, unknown>();
let nextId = 0;

/** A request gets an upstream id of its own; an answer, its caller's id back. */
function renumber(message: { id?: unknown; method?: unknown }, upstream: boolean): void {
  if (message.id === undefined) return;
  if (upstream && message.method !== undefined) {
    callers.set(++nextId, message.id);
    message.id = nextId;
  } else if (!upstream && message.method === undefined) {
    const own = message.id as number;
    message.id = callers.get(own);
    callers.delete(own);
  }
}

/** Every line of `from`, parsed, renumbered and written again to `to`; what one read brought, in one write. */
function forward(from: Readable, to: Writable, upstream: boolean): void {
  let rest = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    let out = '';
    for (const line of lines) {
      if (!line) continue;
      const message = JSON.parse(line) as { id?: unknown; method?: unknown };
      renumber(message, upstream);
      out += `${JSON.stringify(message)}\n`;
    }
    if (out) to.write(out);
  });
  from.once('end', () => to.end());
}

forward(process.stdin, server.stdin, true);
forward(server.stdout, process.stdout, false);
process.once('SIGTERM', () => server.kill('SIGTERM'));
server.once('exit', (code) => process.exit(code ?? 0));
