/**
 * A minimal WebSocket MCP client for the bench: one JSON-RPC message per text frame, subprotocol
 * `mcp`. Sequential calls wait for each answer; a pipelined burst sends every request at once and
 * only counts answer frames until all are back (no parsing while timing but the last).
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { LEGACY_VERSION, RpcMessage } from './mcp';

function addFrame(id: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`;
}

/** One WebSocket connection to a server. */
export class WsClient {
  private nextId = 1;
  private waiter?: (frame: string) => void;
  private counting?: { remaining: number; done: (last: string) => void };

  private constructor(
    private readonly name: string,
    private readonly socket: WebSocket,
  ) {
    socket.on('message', (data: Buffer) => this.onFrame(data));
  }

  /** Connects to `url` with the `mcp` subprotocol. */
  static connect(name: string, url: string): Promise<WsClient> {
    const socket = new WebSocket(url, 'mcp');
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsClient(name, socket)));
      socket.once('error', reject);
    });
  }

  private onFrame(data: Buffer): void {
    if (this.counting) {
      if (--this.counting.remaining === 0) {
        const done = this.counting.done;
        this.counting = undefined;
        done(data.toString('utf8'));
      }
      return;
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(data.toString('utf8'));
  }

  private nextFrame(timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no answer within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = (frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
    });
  }

  /** One request, its answer parsed. */
  async request(method: string, params: Record<string, unknown>): Promise<RpcMessage> {
    const id = this.nextId++;
    const answered = this.nextFrame();
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const frame = await answered;
    const message = JSON.parse(frame) as RpcMessage;
    if (message.id !== id) throw new Error(`${this.name}: expected the answer to ${id}, got ${frame.slice(0, 200)}`);
    return message;
  }

  /** initialize + notifications/initialized, then one checked `add(2, 3)`. */
  async handshakeAndCheck(): Promise<void> {
    const init = await this.request('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } });
    if (!init.result) throw new Error(`${this.name}: initialize failed: ${JSON.stringify(init)}`);
    this.socket.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const call = await this.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    checkAdd(this.name, call);
  }

  /** Calls `add` one after another for `durationMs`; returns calls per second, the median round trip (µs) and the calls made. */
  async sequential(durationMs: number): Promise<{ callsPerSec: number; medianUs: number; calls: number }> {
    const times: number[] = [];
    const start = performance.now();
    let now = start;
    while (now - start < durationMs) {
      const answered = this.nextFrame();
      this.socket.send(addFrame(this.nextId++));
      await answered;
      const after = performance.now();
      times.push(after - now);
      now = after;
    }
    times.sort((a, b) => a - b);
    return { callsPerSec: times.length / ((now - start) / 1000), medianUs: times[times.length >> 1] * 1000, calls: times.length };
  }

  /** Sends `count` calls at once and waits for `count` answer frames; returns calls per second. */
  async pipelined(count: number): Promise<{ callsPerSec: number; ms: number }> {
    const frames: string[] = [];
    for (let i = 0; i < count; i++) frames.push(addFrame(this.nextId++));
    const start = performance.now();
    const last = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: pipelined calls not all answered within 120 s`)), 120_000);
      this.counting = {
        remaining: count,
        done: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
    });
    for (const frame of frames) this.socket.send(frame);
    const lastFrame = await last;
    const ms = performance.now() - start;
    checkAdd(this.name, JSON.parse(lastFrame) as RpcMessage);
    return { callsPerSec: count / (ms / 1000), ms };
  }

  close(): void {
    this.socket.close();
  }
}

/** An answer must be the correct result of `add(2, 3)`. */
function checkAdd(name: string, message: RpcMessage): void {
  const text = (message.result?.content as Array<{ text?: string }> | undefined)?.[0]?.text;
  if (text !== '5') throw new Error(`${name}: expected "5", got ${JSON.stringify(message).slice(0, 200)}`);
}
