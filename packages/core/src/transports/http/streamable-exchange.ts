/**
 * One POST's exchange on a Streamable HTTP session: its requests' answers, and what relates to
 * them, go to its client as plain JSON (the response came first) or as an SSE stream (something
 * came before it), numbered and kept for resumption. Its session's transport is streamable.ts.
 */
import { JsonRpcMessage, RequestId, serialize } from '@hermes-mcp/protocol';
import type { HttpResponse } from './exchange';
import { SseConnection } from './sse';
import { answerTurn } from './answer-turn';
import type { Unread } from '../unread';

/** How an exchange answers its POST. For the Hermes packages. */
export type Decision = { kind: 'json'; body: string; message: JsonRpcMessage | JsonRpcMessage[] } | { kind: 'sse' } | { kind: 'closed' };

/** Where an exchange reports that its stream is over. For the Hermes packages. */
export interface ExchangeOwner {
  /**
   * The stream ended: `delivered` when its last event reached the operating system on a connection
   * that finished normally (nothing left to resume), false when the client may still resume it.
   */
  retire(exchange: Exchange, delivered: boolean): void;
  /** The stream's connection was closed because its client left too much unread. */
  overflowed(exchange: Exchange): void;
  /** Most bytes a stream may hold unread. */
  readonly maxBufferedBytes: number;
}

/** The requests of one POST, and the stream that answers them. For the Hermes packages. */
export class Exchange implements Unread {
  /** How many of its requests still wait for their response. */
  waiting: number;
  /** The SSE connection, once the exchange became a stream (and while connected). */
  connection?: SseConnection;
  /** True once every response went out. */
  done = false;
  /** True while the connection was closed on purpose (SSE polling): events are only stored. */
  private detached = false;
  private decide!: (decision: Decision) => void;
  /** Resolves with how to answer the POST, on the first message. */
  readonly decision: Promise<Decision>;
  private decided = false;
  /** True once the POST's handler took the stream (events no longer wait in the outbox). */
  private attached = false;
  private retired = false;
  private readonly outbox: string[] = [];
  /** Characters waiting in the outbox. */
  private outboxLength = 0;
  /** The connection that carries (or carried) the stream, for what it holds unread. */
  private sink?: SseConnection = undefined;
  /** Runs once the stream is over. */
  private onRetired?: () => void = undefined;
  /** The number of the stream's last event (priming included). */
  seq = 0;
  /** Events written while a resumption reads its replay, to follow it. */
  private held?: string[] = undefined;

  constructor(
    readonly streamId: string,
    /** The ids of its requests, as routed to it. */
    readonly ids: readonly RequestId[],
    /** How many responses it waits for (its distinct ids, and members of a batch that had no readable id). */
    waiting: number,
    /** Whether to send a priming event and `retry` when streaming (MCP 2025-11-25 clients). */
    readonly priming: boolean,
    private readonly owner: ExchangeOwner,
  ) {
    this.waiting = waiting;
    this.decision = new Promise((resolve) => (this.decide = resolve));
  }

  /** True while the POST has not been answered in one way or the other. */
  get undecided(): boolean {
    return !this.decided;
  }

  /** Answers the POST with JSON: `body` is `message`'s text. */
  answerJson(message: JsonRpcMessage | JsonRpcMessage[], body: string = serialize(message)): void {
    this.decided = true;
    this.done = true;
    this.decide({ kind: 'json', body, message });
  }

  /** What the client has not taken of the stream: events waiting to be written, and what its connection holds. */
  get bufferedBytes(): number {
    return this.outboxLength + (this.sink?.bufferedBytes ?? 0);
  }

  /** Runs `listener` once the stream is over (its events written or given up). */
  whenRetired(listener: () => void): void {
    if (this.retired) listener();
    else this.onRetired = listener;
  }

  /**
   * Switches the POST to SSE; events written before the handler attaches the stream wait in an
   * outbox. The handler hears of it when answers leave ({@link answerTurn}): a tool that sends a
   * progress and finishes at once is then answered in one write.
   */
  startStream(): void {
    this.decided = true;
    void answerTurn().then(() => this.decide({ kind: 'sse' }));
  }

  /** Gives up on the POST (the session ended before anything was sent). */
  abandon(): void {
    this.decided = true;
    this.done = true;
    this.decide({ kind: 'closed' });
  }

  /**
   * Answers the POST with its SSE stream. A stream that is already complete (a quick tool that
   * sent progress, say) goes out in one write, and is forgotten once written: the client learns its
   * event ids from that response only, so it has nothing to resume from. Otherwise the connection
   * stays open for what comes.
   */
  respond(response: HttpResponse, headers: Record<string, string>): void {
    if (this.done && !this.detached) {
      this.attached = true;
      const connection = SseConnection.whole(response, headers, this.outbox.join(''));
      this.outbox.length = 0;
      this.outboxLength = 0;
      this.sink = connection;
      // Whether it went out whole is known once the response is over, not as it is ended.
      connection.onClose(() => this.retire(connection.delivered));
      return;
    }
    this.attach(SseConnection.open(response, headers, this.owner.maxBufferedBytes));
  }

  /** Attaches the SSE connection the handler opened, and writes what waited for it. */
  private attach(connection: SseConnection): void {
    this.attached = true;
    this.outboxLength = 0;
    for (const frame of this.outbox.splice(0)) connection.writeFrame(frame);
    if (this.done || this.detached) {
      connection.end();
      if (this.done) this.retire(false);
      return;
    }
    this.watch(connection);
  }

  /** A resumption reads the stream's replay: events written meanwhile are held to follow it. */
  hold(): void {
    this.held ??= [];
  }

  /** Attaches a connection that resumes the stream (`Last-Event-ID`), after its replay was written: what was held follows. */
  reattach(connection: SseConnection): void {
    const held = this.held;
    this.held = undefined;
    if (held) for (const frame of held) connection.writeFrame(frame);
    if (this.done) {
      // The last response went out while the replay was read: the stream is complete.
      connection.end();
      this.retire(false);
      return;
    }
    this.detached = false;
    this.watch(connection);
  }

  /** The resumption failed: what was held is in the event store anyway. */
  unhold(): void {
    this.held = undefined;
  }

  private watch(connection: SseConnection): void {
    this.connection = connection;
    this.sink = connection;
    // A live stream stays resumable after its end: the operating system took the bytes, but a
    // client that dropped the connection meanwhile never read them.
    connection.onClose(() => {
      if (this.connection === connection) {
        this.connection = undefined;
        // Until the client resumes, events are only stored (the event store is bounded; an outbox is not).
        this.detached = true;
      }
      if (connection.overflowed && !this.done) this.owner.overflowed(this);
      if (this.done) this.retire(false);
    });
  }

  /** Closes the connection but not the stream: the client reconnects and resumes. */
  detach(): void {
    this.detached = true;
    const connection = this.connection;
    this.connection = undefined;
    connection?.end();
  }

  /** Writes one event (or queues it until the stream is attached); a detached stream only stores it. */
  write(data: string, id: string): void {
    if (this.held) this.held.push(`id: ${id}\ndata: ${data}\n\n`);
    else if (this.connection) this.connection.write(data, id);
    else if (!this.detached) this.queue(`id: ${id}\ndata: ${data}\n\n`);
  }

  /** Writes the priming event (or queues it). */
  prime(id: string, retryMs: number): void {
    if (this.connection) this.connection.prime(id, retryMs);
    else this.queue(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Writes a `retry` field alone (no event): how long the client waits before reconnecting. */
  retry(retryMs: number): void {
    const frame = `retry: ${retryMs}\n\n`;
    if (this.connection) this.connection.writeFrame(frame);
    else if (!this.detached) this.queue(frame);
  }

  private queue(frame: string): void {
    this.outbox.push(frame);
    this.outboxLength += frame.length;
  }

  /** Ends the stream after the last response. */
  finish(): void {
    this.done = true;
    const connection = this.connection;
    // An open connection retires the stream when it closes; one not attached yet, when the POST's handler answers.
    if (connection && !connection.closed) connection.end();
    else if (this.attached || this.detached) this.retire(false);
  }

  private retire(delivered: boolean): void {
    if (this.retired) return;
    this.retired = true;
    this.sink = undefined;
    this.owner.retire(this, delivered);
    this.onRetired?.();
  }
}
