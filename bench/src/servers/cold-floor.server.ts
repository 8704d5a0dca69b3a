/**
 * Cold start, the floor under any class-validator server: Node, `reflect-metadata` and
 * `class-validator` loaded and the same two input classes decorated, as a Hermes user's server
 * does before Hermes runs a line; then `initialize` and `tools/list` answered with lines written
 * by hand. What a Hermes cold start costs above this row is Hermes' own.
 */
import 'reflect-metadata';
import { IsNumber, IsString } from 'class-validator';

class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class EchoInput {
  @IsString() text!: string;
}

/** The classes a server would read its tools' schemas from. */
export const INPUTS = [AddInput, EchoInput];

const TOOLS = [
  { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  { name: 'echo', description: 'Echoes a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
];

let buffered = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  buffered += chunk;
  for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, at)) as { id?: number; method: string; params?: { protocolVersion?: string } };
    buffered = buffered.slice(at + 1);
    if (message.id === undefined) continue;
    const result =
      message.method === 'initialize'
        ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench-cold', version: '1.0.0' } }
        : { tools: TOOLS };
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
  }
});
