/**
 * One upstream server, as the gateway reaches it through `@hermes-mcp/client`: a command it spawns
 * (stdio) or a URL (Streamable HTTP, HTTP+SSE, WebSocket), in whichever era the server speaks. An
 * {@link UpstreamConnection} is started on first use, restarted on the next request after it closed
 * (with backoff), and routes the upstream's questions (elicitation, sampling, roots) and log
 * messages to the downstream request that caused them. The proxy uses it; remote mounts will too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ConnectionClosedError,
  McpError,
  ElicitationAnswer,
  ElicitationRequest,
  LogMessage,
  McpClient,
  SseClientTransport,
  StdioClientTransport,
  StreamableHttpClientTransport,
  WebSocketClientTransport,
} from '@hermes-mcp/client';
import type { ListenFilter, Transport } from '@hermes-mcp/client';
import type { ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, Implementation, ProtocolVersion, Root, ServerCapabilities } from '@hermes-mcp/protocol';
import { gatewayError } from './errors';

/** An upstream started as a process speaking MCP on its stdin and stdout (the hosts' `mcpServers` entry). */
export interface StdioUpstream {
  /** The program to run (`node`, `npx`, `uvx`, …). */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Added to the gateway's own environment (the hosts' meaning of `env`). */
  env?: Record<string, string>;
  /** Its working directory (default the gateway's). */
  cwd?: string;
}

/** An upstream reached over the network; the gateway's own credentials in `headers`, never a caller's. */
export interface UrlUpstream {
  /** The server's MCP endpoint (`https://…/mcp`; `ws://`/`wss://` for WebSocket, `…/sse` with `transport: 'sse'`). */
  url: string;
  /** Headers sent with every request: the gateway's own credentials (`Authorization: Bearer …`). */
  headers?: Record<string, string>;
  /** How to reach it (default: `ws:`/`wss:` URLs over WebSocket, others over Streamable HTTP). */
  transport?: 'streamable-http' | 'sse' | 'websocket';
}

/** Where an upstream is: a command or a URL. */
export type UpstreamSpec = StdioUpstream | UrlUpstream;

/** True for a command upstream. */
export function isStdioUpstream(spec: UpstreamSpec): spec is StdioUpstream {
  return typeof (spec as StdioUpstream).command === 'string';
}

/**
 * The downstream side of one request being forwarded: where the upstream's questions and log
 * messages for it go. The proxy fills it from the request's `McpContext`.
 */
export interface DownstreamRequest {
  /** Forwards a question of the upstream; resolves with the downstream client's answer. */
  ask(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Forwards a log message of the upstream. */
  log(message: LogMessage): void;
}

/** Options of an {@link UpstreamConnection}. */
export interface UpstreamOptions {
  /** A name for errors and logs (the `mcpServers` key; default `upstream`). */
  name?: string;
  /** The client's name and version as the upstream sees it. */
  clientInfo?: Implementation;
  /** Milliseconds a forwarded request may take (default 5 minutes; the downstream's cancellation ends it sooner). */
  requestTimeout?: number;
  /** Where the upstream's stderr goes (default this process's stderr). */
  onStderr?: (chunk: string) => void;
  /** First delay before a restart after a failure, in milliseconds (default 250), doubled each failure in a row. */
  backoffMs?: number;
  /** Longest delay before a restart (default 10 000). */
  maxBackoffMs?: number;
  /** The revision to speak upstream (default `auto`: 2026-07-28 when the upstream does). */
  protocolVersion?: 'auto' | ProtocolVersion;
  /**
   * Every request on this connection comes from one downstream client (a legacy session, a stdio
   * client): a question or log message that cannot be tied to one request goes to the newest one
   * in flight, which reaches that same client. Otherwise such a message is refused (a question,
   * `GATEWAY_QUESTION_UNROUTABLE`) or dropped (a log message) rather than shown to another client.
   */
  oneClient?: boolean;
  /**
   * The capabilities declared to the upstream (default: elicitation, sampling and roots, all of
   * them answered by routing). A legacy session's connection declares its client's, so that the
   * upstream asks only what that client can answer.
   */
  capabilities?: ClientCapabilities;
  /**
   * Keep a 2026-07-28 `subscriptions/listen` stream open on the upstream for its list changes
   * (default false), so that {@link onListChanged} hears of them as a legacy session would.
   */
  listenForListChanges?: boolean;
  /** Declare the tasks extension (2026-07-28) upstream, so that its tasks can be followed (`tasks/get`, `tasks/update`). */
  tasks?: boolean;
  /**
   * The most resource URIs this connection subscribes the upstream to (default
   * {@link MAX_UPSTREAM_SUBSCRIPTIONS}); past it {@link UpstreamConnection.subscribe} refuses a new
   * one with `GATEWAY_SUBSCRIPTIONS_FULL`.
   */
  maxSubscriptions?: number;
  /** Told of each notification that is not about one request (list changes, resource updates). */
  onListChanged?: (list: 'tools' | 'resources' | 'prompts') => void;
  /** Told of each `notifications/resources/updated`. */
  onResourceUpdated?: (uri: string) => void;
}

/** Why a connection could not be opened (its `cause`), before it counts as a failure. */
class GatewayOpenError extends Error {
  constructor(override readonly cause: unknown) {
    super('the upstream could not be opened');
  }
}

/**
 * The most resource URIs one upstream connection subscribes to for downstream clients: a
 * subscription is kept until the connection closes (another client may still want it), so clients
 * subscribing to ever new URIs of a template cannot grow it without bound.
 */
export const MAX_UPSTREAM_SUBSCRIPTIONS = 1000;

const QUESTION_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: { tools: {}, context: {} }, roots: { listChanged: true } };

/**
 * One connection to an upstream server. `client()` gives a connected `McpClient` (starting it on
 * first use, and again after it closed, waiting out the backoff); `run()` forwards one downstream
 * request with the upstream's questions routed back to it.
 */
export class UpstreamConnection {
  /** The upstream's name, in errors and logs. */
  readonly name: string;
  private current?: Promise<McpClient> = undefined;
  private failures = 0;
  private failedAt = 0;
  private closed = false;
  /** The requests forwarded on this connection now, oldest first (a set: a call's end removes it in constant time, whatever is in flight). */
  private readonly inFlight = new Set<DownstreamRequest>();
  /** The downstream request of the code running now (a question asked inside a forwarded call). */
  private readonly scope = new AsyncLocalStorage<DownstreamRequest>();
  /**
   * Whether the upstream's questions can arrive in the context of the call that caused them: on a
   * URL upstream a question comes on that call's own response stream; on a stdio upstream it comes
   * on the one pipe, in no call's context, so a call there is run without a scope of its own.
   */
  private readonly scoped: boolean;
  /** The connected client while there is one: a call takes it without waiting a turn on {@link current}. */
  private connected?: McpClient = undefined;
  /** What stops each client's listen stream. */
  private readonly stopListening = new WeakMap<McpClient, AbortController>();
  /**
   * The resource URIs the upstream is subscribed to for downstream clients (made again after each
   * restart), each with its subscription under way or made: a second client waits for the first's.
   */
  private readonly subscribed = new Map<string, Promise<void>>();

  constructor(
    readonly spec: UpstreamSpec,
    private readonly options: UpstreamOptions = {},
  ) {
    this.name = options.name ?? 'upstream';
    this.scoped = !isStdioUpstream(spec);
  }

  /** The connected client, started (or restarted after a failure, past its backoff) when there is none. */
  client(): Promise<McpClient> {
    if (this.closed) return Promise.reject(gatewayError('GATEWAY_UPSTREAM_UNAVAILABLE', this.name, `the connection to the upstream "${this.name}" was closed`));
    return (this.current ??= this.start());
  }

  /** The upstream's capabilities, name and instructions (connecting first). */
  async describe(): Promise<{ capabilities: ServerCapabilities; serverInfo?: Implementation; instructions?: string; era?: 'legacy' | 'modern' }> {
    const client = await this.client();
    return { capabilities: client.serverCapabilities, serverInfo: client.serverInfo, instructions: client.instructions, era: client.era };
  }

  /**
   * Runs `work` with a connected client on behalf of `downstream`: the upstream's questions and
   * log messages made meanwhile go to it. A connection that closes meanwhile fails the work with
   * `GATEWAY_UPSTREAM_CLOSED` and is restarted on the next request.
   */
  async run<T>(downstream: DownstreamRequest, work: (client: McpClient) => Promise<T>): Promise<T> {
    const client = (!this.closed && this.connected) || (await this.client());
    this.inFlight.add(downstream);
    try {
      return await (this.scoped ? this.scope.run(downstream, () => work(client)) : work(client));
    } catch (error) {
      if (error instanceof ConnectionClosedError) {
        this.lost(client);
        throw gatewayError(
          'GATEWAY_UPSTREAM_CLOSED',
          this.name,
          `the upstream "${this.name}" closed while this request was in flight (${error.message}); the next request starts it again`,
        );
      }
      throw error;
    } finally {
      this.inFlight.delete(downstream);
    }
  }

  /**
   * Subscribes the upstream to `uri`, so that its `notifications/resources/updated` for it come
   * (to `onResourceUpdated`): a legacy upstream's `resources/subscribe`, or, in 2026-07-28, a listen
   * stream with the URI among its `resourceSubscriptions` (opened anew with every URI, the old one
   * ended once the new one is acknowledged). Kept until the connection closes, and made again after
   * each restart. Nothing is sent to an upstream that does not declare `resources.subscribe`. Past
   * `maxSubscriptions` ({@link MAX_UPSTREAM_SUBSCRIPTIONS}) a new URI is refused,
   * `GATEWAY_SUBSCRIPTIONS_FULL`; the upstream's refusal (or its being unreachable) is thrown, and
   * the URI forgotten.
   */
  subscribe(uri: string): Promise<void> {
    const known = this.subscribed.get(uri);
    if (known) return known;
    const most = this.options.maxSubscriptions ?? MAX_UPSTREAM_SUBSCRIPTIONS;
    if (this.subscribed.size >= most) {
      return Promise.reject(
        gatewayError(
          'GATEWAY_SUBSCRIPTIONS_FULL',
          this.name,
          `the upstream "${this.name}" is subscribed to ${most} resources for clients already, the most it is (maxSubscriptions): ${uri} is not`,
        ),
      );
    }
    const made = (async () => {
      const client = await this.client();
      if (!client.serverCapabilities.resources?.subscribe) return;
      if (client.era === 'modern') await this.listen(client);
      else await client.subscribe(uri);
    })();
    this.subscribed.set(uri, made);
    made.catch(() => {
      if (this.subscribed.get(uri) === made) this.subscribed.delete(uri);
    });
    return made;
  }

  /** Closes the connection (a stdio upstream is stopped); later requests fail. */
  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    this.connected = undefined;
    const client = await current?.catch(() => undefined);
    if (client) this.stopListening.get(client)?.abort();
    await client?.close().catch(() => undefined);
  }

  private async start(): Promise<McpClient> {
    const wait = this.failures === 0 ? 0 : Math.min((this.options.backoffMs ?? 250) * 2 ** (this.failures - 1), this.options.maxBackoffMs ?? 10_000) - (Date.now() - this.failedAt);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const pinned = this.options.protocolVersion ?? 'auto';
    try {
      return await this.open(pinned);
    } catch (error) {
      // A server that turned the revision down (it answered: an error of the protocol, not a closed
      // connection) is asked again in whichever revision it speaks, its newest.
      if (pinned === 'auto' || !(error instanceof GatewayOpenError) || !(error.cause instanceof McpError)) throw this.failed(error);
      return this.open('auto').catch((again: unknown) => {
        throw this.failed(again);
      });
    }
  }

  /** Counts a failure to start (for the backoff) and makes the error requests get. */
  private failed(error: unknown): McpError {
    this.failures++;
    this.failedAt = Date.now();
    this.current = undefined;
    const cause = error instanceof GatewayOpenError ? error.cause : error;
    return gatewayError(
      'GATEWAY_UPSTREAM_UNAVAILABLE',
      this.name,
      `the upstream "${this.name}" could not be started or reached: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }

  /** A connected client speaking `protocolVersion`; rejects with a {@link GatewayOpenError} holding why not. */
  private async open(protocolVersion: 'auto' | ProtocolVersion): Promise<McpClient> {
    const transport = this.transport();
    const client = new McpClient(transport, {
      clientInfo: this.options.clientInfo ?? { name: 'hermes-mcp-gateway', version: '0.1.0' },
      capabilities: this.options.capabilities ?? QUESTION_CAPABILITIES,
      requestTimeout: this.options.requestTimeout ?? 300_000,
      // Every message: each downstream client's own level filters them (its `logging/setLevel`).
      logLevel: 'debug',
      protocolVersion,
      ...(this.options.tasks && { tasks: true }),
      onElicitation: (request) => this.ask('elicitation/create', request) as Promise<ElicitationAnswer>,
      onSampling: (request) => this.ask('sampling/createMessage', request) as Promise<unknown> as Promise<CreateMessageResult>,
      onRoots: async () => ((await this.ask('roots/list', {})).roots ?? []) as Root[],
      onLog: (message) => this.routed()?.log(message),
      onListChanged: (list) => this.options.onListChanged?.(list),
      onResourceUpdated: (uri) => this.options.onResourceUpdated?.(uri),
      logger: { error: (message, error) => process.stderr.write(`hermes-mcp gateway (${this.name}): ${message}: ${String(error)}\n`) },
    });
    try {
      await client.connect();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new GatewayOpenError(error);
    }
    this.failures = 0;
    this.connected = client;
    if (client.era === 'modern') void this.listen(client).catch(() => undefined);
    else if (this.subscribed.size > 0 && client.serverCapabilities.resources?.subscribe) {
      // A restarted upstream knows nothing of what the last one was subscribed to.
      for (const uri of this.subscribed.keys()) void client.subscribe(uri).catch(() => undefined);
    }
    // Closed (the process exited, the server dropped the connection): the next request starts a new one.
    const onclose = transport.onclose;
    transport.onclose = () => {
      this.lost(client);
      onclose?.();
    };
    return client;
  }

  /**
   * Keeps a 2026-07-28 listen stream open while `client` is the connection's, for the upstream's
   * list changes (`listenForListChanges`) and the resources subscribed to (the client tells
   * `onListChanged` and `onResourceUpdated`). Called again with more URIs, it opens a new stream
   * and ends the old one once the new one is acknowledged (nothing is missed in between); resolves
   * then, and rejects if the stream could not be opened.
   */
  private listen(client: McpClient): Promise<void> {
    const caps = client.serverCapabilities;
    const lists = this.options.listenForListChanges === true;
    const filter: ListenFilter = {
      toolsListChanged: lists && !!caps.tools?.listChanged,
      promptsListChanged: lists && !!caps.prompts?.listChanged,
      resourcesListChanged: lists && !!caps.resources?.listChanged,
    };
    if (this.subscribed.size > 0 && caps.resources?.subscribe) filter.resourceSubscriptions = [...this.subscribed.keys()];
    if (!filter.toolsListChanged && !filter.promptsListChanged && !filter.resourcesListChanged && !filter.resourceSubscriptions) return Promise.resolve();
    const previous = this.stopListening.get(client);
    const abort = new AbortController();
    this.stopListening.set(client, abort);
    return new Promise<void>((resolve, reject) => {
      void (async () => {
        for await (const _notification of client.listen(filter, { signal: abort.signal })) {
          // The first is the acknowledgement; the client tells onListChanged and onResourceUpdated of the rest.
          previous?.abort();
          resolve();
        }
        resolve();
      })().catch((error: unknown) => {
        // Ended by a newer stream (acknowledged, with every URI this one had): that one serves.
        if (abort.signal.aborted) return resolve();
        if (this.stopListening.get(client) === abort) this.stopListening.delete(client);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  /** Forgets a client whose connection closed, so the next request starts a new one (after the backoff). */
  private lost(client: McpClient): void {
    if (this.connected === client) this.connected = undefined;
    void this.current?.then((current) => {
      if (current !== client) return;
      this.current = undefined;
      this.failures++;
      this.failedAt = Date.now();
      this.stopListening.get(client)?.abort();
      void client.close().catch(() => undefined);
    });
  }

  /**
   * The downstream request a question or log message belongs to: the one whose call is running
   * (a question asked inside it: a 2026-07-28 input round, or a message read on its HTTP
   * stream), else the only request in flight (with `oneClient`, the newest); undefined when that
   * cannot be told.
   */
  private routed(): DownstreamRequest | undefined {
    const running = this.scope.getStore();
    if (running) return running;
    if (this.inFlight.size === 1 || (this.options.oneClient && this.inFlight.size > 0)) {
      // The newest: a question no request can be told from is rare, so walking the set is fine here.
      let newest: DownstreamRequest | undefined;
      for (newest of this.inFlight);
      return newest;
    }
    return this.options.oneClient ? this.idle : undefined;
  }

  /**
   * Where a question or log message goes when no request is in flight, on a connection of one
   * client (`oneClient`): that client, reached outside any request (the roots it lists after
   * telling of a change, say).
   */
  idle?: DownstreamRequest = undefined;

  private ask(
    method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
    params: ElicitationRequest | CreateMessageRequestParams | Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const downstream = this.routed();
    if (!downstream) {
      return Promise.reject(
        gatewayError(
          'GATEWAY_QUESTION_UNROUTABLE',
          this.name,
          `the upstream "${this.name}" asked ${method} while ${this.inFlight.size} requests were in flight on its connection, none of which it can be tied to`,
        ),
      );
    }
    return downstream.ask(method, params);
  }

  private transport(): Transport {
    const spec = this.spec;
    if (isStdioUpstream(spec)) {
      return new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        env: { ...process.env, ...spec.env },
        ...(spec.cwd !== undefined && { cwd: spec.cwd }),
        onStderr: this.options.onStderr ?? ((chunk) => process.stderr.write(chunk)),
      });
    }
    const url = new URL(spec.url);
    const kind = spec.transport ?? (url.protocol === 'ws:' || url.protocol === 'wss:' ? 'websocket' : 'streamable-http');
    if (kind === 'websocket') return new WebSocketClientTransport({ url });
    if (kind === 'sse') return new SseClientTransport({ url, headers: spec.headers });
    return new StreamableHttpClientTransport({ url, headers: spec.headers });
  }
}
