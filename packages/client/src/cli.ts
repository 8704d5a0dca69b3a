#!/usr/bin/env node
/**
 * `hermes-mcp`: poke at any MCP server from a terminal. Prints JSON on stdout; errors go to stderr
 * with exit code 1 (2 for a command line it cannot read).
 *
 *   hermes-mcp tools --stdio "node dist/main.js"
 *   hermes-mcp call add --args '{"a":2,"b":3}' --url http://127.0.0.1:3000/mcp
 *   hermes-mcp read notes://today --url http://127.0.0.1:3000/mcp/sse --sse
 */
import { McpClient, McpClientOptions } from './client';
import { StdioClientTransport } from './stdio';
import { StreamableHttpClientTransport } from './streamable-http';
import { SseClientTransport } from './sse-legacy';
import { WebSocketClientTransport, WebSocketConstructor } from './websocket';
import type { Transport } from '@hermes-mcp/protocol';

const USAGE = `usage: hermes-mcp <command> [arguments] (--stdio "<command line>" | --url <url> [--sse]) [options]

commands:
  info                      the server's name, version, revision, capabilities and instructions
  tools | resources | templates | prompts
                            every item of that list (all pages)
  call <tool> [--args <json>]
  read <uri>
  prompt <name> [--args <json>]
  ping

options:
  --stdio "<command line>"  spawn the server and talk over its stdin and stdout
  --url <url>               http(s)://… Streamable HTTP (--sse: the 2024-11-05 HTTP+SSE transport),
                            ws(s)://… WebSocket
  --header "<name>: <value>"  an HTTP header for every request (repeatable)
  --protocol <revision>     speak this revision (default: auto — 2026-07-28 when the server does)
  --timeout <ms>            per request (default 60000)`;

/** A command line that cannot be read: exit 2 with the usage. */
class UsageError extends Error {}

interface Parsed {
  command: string;
  positional: string[];
  flags: Map<string, string[]>;
}

function parse(argv: string[]): Parsed {
  const flags = new Map<string, string[]>();
  const positional: string[] = [];
  const valued = new Set(['--stdio', '--url', '--header', '--protocol', '--timeout', '--args']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--sse' || arg === '--help' || arg === '-h') flags.set(arg, ['']);
    else if (valued.has(arg)) {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      flags.set(arg, [...(flags.get(arg) ?? []), value]);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const command = positional.shift();
  if (flags.has('--help') || flags.has('-h')) throw new UsageError('help');
  if (command === undefined) throw new UsageError('no command');
  return { command, positional, flags };
}

/** Splits a command line into words: spaces separate, quotes ('…' or "…") and backslashes group. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`an unclosed ${quote} in --stdio`);
  if (inWord) words.push(word);
  return words;
}

async function transportOf(flags: Map<string, string[]>): Promise<Transport> {
  const stdio = flags.get('--stdio')?.[0];
  const url = flags.get('--url')?.[0];
  if ((stdio === undefined) === (url === undefined)) throw new UsageError('give one of --stdio or --url');
  if (stdio !== undefined) {
    const [command, ...args] = splitCommandLine(stdio);
    if (!command) throw new UsageError('--stdio needs a command');
    return new StdioClientTransport({ command, args, onStderr: (chunk) => process.stderr.write(chunk) });
  }
  const headers: Record<string, string> = {};
  for (const header of flags.get('--header') ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${header}" is not "Name: value"`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  const target = new URL(url!);
  if (target.protocol === 'ws:' || target.protocol === 'wss:') {
    let WebSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    // Node 20 has no global WebSocket: the `ws` package, when installed.
    WebSocket ??= ((await import('ws').catch(() => undefined)) as { WebSocket?: WebSocketConstructor } | undefined)?.WebSocket;
    return new WebSocketClientTransport({ url: target, WebSocket });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new UsageError(`--url must be http(s):// or ws(s)://, not ${target.protocol}`);
  return flags.has('--sse') ? new SseClientTransport({ url: target, headers }) : new StreamableHttpClientTransport({ url: target, headers });
}

function jsonArg(flags: Map<string, string[]>): Record<string, unknown> {
  const text = flags.get('--args')?.[0];
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--args must be a JSON object');
  return value as Record<string, unknown>;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function run(parsed: Parsed, client: McpClient): Promise<unknown> {
  const [first] = parsed.positional;
  const need = (what: string): string => {
    if (first === undefined) throw new UsageError(`${parsed.command} needs a ${what}`);
    return first;
  };
  switch (parsed.command) {
    case 'info':
      return {
        era: client.era,
        protocolVersion: client.protocolVersion,
        serverInfo: client.serverInfo,
        capabilities: client.serverCapabilities,
        instructions: client.instructions,
      };
    case 'tools':
      return collect(client.listAllTools());
    case 'resources':
      return collect(client.listAllResources());
    case 'templates':
      return collect(client.listAllResourceTemplates());
    case 'prompts':
      return collect(client.listAllPrompts());
    case 'call':
      return client.callTool(need('tool name'), jsonArg(parsed.flags));
    case 'read':
      return client.readResource(need('URI'));
    case 'prompt':
      return client.getPrompt(need('prompt name'), jsonArg(parsed.flags) as Record<string, string>);
    case 'ping':
      await client.ping();
      return { ok: true };
    default:
      throw new UsageError(`unknown command ${parsed.command}`);
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: Parsed;
  let transport: Transport;
  try {
    parsed = parse(argv);
    transport = await transportOf(parsed.flags);
    if (!['info', 'tools', 'resources', 'templates', 'prompts', 'call', 'read', 'prompt', 'ping'].includes(parsed.command))
      throw new UsageError(`unknown command ${parsed.command}`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message === 'help' ? '' : `hermes-mcp: ${error.message}\n\n`}${USAGE}\n`);
    return error.message === 'help' ? 0 : 2;
  }
  const options: McpClientOptions = { clientInfo: { name: 'hermes-mcp-cli', version: '0.1.0' }, logger: { error: (message) => process.stderr.write(`hermes-mcp: ${message}\n`) } };
  const protocol = parsed.flags.get('--protocol')?.[0];
  if (protocol !== undefined) options.protocolVersion = protocol as McpClientOptions['protocolVersion'];
  const timeout = parsed.flags.get('--timeout')?.[0];
  if (timeout !== undefined) options.requestTimeout = Number(timeout);
  const client = new McpClient(transport, options);
  try {
    await client.connect();
    const result = await run(parsed, client);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`hermes-mcp: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    const { code, message, data } = error as { code?: number | string; message?: string; data?: unknown };
    process.stderr.write(`hermes-mcp: ${message ?? String(error)}${code !== undefined ? ` (${String(code)})` : ''}${data !== undefined ? ` ${JSON.stringify(data)}` : ''}\n`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`hermes-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
