/**
 * A minimal stdio MCP client for the bench: newline-delimited JSON to a server process's stdin,
 * answers read from its stdout. Sequential calls wait for each answer; a pipelined burst writes
 * every request at once and only counts answer lines until all are back (no parsing while timing).
 */
import { performance } from 'node:perf_hooks';
import type { ServerProcess } from './children';
import { LEGACY_VERSION, RpcMessage } from './mcp';

const NEWLINE = 0x0a;

function addLine(id: number, tool: string): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{"a":2,"b":3}}}\n`;
}

/** One stdio connection to a server process. */
export class StdioClient {
  private nextId = 1;
  private partial = '';
  private lineWaiter?: (line: string) => void;
  private counting?: { remaining: number; done: () => void };
  /** The last two chunks of a burst: enough to hold its last answer line. */
  private tail: Buffer[] = [];

  /**
   * @param server the server process
   * @param tool the name the add tool has on it (`math_add` through a local mount)
   */
  constructor(
    private readonly server: ServerProcess,
    private readonly tool = 'add',
  ) {
    server.process.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  private onData(chunk: Buffer): void {
    if (this.counting) {
      this.tail = [this.tail[this.tail.length - 1] ?? Buffer.alloc(0), chunk];
      let at = chunk.indexOf(NEWLINE);
      while (at !== -1) {
        if (--this.counting.remaining === 0) {
          const done = this.counting.done;
          this.counting = undefined;
          done();
          return;
        }
        at = chunk.indexOf(NEWLINE, at + 1);
      }
      return;
    }
    this.partial += chunk.toString('utf8');
    let at = this.partial.indexOf('\n');
    while (at !== -1) {
      const line = this.partial.slice(0, at);
      this.partial = this.partial.slice(at + 1);
      const waiter = this.lineWaiter;
      this.lineWaiter = undefined;
      waiter?.(line);
      at = this.partial.indexOf('\n');
    }
  }

  private nextLine(timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.server.name}: no answer within ${timeoutMs} ms\n${this.server.stderr()}`)), timeoutMs);
      this.lineWaiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }

  private write(text: string): void {
    this.server.process.stdin!.write(text);
  }

  /** One request, its answer parsed. */
  async request(method: string, params: Record<string, unknown>): Promise<RpcMessage> {
    const id = this.nextId++;
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const line = await this.nextLine();
    const message = JSON.parse(line) as RpcMessage;
    if (message.id !== id) throw new Error(`${this.server.name}: expected the answer to ${id}, got ${line.slice(0, 200)}`);
    return message;
  }

  /** initialize + notifications/initialized, then one checked `add(2, 3)`. */
  async handshakeAndCheck(): Promise<void> {
    const init = await this.request('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } });
    if (!init.result) throw new Error(`${this.server.name}: initialize failed: ${JSON.stringify(init)}`);
    this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const call = await this.request('tools/call', { name: this.tool, arguments: { a: 2, b: 3 } });
    const text = (call.result?.content as Array<{ text?: string }> | undefined)?.[0]?.text;
    if (text !== '5') throw new Error(`${this.server.name}: expected "5", got ${JSON.stringify(call)}`);
  }

  /** Calls `add` one after another for `durationMs`; returns calls per second, the median round trip (µs) and the calls made. */
  async sequential(durationMs: number): Promise<{ callsPerSec: number; medianUs: number; calls: number }> {
    const times: number[] = [];
    const start = performance.now();
    let now = start;
    while (now - start < durationMs) {
      const id = this.nextId++;
      const answered = this.nextLine();
      this.write(addLine(id, this.tool));
      await answered;
      const after = performance.now();
      times.push(after - now);
      now = after;
    }
    times.sort((a, b) => a - b);
    return { callsPerSec: times.length / ((now - start) / 1000), medianUs: times[times.length >> 1] * 1000, calls: times.length };
  }

  /** Writes `count` calls at once and waits for `count` answer lines; returns calls per second. */
  async pipelined(count: number): Promise<{ callsPerSec: number; ms: number }> {
    let batch = '';
    for (let i = 0; i < count; i++) batch += addLine(this.nextId++, this.tool);
    this.tail = [];
    const start = performance.now();
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.server.name}: pipelined calls not all answered within 120 s\n${this.server.stderr()}`)), 120_000);
      this.counting = {
        remaining: count,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
    this.write(batch);
    await done;
    const ms = performance.now() - start;
    this.checkLastAnswer();
    return { callsPerSec: count / (ms / 1000), ms };
  }

  /** The last answer of a burst must be a correct result too. */
  private checkLastAnswer(): void {
    const text = Buffer.concat(this.tail).toString('utf8').trimEnd();
    const line = text.slice(text.lastIndexOf('\n') + 1);
    const message = JSON.parse(line) as RpcMessage;
    const answer = (message.result?.content as Array<{ text?: string }> | undefined)?.[0]?.text;
    if (answer !== '5') throw new Error(`${this.server.name}: last pipelined answer is wrong: ${line.slice(0, 200)}`);
  }
}
