/**
 * What each client of an endpoint has been sent and has not taken yet, over all its connections:
 * the responses still being written, its SSE streams, its WebSockets. A transport asks before an
 * answer goes out (see `outgoing` in backpressure.ts), so one client cannot make the server hold
 * more than `maxUnreadBytes` for it however many requests or sessions it opens.
 *
 * Nothing is kept for a client with nothing in flight: its entry goes with its last output.
 */

/** Something written to a client: how much of it the client's connection has not taken yet. */
export interface Unread {
  readonly bufferedBytes: number;
}

/** The unread output of every client of an endpoint, by client key. For the Hermes packages. */
export class ClientOutput {
  private readonly clients = new Map<string, Set<Unread>>();

  /** Bytes `client` has been sent and has not taken, over all its outputs. */
  unread(client: string): number {
    const outputs = this.clients.get(client);
    if (outputs === undefined) return 0;
    let bytes = 0;
    for (const output of outputs) bytes += output.bufferedBytes;
    return bytes;
  }

  /** Counts `output` as `client`'s until `onClose` calls back (at once, if it is over). */
  track(client: string, output: Unread, onClose: (listener: () => void) => void): void {
    let outputs = this.clients.get(client);
    if (outputs === undefined) this.clients.set(client, (outputs = new Set()));
    outputs.add(output);
    onClose(() => {
      outputs.delete(output);
      if (outputs.size === 0 && this.clients.get(client) === outputs) this.clients.delete(client);
    });
  }

  /** One client's view: what its transports ask, and where they count what they open. */
  of(client: string): ClientView {
    return new ClientView(this, client);
  }
}

/** {@link ClientOutput} for one client. For the Hermes packages. */
export class ClientView {
  constructor(
    private readonly output: ClientOutput,
    /** The client's key (the endpoint's `clientKey`). */
    readonly client: string,
  ) {}

  /** Bytes the client has been sent and has not taken. */
  unread(): number {
    return this.output.unread(this.client);
  }

  /** Counts `output` as the client's until `onClose` calls back. */
  track(output: Unread, onClose: (listener: () => void) => void): void {
    this.output.track(this.client, output, onClose);
  }
}
