/**
 * What the HTTP endpoint needs of the app it serves. `McpApp` is one; it is named apart from
 * `McpApp` because the app also listens on stdio, and the transports the app starts must not
 * depend on it.
 */
import type { Transport } from '@hermes-mcp/protocol';
import type { Connection, ConnectionOptions } from '../engine/connection';
import type { Engine } from '../engine/engine';
import type { Logger } from '../logger';
import type { Cluster } from '../stores/cluster';
import type { Registry } from './registry';

/** An app as the HTTP endpoint serves it: its engine, logger, registry and cluster, a connection per session. */
export interface ServedApp {
  /** The engine every transport uses. */
  readonly engine: Engine;
  /** The server-side logger. */
  readonly logger: Logger;
  /** The registry of a decorated server; undefined for a plain McpHandler. */
  readonly registry: Registry | undefined;
  /** The cluster this app is an instance of, if any. */
  readonly cluster: Cluster | undefined;
  /** Serves one connection over `transport` (an HTTP session). */
  connect(transport: Transport, options?: ConnectionOptions): Promise<Connection>;
}
