/**
 * The OpenTelemetry semantic conventions for MCP (status: Development, in the GenAI semantic
 * conventions): span names, attributes and metric instruments, read off what the Hermes channels
 * publish. One place, so server and client spans say the same things the same way.
 */
import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import { mcpMethod } from '@hermes-mcp/protocol';
import type { TransportInfo } from '@hermes-mcp/protocol';

/** Attribute keys. */
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  requestId: 'jsonrpc.request.id',
  statusCode: 'rpc.response.status_code',
  errorType: 'error.type',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  clientAddress: 'client.address',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** The bucket boundaries the conventions advise for operation durations, in seconds. */
const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Sessions last longer: the same, on to a day. */
const SESSION_BUCKETS = [...OPERATION_BUCKETS, 600, 1800, 3600, 7200, 14400, 43200, 86400];

/**
 * What the conventions say of one operation that names no peer: the method, its target (tool or
 * prompt name, resource URI), the revision and the transport. `metric` receives the
 * low-cardinality ones (for histograms), `span` all of them.
 */
export interface Described {
  /** `{mcp.method.name} {target}`, the target being the tool's or prompt's name when there is one. */
  name: string;
  span: Attributes;
  metric: Attributes;
}

/** Describes one request or notification by its method and params. */
export function describe(method: string, params: Readonly<Record<string, unknown>>, transport: TransportInfo | undefined, protocolVersion: string | undefined): Described {
  const metric: Attributes = { [ATTR.method]: method };
  let name = method;
  // The method's row says what names its target (protocol/src/methods.ts); a resource URI is
  // unbounded, so it goes on the span alone, never in its name or a metric.
  const target = mcpMethod(method)?.span;
  const value = target ? params[target.field] : undefined;
  const spanOnly = target?.attribute === ATTR.resourceUri;
  if (target && typeof value === 'string' && !spanOnly) {
    name = `${method} ${value}`;
    metric[target.attribute] = value;
    if (target.operation) metric[ATTR.operationName] = target.operation;
  }
  if (protocolVersion !== undefined) metric[ATTR.protocolVersion] = protocolVersion;
  if (transport) network(transport, metric);
  const span: Attributes = { ...metric };
  if (target && typeof value === 'string' && spanOnly) span[target.attribute] = value;
  return { name, span, metric };
}

/**
 * `network.transport` and `network.protocol.name` of a transport: stdio is a pipe; HTTP (Streamable
 * and the legacy SSE transport) and WebSocket run on TCP. An in-memory transport has neither.
 */
function network(transport: TransportInfo, into: Attributes): void {
  switch (transport.kind) {
    case 'stdio':
      into[ATTR.networkTransport] = 'pipe';
      return;
    case 'http':
    case 'sse':
      into[ATTR.networkTransport] = 'tcp';
      into[ATTR.networkProtocol] = 'http';
      return;
    case 'websocket':
      into[ATTR.networkTransport] = 'tcp';
      into[ATTR.networkProtocol] = 'websocket';
  }
}

/** `server.address` and `server.port` from a client transport's `url`. */
export function serverAddress(transport: TransportInfo, into: Attributes): void {
  if (typeof transport.url !== 'string') return;
  try {
    const url = new URL(transport.url);
    into[ATTR.serverAddress] = url.hostname;
    into[ATTR.serverPort] = Number(url.port) || (url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80);
  } catch {
    // Not a URL: no address.
  }
}

/** How an operation ended, by the conventions: nothing when it succeeded. */
export interface Outcome {
  /** `error.type`: the JSON-RPC code, `tool_error` for a tool result with `isError`, else the error's name. */
  type: string;
  /** `rpc.response.status_code`: the JSON-RPC code, when the peer answered with one. */
  code?: string;
  /** The span status' description: the error's message. */
  message?: string;
}

/** The outcome of an operation that settled with `result` or `error`. */
export function outcomeOf(result: unknown, error: unknown): Outcome | undefined {
  if (error !== undefined) {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed';
    if (typeof code === 'number') return { type: String(code), code: String(code), message };
    return { type: error instanceof Error && error.name !== 'Error' ? error.name : '_OTHER', message };
  }
  if ((result as { isError?: unknown } | null)?.isError === true) return { type: 'tool_error' };
  return undefined;
}

/** The duration histograms, made on first use (so a meter provider registered later is used). */
export class Instruments {
  private made?: { serverOperation: Histogram; serverSession: Histogram; clientOperation: Histogram };

  constructor(private readonly meter: () => Meter) {}

  /** `mcp.server.operation.duration` (s): a request or notification, as its receiver saw it. */
  get serverOperation(): Histogram {
    return this.instruments().serverOperation;
  }

  /** `mcp.server.session.duration` (s): a session, as the server saw it. */
  get serverSession(): Histogram {
    return this.instruments().serverSession;
  }

  /** `mcp.client.operation.duration` (s): a request, as its sender saw it. */
  get clientOperation(): Histogram {
    return this.instruments().clientOperation;
  }

  private instruments(): NonNullable<Instruments['made']> {
    if (this.made) return this.made;
    const meter = this.meter();
    const histogram = (name: string, description: string, buckets: number[]) =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: buckets } });
    return (this.made = {
      serverOperation: histogram('mcp.server.operation.duration', 'MCP request or notification duration as observed on the receiver.', OPERATION_BUCKETS),
      serverSession: histogram('mcp.server.session.duration', 'The duration of the MCP session as observed on the MCP server.', SESSION_BUCKETS),
      clientOperation: histogram('mcp.client.operation.duration', 'The duration of the MCP request as observed on the sender.', OPERATION_BUCKETS),
    });
  }
}
