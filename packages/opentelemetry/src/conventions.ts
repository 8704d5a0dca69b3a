/**
 * The OpenTelemetry semantic conventions for MCP (status: Development; open-telemetry/
 * semantic-conventions v1.41.1 `docs/gen-ai/mcp.md` and `model/mcp/*.yaml`, now in the GenAI
 * conventions' own repository): span names, attributes and metric instruments, read off what the
 * Hermes channels publish. One place, so server and client spans say the same things the same way.
 */
import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import { ErrorCode, isModernProtocolVersion, mcpMethod, merge } from '@hermes-mcp/protocol';
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
  networkProtocolVersion: 'network.protocol.version',
  clientAddress: 'client.address',
  clientPort: 'client.port',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/**
 * The bucket boundaries the conventions give every MCP histogram, in seconds — the session
 * durations too ("Metrics", each metric's `ExplicitBucketBoundaries`).
 */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * The JSON-RPC codes that say the caller asked wrongly — unparsable, invalid, unknown method,
 * invalid params, unknown resource. The server that answers with one did its work: its span and
 * duration record the code (`rpc.response.status_code`) but no `error.type` and no ERROR status;
 * the client that receives one failed, and records both (issue 29, after the GenAI conventions'
 * MCP text; as HTTP servers treat 4xx, docs/general/recording-errors.md "What constitutes an error").
 */
export const CALLER_MISTAKES: ReadonlySet<number> = new Set([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
  ErrorCode.ResourceNotFound,
]);

/**
 * What the conventions say of one operation by its method, target, revision and transport: its
 * span name, the low-cardinality attributes (for the span at its start and for the durations),
 * and the one high-cardinality target, a resource URI (the span's alone). `metric` is shared
 * between operations ({@link Describer}): never changed, copied to add to it.
 */
export interface Described {
  /** `{mcp.method.name} {target}`, the target being the tool's or prompt's name when there is one. */
  readonly name: string;
  readonly metric: Readonly<Attributes>;
  /** `mcp.resource.uri`, when the method names a resource. */
  readonly resourceUri?: string;
}

/**
 * Describes operations, the same description made once per method, target, revision and
 * transport: a request that is not sampled pays for a map lookup, not for building attributes.
 * Bounded: past {@link MAX_CACHED} descriptions (tool names are the server's, but a caller may
 * send any), new ones are built each time and not kept.
 */
export class Describer {
  /**
   * By method, then target name (`''` for none): the descriptions made for it, one per revision and
   * transport. Nested maps of the message's own short strings, rather than one key joined from six
   * parts: a joined key is a new string to build, flatten and hash on every request (~0.7 µs).
   */
  private readonly cache = new Map<string, Map<string, CachedDescription[]>>();
  private size = 0;

  /** Describes one request or notification; `peer` adds `server.address`/`server.port` (client side). */
  describe(method: string, params: Readonly<Record<string, unknown>>, transport: TransportInfo | undefined, protocolVersion: string | undefined, peer: boolean): Described {
    // The method's row says what names its target (protocol/src/methods.ts); a resource URI is
    // unbounded, so it goes on the span alone, never in its name or a metric.
    const target = mcpMethod(method)?.span;
    const value = target ? params[target.field] : undefined;
    const named = target !== undefined && typeof value === 'string' && target.attribute !== ATTR.resourceUri ? value : undefined;
    const resourceUri = target?.attribute === ATTR.resourceUri && typeof value === 'string' ? value : undefined;
    const kind = transport?.kind;
    const httpVersion = text(transport?.httpVersion);
    const url = peer ? text(transport?.url) : '';
    let byName = this.cache.get(method);
    let seen = byName?.get(named ?? '');
    if (seen) {
      for (const entry of seen) {
        if (entry.protocolVersion === protocolVersion && entry.kind === kind && entry.httpVersion === httpVersion && entry.url === url) {
          return resourceUri === undefined ? entry.described : merge(entry.described, { resourceUri });
        }
      }
    }
    const metric: Attributes = { [ATTR.method]: method };
    if (named !== undefined) {
      metric[target!.attribute] = named;
      if (target!.operation) metric[ATTR.operationName] = target!.operation;
    }
    Object.assign(metric, sessionAttributes(transport, protocolVersion, peer));
    const described: Described = { name: named === undefined ? method : `${method} ${named}`, metric };
    if (this.size < MAX_CACHED) {
      this.size++;
      if (!byName) this.cache.set(method, (byName = new Map<string, CachedDescription[]>()));
      if (!seen) byName.set(named ?? '', (seen = []));
      seen.push({ protocolVersion, kind, httpVersion, url, described });
    }
    return resourceUri === undefined ? described : merge(described, { resourceUri });
  }
}

/** A description made, with what it was made for beside the method and target. */
interface CachedDescription {
  readonly protocolVersion: string | undefined;
  readonly kind: string | undefined;
  readonly httpVersion: string;
  readonly url: string;
  readonly described: Described;
}

/** A transport field in a cache key: its text, or nothing. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The most descriptions a {@link Describer} keeps. */
const MAX_CACHED = 1000;

/**
 * What a session's duration and every operation's say of where they ran: `mcp.protocol.version`,
 * the network attributes of "Recording MCP transport", and with `peer` the server's address.
 */
export function sessionAttributes(transport: TransportInfo | undefined, protocolVersion: string | undefined, peer: boolean): Attributes {
  const into: Attributes = {};
  if (protocolVersion !== undefined) into[ATTR.protocolVersion] = protocolVersion;
  if (transport) network(transport, into);
  if (transport && peer) serverAddress(transport, into);
  return into;
}

/**
 * `network.transport`, `network.protocol.name` and `network.protocol.version` of a transport
 * ("Recording MCP transport"): stdio is a pipe; HTTP (Streamable and the legacy SSE transport) and
 * WebSocket run on TCP. In memory: none.
 *
 * `network.protocol.version` is HTTP's, the transport's `httpVersion`: on a server, the version of
 * the request as its adapter read it (`1.1`, `2`); on a client, the one its transport speaks — `1.1`
 * on node:http, the client transports' default. The table's `2` for Streamable HTTP is an example,
 * not a rule: the attribute is "the actual version of the protocol used", and network.md says "If
 * the actual protocol version is not known, this attribute SHOULD NOT be set" — so a client given a
 * `fetch` of its own (its `Response` does not say which version carried it) records none. WebSocket
 * gets no version: the table gives it none, and the handshake's HTTP/1.1 is not the protocol spoken.
 */
function network(transport: TransportInfo, into: Attributes): void {
  switch (transport.kind) {
    case 'stdio':
      into[ATTR.networkTransport] = 'pipe';
      return;
    case 'http':
    case 'sse':
    case 'http+sse':
      into[ATTR.networkTransport] = 'tcp';
      into[ATTR.networkProtocol] = 'http';
      if (typeof transport.httpVersion === 'string') into[ATTR.networkProtocolVersion] = transport.httpVersion;
      return;
    case 'websocket':
      into[ATTR.networkTransport] = 'tcp';
      into[ATTR.networkProtocol] = 'websocket';
  }
}

/**
 * True for a question a server asks in a 2026-07-28 round (an input request, `input_required`):
 * that revision has no server→client requests, so what a server asks in it is one of these. The
 * conventions model JSON-RPC messages; such a question is a request without a JSON-RPC id and
 * without a response of its own — it leaves in the round's answer, and the client answers it in
 * its next request, perhaps to another instance. The reading taken: it is still the server's
 * request, so a `CLIENT` span on the server (a child of the round's span, its context sent in the
 * question's `params._meta`) and a `SERVER` span on the client that answers it (its child); neither
 * has `jsonrpc.request.id` (note [2]: none when the id is omitted). The server's span ends when the
 * question leaves, and no `mcp.client.operation.duration` is recorded for it: the answer's arrival
 * is not seen, and a duration that stops at the send is not the round trip the metric measures.
 * The client's span, and its `mcp.server.operation.duration`, cover answering it.
 */
export function isInputRequest(protocolVersion: string | undefined): boolean {
  return isModernProtocolVersion(protocolVersion);
}

/** `server.address` and `server.port` from a client transport's `url`. */
function serverAddress(transport: TransportInfo, into: Attributes): void {
  if (typeof transport.url !== 'string') return;
  try {
    const url = new URL(transport.url);
    into[ATTR.serverAddress] = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    into[ATTR.serverPort] = Number(url.port) || (url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80);
  } catch {
    // Not a URL: no address.
  }
}

/** `client.address` and `client.port` of a server transport (the adapter's `ip` and `port`). */
export function clientAddress(transport: TransportInfo, into: Attributes): void {
  if (typeof transport.ip !== 'string') return;
  into[ATTR.clientAddress] = transport.ip;
  if (typeof transport.port === 'number') into[ATTR.clientPort] = transport.port;
}

/** How an operation ended, by the conventions: nothing when it succeeded. */
export interface Outcome {
  /** `error.type`, when the operation failed: the JSON-RPC code, `tool_error`, `timeout`, else the error's name. */
  type?: string;
  /** `rpc.response.status_code`: the JSON-RPC code, when a response carried one. */
  code?: string;
  /** The span status' description: the error's message. */
  message?: string;
}

/**
 * The outcome of an operation that settled with `result` or `error`, on the side that `answered`
 * (a SERVER span: the response is its own) or that sent it (a CLIENT span: a code is a response's
 * only when the error came from the peer, `McpError.received`; a local timeout is `timeout`).
 */
export function outcomeOf(result: unknown, error: unknown, answered: boolean): Outcome | undefined {
  if (error !== undefined) {
    const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; received?: unknown }) : {};
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed';
    if (typeof fields.code === 'number') {
      const code = String(fields.code);
      if (answered) return CALLER_MISTAKES.has(fields.code) ? { code } : { type: code, code, message };
      if (fields.received === true) return { type: code, code, message };
      return { type: fields.code === ErrorCode.RequestTimeout ? 'timeout' : code, message };
    }
    return { type: error instanceof Error && error.name !== 'Error' ? error.name : '_OTHER', message };
  }
  if ((result as { isError?: unknown } | null)?.isError === true) return { type: 'tool_error' };
  return undefined;
}

/** The histograms, by their names in the conventions. */
export type HistogramName = 'serverOperation' | 'clientOperation' | 'serverSession' | 'clientSession';

/** The duration histograms, made on first use (so a meter provider registered later is used). */
export class Instruments {
  private made?: Record<HistogramName, Histogram>;

  constructor(private readonly meter: () => Meter) {}

  /** The histogram `name`: `mcp.server.operation.duration`, `mcp.client.operation.duration`, `mcp.server.session.duration`, `mcp.client.session.duration` (s). */
  get(name: HistogramName): Histogram {
    return (this.made ??= this.make())[name];
  }

  private make(): Record<HistogramName, Histogram> {
    const meter = this.meter();
    const histogram = (name: string, description: string) => meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
    return {
      serverOperation: histogram(
        'mcp.server.operation.duration',
        'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
      ),
      clientOperation: histogram(
        'mcp.client.operation.duration',
        'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
      ),
      serverSession: histogram('mcp.server.session.duration', 'The duration of the MCP session as observed on the MCP server.'),
      clientSession: histogram('mcp.client.session.duration', 'The duration of the MCP session as observed on the MCP client.'),
    };
  }
}
