/**
 * What the bare limits answer (the stdio echo, the WebSocket echo): what the MCP servers answer
 * for `initialize` and `add`, computed from the parsed message, with no MCP machinery.
 */

/** One parsed JSON-RPC message, as much of it as the echo reads. */
export interface EchoMessage {
  id?: string | number;
  method?: string;
  params?: { protocolVersion?: string; arguments?: { a: number; b: number } };
}

/** The answer to `message` as JSON text; undefined for a notification. */
export function echoAnswer(message: EchoMessage): string | undefined {
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
