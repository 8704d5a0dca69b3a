/**
 * McpFactory: turns a decorated server class (or an McpHandler) into an app, bootstrapping
 * everything once: typedi builds the classes, the scanner fills the registry, schemas are built.
 * The app serves it (stdio by default) and changes it at runtime.
 */
import type { JsonRpcNotification, Skill, Transport } from '@hermes-mcp/protocol';
import { Constructor, DependencyContainer, defaultContainer } from '../container';
import { CursorCodec } from './cursor';
import { Connection, ConnectionOptions } from '../engine/connection';
import { Engine, ServingOptions } from '../engine/engine';
import { fstatSync } from 'node:fs';
import type { Cluster } from '../stores/cluster';
import { HermesError } from '../errors';
import { assertSingleCopies } from '../interop/single-copy';
import { reportInterop } from '../interop/report';
import { McpHandler, NotificationContext, isMcpHandler } from '../engine/mcp-handler';
import { Logger, deferredLogger } from '../logger';
import type { MountMap, PromptOptions, ResourceOptions, ToolOptions } from '../metadata/options';
import { ListKind, Registry } from './registry';
import type { ServedApp } from './served-app';
import { register, scanServer } from './scanner';
import { checkAppLink, toolMetaOf } from './apps';
import type { SchemaWarning } from '../schema/schema-builder';
import { DecoratedServerHandler } from '../engine/decorated-server';
import type * as SkillsHostModule from '../skills/host';
import type { SkillsReload } from '../skills/host';
import { codeSkillsOf } from '../skills/code';
import { StdioTransport, StdioTransportOptions } from '../transports/stdio.transport';
import type { ValidateOptions } from '../validation/validator';
import type { McpContext, ServerActions, SessionInfo } from '../context/mcp-context';

/** Options of {@link McpFactory.create}. */
export interface McpAppOptions extends ServingOptions {
  /** A pino logger; default: one writing to stderr at `info` (or `HERMES_LOG_LEVEL`). */
  logger?: Logger;
  /** The typedi container classes are built from; default: typedi's global one. */
  container?: DependencyContainer;
  /**
   * How tool, prompt and resource inputs are validated (default: unknown keys stripped). With
   * `forbidNonWhitelisted: true`, unknown keys are refused, and the tools' input schemas say so
   * (`additionalProperties: false`, nested classes included).
   */
  validation?: ValidateOptions;
  /**
   * Whether `McpFactory.create` (and `app.addTool` and the like) logs `HERMES_SCHEMA_LOOSER` at
   * `warn`: one line naming every field whose published schema accepts more than its validation
   * (a checksum, a phone number, a custom validator: what JSON Schema cannot say; see
   * docs/schemas.md). Such a field works — the server refuses what its rules refuse — but a client
   * that trusts the schema may send a value that is then refused. Default true; false once you
   * have read the list.
   */
  warnLooserSchemas?: boolean;
  /** Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` (default 100). */
  pageSize?: number;
  /** Secret that seals pagination cursors; set the same one on every process behind one endpoint (default: random). */
  cursorSecret?: string;
  /** Options of the stdio transport used by `listen()`. */
  stdio?: StdioTransportOptions;
  /**
   * More servers to mount, by namespace, besides those of the server's own `@McpServer({ mount })`
   * (a namespace in both must name the same class). See `mount` of `@McpServer` and docs/compose.md.
   *
   * @example
   * McpFactory.create(ShopServer, { mount: { billing: BillingServer } });
   */
  mount?: MountMap;
  /** What goes between a namespace and a mounted tool's or prompt's name; wins over `@McpServer({ mountSeparator })` (default `_`). */
  mountSeparator?: string;
}

/** The skills a running app serves (`app.skills`). */
export interface AppSkills {
  /** The entries `skills/list` gives, in URI order (frozen). */
  readonly entries: readonly Skill[];
  /** Builds the skills again from their folders and inline files, and swaps them in whole; on failure the old ones stay served. */
  reload(): Promise<SkillsReload>;
}

/** A tool, prompt or resource registered on a running app, which can be switched off or removed. */
export interface RegisteredHandle {
  /** `tool`, `prompt` or `resource`. */
  readonly kind: 'tool' | 'prompt' | 'resource';
  /** The name (tools, prompts) or URI / template (resources). */
  readonly key: string;
  /** False while disabled. */
  readonly enabled: boolean;
  /** Shows it again (clients are told the list changed). */
  enable(): void;
  /** Hides it; calls to it fail as unknown (clients are told the list changed). */
  disable(): void;
  /** Removes it for good. */
  remove(): void;
}

/** A handler added at runtime: the input (validated when `input`/`args`/`params` names a class) and the context. */
export type RuntimeHandler = (input: any, ctx: McpContext) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Listens to a client notification. */
export type NotificationListener = (notification: JsonRpcNotification, ctx: NotificationContext) => void | Promise<void>;

/**
 * The global where the `hermes-mcp` CLI installs its hook (`Symbol.for`, so every copy of core
 * finds it): when set, `listen()` without a transport calls it with the app instead of serving.
 */
const LISTEN_HOOK = Symbol.for('hermes-mcp.cli.listen');

/**
 * A bootstrapped MCP server, ready to serve on stdio or any transport. Its handlers reach it too:
 * `ctx.notifyResourceUpdated(uri)` and `ctx.notifyListChanged(list)` are the app's, and
 * {@link McpApp.of} gives a handler the whole app (to add or switch off tools, reload skills).
 */
export class McpApp implements ServedApp, ServerActions {
  /** The engine every transport uses. */
  readonly engine: Engine;
  /** The server-side logger. */
  readonly logger: Logger;
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  /** {@link onSubscribe}'s listeners. */
  private readonly subscribers = new Set<(uri: string, session?: SessionInfo) => void | Promise<void>>();
  private listening = false;

  /**
   * The app serving the request of `ctx`: what a tool, resource or prompt uses to change the server
   * while running — add a tool, switch one off, reload skills — with no service filled in by `main`
   * (the server-wide notifications are on the context itself: `ctx.notifyResourceUpdated`,
   * `ctx.notifyListChanged`). Throws `HERMES_INVALID_OPTIONS` for a context no app made.
   *
   * @example
   * \@Tool({ description: 'Adds a greeting tool' })
   * addGreeter(input: NameInput, ctx: McpContext) {
   *   McpApp.of(ctx).addTool({ name: `greet_${input.name}` }, () => `Hello from ${input.name}!`);
   *   return `added greet_${input.name}`;
   * }
   */
  static of(ctx: McpContext): McpApp {
    const server = ctx.server;
    if (!(server instanceof McpApp)) throw new HermesError('HERMES_INVALID_OPTIONS', 'McpApp.of(ctx) takes the context of a request served by an McpApp.');
    return server;
  }

  /** @internal */
  constructor(
    /** What answers requests. */
    readonly handler: McpHandler,
    /** The registry of a decorated server; undefined for a plain McpHandler. */
    readonly registry: Registry | undefined,
    private readonly options: McpAppOptions,
    logger: Logger,
  ) {
    this.logger = logger;
    this.engine = new Engine(this.withListeners(handler), {
      logger,
      requestTimeout: options.requestTimeout,
      handlerTimeout: options.handlerTimeout,
      requestStateSecret: options.requestStateSecret,
      cache: options.cache,
      tasks: options.tasks,
      shutdownGracePeriod: options.shutdownGracePeriod,
      cluster: options.cluster,
      maxResultBytes: options.maxResultBytes,
      maxBatchEntries: options.maxBatchEntries,
      server: this,
    });
    if (registry) registry.onChange = (kind) => this.engine.notifyListChanged(kind);
  }

  /**
   * Serves on stdio (the default), or on the transport given. Resolves once serving; the process
   * ends by itself when stdin closes. Under `hermes-mcp inspect`, which installs a hook, the app
   * is handed to the hook instead of served on stdio.
   */
  async listen(transport?: Transport): Promise<Connection> {
    // `hermes-mcp inspect` loads the user's entry with this hook installed: the app is handed to
    // it instead of served, so the entry runs as written (docs/cli.md).
    const cliHook = (globalThis as { [LISTEN_HOOK]?: (app: McpApp) => Promise<Connection> })[LISTEN_HOOK];
    if (!transport && cliHook) return cliHook(this);
    if (this.listening && !transport) {
      throw new HermesError('HERMES_ALREADY_LISTENING', 'this app already listens on stdio; create another app or pass a transport.');
    }
    if (transport) return this.connect(transport);
    this.listening = true;
    const stdio = this.options.stdio ?? {};
    const connection = await this.connect(new StdioTransport({ maxResultBytes: this.engine.maxResultBytes, ...stdio }));
    const counts = this.registry?.counts;
    // For whoever watches the terminal; a host that spawns the server (stderr a pipe or a file)
    // gets it at debug: a server started many times a day then writes nothing, and its default
    // logger never loads pino (logger.ts).
    const said = stderrIsTerminal() ? 'info' : 'debug';
    this.logger[said]({ ...counts, server: this.handler.serverInfo.name }, 'MCP server listening on stdio');
    const onSignal = (signal: NodeJS.Signals): void => {
      this.logger.info({ signal }, 'shutting down: answering the requests in flight');
      void this.close().finally(() => process.exit(0));
    };
    if (stdio.handleSignals !== false) {
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    }
    void connection.closed.then(() => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      this.listening = false;
      // stdin closed and every request was answered: the process is done. It normally ends by
      // itself now; a handler still holding a timer or socket open would keep it alive for nothing.
      if (stdio.exitOnClose !== false) setTimeout(() => process.exit(), 1_000).unref();
    });
    return connection;
  }

  /** Serves one connection over `transport` (custom transports, HTTP sessions, tests). */
  connect(transport: Transport, options?: ConnectionOptions): Promise<Connection> {
    return this.engine.connect(transport, options);
  }

  /**
   * Shuts down gracefully: new requests are refused with -32010 (server shutting down), requests
   * in flight get `shutdownGracePeriod` ms to finish (default 5 000) and are then answered with
   * -32010, then every connection closes.
   */
  async close(): Promise<void> {
    await this.engine.drain();
    this.listening = false;
  }

  /** The cluster this app is an instance of (`McpAppOptions.cluster`), if any. */
  get cluster(): Cluster | undefined {
    return this.options.cluster;
  }

  /**
   * The skills of the `skills` option (SEP-2640): the entries served, and `reload()`, which builds
   * them again from their folders (call it after changing skills on disk; clients are told when
   * `resources/list` changed). Throws when the server has no `skills` option.
   */
  get skills(): AppSkills {
    const host = this.registry?.skills;
    if (!host) throw new HermesError('HERMES_INVALID_OPTIONS', 'this server has no skills: set the `skills` option of @McpServer.');
    return {
      get entries() {
        return host.catalog.entries;
      },
      reload: () => host.reload(),
    };
  }

  /**
   * Tells the clients subscribed to `uri` (`resources/subscribe`, or a 2026-07-28 listen stream
   * naming it) that it changed, on every transport and, with a `cluster`, every instance. Handlers
   * call it as `ctx.notifyResourceUpdated(uri)`.
   */
  notifyResourceUpdated(uri: string): void {
    this.engine.notifyResourceUpdated(uri);
  }

  /**
   * Tells clients that `list` changed (`notifications/{list}/list_changed`), once per list per
   * tick, on every transport and, with a `cluster`, every instance. The app's own changes
   * (`addTool`, `tool(name).disable()`, `skills.reload()`…) send it by themselves; call it when a
   * list changes otherwise (an `McpHandler`'s own lists). Nothing is sent for a list the server
   * does not declare with `listChanged: true`. Handlers call it as `ctx.notifyListChanged(list)`.
   */
  notifyListChanged(list: ListKind): void {
    this.engine.notifyListChanged(list);
  }

  /**
   * Listens to a client notification, e.g. `notifications/roots/list_changed`.
   *
   * @example
   * app.onNotification('notifications/roots/list_changed', async (_n, ctx) => {
   *   workspace.setRoots(await ctx.listRoots());
   * });
   */
  onNotification(method: string, listener: NotificationListener): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Listens to clients' resource subscriptions: `listener` gets each URI a client subscribes to (a
   * legacy session's `resources/subscribe`, each URI of a 2026-07-28 `subscriptions/listen`
   * stream's `resourceSubscriptions`) and the legacy session subscribing (absent for a listen
   * stream), on every transport, before the client is answered; a
   * listener that throws fails that subscription (the client gets its error; for a listen stream,
   * the stream is refused). For updates that come from elsewhere — a remote
   * mount subscribes its upstream to the URI — sent with {@link notifyResourceUpdated}. Returns
   * what stops listening.
   *
   * @example
   * app.onSubscribe((uri) => watcher.watch(uri));
   */
  onSubscribe(listener: (uri: string, session?: SessionInfo) => void | Promise<void>): () => void {
    this.subscribers.add(listener);
    return () => void this.subscribers.delete(listener);
  }

  /** The tool of that name, to enable, disable or remove it. */
  tool(name: string): RegisteredHandle {
    return this.handle('tool', name);
  }

  /** The prompt of that name, to enable, disable or remove it. */
  prompt(name: string): RegisteredHandle {
    return this.handle('prompt', name);
  }

  /** The resource (by URI) or template (by pattern), to enable, disable or remove it. */
  resource(uriOrTemplate: string): RegisteredHandle {
    return this.handle('resource', uriOrTemplate);
  }

  /**
   * Adds a tool while running; clients are told the list changed.
   *
   * @example
   * app.addTool({ name: 'shout', input: TextInput }, (input: TextInput) => input.text.toUpperCase());
   */
  addTool(options: ToolOptions & { name: string }, handler: RuntimeHandler): RegisteredHandle {
    this.addRuntime('tool', options, options.input, handler);
    return this.tool(options.name);
  }

  /** Adds a prompt while running; clients are told the list changed. */
  addPrompt(options: PromptOptions & { name: string }, handler: RuntimeHandler): RegisteredHandle {
    this.addRuntime('prompt', options, options.args, handler);
    return this.prompt(options.name);
  }

  /** Adds a resource or template while running; clients are told the list changed. */
  addResource(options: ResourceOptions & { name: string }, handler: RuntimeHandler): RegisteredHandle {
    this.addRuntime('resource', options, options.params, handler);
    return this.resource(options.uri);
  }

  private addRuntime(
    kind: 'tool' | 'prompt' | 'resource',
    options: (ToolOptions | PromptOptions | ResourceOptions) & { name: string },
    input: Constructor | undefined,
    handler: RuntimeHandler,
  ): void {
    const registry = this.decorated();
    if (typeof handler !== 'function') throw new HermesError('HERMES_INVALID_OPTIONS', `add${kind[0].toUpperCase()}${kind.slice(1)}: the handler must be a function.`);
    const owner = `runtime ${kind} "${options.name}"`;
    // Its view must be served already: the registry takes no tool whose ui.resourceUri leads nowhere.
    if (kind === 'tool') checkAppLink(registry, toolMetaOf(options as ToolOptions, owner), owner);
    const warnings = register(
      registry,
      kind,
      options,
      { owner, call: handler as (input: unknown, ctx: unknown) => unknown, inputClass: input },
      this.options.validation?.forbidNonWhitelisted === true,
    );
    logSchemaWarnings(this.logger, warnings, this.options);
  }

  private handle(kind: 'tool' | 'prompt' | 'resource', key: string): RegisteredHandle {
    const registry = this.decorated();
    if (!registry.find(kind, key)) throw new HermesError('HERMES_INVALID_OPTIONS', `there is no ${kind} "${key}" on this server.`);
    return {
      kind,
      key,
      get enabled() {
        return registry.find(kind, key)?.enabled ?? false;
      },
      enable: () => void registry.setEnabled(kind, key, true),
      disable: () => void registry.setEnabled(kind, key, false),
      remove: () => void registry.remove(kind, key),
    };
  }

  private decorated(): Registry {
    if (!this.registry) throw new HermesError('HERMES_INVALID_OPTIONS', 'runtime changes need a decorated server; an McpHandler manages its own lists.');
    return this.registry;
  }

  private withListeners(handler: McpHandler): McpHandler {
    const listeners = this.listeners;
    const subscribers = this.subscribers;
    const own = handler.handleNotification?.bind(handler);
    const ownSubscribe = handler.handleSubscribe?.bind(handler);
    return Object.assign(Object.create(handler) as McpHandler, {
      handleNotification: async (notification: JsonRpcNotification, ctx: NotificationContext) => {
        await own?.(notification, ctx);
        const set = listeners.get(notification.method);
        if (set) for (const listener of set) await listener(notification, ctx);
      },
      // Only when someone listens: most servers' subscriptions are answered without a turn.
      handleSubscribe: (uri: string, session?: SessionInfo): Promise<void> | undefined => {
        if (!ownSubscribe && subscribers.size === 0) return undefined;
        return (async () => {
          await ownSubscribe?.(uri, session);
          for (const subscriber of [...subscribers]) await subscriber(uri, session);
        })();
      },
    });
  }
}

/**
 * Logs what the schema builder noticed about input classes (a likely mistake, not an error): each
 * warning on its line, except the fields whose schema is looser than their rules, which share one
 * (many servers have several, all meant), unless `warnLooserSchemas` is false.
 */
function logSchemaWarnings(logger: Logger, warnings: readonly SchemaWarning[], options: McpAppOptions): void {
  const looser = warnings.filter((warning) => warning.code === 'HERMES_SCHEMA_LOOSER');
  for (const warning of warnings) {
    if (warning.code !== 'HERMES_SCHEMA_LOOSER') logger.warn({ code: warning.code, class: warning.className, property: warning.property }, warning.message);
  }
  if (looser.length === 0 || options.warnLooserSchemas === false) return;
  const fields = looser.map((warning) => `${warning.className}.${warning.property} ${warning.rule}: ${warning.reason}`);
  logger.warn(
    { code: 'HERMES_SCHEMA_LOOSER', fields },
    `the published schema accepts more than validation for ${looser.length} field(s) (what JSON Schema cannot say; the server refuses the rest): ` +
      `${fields.join('; ')}. See docs/schemas.md; set \`warnLooserSchemas: false\` to silence this.`,
  );
}

/**
 * Creates MCP apps.
 *
 * @example
 * await McpFactory.create(WeatherServer).listen();
 */
export class McpFactory {
  /**
   * Bootstraps a server: a class decorated with `@McpServer`, or an object implementing
   * {@link McpHandler}. Fails here — not on the first request — when something is wrong: it
   * throws a {@link HermesError} at once (synchronously), so `create(X).listen().catch(…)` would not
   * see it. Call it where the error is caught, as the README does:
   * `async function main() { await McpFactory.create(X).listen(); }` and `main().catch(…)`.
   */
  static create(target: Constructor | McpHandler, options: McpAppOptions = {}): McpApp {
    assertSingleCopies();
    const logger = options.logger ?? deferredLogger();
    if (isMcpHandler(target)) {
      if (options.mount !== undefined) {
        throw new HermesError('HERMES_MOUNT_INVALID', '`mount` takes decorated servers into a decorated one; an McpHandler answers every request itself.');
      }
      return new McpApp(target, undefined, options, logger);
    }
    reportInterop(logger);
    if (typeof target !== 'function') {
      throw new HermesError('HERMES_NOT_A_SERVER', 'McpFactory.create takes a class decorated with @McpServer or an object implementing McpHandler.');
    }
    const pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new HermesError('HERMES_INVALID_OPTIONS', '`pageSize` must be a positive integer.');
    const registry = new Registry(pageSize, new CursorCodec(options.cursorSecret));
    const {
      options: serverOptions,
      warnings,
      instances,
    } = scanServer(target, options.container ?? defaultContainer(), registry, options.validation?.forbidNonWhitelisted === true, {
      mount: options.mount,
      mountSeparator: options.mountSeparator,
    });
    logSchemaWarnings(logger, warnings, options);
    const codeSkills = codeSkillsOf([target, ...(serverOptions.components ?? [])], instances);
    if (serverOptions.skills !== undefined || codeSkills.length > 0) {
      // Loaded here, not with core: a server without skills starts without their modules.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { SkillsHost } = require('../skills/host') as typeof SkillsHostModule;
      const skills = (registry.skills = new SkillsHost(serverOptions.skills ?? {}, logger, codeSkills));
      skills.onListChanged = () => registry.skillsChanged();
    }
    const handler = new DecoratedServerHandler(registry, serverOptions, options.validation);
    return new McpApp(handler, registry, { ...options, cache: options.cache ?? serverOptions.cache }, logger);
  }
}

/**
 * Whether stderr is a terminal. A pipe or a file (what a host that spawns the server gives it) is
 * told by one fstat, without loading node:tty (which loads node:net); a character device (a
 * terminal, or /dev/null) is asked of node:tty. Asked on stdio only: never in a worker.
 */
function stderrIsTerminal(): boolean {
  try {
    if (!fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false; // no stderr at all
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:tty') as typeof import('node:tty')).isatty(2);
}
