/**
 * McpFactory: turns a decorated server class (or an McpHandler) into an app, bootstrapping
 * everything once: typedi builds the classes, the scanner fills the registry, schemas are built.
 */
import type { Transport } from '@hermes-mcp/protocol';
import { Constructor, DependencyContainer, defaultContainer } from './container';
import { Connection, Engine } from './engine';
import { HermesError } from './errors';
import { McpHandler, isMcpHandler } from './handler';
import { Logger, createLogger } from './logger';
import type { Registry } from './registry';
import { scanServer } from './scanner';
import { DecoratedServerHandler } from './server-handler';
import { StdioTransport, StdioTransportOptions } from './transports/stdio.transport';
import type { ValidateOptions } from './validation/validator';

/** Options of {@link McpFactory.create}. */
export interface McpAppOptions {
  /** A pino logger; default: one writing to stderr at `info` (or `HERMES_LOG_LEVEL`). */
  logger?: Logger;
  /** The typedi container classes are built from; default: typedi's global one. */
  container?: DependencyContainer;
  /** How tool, prompt and resource inputs are validated (default: unknown keys stripped). */
  validation?: ValidateOptions;
  /** Timeout of server→client requests in milliseconds (default 60 000). */
  requestTimeout?: number;
  /** Options of the stdio transport used by `listen()`. */
  stdio?: StdioTransportOptions;
}

/** A bootstrapped MCP server, ready to serve on stdio or any transport. */
export class McpApp {
  /** The engine every transport uses. */
  readonly engine: Engine;
  /** The server-side logger. */
  readonly logger: Logger;
  private readonly connections = new Set<Connection>();
  private listening = false;

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
    this.engine = new Engine(handler, { logger, requestTimeout: options.requestTimeout });
  }

  /**
   * Serves on stdio (the default), or on the transport given. Resolves once serving; the process
   * ends by itself when stdin closes.
   */
  async listen(transport?: Transport): Promise<Connection> {
    if (this.listening && !transport) {
      throw new HermesError('HERMES_ALREADY_LISTENING', 'this app already listens on stdio; create another app or pass a transport.');
    }
    const stdio = !transport;
    if (stdio) this.listening = true;
    const connection = await this.connect(transport ?? new StdioTransport(this.options.stdio));
    if (stdio) {
      const counts = this.registry?.counts;
      this.logger.info({ ...counts, server: this.handler.serverInfo.name }, 'MCP server listening on stdio');
    }
    return connection;
  }

  /** Serves one connection over `transport` (custom transports, tests). */
  async connect(transport: Transport): Promise<Connection> {
    const connection = await this.engine.connect(transport);
    this.connections.add(connection);
    void connection.closed.then(() => this.connections.delete(connection));
    return connection;
  }

  /** Closes every connection; in-flight requests are aborted. */
  async close(): Promise<void> {
    await Promise.all([...this.connections].map((c) => c.close()));
    this.connections.clear();
    this.listening = false;
  }
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
   * {@link McpHandler}. Fails here — not on the first request — when something is wrong.
   */
  static create(target: Constructor | McpHandler, options: McpAppOptions = {}): McpApp {
    const logger = options.logger ?? createLogger();
    if (isMcpHandler(target)) return new McpApp(target, undefined, options, logger);
    if (typeof target !== 'function') {
      throw new HermesError('HERMES_NOT_A_SERVER', 'McpFactory.create takes a class decorated with @McpServer or an object implementing McpHandler.');
    }
    const { options: serverOptions, registry } = scanServer(target, options.container ?? defaultContainer());
    const handler = new DecoratedServerHandler(registry, serverOptions, options.validation);
    return new McpApp(handler, registry, options, logger);
  }
}
