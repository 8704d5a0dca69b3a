/**
 * The stdio limit: newline-delimited JSON in, one answer line out per request — it parses each
 * line and answers what the MCP servers answer (`initialize`, `add`), with no MCP machinery.
 */
process.once('SIGTERM', () => process.exit(0));

interface RpcMessage {
  id?: string | number;
  method?: string;
  params?: { protocolVersion?: string; arguments?: { a: number; b: number } };
}

function answer(message: RpcMessage): string | undefined {
  if (message.id === undefined) return undefined; // a notification
  if (message.method === 'tools/call' && message.params?.arguments) {
    const { a, b } = message.params.arguments;
    return JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: String(a + b) }] } });
  }
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } };
    return JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
  }
  return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  let out = '';
  for (const line of lines) {
    if (!line) continue;
    const reply = answer(JSON.parse(line) as RpcMessage);
    if (reply !== undefined) out += `${reply}\n`;
  }
  if (out) process.stdout.write(out);
});
