#!/usr/bin/env node
/**
 * `hermes-mcp`: poke at any MCP server from a terminal. Prints JSON on stdout. Exits 0 when done,
 * 1 when the server answered with an error (a JSON-RPC error, or a tool result with `isError`, which
 * is printed too) or could not be reached, 2 for a command line it cannot read (checked before
 * anything is spawned). On a terminal it asks the server's elicitations and shows progress on
 * stderr (cli-terminal.ts).
 *
 *   hermes-mcp tools --stdio "node dist/main.js"
 *   hermes-mcp call add --args '{"a":2,"b":3}' --url http://127.0.0.1:3000/mcp
 *   hermes-mcp call add a=2 b=3 --stdio "node dist/main.js"
 *   hermes-mcp install cursor dist/main.js --env API_KEY=…
 *   hermes-mcp read notes://today --url http://127.0.0.1:3000/mcp/sse --sse
 *   hermes-mcp skill-read skill://pdf-processing/SKILL.md --file references/FORMS.md --url http://127.0.0.1:3000/mcp
 */
import { ArgumentError, Assignment, coerceArguments, parseAssignments } from './cli/arguments';
import { installMain } from './cli/install';
import { snapshotMain } from './cli/snapshot';
import { CallOptions, ElicitationRequest, McpClient, McpClientOptions, ToolCallError } from './client';
import { ProgressLine, TerminalQuestions, terminal } from './cli-terminal';
import { StdioClientTransport } from './stdio';
import { StreamableHttpClientTransport } from './streamable-http';
import { SseClientTransport } from './sse-legacy';
import { WebSocketClientTransport, WebSocketConstructor } from './websocket';
import { dev } from './cli/dev';
import { inspect } from './cli/inspect';
import { run as runEntry } from './cli/entry';
import { proxy } from './cli/proxy';
import { CallToolResult, ErrorCode, McpError, PROTOCOL_VERSIONS, Transport, isProtocolVersion, isRecord } from '@hermes-mcp/protocol';

/** A command that asks a server: the operand it needs (its description), and whether it takes `--args` (or `--file`). */
interface ClientCommand {
  operand?: string;
  args?: 'json' | 'strings';
  assignments?: true;
  file?: true;
}

/** The commands that ask a server, read by {@link parse} (one command line, one shape). */
const COMMANDS = {
  info: {},
  tools: {},
  resources: {},
  templates: {},
  prompts: {},
  call: { operand: 'tool name', args: 'json', assignments: true },
  read: { operand: 'URI' },
  prompt: { operand: 'prompt name', args: 'strings' },
  ping: {},
  skills: {},
  skill: { operand: 'SKILL.md URI' },
  'skill-read': { operand: 'SKILL.md URI', file: true },
  'skill-dir': { operand: 'directory URI' },
} satisfies Readonly<Record<string, ClientCommand>>;

/**
 * The commands that work on a server's entry file or a host's config file: each reads its own
 * command line (and prints its own usage for `--help`); argv from the command on.
 */
const ENTRY_COMMANDS = {
  dev: (argv: string[]) => dev(argv.slice(1)),
  inspect: (argv: string[]) => inspect(argv.slice(1)),
  run: (argv: string[]) => runEntry(argv.slice(1)),
  install: (argv: string[]) => installMain(argv),
  uninstall: (argv: string[]) => installMain(argv),
  proxy: (argv: string[]) => proxy(argv.slice(1)),
  snapshot: (argv: string[]) => snapshotMain(argv),
} satisfies Readonly<Record<string, (argv: string[]) => number | Promise<number>>>;

/** Every command `hermes-mcp` dispatches, in the order `--help` lists them. */
export const DISPATCHED_COMMANDS: readonly string[] = [...Object.keys(COMMANDS), ...Object.keys(ENTRY_COMMANDS)];

/** One line of `--help` for each command it dispatches: its synopsis and what it does (the type leaves none out). */
const HELP: Readonly<Record<keyof typeof COMMANDS | keyof typeof ENTRY_COMMANDS, readonly [synopsis: string, does: string]>> = {
  info: ['info', "the server's name, version, revision, capabilities and instructions"],
  tools: ['tools', 'every tool (all pages)'],
  resources: ['resources', 'every resource (all pages)'],
  templates: ['templates', 'every resource template (all pages)'],
  prompts: ['prompts', 'every prompt (all pages)'],
  call: ['call <tool> [key=value …]', 'call a tool, its arguments typed and checked by its input schema (below)'],
  read: ['read <uri>', 'read a resource'],
  prompt: ['prompt <name> [--args <json>]', 'get a prompt (its arguments are strings)'],
  ping: ['ping', 'ping (in 2026-07-28, which has no ping: server/discover)'],
  skills: ['skills', 'every skills/list entry (all pages; the Skills extension, SEP-2640)'],
  skill: ['skill <SKILL.md URI>', 'skills/get'],
  'skill-read': ['skill-read <SKILL.md URI>', 'SKILL.md, or the file --file <path or URI> names, read and verified'],
  'skill-dir': ['skill-dir <directory URI>', 'resources/directory/read (all pages)'],
  dev: ['dev <entry>', 'serve it to a host on stdio (or --http <port>), restarted on each change'],
  inspect: ['inspect <entry>', 'print its manifest (tools, schemas, warnings) without serving it'],
  run: ['run <entry>', 'serve it on stdio, as a host spawns it'],
  install: ['install <host> <entry>', 'add it to Claude Desktop, Claude Code, Cursor, VS Code or Gemini CLI'],
  uninstall: ['uninstall <host> <name>', 'remove it from one of them'],
  proxy: ['proxy --http <port> -- <command…>', 'serve a stdio server over HTTP, or <url> --stdio (@hermes-mcp/gateway)'],
  snapshot: ['snapshot <entry>', 'a startup snapshot of its libraries, and a launcher that starts it from there'],
};

/** The lines of `--help` for these commands: synopsis, then what it does. */
function helpLines(commands: ReadonlyArray<keyof typeof HELP>): string {
  return commands.map((command) => `  ${HELP[command][0].padEnd(30)} ${HELP[command][1]}`).join('\n');
}

const USAGE = `usage: hermes-mcp <command> [arguments] [options]

Ask a server (--stdio "<command line>" | --url <url> [--sse]):
${helpLines(Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>)}

Work on a server's entry file (.js, or .ts through SWC; hermes-mcp <command> --help for each):
${helpLines(Object.keys(ENTRY_COMMANDS) as Array<keyof typeof ENTRY_COMMANDS>)}

call: key=value is typed by the tool's input schema (a.b=1 sets b inside a, a.0.b=1 b inside the
first item of the array a; a key given twice is an array), key:=<json> is JSON as it is, and
--args <json> is the base they are set over. The whole is checked against the schema before it is
sent, and a failing path exits 2 (--args alone is sent as it is).

On a terminal, the server's questions (elicitation) are asked there and progress is shown on
stderr. Exit codes: 0 done, 1 an error from the server, a tool result with isError or a skill file
that failed verification, 2 a command line that cannot be read.

options (of the commands that ask a server):
  --stdio "<command line>"  spawn the server and talk over its stdin and stdout
  --url <url>               http(s)://… Streamable HTTP (--sse: the 2024-11-05 HTTP+SSE transport),
                            ws(s)://… WebSocket
  --header "<name>: <value>"  an HTTP header for every request (repeatable)
  --protocol <revision>     speak this revision (default: auto — 2026-07-28 when the server does)
  --timeout <ms>            per request (default 60000)
  --args <json>             the arguments of call and prompt
  --file <path or URI>      the skill's file skill-read reads`;

/** A command line that cannot be read: exit 2 with the usage. */
class UsageError extends Error {}

/** Where the server is: a command line to spawn, or a URL. */
type ServerAddress = { stdio: string[] } | { url: URL; sse: boolean; headers: Record<string, string> };

/**
 * A command line, read and checked whole: nothing is spawned or sent before {@link parse}
 * returns, so a mistake costs no server start (and no side effect of one).
 */
interface Invocation {
  command: string;
  operand?: string;
  args: Record<string, unknown>;
  /** `key=value` words of `call`, typed once the tool's schema is known. */
  assignments: Assignment[];
  /** `--file` of `skill-read`: the skill's file to read, relative to its root or a URI. */
  file?: string;
  server: ServerAddress;
  protocolVersion?: McpClientOptions['protocolVersion'];
  timeout?: number;
}

function parse(argv: string[]): Invocation {
  const flags = new Map<string, string[]>();
  const positional: string[] = [];
  const valued = new Set(['--stdio', '--url', '--header', '--protocol', '--timeout', '--args', '--file']);
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
  if (flags.has('--help') || flags.has('-h')) throw new UsageError('help');
  const command = positional.shift();
  if (command === undefined) throw new UsageError('no command');
  const spec: ClientCommand | undefined = Object.prototype.hasOwnProperty.call(COMMANDS, command) ? COMMANDS[command as keyof typeof COMMANDS] : undefined;
  if (spec === undefined) throw new UsageError(`unknown command ${command}`);
  const operand = spec.operand === undefined ? undefined : positional.shift();
  if (spec.operand !== undefined && operand === undefined) throw new UsageError(`${command} needs a ${spec.operand}`);
  const assignments = spec.assignments ? readAssignments(positional.splice(0)) : [];
  if (positional.length > 0) throw new UsageError(`${command} takes ${spec.operand === undefined ? 'no operand' : `one ${spec.operand}`}, not also "${positional.join(' ')}"`);
  if (flags.has('--args') && spec.args === undefined) throw new UsageError(`${command} takes no --args (call and prompt do)`);
  if (flags.has('--file') && spec.file === undefined) throw new UsageError(`${command} takes no --file (skill-read does)`);
  const protocolVersion = flags.get('--protocol')?.[0];
  if (protocolVersion !== undefined && protocolVersion !== 'auto' && !isProtocolVersion(protocolVersion))
    throw new UsageError(`--protocol ${protocolVersion} is not a revision: auto, ${PROTOCOL_VERSIONS.join(', ')}`);
  const timeout = flags.get('--timeout')?.[0];
  if (timeout !== undefined && !/^[1-9]\d*$/.test(timeout)) throw new UsageError(`--timeout ${timeout} is not a number of milliseconds above 0`);
  return {
    command,
    operand,
    args: argsOf(flags.get('--args')?.[0], spec.args),
    assignments,
    server: serverOf(flags),
    ...(flags.has('--file') && { file: flags.get('--file')![0] }),
    ...(protocolVersion !== undefined && { protocolVersion: protocolVersion }),
    ...(timeout !== undefined && { timeout: Number(timeout) }),
  };
}

/** The `key=value` words of `call`, checked (syntax and `key:=` JSON) before anything is spawned. */
function readAssignments(words: string[]): Assignment[] {
  try {
    return parseAssignments(words);
  } catch (error) {
    throw error instanceof ArgumentError ? new UsageError(error.message) : error;
  }
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

/** Where the server is, from `--stdio` or `--url` (with `--sse` and `--header`). */
function serverOf(flags: Map<string, string[]>): ServerAddress {
  const stdio = flags.get('--stdio')?.[0];
  const url = flags.get('--url')?.[0];
  if ((stdio === undefined) === (url === undefined)) throw new UsageError('give one of --stdio or --url');
  if (stdio !== undefined) {
    if (flags.has('--header') || flags.has('--sse')) throw new UsageError(`${flags.has('--sse') ? '--sse' : '--header'} goes with --url, not --stdio`);
    const words = splitCommandLine(stdio);
    if (!words[0]) throw new UsageError('--stdio needs a command');
    return { stdio: words };
  }
  let target: URL;
  try {
    target = new URL(url!);
  } catch {
    throw new UsageError(`--url ${url} is not a URL (e.g. http://127.0.0.1:3000/mcp)`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(target.protocol)) throw new UsageError(`--url must be http(s):// or ws(s)://, not ${target.protocol}`);
  if (flags.has('--sse') && target.protocol.startsWith('ws')) throw new UsageError('--sse goes with an http(s):// --url');
  const headers: Record<string, string> = {};
  for (const header of flags.get('--header') ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${header}" is not "Name: value"`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  return { url: target, sse: flags.has('--sse'), headers };
}

/** The `--args` object (`{}` without it); a prompt's values must be strings, as MCP has them. */
function argsOf(text: string | undefined, kind: 'json' | 'strings' | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--args must be a JSON object');
  const notString = kind === 'strings' ? Object.keys(value).find((key) => typeof (value as Record<string, unknown>)[key] !== 'string') : undefined;
  if (notString !== undefined) throw new UsageError(`--args of a prompt are strings: "${notString}" is not one`);
  return value as Record<string, unknown>;
}

async function transportOf(server: ServerAddress, onStderr: (chunk: string) => void): Promise<Transport> {
  if ('stdio' in server) {
    const [command, ...args] = server.stdio;
    return new StdioClientTransport({ command, args, onStderr });
  }
  const { url, sse, headers } = server;
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    let WebSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    // Node 20 has no global WebSocket: the `ws` package, when installed.
    WebSocket ??= ((await import('ws').catch(() => undefined)) as { WebSocket?: WebSocketConstructor } | undefined)?.WebSocket;
    return new WebSocketClientTransport({ url, WebSocket });
  }
  return sse ? new SseClientTransport({ url, headers }) : new StreamableHttpClientTransport({ url, headers });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The arguments of `call`: `--args`, with the `key=value` words typed by the tool's input schema (from tools/list). */
async function callArguments(client: McpClient, tool: string, args: Record<string, unknown>, assignments: Assignment[], options: CallOptions): Promise<Record<string, unknown>> {
  if (assignments.length === 0) return args;
  const tools = await collect(client.listAllTools(options));
  const found = tools.find((candidate) => candidate.name === tool);
  if (found === undefined) throw new Error(`the server has no tool ${tool} (it has: ${tools.map((candidate) => candidate.name).join(', ') || 'none'})`);
  return coerceArguments(assignments, found.inputSchema ?? true, args);
}

/**
 * `skill-read`: the skill's entry (`skills/get`), its SKILL.md loaded (read and verified), then
 * the file `--file` names, verified against the same entry; printed as text, or base64 when the
 * server sent bytes that are not text.
 */
async function readSkill(client: McpClient, uri: string, file: string | undefined, options: CallOptions): Promise<Record<string, unknown>> {
  const { skill } = await client.getSkill(uri, options);
  const loaded = await client.loadSkill(skill, options);
  const read = file === undefined ? loaded.manifest : await loaded.read(file, options);
  return {
    uri: read.uri,
    ...(read.mimeType !== undefined && { mimeType: read.mimeType }),
    verified: read.verified,
    ...(read.text !== undefined ? { text: read.text } : { base64: Buffer.from(read.bytes).toString('base64') }),
    ...(read.frontmatter !== undefined && { frontmatter: read.frontmatter }),
  };
}

async function run({ command, operand, args, assignments, file }: Invocation, client: McpClient, options: CallOptions): Promise<unknown> {
  switch (command) {
    case 'info':
      return {
        era: client.era,
        protocolVersion: client.protocolVersion,
        serverInfo: client.serverInfo,
        capabilities: client.serverCapabilities,
        instructions: client.instructions,
      };
    case 'tools':
      return collect(client.listAllTools(options));
    case 'resources':
      return collect(client.listAllResources(options));
    case 'templates':
      return collect(client.listAllResourceTemplates(options));
    case 'prompts':
      return collect(client.listAllPrompts(options));
    case 'call':
      return client.callTool(operand!, await callArguments(client, operand!, args, assignments, options), options);
    case 'read':
      return client.readResource(operand!, options);
    case 'prompt':
      return client.getPrompt(operand!, args as Record<string, string>, options);
    case 'ping': {
      // In 2026-07-28, which has no `ping`, McpClient.ping() asks `server/discover`.
      const started = performance.now();
      await client.ping(options);
      return { ok: true, protocolVersion: client.protocolVersion, ms: Math.round((performance.now() - started) * 10) / 10 };
    }
    case 'skills':
      return collect(client.listAllSkills(options));
    case 'skill':
      return (await client.getSkill(operand!, options)).skill;
    case 'skill-read':
      return readSkill(client, operand!, file, options);
    case 'skill-dir':
      return client.readSkillDirectory(operand!, options);
    default:
      throw new Error(`no such command: ${command}`); // parse() lets none through
  }
}

/** True for a -32021 that names the elicitation capability: the server wanted to ask the user something. */
function asksElicitation(error: unknown): boolean {
  if (!(error instanceof McpError) || error.code !== ErrorCode.MissingRequiredClientCapability) return false;
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  return isRecord(required) && required.elicitation !== undefined;
}

/** Writes an error to stderr as `hermes-mcp: message (code) data`. */
function report(error: unknown, hint = ''): void {
  const { code, message, data } = error as { code?: number | string; message?: string; data?: unknown };
  process.stderr.write(`hermes-mcp: ${message ?? String(error)}${code !== undefined ? ` (${String(code)})` : ''}${data !== undefined ? ` ${JSON.stringify(data)}` : ''}${hint}\n`);
}

/**
 * Runs one command line; resolves with the exit code: 0 done, 1 the server answered with an error
 * (a JSON-RPC error, or a tool result with `isError`) or could not be reached, 2 a command line
 * it cannot read (checked before anything is spawned or sent; for `call key=value`, the values
 * the tool's input schema cannot take, checked before the call is sent).
 */
async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command !== undefined && Object.prototype.hasOwnProperty.call(ENTRY_COMMANDS, command)) return ENTRY_COMMANDS[command as keyof typeof ENTRY_COMMANDS](argv);
  let invocation: Invocation;
  try {
    invocation = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message === 'help' ? '' : `hermes-mcp: ${error.message}\n\n`}${USAGE}\n`);
    return error.message === 'help' ? 0 : 2;
  }
  const tty = terminal();
  const progress = tty.progress ? new ProgressLine(process.stderr) : undefined;
  const questions = tty.ask ? new TerminalQuestions(process.stdin, process.stderr) : undefined;
  const toStderr = (text: string) => {
    progress?.clear();
    process.stderr.write(text);
  };
  const options: McpClientOptions = {
    clientInfo: { name: 'hermes-mcp-cli', version: '0.1.0' },
    logger: { error: (message) => toStderr(`hermes-mcp: ${message}\n`) },
    ...(questions && { onElicitation: (request: ElicitationRequest) => (progress?.clear(), questions.elicit(request)) }),
    ...(invocation.protocolVersion !== undefined && { protocolVersion: invocation.protocolVersion }),
    ...(invocation.timeout !== undefined && { requestTimeout: invocation.timeout }),
  };
  const client = new McpClient(await transportOf(invocation.server, toStderr), options);
  try {
    await client.connect();
    const result = await run(invocation, client, progress ? { onProgress: (update) => progress.show(update) } : {});
    progress?.clear();
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    // A tool that failed answers with a result: print it, and say so in the exit code.
    if (invocation.command === 'call' && (result as CallToolResult).isError === true) {
      process.stderr.write(`hermes-mcp: the tool answered with an error (isError): ${new ToolCallError(result as CallToolResult).message}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    progress?.clear();
    // A key=value the tool's schema cannot take is a command line it cannot read, found late.
    if (error instanceof ArgumentError) {
      process.stderr.write(`hermes-mcp: ${error.message}\n`);
      return 2;
    }
    report(error, !questions && asksElicitation(error) ? '\nhermes-mcp: the server asks a question: run hermes-mcp on a terminal to answer it' : '');
    return 1;
  } finally {
    questions?.close();
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
