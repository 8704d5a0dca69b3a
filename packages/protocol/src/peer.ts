/**
 * The Peer: one end of a JSON-RPC conversation over a {@link Transport}.
 *
 * It correlates what goes out with what comes back (ids, a pending map, timeouts, cancellation,
 * progress) and runs what comes in (requests get an `AbortSignal`; `notifications/cancelled`
 * aborts it and suppresses the response). It knows no MCP method besides the two utility
 * notifications that belong to correlation: `notifications/cancelled` and `notifications/progress`.
 * The server and the client both run on it.
 */
import { ConnectionClosedError, ErrorCode, McpError } from './errors';
import {
  ClassifiedMessage,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  ParsedFrame,
  RequestId,
  errorResponse,
  notification,
  request,
  resultResponse,
} from './jsonrpc';
import { SparseMap } from './sparse-map';
import { merge } from './objects';
import { DONE, type SendOptions, type Transport, type TransportInfo } from './transport';
import type { InboundRequestExtra, PeerHandlers, PeerOptions, PendingRequest, ProgressUpdate, RequestOptions } from './peer-types';

/**
 * The abort side of one inbound request: an {@link InboundRequestExtra} whose AbortController is
 * made the first time someone reads `signal`. Most requests are neither cancelled nor looked at,
 * and making an AbortSignal costs more than the rest of a small call.
 */
export class InboundRequest implements InboundRequestExtra {
  private controller?: AbortController;
  private reason?: unknown;
  private isAborted = false;

  constructor(
    /** What the transport knows of this one request, when it differs per request. */
    readonly transportInfo?: TransportInfo,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.isAborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.isAborted;
  }

  abort(reason?: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

interface Pending {
  /** The request's method. */
  method: string;
  /** `performance.now()` when it was sent. */
  sentAt: number;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  /** Milliseconds it may take (`Infinity`: no limit). */
  timeout: number;
  /** `performance.now()` past which it times out (`Infinity`: never); moved on by progress. */
  deadline: number;
  onprogress?: (progress: ProgressUpdate) => void;
  resetOnProgress: boolean;
  relatedRequestId?: RequestId;
  cleanup?: () => void;
}

const DEFAULT_TIMEOUT = 60_000;
/** The send options of a request with none (one object for all of them). */
const NO_SEND_OPTIONS: SendOptions = Object.freeze({});
/** The longest delay `setTimeout` honours; a longer one fires after 1 ms instead. */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** Correlates requests and responses over one transport. */
export class Peer {
  private nextId = 0;
  private readonly idPrefix?: string;
  private readonly pending = new SparseMap<RequestId, Pending>();
  private readonly inflight = new SparseMap<RequestId, InboundRequest>();
  private readonly requestTimeout: number;
  private closed = false;
  /**
   * The id of an error answering a message whose id could not be read: `null` (JSON-RPC 2.0, MCP
   * up to 2025-11-25) or `undefined` to leave it out (MCP 2026-07-28 forbids null ids).
   */
  unreadableId: null | undefined = null;
  private draining = false;
  private readonly drainTimeout: number;
  private readonly maxBatchEntries: number;
  private readonly maxInboundRequests: number;
  /** Settles once the peer drained and closed (made by the first {@link drain}). */
  private drained?: Promise<void> = undefined;
  private drainedResolve?: () => void = undefined;
  private drainTimer?: NodeJS.Timeout = undefined;
  private drainDeadline = Infinity;

  constructor(
    readonly transport: Transport,
    private readonly handlers: PeerHandlers,
    options: PeerOptions = {},
  ) {
    this.requestTimeout = options.requestTimeout ?? DEFAULT_TIMEOUT;
    this.idPrefix = options.idPrefix;
    transport.onframe = (frame, info) => this.receive(frame, info);
    this.drainTimeout = options.drainTimeout ?? 10_000;
    this.maxBatchEntries = options.maxBatchEntries ?? Infinity;
    this.maxInboundRequests = options.maxInboundRequests ?? Infinity;
    transport.onclose = () => {
      this.shutdown('the connection closed');
      this.handlers.onTransportClose?.();
    };
    transport.oninputend = () => void this.drain();
    transport.onabort = (id, error) => this.failInbound(id, error);
    transport.onrevoked = (error) => {
      for (const id of [...this.inflight.keys()]) this.failInbound(id, error);
    };
    transport.onreset = (reason) => this.failAll(new ConnectionClosedError(`Connection lost: ${reason}`));
    transport.onlost = (id, error) => this.settle(id)?.reject(error);
    transport.onreconnected = () => this.handlers.onTransportReconnect?.();
    transport.ondiscard = (error) => this.rejectPending(error);
  }

  /** Starts the transport. */
  async start(): Promise<void> {
    await this.transport.start();
  }

  /** Closes the transport; pending requests are rejected and in-flight handlers aborted. */
  async close(): Promise<void> {
    try {
      await this.transport.close();
    } finally {
      // Even when the transport fails to close, nothing may stay pending.
      this.shutdown('the connection closed');
    }
  }

  /** True once the peer is draining: new requests are refused with -32010, running ones finish. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Number of inbound requests being handled now. */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Number of outgoing requests awaiting a response. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** The outgoing requests awaiting a response, oldest first: id, method and milliseconds since sent. */
  pendingRequests(): PendingRequest[] {
    const now = performance.now();
    return [...this.pending.entries()].map(([id, entry]) => ({ id, method: entry.method, elapsedMs: Math.round(now - entry.sentAt) }));
  }

  /**
   * Cancels an outgoing request: `notifications/cancelled` goes to the other side and its caller's
   * promise rejects with `error` (default -32001 "Request cancelled"). False when no such request
   * is pending.
   */
  cancel(id: RequestId, error: McpError = new McpError(ErrorCode.RequestTimeout, 'Request cancelled')): boolean {
    if (!this.pending.has(id)) return false;
    this.cancelOutgoing(id, error);
    return true;
  }

  /**
   * Sends a request and resolves with its result; rejects with an {@link McpError} (the other side's
   * answer, or a timeout) or a {@link ConnectionClosedError} (no answer can come).
   */
  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('Connection closed'));
    if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
    const id: RequestId = this.idPrefix === undefined ? this.nextId++ : `${this.idPrefix}${this.nextId++}`;
    options.onid?.(id);
    let outParams = params;
    if (options.onprogress) {
      outParams = merge(params, { _meta: merge(params?._meta as object | undefined, { progressToken: id }) });
    }
    return new Promise((resolve, reject) => {
      const now = performance.now();
      const entry: Pending = {
        method,
        sentAt: now,
        resolve,
        reject,
        timeout: options.timeout ?? this.requestTimeout,
        deadline: Infinity,
        onprogress: options.onprogress,
        resetOnProgress: options.resetTimeoutOnProgress ?? true,
        relatedRequestId: options.relatedRequestId,
      };
      const signal = options.signal;
      if (signal) {
        const onAbort = () => this.cancelOutgoing(id, abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.pending.set(id, entry);
      this.arm(entry, now);
      const sendOptions: SendOptions = options.headers
        ? { relatedRequestId: options.relatedRequestId, headers: options.headers }
        : options.relatedRequestId === undefined
          ? NO_SEND_OPTIONS
          : { relatedRequestId: options.relatedRequestId };
      this.transport.send(request(id, method, outParams), sendOptions).catch((error) => {
        this.settle(id);
        reject(error as Error);
      });
    });
  }

  /** Sends a notification (`eventKey`: see {@link SendOptions.eventKey}). */
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId, eventKey?: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.handlers.onNotificationSent?.(method, params);
    return this.transport.send(notification(method, params), { relatedRequestId, eventKey });
  }

  /**
   * A message another process of the same session could not place ({@link PeerHandlers.onUnmatched}):
   * a response settles the request pending here, a `notifications/cancelled` aborts the request
   * running here. True when it belonged here; never passed on again.
   */
  receiveForwarded(message: JsonRpcMessage): boolean {
    if ('method' in message) {
      const cancelled = message.method === 'notifications/cancelled' ? cancellationOf(message.params) : undefined;
      return cancelled !== undefined && this.abortInbound(cancelled.id, cancelled.reason);
    }
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const entry = this.settle(id);
    if (!entry) return false;
    if ('result' in message) entry.resolve(message.result);
    else if ('error' in message) entry.reject(McpError.fromObject(message.error));
    return true;
  }

  /**
   * Aborts the handler of an inbound request; its response will not be sent (the other side
   * cancelled it), and the transport is told so.
   */
  abortInbound(id: RequestId, reason: string): boolean {
    const inbound = this.inflight.get(id);
    if (!inbound) return false;
    this.inflight.delete(id);
    inbound.abort(new McpError(ErrorCode.RequestTimeout, reason));
    this.transport.requestCancelled?.(id);
    this.closeIfDrained();
    return true;
  }

  /**
   * Aborts the handler of an inbound request and answers it with `error` now (the transport can no
   * longer carry it, or the server is shutting down). False when it was not running.
   */
  failInbound(id: RequestId, error: McpError): boolean {
    const inbound = this.inflight.get(id);
    if (!inbound) return false;
    this.inflight.delete(id);
    inbound.abort(error);
    this.sendResponse(errorResponse(id, error));
    this.closeIfDrained();
    return true;
  }

  /**
   * Stops taking requests and closes once those running have answered: new requests get -32010
   * (server shutting down); after `timeout` ms (default `drainTimeout`) the ones still running are
   * aborted and answered with -32010 too, then the peer closes. Resolves once closed. Transports
   * call it through `oninputend` (the other side will send nothing more); servers, to shut down.
   */
  drain(timeout: number = this.drainTimeout): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.draining) {
      this.draining = true;
      this.drained = new Promise((resolve) => (this.drainedResolve = resolve));
    }
    const deadline = Date.now() + timeout;
    if (this.inflight.size === 0) {
      void this.close();
    } else if (deadline < this.drainDeadline) {
      // A second drain with a shorter timeout brings the end forward.
      this.drainDeadline = deadline;
      if (this.drainTimer) clearTimeout(this.drainTimer);
      this.drainTimer = setTimeout(() => this.expireDrain(), Math.min(Math.max(timeout, 0), MAX_TIMER_DELAY));
      this.drainTimer.unref?.();
    }
    return this.drained!;
  }

  /** The drain's grace period is over: what still runs is answered with -32010, then the peer closes. */
  private expireDrain(): void {
    this.drainTimer = undefined;
    const error = McpError.shuttingDown('the request was still running when the grace period ended');
    for (const id of [...this.inflight.keys()]) this.failInbound(id, error);
    void this.close();
  }

  private closeIfDrained(): void {
    if (this.draining && this.inflight.size === 0 && !this.closed) void this.close();
  }

  // Bound once, not per request.
  private readonly onAnswered = (response: JsonRpcResponse | undefined): void => this.answered(response);

  private answered(response: JsonRpcResponse | undefined): void {
    if (response) this.sendResponse(response);
    if (this.draining && this.inflight.size === 0 && !this.closed) void this.close();
  }

  /** Feeds one frame in. Transports call this through `onframe`. */
  receive(frame: ParsedFrame, info?: TransportInfo): void {
    switch (frame.kind) {
      case 'single': {
        // A request answered later is answered through onAnswered (one promise reaction, not two).
        const response = frame.message.kind === 'request' ? this.runRequest(frame.message.message, info, this.onAnswered) : this.dispatch(frame.message, info);
        if (response !== undefined) this.answered(response as JsonRpcResponse);
        return;
      }
      case 'invalid':
        this.sendResponse(errorResponse(this.unreadableId, frame.error));
        return;
      case 'batch':
        this.receiveBatch(frame.messages, info);
        return;
    }
  }

  private receiveBatch(messages: ClassifiedMessage[], info?: TransportInfo): void {
    if (!this.handlers.acceptBatch?.()) {
      this.sendResponse(
        errorResponse(this.unreadableId, McpError.invalidRequest('JSON-RPC batches are not supported by the negotiated protocol revision (only 2025-03-26 has them)')),
      );
      return;
    }
    if (messages.length > this.maxBatchEntries) {
      this.sendResponse(errorResponse(this.unreadableId, McpError.batchTooLarge(messages.length, this.maxBatchEntries)));
      return;
    }
    const answers: Array<JsonRpcResponse | Promise<JsonRpcResponse | undefined>> = [];
    for (const message of messages) {
      const answer = this.dispatch(message, info);
      if (answer) answers.push(answer);
    }
    if (answers.length === 0) return;
    Promise.all(answers.map((answer) => Promise.resolve(answer))).then(
      (responses) => {
        const sent = responses.filter((r): r is JsonRpcResponse => r !== undefined);
        if (sent.length > 0 && !this.closed) this.transport.send(sent, { batch: messages }).catch((e) => this.report(e, {}));
        this.answered(undefined);
      },
      (e) => this.report(e, {}),
    );
  }

  /** Handles one message; returns the response to send for requests (undefined when suppressed). */
  private dispatch(message: ClassifiedMessage, info?: TransportInfo): JsonRpcResponse | Promise<JsonRpcResponse | undefined> | undefined {
    switch (message.kind) {
      case 'request':
        return this.runRequest(message.message, info);
      case 'notification':
        this.receiveNotification(message.message);
        return undefined;
      case 'result': {
        const entry = this.settle(message.message.id);
        if (entry) entry.resolve(message.message.result);
        else this.handlers.onUnmatched?.(message.message);
        return undefined;
      }
      case 'error': {
        const id = message.message.id;
        // null (legacy) or absent (2026-07-28): an error that answers no request of ours.
        if (id === null || id === undefined) {
          this.report(McpError.fromObject(message.message.error), { id: null }, 'peer');
          return undefined;
        }
        const entry = this.settle(id);
        if (entry) entry.reject(McpError.fromObject(message.message.error));
        else this.handlers.onUnmatched?.(message.message);
        return undefined;
      }
      case 'invalid':
        if (message.noReply) {
          // Never answer a response: the other side would read our error as the answer to its own
          // request with that id; the request it was meant for fails instead. Nor a notification.
          const entry = message.id === null ? undefined : this.settle(message.id);
          if (entry) entry.reject(message.error);
          else this.report(message.error, { id: message.id }, 'peer');
          return undefined;
        }
        return errorResponse(message.id ?? this.unreadableId, message.error);
    }
  }

  /**
   * Runs a request's handler. A handler that answers synchronously is answered synchronously (no
   * promise, no microtask); one that returns a promise, when it settles — given to `later` when
   * there is one (and undefined returned), else as the promise returned.
   */
  private runRequest(req: JsonRpcRequest, transportInfo: TransportInfo | undefined, later: (response: JsonRpcResponse | undefined) => void): JsonRpcResponse | undefined;
  private runRequest(req: JsonRpcRequest, transportInfo?: TransportInfo): JsonRpcResponse | Promise<JsonRpcResponse | undefined> | undefined;
  private runRequest(
    req: JsonRpcRequest,
    transportInfo?: TransportInfo,
    later?: (response: JsonRpcResponse | undefined) => void,
  ): JsonRpcResponse | Promise<JsonRpcResponse | undefined> | undefined {
    const id = req.id;
    if (this.inflight.has(id)) {
      return errorResponse(id, McpError.requestInProgress(id));
    }
    if (this.draining) return errorResponse(id, McpError.shuttingDown('no new requests are taken'));
    if (this.inflight.size >= this.maxInboundRequests) return errorResponse(id, McpError.tooManyRequests(this.maxInboundRequests));
    const inbound = new InboundRequest(transportInfo);
    this.inflight.set(id, inbound);
    let result: unknown;
    try {
      result = this.handlers.onRequest(req, inbound);
    } catch (error) {
      return this.failed(req, inbound, error);
    }
    if (isThenable(result)) {
      if (later) {
        Promise.resolve(result).then(
          (value) => later(this.succeeded(req, inbound, value)),
          (error: unknown) => later(this.failed(req, inbound, error)),
        );
        return undefined;
      }
      return Promise.resolve(result).then(
        (value) => this.succeeded(req, inbound, value),
        (error: unknown) => this.failed(req, inbound, error),
      );
    }
    return this.succeeded(req, inbound, result);
  }

  /** The response to a handler's result; undefined when the request was cancelled or shut down meanwhile. */
  private succeeded(req: JsonRpcRequest, inbound: InboundRequest, result: unknown): JsonRpcResponse | undefined {
    if (this.inflight.get(req.id) !== inbound) return undefined;
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      // Sent as is, it would be a response without a valid "result" that the other side rejects.
      const what = result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result;
      return this.failed(req, inbound, new TypeError(`the handler of "${req.method}" returned ${what}, not a result object`));
    }
    this.inflight.delete(req.id);
    return resultResponse(req.id, result as Record<string, unknown>);
  }

  /** The error response to a handler's failure; undefined when the request was cancelled or shut down meanwhile. */
  private failed(req: JsonRpcRequest, inbound: InboundRequest, error: unknown): JsonRpcResponse | undefined {
    if (this.inflight.get(req.id) !== inbound) return undefined;
    this.inflight.delete(req.id);
    if (error instanceof McpError) return errorResponse(req.id, error);
    this.report(error, { method: req.method, id: req.id });
    return errorResponse(req.id, McpError.internalError());
  }

  private receiveNotification(note: JsonRpcNotification): void {
    this.handlers.onNotificationReceived?.(note);
    if (note.method === 'notifications/cancelled') {
      const cancelled = cancellationOf(note.params);
      if (cancelled !== undefined && !this.abortInbound(cancelled.id, cancelled.reason)) this.handlers.onUnmatched?.(note);
      return;
    } else if (note.method === 'notifications/progress') {
      const token = note.params?.progressToken;
      const entry = typeof token === 'string' || typeof token === 'number' ? this.pending.get(token) : undefined;
      if (entry?.onprogress) {
        const { progress, total, message } = note.params as unknown as ProgressUpdate;
        if (entry.resetOnProgress) this.arm(entry, performance.now());
        try {
          entry.onprogress({ progress, total, message });
        } catch (error) {
          // A caller's callback must not throw into the transport's read loop.
          this.report(error, { method: note.method });
        }
        return;
      }
    }
    if (!this.handlers.onNotification) return;
    try {
      const done = this.handlers.onNotification(note);
      if (done) done.catch((e) => this.report(e, { method: note.method }));
    } catch (error) {
      this.report(error, { method: note.method });
    }
  }

  /**
   * Sets a request's deadline. One timer serves every pending request: it is set for the earliest
   * deadline and, when it fires, times out what is overdue and is set again for the next one. A
   * request with the usual timeout never moves it (its deadline is later than those before it), so
   * sending costs no timer at all.
   */
  private arm(entry: Pending, now: number): void {
    entry.deadline = entry.timeout === Infinity ? Infinity : now + entry.timeout;
    if (entry.deadline < this.sweepAt) this.scheduleSweep(entry.deadline, now);
  }

  private sweepTimer?: NodeJS.Timeout = undefined;
  /** When {@link sweepTimer} fires (`Infinity`: not set). */
  private sweepAt = Infinity;

  private scheduleSweep(at: number, now: number): void {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepAt = at;
    this.sweepTimer = setTimeout(this.sweep, Math.min(Math.max(0, Math.ceil(at - now)), MAX_TIMER_DELAY));
    this.sweepTimer.unref?.();
  }

  /** Times out the overdue requests; sets the timer for the next deadline. */
  private readonly sweep = (): void => {
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    const overdue: Array<[RequestId, Pending]> = [];
    for (const item of this.pending.entries()) {
      // Timers count whole milliseconds: one that fires a fraction early still counts.
      if (item[1].deadline <= now + 1) overdue.push(item);
      else if (item[1].deadline < next) next = item[1].deadline;
    }
    // Earliest deadline first: a sweep that ran late (a busy event loop) finds several overdue.
    if (overdue.length > 1) overdue.sort((a, b) => a[1].deadline - b[1].deadline);
    for (const [id, entry] of overdue) this.cancelOutgoing(id, new McpError(ErrorCode.RequestTimeout, `Request timed out after ${entry.timeout} ms`, { timeout: entry.timeout }));
    if (next !== Infinity && !this.closed) this.scheduleSweep(next, now);
  };

  private cancelOutgoing(id: RequestId, error: McpError): void {
    const entry = this.settle(id);
    if (!entry) return;
    this.notify('notifications/cancelled', { requestId: id, reason: error.message }, entry.relatedRequestId).catch(() => undefined);
    entry.reject(error);
  }

  private settle(id: RequestId): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    entry.cleanup?.();
    return entry;
  }

  private sendResponse(response: JsonRpcErrorResponse | JsonRpcResponse | JsonRpcMessage): void {
    if (this.closed) return;
    const sent = this.transport.send(response);
    if (sent !== DONE) sent.catch((e) => this.report(e, {}));
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    this.drainedResolve?.();
    this.drainedResolve = undefined;
    this.failAll(new ConnectionClosedError(`Connection closed: ${reason}`), new ConnectionClosedError(reason));
  }

  /** Rejects every pending request with `error`. */
  private rejectPending(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  /** Rejects every pending request with `error` and aborts every handler running (with `abortReason`). */
  private failAll(error: Error, abortReason: Error = error): void {
    this.rejectPending(error);
    for (const inbound of this.inflight.values()) inbound.abort(abortReason);
    this.inflight.clear();
  }

  private report(error: unknown, context: { method?: string; id?: RequestId | null }, origin: 'peer' | 'local' = 'local'): void {
    this.handlers.onError?.(error, merge(context, { origin }));
  }
}

/** The request a `notifications/cancelled` names, and why; undefined when it names none readable. */
function cancellationOf(params: Record<string, unknown> | undefined): { id: RequestId; reason: string } | undefined {
  const id = params?.requestId;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { id, reason: typeof params?.reason === 'string' ? params.reason : 'cancelled by the client' };
}

function abortError(signal: AbortSignal): McpError {
  const reason: unknown = signal.reason;
  if (reason instanceof McpError) return reason;
  return new McpError(ErrorCode.RequestTimeout, reason instanceof Error ? reason.message : 'Request cancelled');
}

/**
 * True for what `await` would wait for: a promise, or any object or function with a `then` method.
 *
 * @example
 * const result = handler(input);
 * return isThenable(result) ? Promise.resolve(result).then(finish) : finish(result);
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
