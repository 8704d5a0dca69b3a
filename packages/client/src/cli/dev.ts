/**
 * `hermes-mcp dev <entry> [--inspector]`: runs the server of `entry` for a host that spawned
 * `hermes-mcp dev` as its stdio server, restarts it when a file of the project changes or the
 * process dies, and keeps the host connected across restarts. The host's session is held here:
 * each new server process is initialized with the host's own `initialize` parameters (that answer
 * is not forwarded), then set as the host set its session — the level of its `logging/setLevel`,
 * the resources of its `resources/subscribe` — before it takes anything of the host's; everything
 * else goes both ways as it is (ids unchanged), a request in flight when its process dies is
 * answered with a JSON-RPC error, and after a restart the host is told
 * `notifications/{tools,prompts,resources}/list_changed` for each list that changed. A new
 * process that fails to start (a syntax error SWC reports, an exception at load) leaves the last
 * good one serving; what it printed is on stderr. Nothing but protocol is written on stdout.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { FSWatcher, readdirSync, watch } from 'node:fs';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { ErrorCode } from '@hermes-mcp/protocol';
import { Entry, EntryUsageError, parseEntryArgs, resolveEntry, usage } from './entry';
import { serveDevHttp } from './dev-http';

const USAGE = `usage: hermes-mcp dev <entry> [--http <port>] [--inspector]

Runs the server of <entry> (a .js file, or a .ts file compiled by SWC with decorator metadata) on
stdio for the host that spawned this command, restarts it when a file of its project changes (the
folder of the nearest package.json, node_modules and dot-folders left out) or when it dies, and
keeps the host connected: the host's session is carried over to the new process (its log level
and resource subscriptions too), and the host is told which lists changed. A new process that fails
to start leaves the last good one serving.

  --http <port> serve on http://127.0.0.1:<port>/mcp (Streamable HTTP) instead of stdio; each
                host session keeps its Mcp-Session-Id across restarts
  --inspector   start the official MCP Inspector (npx @modelcontextprotocol/inspector@2, its web
                UI) as the host of this command, or with --http pointed at its URL; it runs on
                the Node that runs dev, which needs to be 22.19 or newer (on an older one dev
                says what to do and exits 1), and ends with dev (SIGINT, SIGTERM)`;

/**
 * The official Inspector, by the major release whose command line dev speaks (`--transport`,
 * `--server-url`) and whose engines {@link INSPECTOR_NODE} repeats: npx takes its newest 2.x.
 */
const INSPECTOR_PACKAGE = '@modelcontextprotocol/inspector@2';

/** The Node the official Inspector needs (its package.json's engines). */
const INSPECTOR_NODE = [22, 19] as const;

/** How long a new process may take to answer the host's `initialize` before it counts as failed. */
const START_TIMEOUT = 30_000;

/** Waits for file changes to settle (an editor or a build writes several files) before a restart. */
const SETTLE_MS = 100;

type Id = string | number;
/** A JSON-RPC message as dev reads it (only what routing needs). */
export type Message = { jsonrpc?: string; id?: Id | null; method?: string; params?: unknown; result?: unknown; error?: unknown };
type ListKind = 'tools' | 'prompts' | 'resources';

/** The list methods behind each list_changed notification (resources: both of its lists). */
const LISTS: Record<ListKind, string[]> = { tools: ['tools/list'], prompts: ['prompts/list'], resources: ['resources/list', 'resources/templates/list'] };

const keyOf = (id: Id) => `${typeof id}:${id}`;

/** One server process, spoken to in newline-delimited JSON-RPC over its stdin and stdout. */
class ServerProcess {
  readonly child: ChildProcess;
  /** The host's requests sent to this process and not answered yet, by {@link keyOf} their id. */
  readonly pending = new Map<string, Id>();
  /** Set when dev ends this process on purpose (replaced, or dev ends): its exit is no crash. */
  retiring = false;
  readonly exited: Promise<string>;
  private readonly own = new Map<string, { resolve(message: Message): void; reject(error: Error): void }>();
  private readonly write: (line: string) => void;
  private nextId = 0;

  constructor(entry: Entry, onLine: (process: ServerProcess, line: string, message: Message | undefined) => void) {
    this.child = spawn(process.execPath, [...entry.nodeArgs, entry.file], { cwd: entry.root, env: entry.env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdin!.on('error', () => undefined); // a process that died: its exit says so
    this.write = batched((text) => this.alive && this.child.stdin!.write(text));
    readLines(this.child.stdout!, (line) => {
      const message = parse(line);
      const waiting = message && message.method === undefined && message.id != null ? this.own.get(keyOf(message.id)) : undefined;
      if (waiting) {
        this.own.delete(keyOf(message!.id!));
        waiting.resolve(message!);
      } else onLine(this, line, message);
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        const how = signal ? `signal ${signal}` : `exit code ${String(code)}`;
        for (const waiting of this.own.values()) waiting.reject(new Error(`it ended (${how})`));
        this.own.clear();
        resolve(how);
      }),
    );
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  send(line: string): void {
    this.write(line);
  }

  /** A request of dev's own (ids `hermes-dev:N`, which no host uses); its answer is not forwarded. */
  request(method: string, params: unknown): Promise<Message> {
    const id = `hermes-dev:${++this.nextId}`;
    return new Promise((resolve, reject) => {
      if (!this.alive) return reject(new Error('it is not running'));
      this.own.set(keyOf(id), { resolve, reject });
      this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Ends the process as a host would: stdin closes, the server answers what is in flight and exits. */
  retire(): void {
    this.retiring = true;
    this.child.stdin!.end();
  }
}

/**
 * Calls `onLine` with each line of `stream` (newline-delimited JSON-RPC), the last one too when the
 * stream ends without a newline. Chunks are split by hand (readline's per-line events are more
 * work than this hop needs).
 */
function readLines(stream: Readable, onLine: (line: string) => void): Readable {
  let rest = '';
  const take = (line: string) => {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed) onLine(trimmed);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) take(line);
  });
  stream.on('end', () => take(rest));
  return stream;
}

/**
 * A writer of lines that writes what one turn of the event loop produced at once (the lines of
 * one chunk read, routed): one write, not one a message, as Hermes's own stdio transport does.
 */
function batched(write: (text: string) => unknown): (line: string) => void {
  let lines: string[] = [];
  return (line) => {
    if (lines.length === 0)
      queueMicrotask(() => {
        const text = `${lines.join('\n')}\n`;
        lines = [];
        write(text);
      });
    lines.push(line);
  };
}

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error for a host request no server process answered. */
function errorOf(id: Id, message: string): Message {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } };
}

/**
 * The host's session, held across server processes: it routes the host's lines to the current
 * process and the processes' lines to the host, and replaces the process on {@link DevSession.reload}.
 */
export class DevSession {
  private current?: ServerProcess;
  /** The host's `initialize` request, replayed to each new process. */
  private initialize?: Message;
  /** True once the host sent `notifications/initialized`. */
  private initialized = false;
  /** The capabilities the current process answered `initialize` with. */
  private capabilities: Record<string, unknown> = {};
  /** The lists as last seen (JSON), to tell the host which changed after a restart. */
  private lists = new Map<ListKind, string>();
  /** The host's lines held while a process that died is replaced. */
  private held?: string[];
  /** The server's requests to the host, by id: which process asked (it gets the answer). */
  private readonly asked = new Map<string, ServerProcess>();
  /** The level of the host's last `logging/setLevel`: set in each new process before it serves the host. */
  private logLevel?: string;
  /** The resources the host subscribed to (and did not unsubscribe from): subscribed in each new process likewise. */
  private readonly subscriptions = new Set<string>();
  /** The host's `logging/setLevel` and `resources/(un)subscribe` in flight, by id: what undoes each if refused. */
  private readonly settings = new Map<string, () => void>();
  private reloading: Promise<void> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly entry: Entry,
    private readonly toHost: (line: string, message: Message) => void,
    private readonly say: (text: string) => void,
  ) {
    this.current = this.spawn();
  }

  /** A line from the host. */
  fromHost(line: string): void {
    if (this.held) return void this.held.push(line);
    const message = parse(line);
    if (message?.method === 'initialize' && message.id != null) this.initialize = message;
    if (message && message.method === undefined && message.id != null) {
      // The host's answer to a server request goes to the process that asked it.
      const asker = this.asked.get(keyOf(message.id));
      this.asked.delete(keyOf(message.id));
      return (asker ?? this.current)?.send(line);
    }
    const server = this.current;
    if (message?.method !== undefined && message.id != null) {
      if (!server?.alive) return this.tell(errorOf(message.id, 'hermes-mcp dev: no server is running (it failed to start); fix the error and save: dev starts it again'));
      server.pending.set(keyOf(message.id), message.id);
      this.remember(message.id, message);
    }
    server?.send(line);
    if (message?.method === 'notifications/initialized') {
      this.initialized = true;
      if (server) void this.compareLists(server);
    }
  }

  /**
   * Keeps what a request of the host sets in its session — the level of `logging/setLevel`, the
   * URI of `resources/subscribe` or `resources/unsubscribe` — for the next process, with what
   * undoes it should the server refuse the request.
   */
  private remember(id: Id, { method, params }: Message): void {
    const { level, uri } = (typeof params === 'object' && params !== null ? params : {}) as { level?: unknown; uri?: unknown };
    if (method === 'logging/setLevel' && typeof level === 'string') {
      const before = this.logLevel;
      this.logLevel = level;
      this.settings.set(keyOf(id), () => this.logLevel === level && (this.logLevel = before));
    } else if ((method === 'resources/subscribe' || method === 'resources/unsubscribe') && typeof uri === 'string') {
      const had = this.subscriptions.has(uri);
      if (method === 'resources/subscribe') this.subscriptions.add(uri);
      else this.subscriptions.delete(uri);
      this.settings.set(keyOf(id), () => (had ? this.subscriptions.add(uri) : this.subscriptions.delete(uri)));
    }
  }

  /** The answer to the host's request `id` (`refused`: an error): a setting it made is kept, or undone. */
  private settled(id: Id, refused: boolean): void {
    const undo = this.settings.get(keyOf(id));
    this.settings.delete(keyOf(id));
    if (refused) undo?.();
  }

  /** Starts a new process and, once it answers, puts it in place of the current one. */
  reload(why: string): Promise<void> {
    this.reloading = this.reloading.then(() => this.replace(why));
    return this.reloading;
  }

  /** The host left: every process ends as it would under the host (stdin closed); resolves when they did. */
  async end(): Promise<void> {
    this.ended = true;
    await this.reloading;
    const server = this.current;
    server?.retire();
    await server?.exited;
  }

  private spawn(): ServerProcess {
    const server = new ServerProcess(this.entry, (from, line, message) => this.fromServer(from, line, message));
    void server.exited.then((how) => this.onExit(server, how));
    return server;
  }

  private fromServer(server: ServerProcess, line: string, message: Message | undefined): void {
    if (!message) {
      // A console.log in the server: on dev's stdout it would break the host's stream.
      if (line.trim()) this.say(`hermes-mcp dev: the server wrote a line that is not JSON-RPC on stdout (sent to stderr instead): ${line}\n`);
      return;
    }
    if (message.id != null) {
      if (message.method !== undefined) this.asked.set(keyOf(message.id), server);
      else {
        server.pending.delete(keyOf(message.id));
        this.settled(message.id, message.error !== undefined);
        if (this.initialize && message.id === this.initialize.id) this.capabilities = capabilitiesOf(message);
      }
    }
    this.toHost(line, message);
  }

  /** Sends dev's own message to the host. */
  private tell(message: Message): void {
    this.toHost(JSON.stringify(message), message);
  }

  private onExit(server: ServerProcess, how: string): void {
    for (const id of server.pending.values()) {
      this.settled(id, true);
      this.tell(errorOf(id, `hermes-mcp dev: the server process ended (${how}) before answering; dev restarts it`));
    }
    server.pending.clear();
    for (const [key, asker] of this.asked) if (asker === server) this.asked.delete(key);
    if (server !== this.current || server.retiring || this.ended) return;
    this.say(`hermes-mcp dev: the server ended (${how}); starting it again\n`);
    this.held ??= [];
    void this.reload('it ended');
  }

  private async replace(why: string): Promise<void> {
    if (this.ended) return;
    const next = this.spawn();
    try {
      await this.ready(next);
    } catch (error) {
      next.retiring = true;
      next.child.kill();
      const last = this.current?.alive ? 'the last good one keeps serving' : 'no server runs until the next change';
      this.say(`hermes-mcp dev: the server did not start (${(error as Error).message}); ${last}\n`);
      this.release();
      return;
    }
    const previous = this.current;
    this.current = next;
    if (previous?.alive) previous.retire();
    this.say(`hermes-mcp dev: restarted (${why})\n`);
    this.release();
    await this.compareLists(next);
  }

  /** Sends the lines held while no process ran to the current one (which answers or refuses them). */
  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const line of held) this.fromHost(line);
  }

  /**
   * Resolves once `server` answered the host's `initialize` (or, before one, a `ping`) and took
   * what the host set in its session ({@link replay}); rejects if it ended first. What runs after
   * it in the same turn (the switch to `server`) comes before any line of the host's.
   */
  private async ready(server: ServerProcess): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${START_TIMEOUT / 1000} s`)), START_TIMEOUT)));
    try {
      if (!this.initialize) return void (await Promise.race([server.request('ping', {}), late]));
      const answer = await Promise.race([server.request('initialize', this.initialize.params), late]);
      if (answer.error !== undefined) throw new Error(`it refused initialize: ${JSON.stringify(answer.error)}`);
      this.capabilities = capabilitiesOf(answer);
      if (this.initialized) server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      await this.replay(server, late);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sets in `server` what the host set in its session: its log level (`logging/setLevel`), then
   * its subscriptions (`resources/subscribe`), each answered before the host's requests reach
   * `server`; again for what the host changed meanwhile (on the process serving it until then),
   * until `server` has what the host set. A setting the new server refuses (a resource it no longer
   * has) is said on stderr; the host is not told.
   */
  private async replay(server: ServerProcess, late: Promise<never>): Promise<void> {
    let level: string | undefined;
    let subscribed = new Set<string>();
    for (;;) {
      const steps: Array<[method: string, params: Record<string, unknown>]> = [];
      if (this.logLevel !== undefined && this.logLevel !== level) steps.push(['logging/setLevel', { level: this.logLevel }]);
      for (const uri of this.subscriptions) if (!subscribed.has(uri)) steps.push(['resources/subscribe', { uri }]);
      for (const uri of subscribed) if (!this.subscriptions.has(uri)) steps.push(['resources/unsubscribe', { uri }]);
      if (steps.length === 0) return;
      level = this.logLevel;
      subscribed = new Set(this.subscriptions);
      const answers = await Promise.race([Promise.all(steps.map(([method, params]) => server.request(method, params))), late]);
      answers.forEach((answer, i) => {
        if (answer.error === undefined) return;
        const [method, params] = steps[i];
        this.say(`hermes-mcp dev: the new server refused the host's ${method} ${JSON.stringify(params)} (${JSON.stringify(answer.error)}); the host is not told\n`);
      });
    }
  }

  /** Reads the lists `server` declares and tells the host which differ from the last reading. */
  private async compareLists(server: ServerProcess): Promise<void> {
    if (!this.initialized) return;
    for (const kind of Object.keys(LISTS) as ListKind[]) {
      if (this.capabilities[kind] === undefined) continue;
      let now: string;
      try {
        now = JSON.stringify(await Promise.all(LISTS[kind].map((method) => listAll(server, method))));
      } catch {
        continue; // the process ended meanwhile: the next one is compared
      }
      const before = this.lists.get(kind);
      this.lists.set(kind, now);
      if (before !== undefined && before !== now) this.tell({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
    }
  }
}

function capabilitiesOf(answer: Message): Record<string, unknown> {
  const capabilities = (answer.result as { capabilities?: unknown } | undefined)?.capabilities;
  return typeof capabilities === 'object' && capabilities !== null ? (capabilities as Record<string, unknown>) : {};
}

/** Every page of a list, as dev itself asks it. */
async function listAll(server: ServerProcess, method: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const answer = await server.request(method, cursor === undefined ? {} : { cursor });
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    const result = (answer.result ?? {}) as Record<string, unknown>;
    const page = (Object.values(result).find(Array.isArray) ?? []) as unknown[];
    items.push(...page);
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
  } while (cursor !== undefined);
  return items;
}

/**
 * Watches `root` and the folders below it (node_modules and dot-folders left out) and calls
 * `onChange` once changes settled. Folder by folder, as Node 20's recursive watch on Linux would
 * walk node_modules too.
 */
export function watchProject(root: string, onChange: (file: string) => void): () => void {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let changed = '';
  const add = (dir: string) => {
    if (watchers.has(dir)) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
      watchers.set(
        dir,
        watch(dir, (_event, name) => {
          if (!name) return;
          const file = path.join(dir, name.toString());
          add(file); // a new folder (fails quietly for a file)
          if (!/\.(c|m)?(t|j)s$|\.json$/.test(file)) return; // editors' swap and backup files
          changed = file;
          clearTimeout(timer);
          timer = setTimeout(() => onChange(changed), SETTLE_MS);
        }),
      );
    } catch {
      return;
    }
    for (const item of entries) if (item.isDirectory() && item.name !== 'node_modules' && !item.name.startsWith('.')) add(path.join(dir, item.name));
  };
  add(root);
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
  };
}

/** True when this Node (or `version`) can run the official Inspector. */
export function nodeRunsInspector(version = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > INSPECTOR_NODE[0] || (major === INSPECTOR_NODE[0] && minor >= INSPECTOR_NODE[1]);
}

/** `hermes-mcp dev`; resolves with the exit code once the host left. */
export async function dev(argv: string[]): Promise<number> {
  if (argv.includes('--help')) return (process.stderr.write(`${USAGE}\n`), 0);
  let entry: Entry;
  let inspector: boolean;
  let http: number | undefined;
  try {
    const { operand, flags } = parseEntryArgs(argv, 'dev', { '--inspector': false, '--http': true });
    entry = resolveEntry(operand, 'dev');
    inspector = flags.has('--inspector');
    const port = flags.get('--http');
    if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) <= 65535)) throw new EntryUsageError(`dev: --http ${port} is not a port (0 to 65535; 0 picks a free one)`);
    http = port === undefined ? undefined : Number(port);
  } catch (error) {
    return usage(error, USAGE);
  }
  if (inspector && !nodeRunsInspector()) return inspectorNeedsNode(entry, http);
  if (http !== undefined) return devHttp(entry, http, inspector);
  if (inspector) {
    // The Inspector is the host: it spawns `hermes-mcp dev <entry>` (this command without --inspector) on stdio.
    // A signal is the user ending dev: dev exits 0 once npx ended, however npx took the signal.
    const started = startInspector([process.execPath, CLI, 'dev', entry.file]);
    let stopped = false;
    const stop = (signal: NodeJS.Signals) => ((stopped = true), started.stop(signal));
    process.once('SIGINT', stop).once('SIGTERM', stop);
    return started.exited.then((code) => (stopped ? 0 : code));
  }
  const session = new DevSession(
    entry,
    batched((text) => process.stdout.write(text)),
    (text) => process.stderr.write(text),
  );
  const unwatch = watchProject(entry.root, (file) => void session.reload(`${path.relative(entry.root, file)} changed`));
  process.stderr.write(`hermes-mcp dev: serving ${path.relative(process.cwd(), entry.file) || entry.file} on stdio, watching ${entry.root}\n`);
  const stop = () => void session.end().finally(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  await new Promise((resolve) => readLines(process.stdin, (line) => session.fromHost(line)).once('end', resolve));
  unwatch();
  await session.end();
  return 0;
}

/** `--http <port>`: the HTTP front (dev-http.ts) until SIGINT or SIGTERM; with `inspector`, the Inspector pointed at it. */
async function devHttp(entry: Entry, port: number, inspector: boolean): Promise<number> {
  const front = await serveDevHttp(entry, port, (text) => process.stderr.write(text));
  const url = `http://127.0.0.1:${(front.server.address() as AddressInfo).port}/mcp`;
  const unwatch = watchProject(entry.root, (file) => front.reload(`${path.relative(entry.root, file)} changed`));
  process.stderr.write(`hermes-mcp dev: serving ${path.relative(process.cwd(), entry.file) || entry.file} on ${url} (Streamable HTTP), watching ${entry.root}\n`);
  let started: StartedInspector | undefined;
  let stopping = false;
  if (inspector) {
    process.stderr.write(`hermes-mcp dev: starting the Inspector, pointed at ${url} (Streamable HTTP)\n`);
    started = startInspector(['--transport', 'http', '--server-url', url]);
    void started.exited.then((code) => stopping || process.stderr.write(`hermes-mcp dev: the Inspector ended (exit code ${code}); dev keeps serving on ${url}\n`));
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
  stopping = true;
  started?.stop(signal);
  unwatch();
  await Promise.all([front.close(), started?.exited]);
  return 0;
}

/** The CLI itself, as the Inspector spawns it. */
const CLI = path.join(__dirname, '..', 'cli.js');

/** The official Inspector, as {@link startInspector} started it. */
interface StartedInspector {
  /** Resolves with the exit code of npx once it ended (1 when it could not be started). */
  readonly exited: Promise<number>;
  /** Sends `signal` to the Inspector and every process it started (its stdio server too). */
  stop(signal: NodeJS.Signals): void;
}

/**
 * `--inspector`: the official Inspector through npx, with `args` after the package: the command it
 * spawns as its stdio server, or the URL it connects to. npx, the npm under it and the
 * Inspector run on this Node: its folder comes first on their PATH (npx and the Inspector's bin
 * start with `#!/usr/bin/env node`, and the Node first on the PATH may be another than the one
 * that runs dev and passed {@link nodeRunsInspector}, on which npx would pick an older Inspector
 * or the Inspector would not start). They run in a process group of their own, which
 * {@link StartedInspector.stop} signals whole: npx forwards a signal to a shell that does not
 * pass it on, so the Inspector would outlive dev and keep its ports. (On Windows, where no such
 * group is made, the signal goes to npx alone.)
 */
function startInspector(args: string[]): StartedInspector {
  const group = process.platform !== 'win32';
  const child = spawn('npx', ['-y', INSPECTOR_PACKAGE, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: withNodeFirst(process.env), detached: group });
  const exited = new Promise<number>((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`hermes-mcp dev: --inspector: npx did not start (${error.message})\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const stop = (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      if (group) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // the group ended meanwhile
    }
  };
  return { exited, stop };
}

/** `env` with the folder of this Node first on its PATH (the key as `env` spells it: Windows has `Path`). */
function withNodeFirst(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
  return { ...env, [key]: [path.dirname(process.execPath), env[key]].filter(Boolean).join(path.delimiter) };
}

/** `--inspector` on a Node older than the Inspector's: what to do instead (nothing is started). */
function inspectorNeedsNode(entry: Entry, http: number | undefined): number {
  const said = [
    `hermes-mcp dev: --inspector: the MCP Inspector needs Node ${INSPECTOR_NODE.join('.')} or newer, and this is Node ${process.versions.node}.`,
    'Install a newer Node (e.g. nvm install 22) and run this again, or run the Inspector from one:',
  ];
  if (http === undefined) said.push(`  npx ${INSPECTOR_PACKAGE} ${[process.execPath, CLI, 'dev', entry.file].join(' ')}`);
  else {
    const url = http === 0 ? '<the URL it prints>' : `http://127.0.0.1:${http}/mcp`;
    said.push(`  npx ${INSPECTOR_PACKAGE} --transport http --server-url ${url}`, `with hermes-mcp dev ${entry.file} --http ${http} (without --inspector) serving on this Node`);
  }
  process.stderr.write(`${said.join('\n')}\n`);
  return 1;
}
