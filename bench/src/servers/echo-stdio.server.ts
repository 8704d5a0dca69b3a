/**
 * The stdio limit: newline-delimited JSON in, one answer line out per request — it parses each
 * line and answers what the MCP servers answer (`initialize`, `add`), with no MCP machinery.
 */
import { EchoMessage, echoAnswer } from './echo-answer';

process.once('SIGTERM', () => process.exit(0));

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  let out = '';
  for (const line of lines) {
    if (!line) continue;
    const reply = echoAnswer(JSON.parse(line) as EchoMessage);
    if (reply !== undefined) out += `${reply}\n`;
  }
  if (out) process.stdout.write(out);
});
